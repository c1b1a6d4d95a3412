/*
 * Fuzz target "http": the control listener's HTTP/1.1 request parser and
 * JSON parser (src/control/http.c, json.c) on hostile bytes. Input: a
 * stream of requests as a connection delivers it; each complete request
 * is taken off the front (pipelining) and its body parsed as JSON. The
 * whole input is also parsed as JSON once, strictly and with fractions
 * (gr_json_parse_floats), so the JSON parser sees bytes that are not a
 * request body too.
 *
 * Checks: a parse takes no more bytes than given, and exactly its
 * header section plus Content-Length; method, target and body lie in
 * the buffer; an error is one of the statuses http.h names; parsing a
 * prefix of a complete request asks for more (0) or fails the same way,
 * never completes; query lookups stay in bounds and NUL-terminate; a
 * parsed JSON tree has sane counts and NUL-terminated strings.
 */
#include "fuzz.h"

#include "control/http.h"
#include "core/json.h"
#include "core/arena.h"

#include <stdbool.h>
#include <string.h>

static void
check_json(const gr_json_t *v, int depth)
{
    GR_FUZZ_CHECK(depth <= GR_JSON_MAX_DEPTH + 1);
    switch (v->type) {
    case GR_JSON_STR:
        GR_FUZZ_CHECK(v->s != NULL && v->s[v->slen] == '\0');
        break;
    case GR_JSON_ARR:
    case GR_JSON_OBJ:
        GR_FUZZ_CHECK(v->n >= 0 && (v->n == 0 || v->kids != NULL));
        for (int i = 0; i < v->n; i++) {
            GR_FUZZ_CHECK((v->type == GR_JSON_OBJ) == (v->kids[i].key != NULL));
            check_json(&v->kids[i], depth + 1);
        }
        break;
    case GR_JSON_NULL:
    case GR_JSON_BOOL:
    case GR_JSON_INT:
    case GR_JSON_DBL:
        break;
    }
}

static void
json(const uint8_t *p, size_t n)
{
    gr_arena_t *a = gr_arena_new(4096);
    char err[128];
    gr_json_t *v;
    if (a == NULL)
        return;
    v = gr_json_parse(a, (const char *)p, n, err, sizeof err);
    if (v != NULL)
        check_json(v, 0);
    else
        GR_FUZZ_CHECK(strstr(err, " at byte ") != NULL);
    /* with fractions (the telemetry lines' parse): accepts what the
     * strict parse accepts, and more */
    {
        gr_json_t *f =
            gr_json_parse_floats(a, (const char *)p, n, err, sizeof err);
        GR_FUZZ_CHECK(v == NULL || f != NULL);
        if (f != NULL)
            check_json(f, 0);
        else
            GR_FUZZ_CHECK(strstr(err, " at byte ") != NULL);
    }
    gr_arena_destroy(a);
}

static bool
in(const void *x, size_t len, const uint8_t *p, size_t n)
{
    const uint8_t *q = x;
    return q >= p && q + len <= p + n;
}

int
gr_fuzz_http(const uint8_t *data, size_t n)
{
    static const char *const names[] = { "api", "since", "limit", "client_id",
                                         "" };
    size_t at = 0;
    json(data, n);
    for (int reqs = 0; at < n && reqs < 64; reqs++) {
        const uint8_t *p = data + at;
        size_t left = n - at;
        gr_http_req_t r;
        long rc = gr_http_parse(p, left, &r);
        if (rc < 0) {
            GR_FUZZ_CHECK(rc == -400 || rc == -413 || rc == -431 ||
                          rc == -501 || rc == -505);
            break;
        }
        if (rc == 0) {
            if (r.headers_done)
                GR_FUZZ_CHECK(r.header_len + r.body_len > left);
            break;
        }
        GR_FUZZ_CHECK((size_t)rc <= left);
        GR_FUZZ_CHECK((size_t)rc == r.header_len + r.body_len);
        GR_FUZZ_CHECK(r.headers_done);
        GR_FUZZ_CHECK(r.body_len <= GR_HTTP_MAX_BODY);
        GR_FUZZ_CHECK(in(r.method, r.method_len, p, left));
        GR_FUZZ_CHECK(in(r.target, r.target_len, p, left));
        GR_FUZZ_CHECK(r.target_len > 0 && r.target[0] == '/');
        GR_FUZZ_CHECK(r.body_len == 0 || in(r.body, r.body_len, p, left));
        GR_FUZZ_CHECK(gr_http_path_len(r.target, r.target_len) <= r.target_len);
        /* a prefix never completes */
        if (rc > 1) {
            gr_http_req_t r2;
            long rc2 = gr_http_parse(p, (size_t)rc - 1, &r2);
            GR_FUZZ_CHECK(rc2 <= 0);
        }
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            char v[32];
            memset(v, 'x', sizeof v);
            if (gr_http_query_get(r.target, r.target_len, names[k], v,
                                  sizeof v))
                GR_FUZZ_CHECK(memchr(v, '\0', sizeof v) != NULL);
        }
        if (r.body_len > 0)
            json(r.body, r.body_len);
        at += (size_t)rc;
    }
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_http)
