/*
 * libgregor (include/gregor/gregor.h): a broker on a thread of the test's
 * process. gregor_start() builds the broker as src/main.c does
 * (gr_conf, gr_broker_new) on the caller's thread, then runs
 * gr_broker_run() on a new thread that blocks every signal; a callback
 * posted before the loop runs tells the caller the broker serves (or the
 * thread's end that it could not start). The control calls queue an
 * operation, post a wake-up to the loop (gr_loop_post: its eventfd) and
 * wait on a condition variable; the loop thread runs each operation
 * through gr_control_call(), the route the HTTP listener takes, whose
 * answer comes at once or (GET /metrics, written on a worker) later on
 * the loop. When the loop has ended, calls still queued or unanswered get
 * "the broker is stopped" and no new one is queued, so nobody waits for a
 * loop that is gone.
 */
#include "gregor/gregor.h"

#include "broker.h"
#include "control/control.h"
#include "core/json.h"
#include "core/log.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 256

struct gregor_conf {
    char *file;
    char *kv[MAX_SETS]; /* "key=value" */
    int nkv;
    int temp_data; /* 1 (default), 0 */
    int brokers;
};

typedef struct call {
    struct gregor *g;
    const char *method, *target, *body;
    gr_buf_t out;
    int status;
    bool done;
    struct call *next;
} call_t;

typedef enum { G_STARTING, G_RUNNING, G_ENDED } gstate_t;

struct gregor {
    gr_conf_t *conf;
    gr_broker_t *b;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gstate_t state;
    bool served;      /* the loop ran (started() was called) */
    bool wake_posted; /* a serve_calls() is queued on the loop */
    call_t *calls, **calls_tail; /* queued for the loop */
    call_t *serving;             /* taken by the loop, not answered yet */
    int rc; /* gr_broker_run()'s */
    char bootstrap[300];
    char control[128];
    char data_dir[PATH_MAX];
};

static _Thread_local char last_error[512];
static bool log_level_set;

static void
fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *
gregor_version(void)
{
    return PACKAGE_VERSION;
}

const char *
gregor_last_error(void)
{
    return last_error;
}

int
gregor_log_level(const char *level)
{
    int l = level != NULL ? gr_log_level_parse(level) : -1;
    if (l < 0) {
        fail("unknown log level '%s' (error, warn, info, debug, trace)",
             level ? level : "(null)");
        return -1;
    }
    gr_log_level = l;
    log_level_set = true;
    return 0;
}

/* --- configuration */

gregor_conf_t *
gregor_conf_new(void)
{
    gregor_conf_t *c = calloc(1, sizeof *c);
    if (c == NULL) {
        fail("out of memory");
        return NULL;
    }
    c->temp_data = 1;
    c->brokers = 1;
    return c;
}

void
gregor_conf_destroy(gregor_conf_t *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < c->nkv; i++)
        free(c->kv[i]);
    free(c->file);
    free(c);
}

int
gregor_conf_set(gregor_conf_t *c, const char *key, const char *value)
{
    size_t n;
    char *kv;
    if (c == NULL || key == NULL || *key == '\0' || strchr(key, '=')) {
        fail("gregor_conf_set: a key (without '=') is required");
        return -1;
    }
    if (c->nkv == MAX_SETS) {
        fail("gregor_conf_set: more than %d settings", MAX_SETS);
        return -1;
    }
    n = strlen(key) + strlen(value ? value : "") + 2;
    if ((kv = malloc(n)) == NULL) {
        fail("out of memory");
        return -1;
    }
    snprintf(kv, n, "%s=%s", key, value ? value : "");
    c->kv[c->nkv++] = kv;
    return 0;
}

int
gregor_conf_file(gregor_conf_t *c, const char *path)
{
    char *p = path ? strdup(path) : NULL;
    if (c == NULL || p == NULL) {
        fail("gregor_conf_file: a path is required");
        return -1;
    }
    free(c->file);
    c->file = p;
    return 0;
}

int
gregor_conf_temp_data(gregor_conf_t *c, int on)
{
    if (c == NULL)
        return -1;
    c->temp_data = on != 0;
    return 0;
}

int
gregor_conf_brokers(gregor_conf_t *c, int n)
{
    if (c == NULL || n < 1) {
        fail("gregor_conf_brokers: at least one broker");
        return -1;
    }
    c->brokers = n;
    return 0;
}

/* --- life cycle */

/* The loop's first turn: the broker serves. */
static void
started(gr_loop_t *loop, void *arg)
{
    gregor_t *g = arg;
    gr_broker_t *b = g->b;
    const char *url = gr_control_url(b);
    (void)loop;
    pthread_mutex_lock(&g->mu);
    if (b->nlisteners > 0)
        snprintf(g->bootstrap, sizeof g->bootstrap, "%s:%d",
                 b->listeners[0].adv_host, b->listeners[0].port);
    snprintf(g->control, sizeof g->control, "%s", url ? url : "");
    snprintf(g->data_dir, sizeof g->data_dir, "%s", b->log_dir);
    g->served = true;
    g->state = G_RUNNING;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* On the loop: an operation's answer (at once, or for GET /metrics once
 * its text is made). */
static void
call_answered(void *arg, int status, gr_buf_t *answer)
{
    call_t *k = arg;
    gregor_t *g = k->g;
    pthread_mutex_lock(&g->mu);
    if (!k->done) {
        gr_buf_append(&k->out, answer->ptr, answer->len);
        k->status = status;
        k->done = true;
        /* out of the list of those being answered */
        for (call_t **pp = &g->serving; *pp != NULL; pp = &(*pp)->next)
            if (*pp == k) {
                *pp = k->next;
                break;
            }
        pthread_cond_broadcast(&g->cv);
    }
    pthread_mutex_unlock(&g->mu);
}

/* On the loop: the operations queued so far. */
static void
serve_calls(gr_loop_t *loop, void *arg)
{
    gregor_t *g = arg;
    call_t *list;
    (void)loop;
    pthread_mutex_lock(&g->mu);
    list = g->calls;
    g->calls = NULL;
    g->calls_tail = &g->calls;
    g->wake_posted = false;
    pthread_mutex_unlock(&g->mu);
    while (list != NULL) {
        call_t *k = list;
        list = k->next;
        pthread_mutex_lock(&g->mu);
        k->next = g->serving;
        g->serving = k;
        pthread_mutex_unlock(&g->mu);
        gr_control_call(g->b, k->method, k->target, k->body, call_answered,
                        k);
    }
}

static void *
run(void *arg)
{
    gregor_t *g = arg;
    int rc;
    if (gr_loop_post(g->b->loop, started, g) != 0)
        rc = -1;
    else
        rc = gr_broker_run(g->b);
    /* the loop is over: nothing queued will be served */
    pthread_mutex_lock(&g->mu);
    g->rc = rc;
    g->state = G_ENDED;
    for (int l = 0; l < 2; l++) {
        call_t **head = l == 0 ? &g->calls : &g->serving;
        while (*head != NULL) {
            call_t *k = *head;
            *head = k->next;
            k->status = -1;
            k->done = true;
        }
    }
    g->calls_tail = &g->calls;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    gr_broker_destroy(g->b);
    g->b = NULL;
    return NULL;
}

static bool
conf_has(const gregor_conf_t *c, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; c != NULL && i < c->nkv; i++)
        if (strncmp(c->kv[i], key, n) == 0 && c->kv[i][n] == '=')
            return true;
    return false;
}

static void
gregor_free_all(gregor_t *g)
{
    gr_conf_destroy(g->conf);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

gregor_t *
gregor_start(const gregor_conf_t *conf)
{
    gregor_t *g;
    sigset_t all, old;
    int temp = conf != NULL ? conf->temp_data : 1;
    int err;

    last_error[0] = '\0';
    if (conf != NULL && conf->brokers > 1) {
        fail("gregor_start: a cluster of %d brokers is not possible yet: "
             "Gregor has no cluster mode (start one broker per gregor_t)",
             conf->brokers);
        return NULL;
    }
    if (!log_level_set && getenv("GREGOR_LOG_LEVEL") != NULL &&
        gr_log_level_parse(getenv("GREGOR_LOG_LEVEL")) >= 0)
        gr_log_level = gr_log_level_parse(getenv("GREGOR_LOG_LEVEL"));
    if ((g = calloc(1, sizeof *g)) == NULL) {
        fail("out of memory");
        return NULL;
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->calls_tail = &g->calls;
    if ((g->conf = gr_conf_new()) == NULL) {
        fail("out of memory");
        gregor_free_all(g);
        return NULL;
    }
    if (conf != NULL && conf->file != NULL &&
        gr_conf_load_file(g->conf, conf->file) != 0) {
        fail("cannot read the configuration file %s", conf->file);
        gregor_free_all(g);
        return NULL;
    }
    /* the embedded defaults first: what the caller sets wins */
    if (!conf_has(conf, "listeners"))
        gr_conf_set(g->conf, "listeners", "PLAINTEXT://127.0.0.1:0");
    if (!conf_has(conf, "gregor.control.listener"))
        gr_conf_set(g->conf, "gregor.control.listener", "http://127.0.0.1:0");
    if (temp && !conf_has(conf, "gregor.temp.data"))
        gr_conf_set(g->conf, "gregor.temp.data", "true");
    for (int i = 0; conf != NULL && i < conf->nkv; i++)
        if (gr_conf_set_kv(g->conf, conf->kv[i]) != 0) {
            fail("malformed setting '%s'", conf->kv[i]);
            gregor_free_all(g);
            return NULL;
        }
    if (gr_conf_finish(g->conf) != 0) {
        fail("invalid configuration (the log says which setting)");
        gregor_free_all(g);
        return NULL;
    }
    if ((g->b = gr_broker_new(g->conf, NULL, NULL)) == NULL) {
        fail("cannot make the broker (the log says why)");
        gregor_free_all(g);
        return NULL;
    }
    g->b->embedded = true;
    /* the broker's threads (loop, workers) take no signal of the test */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    err = pthread_create(&g->thread, NULL, run, g);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err != 0) {
        fail("cannot start the broker's thread: %s", strerror(err));
        gr_broker_destroy(g->b);
        gregor_free_all(g);
        return NULL;
    }
    pthread_mutex_lock(&g->mu);
    while (g->state == G_STARTING)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    if (!g->served || g->state != G_RUNNING) {
        pthread_join(g->thread, NULL);
        fail("the broker did not start (the log says why)");
        gregor_free_all(g);
        return NULL;
    }
    return g;
}

int
gregor_stop(gregor_t *g)
{
    int rc;
    if (g == NULL)
        return 0;
    pthread_mutex_lock(&g->mu);
    if (g->state == G_RUNNING && g->b != NULL)
        gr_broker_stop(g->b);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    rc = g->rc;
    gregor_free_all(g);
    if (rc != 0)
        fail("the broker's run ended in an error (the log says which)");
    return rc == 0 ? 0 : -1;
}

const char *
gregor_bootstrap_servers(const gregor_t *g)
{
    return g != NULL ? g->bootstrap : NULL;
}

const char *
gregor_control_url(const gregor_t *g)
{
    return g != NULL && g->control[0] ? g->control : NULL;
}

const char *
gregor_data_dir(const gregor_t *g)
{
    return g != NULL ? g->data_dir : NULL;
}

/* --- the control operations */

/* Runs one operation on the loop: its HTTP status (-1: the broker is
 * gone), the answer in out. */
static int
call(gregor_t *g, const char *method, const char *target, const char *body,
     gr_buf_t *out)
{
    call_t k;
    int status;
    if (g == NULL) {
        fail("no broker (NULL)");
        return -1;
    }
    memset(&k, 0, sizeof k);
    k.g = g;
    k.method = method;
    k.target = target;
    k.body = body;
    pthread_mutex_lock(&g->mu);
    if (g->state != G_RUNNING) {
        pthread_mutex_unlock(&g->mu);
        fail("the broker is stopped");
        return -1;
    }
    *g->calls_tail = &k;
    g->calls_tail = &k.next;
    if (!g->wake_posted) {
        if (gr_loop_post(g->b->loop, serve_calls, g) != 0) {
            /* take it back out: nobody will serve it */
            call_t **pp = &g->calls;
            while (*pp != &k)
                pp = &(*pp)->next;
            *pp = k.next;
            if (g->calls_tail == &k.next)
                g->calls_tail = pp;
            pthread_mutex_unlock(&g->mu);
            fail("out of memory");
            return -1;
        }
        g->wake_posted = true;
    }
    while (!k.done)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    status = k.status;
    if (status < 0) {
        fail("the broker stopped before it answered");
        gr_buf_fini(&k.out);
        return -1;
    }
    if (out != NULL)
        gr_buf_append(out, k.out.ptr, k.out.len);
    gr_buf_fini(&k.out);
    return status;
}

/* The control interface's refusal of a call, as the last error. */
static void
fail_answer(const char *what, int status, const gr_buf_t *out)
{
    const char *s = out->len ? gr_buf_cstr((gr_buf_t *)out) : "";
    const char *e = strstr(s, "\"error\":\"");
    if (e != NULL) {
        const char *end = strchr(e + 9, '"');
        fail("%s: %d %.*s", what, status,
             end ? (int)(end - e - 9) : (int)strlen(e + 9), e + 9);
    } else {
        fail("%s: HTTP %d %s", what, status, s);
    }
}

/* A POST of body to path: the first id in the answer ("id" or "ids"),
 * or -1. */
static int64_t
post_for_id(gregor_t *g, const char *what, const char *path,
            const gr_buf_t *body)
{
    gr_buf_t out = GR_BUF_INIT;
    int64_t id = -1;
    const char *s, *p;
    int status;
    if (body->oom) {
        fail("out of memory");
        return -1;
    }
    status = call(g, "POST", path, gr_buf_cstr((gr_buf_t *)body), &out);
    if (status < 0) {
        gr_buf_fini(&out);
        return -1;
    }
    if (status / 100 != 2) {
        fail_answer(what, status, &out);
        gr_buf_fini(&out);
        return -1;
    }
    s = gr_buf_cstr(&out);
    if ((p = strstr(s, "\"ids\":[")) != NULL)
        id = strtoll(p + 7, NULL, 10);
    else if ((p = strstr(s, "\"id\":")) != NULL)
        id = strtoll(p + 5, NULL, 10);
    gr_buf_fini(&out);
    return id > 0 ? id : -1;
}

/* opts ("k=v k=v") as JSON members, each with a leading comma. */
static int
put_opts(gr_buf_t *b, const char *opts)
{
    const char *p = opts;
    while (p != NULL && *p != '\0') {
        size_t n;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            break;
        n = strcspn(p, " \t");
        if (gr_ctl_kv_json(b, p, n, false) != 0) {
            fail("malformed option '%.*s' (expected key=value)", (int)n, p);
            return -1;
        }
        p += n;
    }
    return 0;
}

static void
put_member(gr_buf_t *b, const char *key, const char *v, bool first)
{
    if (!first)
        gr_buf_putc(b, ',');
    gr_json_put_str(b, key, strlen(key));
    gr_buf_putc(b, ':');
    gr_json_put_str(b, v, strlen(v));
}

int64_t
gregor_fault(gregor_t *g, const char *api, const char *error, const char *opts)
{
    gr_buf_t b = GR_BUF_INIT;
    int64_t id = -1;
    if (api == NULL || error == NULL) {
        fail("gregor_fault: an API and an error are required");
        return -1;
    }
    gr_buf_putc(&b, '{');
    put_member(&b, "api", api, true);
    put_member(&b, "error", error, false);
    if (put_opts(&b, opts) == 0) {
        gr_buf_putc(&b, '}');
        id = post_for_id(g, "gregor_fault", "/v1/faults", &b);
    }
    gr_buf_fini(&b);
    return id;
}

int
gregor_push_errors_array(gregor_t *g, const char *api, int cnt,
                         const int16_t *errors, const char *opts)
{
    gr_buf_t b = GR_BUF_INIT;
    int64_t id = -1;
    if (api == NULL || cnt <= 0 || errors == NULL) {
        fail("gregor_push_errors: an API and at least one error");
        return -1;
    }
    gr_buf_putc(&b, '{');
    put_member(&b, "api", api, true);
    gr_buf_puts(&b, ",\"errors\":[");
    for (int i = 0; i < cnt; i++)
        gr_buf_printf(&b, "%s%d", i ? "," : "", (int)errors[i]);
    gr_buf_putc(&b, ']');
    if (put_opts(&b, opts) == 0) {
        gr_buf_putc(&b, '}');
        id = post_for_id(g, "gregor_push_errors", "/v1/faults", &b);
    }
    gr_buf_fini(&b);
    return id > 0 ? 0 : -1;
}

int
gregor_push_errors(gregor_t *g, const char *api, int cnt, ...)
{
    int16_t errs[1024];
    va_list ap;
    if (cnt <= 0 || cnt > 1024) {
        fail("gregor_push_errors: 1 to 1024 errors");
        return -1;
    }
    va_start(ap, cnt);
    for (int i = 0; i < cnt; i++)
        errs[i] = (int16_t)va_arg(ap, int);
    va_end(ap);
    return gregor_push_errors_array(g, api, cnt, errs, NULL);
}

static int64_t
fault_action(gregor_t *g, const char *what, const char *action, const char *api,
             const char *opts)
{
    gr_buf_t b = GR_BUF_INIT;
    int64_t id = -1;
    gr_buf_putc(&b, '{');
    put_member(&b, "action", action, true);
    if (api != NULL)
        put_member(&b, "api", api, false);
    if (put_opts(&b, opts) == 0) {
        gr_buf_putc(&b, '}');
        id = post_for_id(g, what, "/v1/faults", &b);
    }
    gr_buf_fini(&b);
    return id;
}

int64_t
gregor_drop(gregor_t *g, const char *api, const char *opts)
{
    return fault_action(g, "gregor_drop", "drop", api, opts);
}

int64_t
gregor_blackhole(gregor_t *g, const char *opts)
{
    return fault_action(g, "gregor_blackhole", "blackhole", NULL, opts);
}

int64_t
gregor_delay(gregor_t *g, const char *api, int ms, const char *opts)
{
    gr_buf_t b = GR_BUF_INIT;
    int64_t id = -1;
    gr_buf_printf(&b, "{\"ms\":%d", ms);
    if (api != NULL)
        put_member(&b, "api", api, false);
    if (put_opts(&b, opts) == 0) {
        gr_buf_putc(&b, '}');
        id = post_for_id(g, "gregor_delay", "/v1/delays", &b);
    }
    gr_buf_fini(&b);
    return id;
}

/* A call whose answer has an integer member key: it, or -1. */
static int64_t
call_for_int(gregor_t *g, const char *what, const char *method,
             const char *path, const char *body, const char *key)
{
    gr_buf_t out = GR_BUF_INIT;
    char pat[64];
    const char *p;
    int64_t v = -1;
    int status = call(g, method, path, body, &out);
    if (status >= 0 && status / 100 != 2)
        fail_answer(what, status, &out);
    if (status / 100 == 2) {
        snprintf(pat, sizeof pat, "\"%s\":", key);
        if ((p = strstr(gr_buf_cstr(&out), pat)) != NULL)
            v = strtoll(p + strlen(pat), NULL, 10);
        else
            v = 0;
    }
    gr_buf_fini(&out);
    return v;
}

int
gregor_clear(gregor_t *g, int64_t id)
{
    char path[64];
    int64_t n, m;
    if (id < 0) {
        fail("gregor_clear: an id > 0, or 0 for all");
        return -1;
    }
    if (id == 0) {
        n = call_for_int(g, "gregor_clear", "DELETE", "/v1/faults", NULL,
                         "removed");
        m = call_for_int(g, "gregor_clear", "DELETE", "/v1/delays", NULL,
                         "removed");
        return n < 0 || m < 0 ? -1 : (int)(n + m);
    }
    /* ids are shared by faults and delays: one of the two has it */
    snprintf(path, sizeof path, "/v1/faults/%lld", (long long)id);
    if ((n = call_for_int(g, "gregor_clear", "DELETE", path, NULL, "removed")) >
        0)
        return (int)n;
    snprintf(path, sizeof path, "/v1/delays/%lld", (long long)id);
    if ((n = call_for_int(g, "gregor_clear", "DELETE", path, NULL, "removed")) >
        0)
        return (int)n;
    fail("gregor_clear: no fault or delay %lld", (long long)id);
    return -1;
}

int
gregor_close_connections(gregor_t *g)
{
    return (int)call_for_int(g, "gregor_close_connections", "POST",
                             "/v1/connections/close", "{}", "closed");
}

int
gregor_cap_versions(gregor_t *g, const char *api, int min, int max)
{
    gr_buf_t b = GR_BUF_INIT;
    int64_t r;
    if (api == NULL) {
        fail("gregor_cap_versions: an API is required");
        return -1;
    }
    gr_buf_putc(&b, '{');
    put_member(&b, "api", api, true);
    gr_buf_printf(&b, ",\"min\":%d,\"max\":%d}", min, max);
    r = call_for_int(g, "gregor_cap_versions", "POST", "/v1/caps",
                     gr_buf_cstr(&b), "apis");
    gr_buf_fini(&b);
    return r < 0 ? -1 : 0;
}

int
gregor_emulate(gregor_t *g, const char *version)
{
    gr_buf_t b = GR_BUF_INIT, out = GR_BUF_INIT;
    int status;
    gr_buf_puts(&b, "{\"version\":");
    if (version == NULL)
        gr_buf_puts(&b, "null");
    else
        gr_json_put_str(&b, version, strlen(version));
    gr_buf_putc(&b, '}');
    status = call(g, "POST", "/v1/emulate", gr_buf_cstr(&b), &out);
    if (status >= 0 && status / 100 != 2)
        fail_answer("gregor_emulate", status, &out);
    gr_buf_fini(&b);
    gr_buf_fini(&out);
    return status / 100 == 2 ? 0 : -1;
}

int64_t
gregor_clock_advance(gregor_t *g, int64_t ms)
{
    char body[48];
    if (ms < 0) {
        fail("gregor_clock_advance: ms must be >= 0");
        return -1;
    }
    snprintf(body, sizeof body, "{\"ms\":%lld}", (long long)ms);
    return call_for_int(g, "gregor_clock_advance", "POST", "/v1/clock/advance",
                        body, "wall_ms");
}

int
gregor_reset(gregor_t *g)
{
    return call_for_int(g, "gregor_reset", "POST", "/v1/reset", "{}",
                        "faults") < 0
               ? -1
               : 0;
}

/* A GET whose answer is handed over as a C string. */
static int
get_text(gregor_t *g, const char *what, const char *path, char **text)
{
    gr_buf_t out = GR_BUF_INIT;
    int status = call(g, "GET", path, NULL, &out);
    if (status < 0 || status / 100 != 2) {
        if (status >= 0)
            fail_answer(what, status, &out);
        gr_buf_fini(&out);
        return -1;
    }
    gr_buf_cstr(&out);
    if (out.oom) {
        fail("out of memory");
        gr_buf_fini(&out);
        return -1;
    }
    *text = (char *)out.ptr; /* taken over */
    return 0;
}

int
gregor_requests(gregor_t *g, const char *query, char **json)
{
    gr_buf_t path = GR_BUF_INIT;
    int rc;
    if (json == NULL) {
        fail("gregor_requests: json is required");
        return -1;
    }
    gr_buf_puts(&path, "/v1/requests");
    if (query != NULL && *query != '\0')
        gr_buf_printf(&path, "?%s", query);
    rc = get_text(g, "gregor_requests", gr_buf_cstr(&path), json);
    gr_buf_fini(&path);
    return rc;
}

int64_t
gregor_request_count(gregor_t *g, const char *api, const char *error)
{
    gr_buf_t path = GR_BUF_INIT, pat = GR_BUF_INIT;
    char *text = NULL;
    const char *p;
    int64_t n = 0;

    gr_buf_puts(&path, "/v1/requests");
    if (api != NULL)
        gr_buf_printf(&path, "?api=%s", api);
    if (get_text(g, "gregor_request_count", gr_buf_cstr(&path), &text) != 0) {
        gr_buf_fini(&path);
        return -1;
    }
    gr_buf_fini(&path);
    /* one "seq" and one "error" member per entry; the quotes of strings
     * inside values are escaped, so neither pattern can appear there */
    if (error == NULL) {
        gr_buf_puts(&pat, "\"seq\":");
    } else {
        gr_buf_puts(&pat, "\"error\":");
        gr_json_put_str(&pat, error, strlen(error));
    }
    for (p = text; (p = strstr(p, gr_buf_cstr(&pat))) != NULL; p += pat.len)
        n++;
    gr_buf_fini(&pat);
    free(text);
    return n;
}

int
gregor_metrics(gregor_t *g, char **text)
{
    if (text == NULL) {
        fail("gregor_metrics: text is required");
        return -1;
    }
    return get_text(g, "gregor_metrics", "/metrics", text);
}

int
gregor_control(gregor_t *g, const char *method, const char *path,
               const char *body, char **answer)
{
    gr_buf_t out = GR_BUF_INIT;
    int status;
    if (method == NULL || path == NULL || path[0] != '/') {
        fail("gregor_control: a method and a path starting with '/'");
        return -1;
    }
    status = call(g, method, path, body, &out);
    if (status >= 0 && answer != NULL) {
        gr_buf_cstr(&out);
        if (out.oom) {
            gr_buf_fini(&out);
            fail("out of memory");
            return -1;
        }
        *answer = (char *)out.ptr;
        return status;
    }
    gr_buf_fini(&out);
    return status;
}

void
gregor_free(void *p)
{
    free(p);
}
