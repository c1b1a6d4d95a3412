/*
 * The control listener: HTTP/1.1 with JSON bodies on the broker's event
 * loop (its fd and timer API), and the routes of the operations (the
 * README's "Gregor in your tests" lists them).
 *
 * Bounds, as any connection's: at most MAX_CONNS connections (more are
 * closed on accept), a request of at most GR_HTTP_MAX_HEADER +
 * GR_HTTP_MAX_BODY bytes (larger: 413/431, then closed), one request at a
 * time per connection (a pipelined one waits, unread beyond the buffer),
 * closed after IDLE_MS without traffic. No authentication: the listener
 * binds a loopback address unless gregor.control.allow.remote is set.
 */
#include "control/control_int.h"
#include "control/http.h"
#include "control/prom.h"

#include "api/dispatch.h"
#include "api/emulate.h"
#include "cluster/cluster.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "proto/gen/proto_table.h"
#include "telemetry/telemetry.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNS 16
#define IDLE_MS   30000
#define RBUF_CAP  (GR_HTTP_MAX_HEADER + GR_HTTP_MAX_BODY)

struct gr_ctl_conn {
    gr_io_t io;
    gr_control_t *c;
    gr_ctl_conn_t *prev, *next;
    uint8_t *rbuf;
    size_t rlen;
    gr_buf_t out;
    size_t out_off;
    bool close_after;   /* close once out is written */
    bool sent_continue; /* "100 Continue" sent for the request in rbuf */
    bool metrics_only;  /* accepted on the metrics listener: /metrics */
    gr_scrape_t *scrape; /* GET /metrics being written (on a worker) */
    bool scrape_head;    /* it was a HEAD */
    int64_t active_us;
    char peer[INET6_ADDRSTRLEN + 8];
};

static void conn_io(gr_loop_t *loop, gr_io_t *io, uint32_t events);

static void
conn_close(gr_ctl_conn_t *k)
{
    gr_control_t *c = k->c;
    gr_metrics_scrape_forget(k->scrape);
    gr_loop_io_del(c->b->loop, &k->io);
    close(k->io.fd);
    if (k->prev != NULL)
        k->prev->next = k->next;
    else
        c->conns = k->next;
    if (k->next != NULL)
        k->next->prev = k->prev;
    c->nconns--;
    gr_buf_fini(&k->out);
    free(k->rbuf);
    free(k);
}

/* Writes what it can; then closes or waits for the next request. Returns
 * false when k is gone. */
static bool
conn_flush(gr_ctl_conn_t *k)
{
    while (k->out_off < k->out.len) {
        ssize_t n = send(k->io.fd, k->out.ptr + k->out_off,
                         k->out.len - k->out_off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            gr_loop_io_set(k->c->b->loop, &k->io, GR_IO_WRITE);
            return true;
        }
        if (n <= 0) {
            conn_close(k);
            return false;
        }
        k->out_off += (size_t)n;
        k->active_us = gr_mono_us();
    }
    gr_buf_reset(&k->out);
    k->out_off = 0;
    if (k->close_after) {
        shutdown(k->io.fd, SHUT_WR);
        conn_close(k);
        return false;
    }
    gr_loop_io_set(k->c->b->loop, &k->io, GR_IO_READ);
    return true;
}

/* Queues a response: a JSON body followed by a newline, or with ctype
 * (the metrics' text) the body as it is. */
static void
respond_as(gr_ctl_conn_t *k, int status, const gr_buf_t *body,
           const char *ctype)
{
    size_t n = body ? body->len : 0;
    gr_buf_printf(&k->out,
                  "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                  "Content-Length: %zu\r\nCache-Control: no-store\r\n%s\r\n",
                  status, gr_http_reason(status),
                  ctype ? ctype : "application/json", n + (ctype ? 0 : 1),
                  k->close_after ? "Connection: close\r\n" : "");
    if (n > 0)
        gr_buf_append(&k->out, body->ptr, n);
    if (ctype == NULL)
        gr_buf_putc(&k->out, '\n');
}

static void
error_json(gr_buf_t *b, const char *msg)
{
    gr_buf_puts(b, "{\"error\":");
    gr_json_put_str(b, msg, strlen(msg));
    gr_buf_putc(b, '}');
}

static void
respond_error(gr_ctl_conn_t *k, int status, const char *msg)
{
    gr_buf_t b = GR_BUF_INIT;
    error_json(&b, msg);
    respond_as(k, status, &b, NULL);
    gr_buf_fini(&b);
}

/* --- request bodies */

typedef struct rctx {
    gr_control_t *c;
    gr_arena_t *a;
    const gr_http_req_t *hr;
    bool metrics_only; /* the metrics listener: nothing but /metrics */
    bool scrape;       /* GET /metrics: answered once its text is made */
    const char *ctype; /* the answer's type when not JSON */
    char err[256];
} rctx_t;

static bool
bad(rctx_t *r, const char *fmt, const char *what)
{
    snprintf(r->err, sizeof r->err, fmt, what);
    return false;
}

static bool
get_int(rctx_t *r, const gr_json_t *o, const char *key, int64_t lo, int64_t hi,
        int64_t *out)
{
    const gr_json_t *v = gr_json_get(o, key);
    if (v == NULL)
        return true;
    if (v->type != GR_JSON_INT || v->i < lo || v->i > hi) {
        snprintf(r->err, sizeof r->err,
                 "\"%s\" must be an integer in [%lld, %lld]", key,
                 (long long)lo, (long long)hi);
        return false;
    }
    *out = v->i;
    return true;
}

/* A string member, copied (malloc); NULL and true when absent. */
static bool
get_str(rctx_t *r, const gr_json_t *o, const char *key, char **out)
{
    const gr_json_t *v = gr_json_get(o, key);
    if (v == NULL || v->type == GR_JSON_NULL)
        return true;
    if (v->type != GR_JSON_STR || v->slen == 0 || memchr(v->s, 0, v->slen))
        return bad(r, "\"%s\" must be a non-empty string", key);
    if ((*out = strdup(v->s)) == NULL)
        return bad(r, "out of memory (%s)", key);
    return true;
}

static bool
get_api(rctx_t *r, const gr_json_t *o, int16_t *api)
{
    const gr_json_t *v = gr_json_get(o, "api");
    char num[16];
    const char *s;
    if (v == NULL || v->type == GR_JSON_NULL)
        return true;
    if (v->type == GR_JSON_INT) {
        snprintf(num, sizeof num, "%lld", (long long)v->i);
        s = num;
    } else if (v->type == GR_JSON_STR) {
        s = v->s;
    } else {
        return bad(r, "\"%s\" must be an API name or key", "api");
    }
    *api = gr_ctl_api_parse(s);
    if (*api < 0 || gr_api_find(*api) == NULL)
        return bad(r, "unknown or unserved API \"%s\"", s);
    return true;
}

static bool
get_error(rctx_t *r, const gr_json_t *v, gr_kerr_t *err)
{
    char num[16];
    const char *s;
    if (v == NULL)
        return true;
    if (v->type == GR_JSON_INT) {
        snprintf(num, sizeof num, "%lld", (long long)v->i);
        s = num;
    } else if (v->type == GR_JSON_STR) {
        s = v->s;
    } else {
        return bad(r, "\"%s\" must be a Kafka error name or code", "error");
    }
    if (!gr_ctl_error_parse(s, err))
        return bad(r, "unknown Kafka error \"%s\"", s);
    return true;
}

/* Refuses members not in the NULL-terminated allowed list. */
static bool
only(rctx_t *r, const gr_json_t *o, const char *const *allowed)
{
    if (o == NULL || o->type != GR_JSON_OBJ)
        return bad(r, "%s", "expected a JSON object");
    for (int i = 0; i < o->n; i++) {
        bool ok = false;
        for (int k = 0; allowed[k] != NULL && !ok; k++)
            ok = strcmp(o->kids[i].key, allowed[k]) == 0;
        if (!ok)
            return bad(r, "unknown member \"%s\"", o->kids[i].key);
    }
    return true;
}

static bool
get_filter(rctx_t *r, const gr_json_t *o, gr_ctl_filter_t *f)
{
    int64_t part = -1;
    memset(f, 0, sizeof *f);
    f->api = -1;
    f->partition = -1;
    if (!get_api(r, o, &f->api) || !get_str(r, o, "client_id", &f->client_id) ||
        !get_str(r, o, "topic", &f->topic) ||
        !get_str(r, o, "group", &f->group) ||
        !get_int(r, o, "partition", -1, INT32_MAX, &part))
        return false;
    f->partition = (int32_t)part;
    if (part >= 0 && f->topic == NULL)
        return bad(r, "%s", "\"partition\" needs \"topic\"");
    return true;
}

static const char *const fault_keys[] = {
    "api",   "client_id", "topic", "partition",   "group",    "error", "errors",
    "count", "action",    "top",   "throttle_ms", "delay_ms", NULL
};

/* The per-request settings of a fault: from o, over those in base. */
static bool
fault_settings(rctx_t *r, const gr_json_t *o, gr_fault_t *f)
{
    const gr_json_t *v;
    int64_t x;
    if (!get_error(r, gr_json_get(o, "error"), &f->error))
        return false;
    x = f->throttle_ms;
    if (!get_int(r, o, "throttle_ms", 0, 3600000, &x))
        return false;
    f->throttle_ms = (int32_t)x;
    x = f->delay_ms;
    if (!get_int(r, o, "delay_ms", 0, 3600000, &x))
        return false;
    f->delay_ms = (int32_t)x;
    if ((v = gr_json_get(o, "action")) != NULL) {
        if (v->type == GR_JSON_STR && strcmp(v->s, "error") == 0)
            f->action = GR_FAULT_ERROR;
        else if (v->type == GR_JSON_STR && strcmp(v->s, "drop") == 0)
            f->action = GR_FAULT_DROP;
        else if (v->type == GR_JSON_STR && strcmp(v->s, "blackhole") == 0)
            f->action = GR_FAULT_BLACKHOLE;
        else
            return bad(r, "%s",
                       "\"action\" must be \"error\", \"drop\" or "
                       "\"blackhole\"");
    }
    if ((v = gr_json_get(o, "top")) != NULL) {
        if (v->type != GR_JSON_BOOL)
            return bad(r, "%s", "\"top\" must be true or false");
        f->top = v->b;
    }
    return true;
}

static bool
fault_check(rctx_t *r, const gr_fault_t *f)
{
    if (f->action == GR_FAULT_ERROR && f->error != GR_KERR_NONE) {
        if (f->f.api < 0)
            return bad(r, "%s", "an error needs an \"api\"");
        if (!gr_shape_can_error(f->f.api))
            return bad(r, "%s has no place for an error",
                       gr_proto_api(f->f.api)->name);
    }
    return true;
}

/* POST /v1/faults: an object, an array of objects, or an object with
 * "errors" (a stack: one fault of count 1 per element, each a name, a
 * code or an object of per-request settings). */
static int
faults_post(rctx_t *r, const gr_json_t *body, gr_buf_t *o)
{
    gr_fault_t *list = NULL;
    const gr_json_t *items = body;
    int n = 1, made = 0;
    if (body->type == GR_JSON_ARR) {
        n = body->n;
    } else if (body->type != GR_JSON_OBJ) {
        bad(r, "%s", "expected a JSON object or array");
        return 400;
    }
    if (n == 0 || n > 1024) {
        bad(r, "%s", "between 1 and 1024 faults at once");
        return 400;
    }
    for (int i = 0; i < n; i++) {
        const gr_json_t *it =
            body->type == GR_JSON_ARR ? &items->kids[i] : body;
        const gr_json_t *stack;
        gr_fault_t base;
        int64_t count;
        memset(&base, 0, sizeof base);
        if (!only(r, it, fault_keys) || !get_filter(r, it, &base.f) ||
            !fault_settings(r, it, &base))
            goto fail_base;
        count = base.action == GR_FAULT_BLACKHOLE ? -1 : 1;
        if (!get_int(r, it, "count", -1, INT32_MAX, &count))
            goto fail_base;
        if (count == 0) {
            bad(r, "%s", "\"count\" is -1 (until cleared) or more than 0");
            goto fail_base;
        }
        base.count = count;
        if ((stack = gr_json_get(it, "errors")) != NULL) {
            if (stack->type != GR_JSON_ARR || stack->n == 0 ||
                stack->n > 1024 || gr_json_get(it, "error") != NULL) {
                bad(r, "%s",
                    "\"errors\" is a non-empty array (and no \"error\")");
                goto fail_base;
            }
            for (int k = 0; k < stack->n; k++) {
                const gr_json_t *s = &stack->kids[k];
                gr_fault_t *f = calloc(1, sizeof *f);
                static const char *const per[] = { "error",    "throttle_ms",
                                                   "delay_ms", "action",
                                                   "top",      NULL };
                if (f == NULL) {
                    bad(r, "%s", "out of memory");
                    goto fail_base;
                }
                *f = base;
                memset(&f->f, 0, sizeof f->f);
                f->f.api = base.f.api;
                f->f.partition = base.f.partition;
                f->count = 1;
                f->next = list;
                list = f;
                if ((base.f.client_id &&
                     !(f->f.client_id = strdup(base.f.client_id))) ||
                    (base.f.topic && !(f->f.topic = strdup(base.f.topic))) ||
                    (base.f.group && !(f->f.group = strdup(base.f.group)))) {
                    bad(r, "%s", "out of memory");
                    goto fail_base;
                }
                if (s->type == GR_JSON_OBJ) {
                    if (!only(r, s, per) || !fault_settings(r, s, f))
                        goto fail_base;
                } else if (!get_error(r, s, &f->error)) {
                    goto fail_base;
                }
                if (!fault_check(r, f))
                    goto fail_base;
            }
            gr_ctl_filter_fini(&base.f);
            continue;
        }
        if (!fault_check(r, &base))
            goto fail_base;
        {
            gr_fault_t *f = malloc(sizeof *f);
            if (f == NULL) {
                bad(r, "%s", "out of memory");
                goto fail_base;
            }
            *f = base;
            f->next = list;
            list = f;
        }
        continue;
    fail_base:
        gr_ctl_filter_fini(&base.f);
        goto fail;
    }
    /* all valid: add them in order (the list is reversed) */
    {
        gr_fault_t *rev = NULL;
        while (list != NULL) {
            gr_fault_t *f = list;
            list = f->next;
            f->next = rev;
            rev = f;
        }
        list = rev;
    }
    gr_buf_puts(o, "{\"ids\":[");
    while (list != NULL) {
        gr_fault_t *f = list;
        uint64_t id;
        list = f->next;
        id = gr_ctl_fault_add(r->c, f);
        free(f);
        if (id == 0) {
            while (list != NULL) {
                f = list;
                list = f->next;
                gr_ctl_filter_fini(&f->f);
                free(f);
            }
            gr_buf_reset(o);
            bad(r, "%s", "too many faults (4096) or out of memory");
            return 409;
        }
        gr_buf_printf(o, "%s%llu", made++ ? "," : "", (unsigned long long)id);
    }
    gr_buf_puts(o, "]}");
    return 201;
fail:
    while (list != NULL) {
        gr_fault_t *f = list;
        list = f->next;
        gr_ctl_filter_fini(&f->f);
        free(f);
    }
    return 400;
}

static int
delays_post(rctx_t *r, const gr_json_t *body, gr_buf_t *o)
{
    static const char *const keys[] = { "api",       "client_id", "topic",
                                        "partition", "group",     "ms",
                                        NULL };
    gr_delay_t d;
    int64_t ms = -1;
    uint64_t id;
    memset(&d, 0, sizeof d);
    if (!only(r, body, keys) || !get_filter(r, body, &d.f) ||
        !get_int(r, body, "ms", 0, 3600000, &ms)) {
        gr_ctl_filter_fini(&d.f);
        return 400;
    }
    if (ms < 0) {
        gr_ctl_filter_fini(&d.f);
        bad(r, "%s", "\"ms\" is required");
        return 400;
    }
    d.ms = (int32_t)ms;
    if ((id = gr_ctl_delay_add(r->c, &d)) == 0) {
        bad(r, "%s", "too many delays (256) or out of memory");
        return 409;
    }
    gr_buf_printf(o, "{\"id\":%llu}", (unsigned long long)id);
    return 201;
}

static int
caps_post(rctx_t *r, const gr_json_t *body, gr_buf_t *o)
{
    static const char *const keys[] = { "api", "min", "max", NULL };
    int16_t api = -1;
    int64_t min = -2, max = -2;
    if (!only(r, body, keys) || !get_api(r, body, &api) ||
        !get_int(r, body, "min", -2, INT16_MAX, &min) ||
        !get_int(r, body, "max", -2, INT16_MAX, &max))
        return 400;
    if (api < 0) {
        bad(r, "%s", "\"api\" is required");
        return 400;
    }
    if (api == GR_API_API_VERSIONS && max == -1) {
        bad(r, "%s", "ApiVersions cannot be turned off");
        return 400;
    }
    gr_ctl_cap_set(r->c, api, (int16_t)min, (int16_t)max);
    gr_ctl_caps_json(r->c, o);
    return 200;
}

/* {"version":"3.6"} or {"version":null}: the Kafka release emulated. */
static void
emulate_json(gr_control_t *c, gr_buf_t *o)
{
    const gr_api_release_t *rel = c->b->emulate;
    gr_buf_puts(o, "{\"version\":");
    if (rel != NULL)
        gr_json_put_str(o, gr_api_release_name(rel),
                        strlen(gr_api_release_name(rel)));
    else
        gr_buf_puts(o, "null");
    gr_buf_puts(o, "}");
}

/* {"version":"3.6"} emulates that release, {"version":null} none. The
 * clients connected keep the versions they were told: close their
 * connections (/v1/connections/close) for them to ask again. */
static int
emulate_post(rctx_t *r, const gr_json_t *body, gr_buf_t *o)
{
    static const char *const keys[] = { "version", NULL };
    const gr_json_t *v = gr_json_get(body, "version");
    const gr_api_release_t *rel = NULL;
    char known[128];
    if (!only(r, body, keys))
        return 400;
    if (v == NULL || (v->type != GR_JSON_NULL && v->type != GR_JSON_STR)) {
        bad(r, "%s", "\"version\" must be a release (\"3.6\") or null");
        return 400;
    }
    if (v->type == GR_JSON_STR &&
        (memchr(v->s, 0, v->slen) != NULL ||
         (rel = gr_api_release_find(v->s)) == NULL)) {
        gr_api_release_list(known, sizeof known);
        bad(r, "no such Kafka release in the table (%s)", known);
        return 400;
    }
    r->c->b->emulate = rel;
    if (rel != NULL)
        GR_LOG_INFO("control: emulating Apache Kafka %s",
                    gr_api_release_name(rel));
    emulate_json(r->c, o);
    return 200;
}

/* --- the clock (--virtual-clock; core/loop.h says what follows it) */

/* {"virtual":true,"wall_ms":W,"time":"2026-...Z","advanced_ms":A}: the
 * broker's clock, and how far it was advanced since start-up. */
static void
clock_json(gr_control_t *c, gr_buf_t *o, int64_t fired)
{
    const gr_clock_t *k = gr_loop_clock(c->b->loop);
    int64_t wall = gr_clock_wall_ms(k);
    char utc[25];
    gr_utc_format(wall, utc);
    gr_buf_printf(o, "{\"virtual\":%s,\"wall_ms\":%lld,\"time\":\"%s\"",
                  k->virt ? "true" : "false", (long long)wall, utc);
    if (k->virt)
        gr_buf_printf(o, ",\"advanced_ms\":%lld",
                      (long long)(gr_clock_mono_us(k) - k->mono0_us) / 1000);
    if (fired >= 0)
        gr_buf_printf(o, ",\"timers_fired\":%lld", (long long)fired);
    gr_buf_puts(o, "}");
}

/* {"ms":N}: moves the virtual clock N ms ahead. The timers that fall due
 * run here, on the loop, before the answer (a session timeout's member
 * is gone when it arrives); what they start off the loop (log writes,
 * markers) may still be under way. */
static int
clock_advance(rctx_t *r, const gr_json_t *body, gr_buf_t *o)
{
    static const char *const keys[] = { "ms", NULL };
    int64_t ms = -1, fired;
    if (!only(r, body, keys) ||
        !get_int(r, body, "ms", 0, GR_LOOP_ADVANCE_MAX_MS, &ms))
        return 400;
    if (ms < 0) {
        bad(r, "%s", "\"ms\" is required");
        return 400;
    }
    if (!gr_loop_clock(r->c->b->loop)->virt) {
        bad(r, "%s",
            "the broker's clock is real: start it with --virtual-clock "
            "(gregor.virtual.clock=true) to advance it");
        return 409;
    }
    fired = gr_loop_advance(r->c->b->loop, ms);
    GR_LOG_INFO("control: clock advanced %lld ms (%lld timers fired)",
                (long long)ms, (long long)fired);
    clock_json(r->c, o, fired);
    return 200;
}

/* --- routes */

static int
no_body(rctx_t *r)
{
    bad(r, "%s", "this POST needs a JSON body");
    return 400;
}

static bool
path_is(const char *p, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

static bool
method_is(const gr_http_req_t *hr, const char *m)
{
    return strlen(m) == hr->method_len &&
           memcmp(hr->method, m, hr->method_len) == 0;
}

/* The id in "/v1/<what>/<id>": 0 when there is none, -1 when malformed. */
static int64_t
path_id(const char *p, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    int64_t id = 0;
    if (n == k)
        return 0;
    if (n <= k + 1 || memcmp(p, prefix, k) != 0 || p[k] != '/')
        return -1;
    for (size_t i = k + 1; i < n; i++) {
        if (p[i] < '0' || p[i] > '9' || id > INT64_MAX / 10 - 10)
            return -1;
        id = id * 10 + (p[i] - '0');
    }
    return id > 0 ? id : -1;
}

static bool
prefix_is(const char *p, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(p, prefix, k) == 0 && (n == k || p[k] == '/');
}

static void
info_json(gr_control_t *c, gr_buf_t *o)
{
    gr_broker_t *b = c->b;
    gr_buf_printf(o, "{\"gregor\":\"%s\",\"node_id\":%d,\"cluster_id\":",
                  PACKAGE_VERSION, (int)b->node_id);
    gr_json_put_str(o, b->cluster->cluster_id, strlen(b->cluster->cluster_id));
    gr_buf_puts(o, ",\"listeners\":[");
    for (int i = 0; i < b->nlisteners; i++) {
        char l[300];
        snprintf(l, sizeof l, "%s://%s:%d", b->listeners[i].name,
                 b->listeners[i].adv_host, b->listeners[i].port);
        if (i)
            gr_buf_putc(o, ',');
        gr_json_put_str(o, l, strlen(l));
    }
    gr_buf_puts(o, "],\"control\":");
    gr_json_put_str(o, c->url, strlen(c->url));
    gr_buf_puts(o, ",\"metrics\":");
    if (c->metrics_url[0]) {
        gr_buf_putc(o, '"');
        gr_buf_puts(o, c->metrics_url);
        gr_buf_puts(o, "/metrics\"");
    } else {
        gr_buf_putc(o, '"');
        gr_buf_puts(o, c->url);
        gr_buf_puts(o, "/metrics\"");
    }
    gr_buf_printf(o, ",\"connections\":%d,\"requests\":%lld,\"injected\":%lld}",
                  b->nconns, (long long)c->stat_requests,
                  (long long)c->stat_injected);
}

static int
route(const gr_http_req_t *hr, gr_buf_t *o, rctx_t *r)
{
    gr_control_t *c = r->c;
    const char *p = hr->target;
    size_t n = gr_http_path_len(hr->target, hr->target_len);
    bool get = method_is(hr, "GET"), post = method_is(hr, "POST"),
         del = method_is(hr, "DELETE");
    gr_json_t *body = NULL;
    char q[128];
    int16_t api = -1;

    if (post && hr->body_len > 0) {
        body = gr_json_parse(r->a, (const char *)hr->body, hr->body_len, r->err,
                             sizeof r->err);
        if (body == NULL)
            return 400;
    }
    if (path_is(p, n, "/metrics")) {
        if (!get && !method_is(hr, "HEAD"))
            return 405;
        r->scrape = true;
        return 200;
    }
    if (r->metrics_only)
        return 404;
    if (gr_http_query_get(hr->target, hr->target_len, "api", q, sizeof q)) {
        api = gr_ctl_api_parse(q);
        if (api < 0) {
            bad(r, "unknown API \"%s\"", q);
            return 400;
        }
    }
    if (path_is(p, n, "/") || path_is(p, n, "/v1")) {
        if (!get)
            return 405;
        info_json(c, o);
        return 200;
    }
    if (prefix_is(p, n, "/v1/faults")) {
        int64_t id = path_id(p, n, "/v1/faults");
        if (id < 0)
            return 404;
        if (get && id == 0) {
            gr_ctl_faults_json(c, o);
            return 200;
        }
        if (post && id == 0)
            return body ? faults_post(r, body, o) : no_body(r);
        if (del) {
            int m = gr_ctl_faults_clear(c, (uint64_t)id, api);
            if (id > 0 && m == 0)
                return 404;
            gr_buf_printf(o, "{\"removed\":%d}", m);
            return 200;
        }
        return 405;
    }
    if (prefix_is(p, n, "/v1/delays")) {
        int64_t id = path_id(p, n, "/v1/delays");
        if (id < 0)
            return 404;
        if (get && id == 0) {
            gr_ctl_delays_json(c, o);
            return 200;
        }
        if (post && id == 0)
            return body ? delays_post(r, body, o) : no_body(r);
        if (del) {
            int m = gr_ctl_delays_clear(c, (uint64_t)id, api);
            if (id > 0 && m == 0)
                return 404;
            gr_buf_printf(o, "{\"removed\":%d}", m);
            return 200;
        }
        return 405;
    }
    if (path_is(p, n, "/v1/caps")) {
        if (get) {
            gr_ctl_caps_json(c, o);
            return 200;
        }
        if (post)
            return body ? caps_post(r, body, o) : no_body(r);
        if (del) {
            gr_ctl_caps_clear(c);
            gr_ctl_caps_json(c, o);
            return 200;
        }
        return 405;
    }
    if (path_is(p, n, "/v1/emulate")) {
        if (get) {
            emulate_json(c, o);
            return 200;
        }
        if (post)
            return body ? emulate_post(r, body, o) : no_body(r);
        if (del) {
            /* back to the configuration's (gregor.emulate.version) */
            gr_broker_emulate_conf(c->b);
            emulate_json(c, o);
            return 200;
        }
        return 405;
    }
    if (path_is(p, n, "/v1/clock")) {
        if (!get)
            return 405;
        clock_json(c, o, -1);
        return 200;
    }
    if (path_is(p, n, "/v1/clock/advance")) {
        if (!post)
            return 405;
        return body ? clock_advance(r, body, o) : no_body(r);
    }
    if (path_is(p, n, "/v1/connections/close")) {
        if (!post && !del)
            return 405;
        gr_buf_printf(o, "{\"closed\":%d}", gr_ctl_close_connections(c));
        return 200;
    }
    if (path_is(p, n, "/v1/requests")) {
        if (get) {
            uint64_t since = 0;
            long limit = -1;
            char cid[GR_CTL_CLIENT_ID_MAX];
            bool has_cid;
            if (gr_http_query_get(hr->target, hr->target_len, "since", q,
                                  sizeof q))
                since = strtoull(q, NULL, 10);
            if (gr_http_query_get(hr->target, hr->target_len, "limit", q,
                                  sizeof q))
                limit = strtol(q, NULL, 10);
            has_cid = gr_http_query_get(hr->target, hr->target_len, "client_id",
                                        cid, sizeof cid);
            gr_ctl_log_json(c, o, since, limit < 0 ? -1 : (int)limit, api,
                            has_cid ? cid : NULL);
            return 200;
        }
        if (del) {
            gr_ctl_log_clear(c);
            gr_buf_puts(o, "{\"cleared\":true}");
            return 200;
        }
        return 405;
    }
    if (path_is(p, n, "/v1/reset")) {
        int f, d;
        /* the clock stays where it is: the broker's state (groups,
         * transactions, records' times) was made at that time */
        if (!post && !del)
            return 405;
        f = gr_ctl_faults_clear(c, 0, -1);
        d = gr_ctl_delays_clear(c, 0, -1);
        gr_ctl_caps_clear(c);
        gr_broker_emulate_conf(c->b);
        gr_ctl_log_clear(c);
        gr_buf_printf(o, "{\"faults\":%d,\"delays\":%d}", f, d);
        return 200;
    }
    return 404;
}

/* Answers hr into o (JSON, or *ctype's type): the HTTP status. With
 * *scrape set, the answer is GET /metrics's text, to be made by
 * gr_metrics_scrape(). */
static int
answer(gr_control_t *c, const gr_http_req_t *hr, bool metrics_only,
       const char *peer, gr_buf_t *o, const char **ctype, bool *scrape)
{
    gr_arena_t *a = gr_arena_new(16 * 1024);
    rctx_t r;
    int status;
    *ctype = NULL;
    *scrape = false;
    if (a == NULL) {
        error_json(o, "out of memory");
        return 500;
    }
    memset(&r, 0, sizeof r);
    r.c = c;
    r.a = a;
    r.hr = hr;
    r.metrics_only = metrics_only;
    status = route(hr, o, &r);
    if (o->oom) {
        gr_buf_reset(o);
        o->oom = 0;
        status = 500;
        r.ctype = NULL;
        snprintf(r.err, sizeof r.err, "out of memory");
    }
    GR_LOG_DEBUG("control: %.*s %.*s from %s: %d", (int)hr->method_len,
                 hr->method, (int)hr->target_len, hr->target, peer, status);
    if (status >= 400) {
        const char *m = r.err[0] ? r.err : gr_http_reason(status);
        if (status == 400)
            GR_LOG_INFO("control: %.*s %.*s from %s refused: %s",
                        (int)hr->method_len, hr->method, (int)hr->target_len,
                        hr->target, peer, m);
        gr_buf_reset(o);
        error_json(o, m);
        r.ctype = NULL;
    }
    *ctype = r.ctype;
    *scrape = r.scrape && status == 200;
    gr_arena_destroy(a);
    return status;
}

/* Queues an answer; HEAD: the headers of the GET, no body. */
static void
respond_to(gr_ctl_conn_t *k, bool head, int status, const gr_buf_t *o,
           const char *ctype)
{
    if (head && status < 400) {
        size_t n = o->len;
        gr_buf_printf(&k->out,
                      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                      "Content-Length: %zu\r\nCache-Control: no-store\r\n"
                      "%s\r\n",
                      status, gr_http_reason(status),
                      ctype ? ctype : "application/json", n + (ctype ? 0 : 1),
                      k->close_after ? "Connection: close\r\n" : "");
    } else {
        respond_as(k, status, o, ctype);
    }
}

static bool conn_flush(gr_ctl_conn_t *k);
static bool conn_process(gr_ctl_conn_t *k);

/* The text of a GET /metrics is made: the answer goes, and the requests
 * behind it follow. */
static void
conn_scraped(void *arg, int status, gr_buf_t *text)
{
    gr_ctl_conn_t *k = arg;
    bool later = k->scrape != NULL; /* else within gr_metrics_scrape() */
    k->scrape = NULL;
    respond_to(k, k->scrape_head, status, text, GR_PROM_CONTENT_TYPE);
    if (later && conn_flush(k) && k->out.len == 0)
        conn_process(k);
}

static void
handle(gr_ctl_conn_t *k, const gr_http_req_t *hr)
{
    gr_buf_t o = GR_BUF_INIT;
    const char *ctype;
    bool scrape;
    int status =
        answer(k->c, hr, k->metrics_only, k->peer, &o, &ctype, &scrape);
    if (scrape) {
        k->scrape_head = method_is(hr, "HEAD");
        if (gr_metrics_scrape(k->c, conn_scraped, k, &k->scrape) != 0) {
            gr_buf_reset(&o);
            error_json(&o, "out of memory");
            respond_as(k, 500, &o, NULL);
        }
    } else {
        respond_to(k, method_is(hr, "HEAD"), status, &o, ctype);
    }
    gr_buf_fini(&o);
}

void
gr_control_call(gr_broker_t *b, const char *method, const char *target,
                const char *body, gr_control_cb cb, void *arg)
{
    gr_http_req_t hr;
    gr_buf_t out = GR_BUF_INIT;
    const char *ctype;
    bool scrape = false;
    gr_scrape_t *sc;
    int status;
    if (b->control == NULL) {
        error_json(&out, "the control interface is off "
                         "(gregor.control.listener)");
        status = 503;
    } else {
        memset(&hr, 0, sizeof hr);
        hr.method = method;
        hr.method_len = strlen(method);
        hr.target = target;
        hr.target_len = strlen(target);
        hr.minor = 1;
        hr.keep_alive = true;
        hr.headers_done = true;
        hr.body = (const uint8_t *)body;
        hr.body_len = body ? strlen(body) : 0;
        if (hr.body_len > GR_HTTP_MAX_BODY) {
            error_json(&out, "the body is larger than 64 KiB");
            status = 413;
        } else {
            status = answer(b->control, &hr, false, "libgregor", &out, &ctype,
                            &scrape);
        }
    }
    if (scrape && gr_metrics_scrape(b->control, cb, arg, &sc) == 0) {
        gr_buf_fini(&out);
        return; /* cb runs with the text */
    }
    if (scrape) {
        gr_buf_reset(&out);
        error_json(&out, "out of memory");
        status = 500;
    }
    cb(arg, status, &out);
    gr_buf_fini(&out);
}

/* Parses and answers what rbuf holds, one request at a time (the next
 * once the answer is written). Returns false when k is gone. */
static bool
conn_process(gr_ctl_conn_t *k)
{
    for (;;) {
        gr_http_req_t hr;
        long rc;
        if (k->rlen == 0 || k->scrape != NULL)
            return true;
        rc = gr_http_parse(k->rbuf, k->rlen, &hr);
        if (rc < 0) {
            GR_LOG_INFO("control: malformed HTTP request from %s: %d", k->peer,
                        (int)-rc);
            k->close_after = true;
            respond_error(k, (int)-rc, gr_http_reason((int)-rc));
            k->rlen = 0;
            return conn_flush(k);
        }
        if (rc == 0) {
            if (hr.headers_done && hr.expect_continue && !k->sent_continue) {
                k->sent_continue = true;
                gr_buf_puts(&k->out, "HTTP/1.1 100 Continue\r\n\r\n");
                return conn_flush(k);
            }
            return true;
        }
        k->sent_continue = false;
        if (!hr.keep_alive)
            k->close_after = true;
        handle(k, &hr);
        memmove(k->rbuf, k->rbuf + rc, k->rlen - (size_t)rc);
        k->rlen -= (size_t)rc;
        if (k->scrape != NULL)
            return true; /* answered when its text is made */
        /* written at once, go on with the next; else when writable */
        if (!conn_flush(k))
            return false;
        if (k->out.len > 0)
            return true;
    }
}

static void
conn_io(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    gr_ctl_conn_t *k = io->data;
    (void)loop;
    if (events & GR_IO_WRITE) {
        if (!conn_flush(k))
            return;
        if (k->out.len == 0 && !conn_process(k))
            return;
    }
    if (!(events & (GR_IO_READ | GR_IO_ERROR | GR_IO_RDHUP)) || k->out.len > 0)
        return;
    for (;;) {
        ssize_t n;
        if (k->rlen == RBUF_CAP) {
            /* full: the parser has refused what does not fit */
            if (!conn_process(k))
                return;
            if (k->rlen == RBUF_CAP) {
                conn_close(k);
                return;
            }
            return;
        }
        n = read(k->io.fd, k->rbuf + k->rlen, RBUF_CAP - k->rlen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            conn_close(k);
            return;
        }
        k->rlen += (size_t)n;
        k->active_us = gr_mono_us();
        if (!conn_process(k) || k->out.len > 0)
            return;
    }
}

static void
accept_io(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    gr_control_t *c = io->data;
    (void)loop;
    (void)events;
    for (int i = 0; i < 16; i++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        gr_ctl_conn_t *k;
        int fd = accept4(io->fd, (struct sockaddr *)&ss, &sl,
                         SOCK_NONBLOCK | SOCK_CLOEXEC),
            one = 1;
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                GR_LOG_WARN("control: accept: %s", strerror(errno));
            return;
        }
        if (c->nconns >= MAX_CONNS) {
            GR_LOG_WARN("control: connection refused: %d connections open",
                        c->nconns);
            close(fd);
            continue;
        }
        k = calloc(1, sizeof *k);
        if (k == NULL || (k->rbuf = malloc(RBUF_CAP)) == NULL) {
            free(k);
            close(fd);
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (ss.ss_family == AF_INET) {
            char h[INET_ADDRSTRLEN];
            struct sockaddr_in *in = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &in->sin_addr, h, sizeof h);
            snprintf(k->peer, sizeof k->peer, "%s:%d", h, ntohs(in->sin_port));
        } else if (ss.ss_family == AF_INET6) {
            char h[INET6_ADDRSTRLEN];
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &in6->sin6_addr, h, sizeof h);
            snprintf(k->peer, sizeof k->peer, "[%s]:%d", h,
                     ntohs(in6->sin6_port));
        }
        k->c = c;
        k->metrics_only = io == &c->mio;
        k->io.fd = fd;
        k->io.cb = conn_io;
        k->io.data = k;
        k->active_us = gr_mono_us();
        if (gr_loop_io_add(c->b->loop, &k->io, GR_IO_READ) != 0) {
            free(k->rbuf);
            free(k);
            close(fd);
            continue;
        }
        k->next = c->conns;
        if (c->conns != NULL)
            c->conns->prev = k;
        c->conns = k;
        c->nconns++;
    }
}

static void
idle_sweep(gr_loop_t *loop, gr_timer_t *t)
{
    gr_control_t *c = t->data;
    int64_t now = gr_mono_us();
    for (gr_ctl_conn_t *k = c->conns, *next; k != NULL; k = next) {
        next = k->next;
        if (now - k->active_us >= (int64_t)IDLE_MS * 1000) {
            GR_LOG_DEBUG("control: closing idle connection %s", k->peer);
            conn_close(k);
        }
    }
    gr_timer_start(loop, t, IDLE_MS / 4);
}

/* --- the listener */

static bool
is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >>
                24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a =
            &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(a))
            return true;
        return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
    }
    return false;
}

/* "http://host:port[/]" into host and port. */
static int
parse_url(const char *url, char *host, size_t hsz, char *port, size_t psz)
{
    const char *h, *colon, *end;
    if (strncmp(url, "http://", 7) != 0)
        return -1;
    h = url + 7;
    end = h + strlen(h);
    if (end > h && end[-1] == '/')
        end--;
    if (*h == '[') {
        const char *rb = memchr(h, ']', (size_t)(end - h));
        if (rb == NULL || rb + 1 >= end || rb[1] != ':')
            return -1;
        if ((size_t)(rb - h - 1) >= hsz || rb - h - 1 == 0)
            return -1;
        memcpy(host, h + 1, (size_t)(rb - h - 1));
        host[rb - h - 1] = '\0';
        colon = rb + 1;
    } else {
        colon = NULL;
        for (const char *q = h; q < end; q++)
            if (*q == ':')
                colon = q;
        if (colon == NULL || colon == h || (size_t)(colon - h) >= hsz)
            return -1;
        memcpy(host, h, (size_t)(colon - h));
        host[colon - h] = '\0';
    }
    if (end - colon - 1 <= 0 || (size_t)(end - colon - 1) >= psz)
        return -1;
    memcpy(port, colon + 1, (size_t)(end - colon - 1));
    port[end - colon - 1] = '\0';
    for (const char *q = port; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    return atoi(port) <= 65535 ? 0 : -1;
}

/* Binds url (setting: the key it came from, for messages) on io; its
 * URL with the port bound goes to shown_url. A non-loopback host needs
 * allow_remote. */
static int
listen_on(gr_control_t *c, gr_io_t *io, const char *setting, const char *url,
          bool allow_remote, char *shown_url, size_t shown_sz)
{
    char host[256], port[8], shown[INET6_ADDRSTRLEN];
    struct addrinfo hints, *res = NULL;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    int fd = -1, one = 1, rc;

    if (parse_url(url, host, sizeof host, port, sizeof port) != 0) {
        GR_LOG_ERROR("%s=%s: expected http://host:port", setting, url);
        return -1;
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if ((rc = getaddrinfo(host, port, &hints, &res)) != 0 || res == NULL) {
        GR_LOG_ERROR("%s=%s: cannot resolve %s: %s", setting, url, host,
                     gai_strerror(rc));
        return -1;
    }
    if (!is_loopback(res->ai_addr) && !allow_remote) {
        GR_LOG_ERROR("%s=%s: %s is not a loopback "
                     "address; the control interface has no authentication, "
                     "so it listens on another address only with "
                     "gregor.control.allow.remote=true",
                     setting, url, host);
        freeaddrinfo(res);
        return -1;
    }
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        GR_LOG_ERROR("%s=%s: %s", setting, url, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &in6->sin6_addr, shown, sizeof shown);
        snprintf(shown_url, shown_sz, "http://[%s]:%d", shown,
                 ntohs(in6->sin6_port));
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &in->sin_addr, shown, sizeof shown);
        snprintf(shown_url, shown_sz, "http://%s:%d", shown,
                 ntohs(in->sin_port));
    }
    io->fd = fd;
    io->cb = accept_io;
    io->data = c;
    if (gr_loop_io_add(c->b->loop, io, GR_IO_READ) != 0) {
        close(fd);
        io->fd = -1;
        return -1;
    }
    if (!is_loopback((struct sockaddr *)&ss) && io == &c->lio)
        GR_LOG_WARN("control listener on %s, not a loopback address: anyone "
                    "who reaches it can inject faults (no authentication)",
                    shown_url);
    return 0;
}

static void
listener_close(gr_control_t *c, gr_io_t *io)
{
    if (io->fd >= 0) {
        gr_loop_io_del(c->b->loop, io);
        close(io->fd);
        io->fd = -1;
    }
}

int
gr_control_open(gr_broker_t *b)
{
    const char *url = gr_conf_str(b->conf, GR_CONF_GREGOR_CONTROL_LISTENER);
    const char *murl = gr_conf_str(b->conf, GR_CONF_GREGOR_METRICS_LISTENER);
    gr_control_t *c;
    if (url != NULL && *url == '\0')
        url = NULL;
    if (murl != NULL && *murl == '\0')
        murl = NULL;
    if (url == NULL && murl == NULL)
        return 0;
    if ((c = calloc(1, sizeof *c)) == NULL)
        return -1;
    c->b = b;
    c->lio.fd = -1;
    c->mio.fd = -1;
    c->log = calloc(GR_CTL_LOG_SIZE, sizeof *c->log);
    if (c->log == NULL || gr_metrics_init(c) != 0) {
        free(c->log);
        free(c);
        return -1;
    }
    for (int i = 0; i < GR_API__MAX; i++)
        c->caps[i][0] = c->caps[i][1] = -2;
    if ((url != NULL &&
         listen_on(c, &c->lio, "gregor.control.listener", url,
                   gr_conf_bool(b->conf, GR_CONF_GREGOR_CONTROL_ALLOW_REMOTE),
                   c->url, sizeof c->url) != 0) ||
        /* read-only: any address, as Kafka's JMX exporter binds */
        (murl != NULL &&
         listen_on(c, &c->mio, "gregor.metrics.listener", murl, true,
                   c->metrics_url, sizeof c->metrics_url) != 0)) {
        listener_close(c, &c->lio);
        gr_metrics_fini(c);
        free(c->log);
        free(c);
        return -1;
    }
    gr_timer_init(&c->idle_timer, idle_sweep, c);
    gr_timer_start(b->loop, &c->idle_timer, IDLE_MS / 4);
    b->control = c;
    b->request_hook = gr_ctl_request;
    /* what clients push (KIP-714) shows in the metrics */
    gr_telemetry_keep_latest(b->telemetry, true);
    if (url != NULL)
        GR_LOG_INFO("control listener on %s (no authentication)", c->url);
    if (murl != NULL)
        GR_LOG_INFO("metrics listener on %s/metrics", c->metrics_url);
    return 0;
}

const char *
gr_control_url(const gr_broker_t *b)
{
    return b->control != NULL && b->control->url[0] ? b->control->url : NULL;
}

const char *
gr_control_metrics_url(const gr_broker_t *b)
{
    return b->control != NULL && b->control->metrics_url[0]
               ? b->control->metrics_url
               : NULL;
}

void
gr_control_close(gr_broker_t *b)
{
    gr_control_t *c = b->control;
    if (c == NULL)
        return;
    b->request_hook = NULL;
    b->api_caps = NULL;
    /* requests still held (blackholed, delayed) go with their connections */
    for (gr_ctl_hold_t *h = c->holds, *next; h != NULL; h = next) {
        next = h->next;
        gr_conn_close(h->req->conn, "control interface closing");
    }
    while (c->conns != NULL)
        conn_close(c->conns);
    if (gr_timer_armed(&c->idle_timer))
        gr_timer_stop(b->loop, &c->idle_timer);
    listener_close(c, &c->lio);
    listener_close(c, &c->mio);
    gr_telemetry_keep_latest(b->telemetry, false);
    gr_ctl_faults_clear(c, 0, -1);
    gr_ctl_delays_clear(c, 0, -1);
    gr_metrics_fini(c);
    free(c->log);
    free(c);
    b->control = NULL;
}
