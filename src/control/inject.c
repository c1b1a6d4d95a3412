/*
 * Faults, delays, version caps and the request log: the state the control
 * routes (control.c) change and the two hooks that apply it.
 *
 * Faults are tried in the order they were added; the first whose filter
 * a request passes is applied and counts one request (removed when its
 * count runs out), so several faults for one API form a stack as
 * librdkafka's mock pushes them (rd_kafka_mock_push_request_errors), a
 * fault with error NONE letting one request through. Delays are standing
 * (until cleared): the largest that applies sets how long after its
 * arrival a request's response may leave, as the mock's broker RTT; a
 * fault's own delay_ms is added (the mock's error RTTs).
 *
 * The log is a ring of GR_CTL_LOG_SIZE entries, written when a request
 * is decoded and completed when it is answered (its first error,
 * latency, throttle and delay).
 */
#include "control/control_int.h"

#include "api/dispatch.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "proto/gen/proto_table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FAULTS 4096
#define MAX_DELAYS 256

/* --- names */

static const struct {
    const char *name;
    int16_t code;
} errors[] = {
#define X(name, code, retriable, msg) { #name, (code) },
#include "errors.def"
#undef X
};

bool
gr_ctl_error_parse(const char *s, gr_kerr_t *out)
{
    char *end;
    long v;
    if (s == NULL || *s == '\0')
        return false;
    v = strtol(s, &end, 10);
    if (*end == '\0') {
        if (v < INT16_MIN || v > INT16_MAX)
            return false;
        *out = (gr_kerr_t)v;
        return true;
    }
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (strcasecmp(errors[i].name, s) == 0) {
            *out = errors[i].code;
            return true;
        }
    return false;
}

/* a and b equal, ignoring case and '_' ("ListOffsets", "list_offsets") */
static bool
name_eq(const char *a, const char *b)
{
    for (;;) {
        while (*a == '_')
            a++;
        while (*b == '_')
            b++;
        if (*a == '\0' || *b == '\0')
            return *a == *b;
        if ((*a | 0x20) != (*b | 0x20))
            return false;
        a++;
        b++;
    }
}

int16_t
gr_ctl_api_parse(const char *s)
{
    const gr_proto_api_t *api;
    char *end;
    long v;
    if (s == NULL || *s == '\0')
        return -1;
    v = strtol(s, &end, 10);
    if (*end == '\0')
        return v >= 0 && v < GR_API__MAX && gr_proto_api((int)v) ? (int16_t)v
                                                                 : -1;
    for (int i = 0; (api = gr_proto_api_at(i)) != NULL; i++)
        if (name_eq(api->name, s))
            return api->key;
    return -1;
}

/* --- filters */

void
gr_ctl_filter_fini(gr_ctl_filter_t *f)
{
    free(f->client_id);
    free(f->topic);
    free(f->group);
    f->client_id = f->topic = f->group = NULL;
}

bool
gr_ctl_filter_match(const gr_ctl_filter_t *f, gr_req_t *req)
{
    if (f->api >= 0 && f->api != req->hdr.api_key)
        return false;
    if (f->client_id != NULL &&
        !gr_str_eq_cstr(&req->hdr.client_id, f->client_id))
        return false;
    if (f->topic != NULL && !gr_shape_has_topic(req, f->topic, f->partition))
        return false;
    if (f->group != NULL && !gr_shape_has_group(req, f->group))
        return false;
    return true;
}

/* --- faults and delays */

static void
fault_free(gr_fault_t *f)
{
    gr_ctl_filter_fini(&f->f);
    free(f);
}

uint64_t
gr_ctl_fault_add(gr_control_t *c, gr_fault_t *f)
{
    gr_fault_t *n = malloc(sizeof *n), **pp = &c->faults;
    int cnt = 0;
    while (*pp != NULL) {
        pp = &(*pp)->next;
        cnt++;
    }
    if (n == NULL || cnt >= MAX_FAULTS) {
        free(n);
        gr_ctl_filter_fini(&f->f);
        return 0;
    }
    *n = *f;
    memset(&f->f, 0, sizeof f->f);
    n->id = ++c->next_id;
    n->hits = 0;
    n->next = NULL;
    *pp = n;
    return n->id;
}

uint64_t
gr_ctl_delay_add(gr_control_t *c, gr_delay_t *d)
{
    gr_delay_t *n = malloc(sizeof *n), **pp = &c->delays;
    int cnt = 0;
    while (*pp != NULL) {
        pp = &(*pp)->next;
        cnt++;
    }
    if (n == NULL || cnt >= MAX_DELAYS) {
        free(n);
        gr_ctl_filter_fini(&d->f);
        return 0;
    }
    *n = *d;
    memset(&d->f, 0, sizeof d->f);
    n->id = ++c->next_id;
    n->hits = 0;
    n->next = NULL;
    *pp = n;
    return n->id;
}

static void
hold_link(gr_control_t *c, gr_ctl_hold_t *h)
{
    h->prev = NULL;
    h->next = c->holds;
    if (c->holds != NULL)
        c->holds->prev = h;
    c->holds = h;
    h->linked = true;
}

static void
hold_unlink(gr_control_t *c, gr_ctl_hold_t *h)
{
    if (!h->linked)
        return;
    if (h->prev != NULL)
        h->prev->next = h->next;
    else
        c->holds = h->next;
    if (h->next != NULL)
        h->next->prev = h->prev;
    h->prev = h->next = NULL;
    h->linked = false;
}

/* Closes the connections of requests blackholed by fault id (0: any). */
static void
release_blackholed(gr_control_t *c, uint64_t id)
{
    gr_ctl_hold_t *h = c->holds, *next;
    for (; h != NULL; h = next) {
        next = h->next;
        if (!h->blackholed || (id != 0 && h->fault_id != id))
            continue;
        /* the abort callback unlinks it; the next one stays linked */
        gr_conn_close(h->req->conn, "control: blackhole cleared");
    }
}

int
gr_ctl_faults_clear(gr_control_t *c, uint64_t id, int16_t api)
{
    gr_fault_t **pp = &c->faults;
    int n = 0;
    while (*pp != NULL) {
        gr_fault_t *f = *pp;
        if ((id != 0 && f->id != id) || (api >= 0 && f->f.api != api)) {
            pp = &f->next;
            continue;
        }
        *pp = f->next;
        if (f->action == GR_FAULT_BLACKHOLE)
            release_blackholed(c, f->id);
        fault_free(f);
        n++;
    }
    return n;
}

int
gr_ctl_delays_clear(gr_control_t *c, uint64_t id, int16_t api)
{
    gr_delay_t **pp = &c->delays;
    int n = 0;
    while (*pp != NULL) {
        gr_delay_t *d = *pp;
        if ((id != 0 && d->id != id) || (api >= 0 && d->f.api != api)) {
            pp = &d->next;
            continue;
        }
        *pp = d->next;
        gr_ctl_filter_fini(&d->f);
        free(d);
        n++;
    }
    return n;
}

/* --- caps */

int
gr_ctl_cap_set(gr_control_t *c, int16_t api, int16_t min, int16_t max)
{
    if (api < 0 || api >= GR_API__MAX || gr_api_find(api) == NULL)
        return -1;
    c->caps[api][0] = min;
    c->caps[api][1] = max;
    c->capped = true;
    c->b->api_caps = (const int16_t(*)[2])c->caps;
    return 0;
}

void
gr_ctl_caps_clear(gr_control_t *c)
{
    for (int i = 0; i < GR_API__MAX; i++)
        c->caps[i][0] = c->caps[i][1] = -2;
    c->capped = false;
    c->b->api_caps = NULL;
}

int
gr_ctl_close_connections(gr_control_t *c)
{
    return gr_conn_close_clients(c->b, "closed by the control interface");
}

/* --- the log */

static gr_ctl_logent_t *
log_find(gr_control_t *c, uint64_t seq)
{
    gr_ctl_logent_t *e;
    if (c->log == NULL || seq == 0)
        return NULL;
    e = &c->log[seq % GR_CTL_LOG_SIZE];
    return e->seq == seq ? e : NULL;
}

static uint64_t
log_new(gr_control_t *c, gr_req_t *req)
{
    gr_ctl_logent_t *e;
    int32_t n = req->hdr.client_id.len;
    if (c->log == NULL)
        return 0;
    e = &c->log[++c->log_seq % GR_CTL_LOG_SIZE];
    memset(e, 0, sizeof *e);
    e->seq = c->log_seq;
    e->time_ms = gr_wall_ms();
    e->conn_id = gr_req_conn_id(req);
    e->api = req->hdr.api_key;
    e->version = req->version;
    e->corr = req->hdr.correlation_id;
    e->latency_us = -1;
    if (n > 0) {
        if (n >= GR_CTL_CLIENT_ID_MAX)
            n = GR_CTL_CLIENT_ID_MAX - 1;
        memcpy(e->client_id, req->hdr.client_id.ptr, (size_t)n);
    }
    return e->seq;
}

void
gr_ctl_log_clear(gr_control_t *c)
{
    if (c->log != NULL)
        memset(c->log, 0, GR_CTL_LOG_SIZE * sizeof *c->log);
}

/* --- the hooks */

static void
hold_abort(gr_req_t *req)
{
    gr_ctl_hold_t *h = req->owner;
    gr_ctl_logent_t *e = log_find(h->ctl, h->seq);
    if (gr_timer_armed(&h->timer))
        gr_timer_stop(h->ctl->b->loop, &h->timer);
    hold_unlink(h->ctl, h);
    if (e != NULL && e->outcome != GR_OUT_BLACKHOLED)
        e->outcome = GR_OUT_NO_REPLY;
}

static void
hold_fire(gr_loop_t *loop, gr_timer_t *t)
{
    gr_ctl_hold_t *h = t->data;
    gr_ctl_logent_t *e = log_find(h->ctl, h->seq);
    (void)loop;
    hold_unlink(h->ctl, h);
    if (e != NULL)
        e->latency_us = gr_mono_us() - h->req->start_us;
    gr_req_release(h->req); /* written: h may be gone after this */
}

static int
reply_hook(gr_req_t *req)
{
    gr_ctl_hold_t *h = req->hook_arg;
    gr_control_t *c = h->ctl;
    gr_ctl_logent_t *e = log_find(c, h->seq);
    int64_t now = gr_mono_us(), wait_ms;
    if (h->released)
        return 0;
    h->released = true;
    if (h->meta_error)
        gr_shape_metadata_error(req, h->error, h->topic, h->partition);
    if (h->throttle_ms > 0)
        gr_shape_set_throttle(req, h->throttle_ms);
    if (e != NULL) {
        e->error = gr_shape_first_error(req);
        if (e->outcome == GR_OUT_PENDING || e->outcome == GR_OUT_NO_REPLY)
            e->outcome = GR_OUT_HANDLED;
        e->latency_us = now - req->start_us;
        e->throttle_ms = h->throttle_ms;
        e->delay_ms = h->delay_ms;
    }
    wait_ms = (req->start_us + (int64_t)h->delay_ms * 1000 - now + 999) / 1000;
    /* counted now; its latency is when it will be written */
    gr_metrics_reply(c, req,
                     h->delay_ms > 0 && wait_ms > 0 ? wait_ms * 1000 : 0);
    if (h->delay_ms <= 0 || wait_ms <= 0)
        return 0;
    /* held: the connection stays muted; a close aborts the wait */
    gr_req_defer(req, hold_abort, h);
    gr_timer_start(c->b->loop, &h->timer, wait_ms);
    hold_link(c, h);
    return 1;
}

static gr_fault_t *
fault_take(gr_control_t *c, gr_req_t *req, gr_fault_t *copy)
{
    for (gr_fault_t **pp = &c->faults; *pp != NULL; pp = &(*pp)->next) {
        gr_fault_t *f = *pp;
        if (!gr_ctl_filter_match(&f->f, req))
            continue;
        f->hits++;
        *copy = *f;
        if (f->count > 0 && --f->count == 0) {
            /* used up: the copy keeps what the request needs (strings
             * still owned by f until it is freed below) */
            *pp = f->next;
            copy->f.topic = f->f.topic ? gr_arena_strndup(req->a, f->f.topic,
                                                          strlen(f->f.topic))
                                       : NULL;
            fault_free(f);
        } else if (copy->f.topic != NULL) {
            copy->f.topic =
                gr_arena_strndup(req->a, f->f.topic, strlen(f->f.topic));
        }
        copy->f.client_id = copy->f.group = NULL;
        return copy;
    }
    return NULL;
}

int
gr_ctl_request(gr_req_t *req)
{
    gr_control_t *c = req->broker->control;
    gr_ctl_hold_t *h = gr_arena_zalloc(req->a, sizeof *h);
    gr_fault_t fcopy, *f;
    gr_ctl_logent_t *e;
    int32_t delay = 0;

    if (h == NULL)
        return 0; /* out of memory: the request goes as if unseen */
    c->stat_requests++;
    gr_metrics_request(c, req);
    h->ctl = c;
    h->req = req;
    h->seq = log_new(c, req);
    h->partition = -1;
    gr_timer_init(&h->timer, hold_fire, h);
    e = log_find(c, h->seq);
    for (gr_delay_t *d = c->delays; d != NULL; d = d->next)
        if (gr_ctl_filter_match(&d->f, req)) {
            d->hits++;
            if (d->ms > delay)
                delay = d->ms;
        }
    h->delay_ms = delay;
    req->reply_hook = reply_hook;
    req->hook_arg = h;
    if (req->hdr.api_key == GR_API_PRODUCE &&
        ((const gr_produce_request_t *)req->body)->acks == 0 && e != NULL)
        e->outcome = GR_OUT_NO_REPLY; /* acks=0: no answer to follow */
    if ((f = fault_take(c, req, &fcopy)) == NULL)
        return 0;
    c->stat_injected++;
    h->fault_id = f->id;
    h->throttle_ms = f->throttle_ms;
    h->delay_ms += f->delay_ms;
    if (e != NULL)
        e->fault_id = f->id;
    switch (f->action) {
    case GR_FAULT_DROP:
        GR_LOG_INFO("control: fault %llu closes connection %s at %s v%d",
                    (unsigned long long)f->id, gr_req_peer(req), req->api->name,
                    req->version);
        if (e != NULL)
            e->outcome = GR_OUT_DROPPED;
        req->reply_hook = NULL;
        gr_req_close(req, "control: fault");
        return 1;
    case GR_FAULT_BLACKHOLE:
        GR_LOG_INFO("control: fault %llu blackholes %s v%d from %s",
                    (unsigned long long)f->id, req->api->name, req->version,
                    gr_req_peer(req));
        if (e != NULL)
            e->outcome = GR_OUT_BLACKHOLED;
        h->blackholed = true;
        req->reply_hook = NULL;
        gr_req_defer(req, hold_abort, h);
        hold_link(c, h);
        return 1;
    case GR_FAULT_ERROR:
        break;
    }
    if (f->error == GR_KERR_NONE)
        return 0; /* handled as usual, with the fault's throttle and delay */
    if (req->hdr.api_key == GR_API_METADATA) {
        h->meta_error = true;
        h->error = f->error;
        if (e != NULL)
            e->outcome = GR_OUT_INJECTED;
        h->topic = f->f.topic;
        h->partition = f->f.partition;
        return 0; /* the handler answers; the reply hook sets the errors */
    }
    if (req->hdr.api_key == GR_API_PRODUCE &&
        ((const gr_produce_request_t *)req->body)->acks == 0) {
        /* Kafka closes the connection of an acks=0 producer whose
         * request failed: no answer can carry the error */
        GR_LOG_INFO("control: fault %llu (%s) on an acks=0 Produce from %s: "
                    "closing the connection, as Kafka does",
                    (unsigned long long)f->id, gr_kerr_name(f->error),
                    gr_req_peer(req));
        if (e != NULL)
            e->outcome = GR_OUT_DROPPED;
        req->reply_hook = NULL;
        gr_req_close(req, "control: fault on acks=0");
        return 1;
    }
    if (gr_shape_error_response(req, f->error, f->top) != 0) {
        GR_LOG_WARN("control: fault %llu: %s v%d has no place for error %s; "
                    "handled as usual",
                    (unsigned long long)f->id, req->api->name, req->version,
                    gr_kerr_name(f->error));
        req->api->response.init(req->resp); /* whatever was filled */
        return 0;
    }
    if (e != NULL)
        e->outcome = GR_OUT_INJECTED;
    GR_LOG_DEBUG("control: fault %llu answers %s v%d from %s with %s",
                 (unsigned long long)f->id, req->api->name, req->version,
                 gr_req_peer(req), gr_kerr_name(f->error));
    gr_req_reply(req);
    return 1;
}

void
gr_ctl_holds_release(gr_control_t *c)
{
    release_blackholed(c, 0);
}

/* --- JSON */

static void
put_cstr(gr_buf_t *o, const char *s)
{
    if (s == NULL)
        gr_buf_puts(o, "null");
    else
        gr_json_put_str(o, s, strlen(s));
}

static const char *
api_name(int16_t key)
{
    const gr_proto_api_t *a = key >= 0 ? gr_proto_api(key) : NULL;
    return a ? a->name : NULL;
}

static void
filter_json(gr_buf_t *o, const gr_ctl_filter_t *f)
{
    gr_buf_puts(o, "\"api\":");
    put_cstr(o, api_name(f->api));
    gr_buf_puts(o, ",\"client_id\":");
    put_cstr(o, f->client_id);
    gr_buf_puts(o, ",\"topic\":");
    put_cstr(o, f->topic);
    gr_buf_printf(o, ",\"partition\":%d,\"group\":", (int)f->partition);
    put_cstr(o, f->group);
}

static const char *const action_names[] = { "error", "drop", "blackhole" };

void
gr_ctl_faults_json(gr_control_t *c, gr_buf_t *o)
{
    gr_buf_puts(o, "{\"faults\":[");
    for (gr_fault_t *f = c->faults; f != NULL; f = f->next) {
        gr_buf_printf(o, "%s{\"id\":%llu,", f == c->faults ? "" : ",",
                      (unsigned long long)f->id);
        filter_json(o, &f->f);
        gr_buf_printf(o,
                      ",\"action\":\"%s\",\"error\":", action_names[f->action]);
        put_cstr(o, gr_kerr_name(f->error));
        gr_buf_printf(o,
                      ",\"error_code\":%d,\"top\":%s,\"throttle_ms\":%d,"
                      "\"delay_ms\":%d,\"count\":%lld,\"hits\":%lld}",
                      (int)f->error, f->top ? "true" : "false",
                      (int)f->throttle_ms, (int)f->delay_ms,
                      (long long)f->count, (long long)f->hits);
    }
    gr_buf_puts(o, "]}");
}

void
gr_ctl_delays_json(gr_control_t *c, gr_buf_t *o)
{
    gr_buf_puts(o, "{\"delays\":[");
    for (gr_delay_t *d = c->delays; d != NULL; d = d->next) {
        gr_buf_printf(o, "%s{\"id\":%llu,", d == c->delays ? "" : ",",
                      (unsigned long long)d->id);
        filter_json(o, &d->f);
        gr_buf_printf(o, ",\"ms\":%d,\"hits\":%lld}", (int)d->ms,
                      (long long)d->hits);
    }
    gr_buf_puts(o, "]}");
}

void
gr_ctl_caps_json(gr_control_t *c, gr_buf_t *o)
{
    int cnt;
    const gr_api_entry_t *tab = gr_api_table(&cnt);
    bool first = true;
    gr_buf_puts(o, "{\"apis\":[");
    for (int i = 0; i < cnt; i++) {
        int16_t min, max;
        gr_api_served(c->b, &tab[i], &min, &max);
        gr_buf_printf(o, "%s{\"api\":", first ? "" : ",");
        put_cstr(o, api_name(tab[i].key));
        gr_buf_printf(o,
                      ",\"api_key\":%d,\"min\":%d,\"max\":%d,\"served\":%s,"
                      "\"capped\":%s}",
                      tab[i].key, min, max, max >= min ? "true" : "false",
                      c->caps[tab[i].key][0] != -2 ||
                              c->caps[tab[i].key][1] != -2
                          ? "true"
                          : "false");
        first = false;
    }
    gr_buf_puts(o, "]}");
}

static const char *const outcome_names[] = { "pending",    "handled",
                                             "injected",   "dropped",
                                             "blackholed", "no_reply" };

void
gr_ctl_log_json(gr_control_t *c, gr_buf_t *o, uint64_t since, int limit,
                int16_t api, const char *client_id)
{
    uint64_t first = c->log_seq > GR_CTL_LOG_SIZE - 1
                         ? c->log_seq - (GR_CTL_LOG_SIZE - 1)
                         : 1;
    int n = 0;
    if (since + 1 > first)
        first = since + 1;
    gr_buf_puts(o, "{\"requests\":[");
    for (uint64_t s = first; s <= c->log_seq && (limit < 0 || n < limit); s++) {
        const gr_ctl_logent_t *e = log_find(c, s);
        bool answered;
        if (e == NULL || (api >= 0 && e->api != api) ||
            (client_id != NULL && strcmp(e->client_id, client_id) != 0))
            continue;
        answered =
            e->outcome == GR_OUT_HANDLED || e->outcome == GR_OUT_INJECTED;
        gr_buf_printf(o,
                      "%s{\"seq\":%llu,\"time_ms\":%lld,\"conn\":%llu,"
                      "\"client_id\":",
                      n ? "," : "", (unsigned long long)e->seq,
                      (long long)e->time_ms, (unsigned long long)e->conn_id);
        put_cstr(o, e->client_id);
        gr_buf_puts(o, ",\"api\":");
        put_cstr(o, api_name(e->api));
        gr_buf_printf(o,
                      ",\"api_key\":%d,\"version\":%d,\"correlation_id\":%d,"
                      "\"outcome\":\"%s\",\"error\":",
                      e->api, e->version, (int)e->corr,
                      outcome_names[e->outcome]);
        if (answered) {
            put_cstr(o, gr_kerr_name(e->error));
            gr_buf_printf(o, ",\"error_code\":%d", e->error);
        } else {
            gr_buf_puts(o, "null,\"error_code\":null");
        }
        if (e->latency_us >= 0)
            gr_buf_printf(o, ",\"latency_ms\":%.3f",
                          (double)e->latency_us / 1000.0);
        else
            gr_buf_puts(o, ",\"latency_ms\":null");
        gr_buf_printf(o, ",\"throttle_ms\":%d,\"delay_ms\":%d,\"fault\":%llu}",
                      (int)e->throttle_ms, (int)e->delay_ms,
                      (unsigned long long)e->fault_id);
        n++;
    }
    gr_buf_printf(o, "],\"last\":%llu}", (unsigned long long)c->log_seq);
}
