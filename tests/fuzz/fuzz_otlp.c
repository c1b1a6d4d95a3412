/*
 * Fuzz target "otlp": the OTLP metrics decoder (src/telemetry/otlp.c) on
 * hostile protobuf, as a PushTelemetry's metrics reach it once
 * decompressed. Input: the MetricsData bytes.
 *
 * Checks: on failure the output buffer is as it was (the 3 bytes put
 * there first, its length unchanged) and a reason is given; on success
 * the output is exactly st.points lines, each one JSON object that a
 * strict parser (below: RFC 8259, UTF-8 strings) reads whole, starting
 * with the prefix given. The input is also written as a JSON string
 * (gr_json_put_str, which must mend any bytes that are not UTF-8) and
 * that string must parse.
 */
#include "fuzz.h"

#include "core/buf.h"
#include "core/json.h"
#include "telemetry/otlp.h"

#include <stdbool.h>
#include <string.h>

typedef struct js {
    const uint8_t *p, *end;
    int depth;
} js_t;

static bool js_value(js_t *j);

static void
js_ws(js_t *j)
{
    while (j->p < j->end &&
           (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool
js_lit(js_t *j, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n) != 0)
        return false;
    j->p += n;
    return true;
}

/* A string: escapes checked, raw control bytes refused, UTF-8 checked. */
static bool
js_string(js_t *j)
{
    if (j->p == j->end || *j->p != '"')
        return false;
    j->p++;
    while (j->p < j->end) {
        uint8_t c = *j->p++;
        if (c == '"')
            return true;
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (j->p == j->end)
                return false;
            c = *j->p++;
            if (c == 'u') {
                for (int i = 0; i < 4; i++) {
                    if (j->p == j->end || !strchr("0123456789abcdefABCDEF",
                                                  *j->p) || *j->p == 0)
                        return false;
                    j->p++;
                }
            } else if (!strchr("\"\\/bfnrt", c) || c == 0) {
                return false;
            }
        } else if (c >= 0x80) {
            int k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : -1;
            if (k < 0 || c > 0xf4 || j->end - j->p < k)
                return false;
            for (int i = 0; i < k; i++)
                if ((*j->p++ & 0xc0) != 0x80)
                    return false;
        }
    }
    return false;
}

static bool
js_number(js_t *j)
{
    const uint8_t *s = j->p;
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p == j->end || *j->p < '0' || *j->p > '9')
        return false;
    if (*j->p == '0')
        j->p++;
    else
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (j->p == j->end || *j->p < '0' || *j->p > '9')
            return false;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (j->p == j->end || *j->p < '0' || *j->p > '9')
            return false;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    return j->p > s;
}

static bool
js_container(js_t *j, char close, bool object)
{
    j->p++;
    if (++j->depth > 64)
        return false;
    js_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        js_ws(j);
        if (object) {
            if (!js_string(j))
                return false;
            js_ws(j);
            if (j->p == j->end || *j->p++ != ':')
                return false;
        }
        if (!js_value(j))
            return false;
        js_ws(j);
        if (j->p == j->end)
            return false;
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p++ != close)
            return false;
        j->depth--;
        return true;
    }
}

static bool
js_value(js_t *j)
{
    js_ws(j);
    if (j->p == j->end)
        return false;
    switch (*j->p) {
    case '{':
        return js_container(j, '}', true);
    case '[':
        return js_container(j, ']', false);
    case '"':
        return js_string(j);
    case 't':
        return js_lit(j, "true");
    case 'f':
        return js_lit(j, "false");
    case 'n':
        return js_lit(j, "null");
    default:
        return js_number(j);
    }
}

int
gr_fuzz_otlp(const uint8_t *data, size_t n)
{
    static const char prefix[] = "\"client_instance_id\":\"AAAAAAAAAAAAAAAAAAAAAA\",";
    gr_buf_t out = GR_BUF_INIT;
    gr_otlp_stats_t st;
    char why[128];
    int rc;

    gr_buf_append(&out, "abc", 3);
    rc = gr_otlp_to_jsonl(data, n, prefix, &out, &st, why, sizeof why);
    GR_FUZZ_CHECK(out.len >= 3 && memcmp(out.ptr, "abc", 3) == 0);
    if (rc != 0) {
        GR_FUZZ_CHECK(out.len == 3);
        GR_FUZZ_CHECK(why[0] != '\0');
    } else {
        const uint8_t *p = out.ptr + 3, *end = out.ptr + out.len;
        int64_t lines = 0;
        GR_FUZZ_CHECK(st.points >= 0 && st.metrics >= st.skipped);
        while (p < end) {
            const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
            js_t j;
            GR_FUZZ_CHECK(nl != NULL);
            GR_FUZZ_CHECK((size_t)(nl - p) > sizeof prefix &&
                          memcmp(p + 1, prefix, sizeof prefix - 1) == 0);
            j.p = p;
            j.end = nl;
            j.depth = 0;
            GR_FUZZ_CHECK(*p == '{' && js_value(&j) && j.p == nl);
            p = nl + 1;
            lines++;
        }
        GR_FUZZ_CHECK(lines == st.points);
    }
    /* the same bytes as a JSON string */
    gr_buf_reset(&out);
    gr_json_put_str(&out, (const char *)data, n);
    if (!out.oom) {
        js_t j = { out.ptr, out.ptr + out.len, 0 };
        GR_FUZZ_CHECK(js_string(&j) && j.p == j.end);
    }
    gr_buf_fini(&out);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_otlp)
