/*
 * OTLP MetricsData to JSON lines: see otlp.h. A message is read field by
 * field (read_field); where protobuf's merge rules need to see a whole
 * message first (the last of a oneof, scalars that follow the repeated
 * fields) it is read twice. Output goes to out as it is made and is cut
 * back to its old length on any failure.
 */
#include "telemetry/otlp.h"

#include "core/json.h"
#include "core/str.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY_DEPTH_MAX 32

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

typedef struct field {
    uint32_t num;
    int wt;
    uint64_t v;          /* WT_VARINT, WT_I64, WT_I32 */
    const uint8_t *data; /* WT_LEN */
    size_t len;
    const uint8_t *at; /* the field's first byte (its tag) */
} field_t;

typedef struct msg {
    const uint8_t *p, *end;
} msg_t;

typedef struct dec {
    char *why;
    size_t why_len;
    bool failed;
    gr_otlp_stats_t st;
} dec_t;

static void
fail(dec_t *d, const char *what)
{
    if (!d->failed && d->why_len > 0)
        snprintf(d->why, d->why_len, "%s", what);
    d->failed = true;
}

static msg_t
msg_of(const uint8_t *p, size_t n)
{
    msg_t m = { p, p + n };
    return m;
}

static bool
read_varint(msg_t *m, uint64_t *out)
{
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        uint8_t b;
        if (m->p == m->end)
            return false;
        b = *m->p++;
        if (i == 9 && b > 1) /* bits past 64 */
            return false;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* The next field of m: 1, 0 at the end, -1 when malformed (d says why). */
static int
read_field(dec_t *d, msg_t *m, field_t *f)
{
    uint64_t tag, len;

    if (m->p == m->end)
        return 0;
    f->at = m->p;
    if (!read_varint(m, &tag) || tag >> 3 == 0 || tag >> 3 > 0x1fffffff) {
        fail(d, "bad field tag");
        return -1;
    }
    f->num = (uint32_t)(tag >> 3);
    f->wt = (int)(tag & 7);
    f->data = NULL;
    f->len = 0;
    f->v = 0;
    switch (f->wt) {
    case WT_VARINT:
        if (!read_varint(m, &f->v)) {
            fail(d, "truncated varint");
            return -1;
        }
        return 1;
    case WT_I64:
    case WT_I32: {
        size_t k = f->wt == WT_I64 ? 8 : 4;
        if ((size_t)(m->end - m->p) < k) {
            fail(d, "truncated fixed-width field");
            return -1;
        }
        for (size_t i = 0; i < k; i++)
            f->v |= (uint64_t)m->p[i] << (8 * i);
        m->p += k;
        return 1;
    }
    case WT_LEN:
        if (!read_varint(m, &len) || len > (uint64_t)(m->end - m->p)) {
            fail(d, "length past the end of its message");
            return -1;
        }
        f->data = m->p;
        f->len = (size_t)len;
        m->p += len;
        return 1;
    default:
        fail(d, "unsupported wire type (group or invalid)");
        return -1;
    }
}

/* --- JSON */

static void
put_double(gr_buf_t *out, double v)
{
    char s[40];
    if (isnan(v)) {
        gr_buf_puts(out, "\"NaN\"");
        return;
    }
    if (isinf(v)) {
        gr_buf_puts(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return;
    }
    /* the shortest of 15..17 digits that reads back as v */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    gr_buf_puts(out, s);
}

static void
put_base64(gr_buf_t *out, const uint8_t *p, size_t n)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    gr_buf_putc(out, '"');
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        char q[4];
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = tab[v >> 18];
        q[1] = tab[(v >> 12) & 63];
        q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? tab[v & 63] : '=';
        gr_buf_append(out, q, 4);
    }
    gr_buf_putc(out, '"');
}

/* A string field's value, checked and written. */
static bool
put_string_field(dec_t *d, gr_buf_t *out, const field_t *f)
{
    if (!gr_utf8_valid(f->data, f->len)) {
        fail(d, "string field is not UTF-8");
        return false;
    }
    gr_json_put_str(out, (const char *)f->data, f->len);
    return true;
}

/* --- oneofs */

typedef struct member {
    uint32_t num;
    int wt;
} member_t;

/* Of the oneof members mem[0..k) in message p[0..n): the index of the one
 * set last (-1: none), and in *since the start of the last field of
 * another member (NULL: none): the chosen member's fields after it merge
 * (a message member) or the last wins (a scalar). */
static int
oneof_last(dec_t *d, const uint8_t *p, size_t n, const member_t *mem, int k,
           const uint8_t **since)
{
    const uint8_t *at[8] = { NULL }; /* each member's last field */
    msg_t m = msg_of(p, n);
    field_t f;
    int rc, last = -1;
    *since = NULL;
    while ((rc = read_field(d, &m, &f)) > 0)
        for (int i = 0; i < k; i++)
            if (f.num == mem[i].num && f.wt == mem[i].wt) {
                at[i] = f.at;
                last = i;
            }
    if (rc < 0)
        return -2;
    for (int i = 0; i < k; i++)
        if (i != last && at[i] != NULL && (*since == NULL || at[i] > *since))
            *since = at[i];
    return last;
}

/* --- attributes */

static bool put_any(dec_t *d, gr_buf_t *out, const uint8_t *p, size_t n,
                    int depth);

/* A KeyValue as "key":value (the last key and the last value win). */
static bool
put_kv(dec_t *d, gr_buf_t *out, const uint8_t *p, size_t n, int depth)
{
    msg_t m = msg_of(p, n);
    field_t f, key = { 0 }, val = { 0 };
    bool has_key = false, has_val = false;
    int rc;
    while ((rc = read_field(d, &m, &f)) > 0) {
        if (f.num == 1 && f.wt == WT_LEN) {
            key = f;
            has_key = true;
        } else if (f.num == 2 && f.wt == WT_LEN) {
            val = f;
            has_val = true;
        }
    }
    if (rc < 0)
        return false;
    if (has_key) {
        if (!put_string_field(d, out, &key))
            return false;
    } else {
        gr_buf_puts(out, "\"\"");
    }
    gr_buf_putc(out, ':');
    if (!has_val) {
        gr_buf_puts(out, "null");
        return true;
    }
    return put_any(d, out, val.data, val.len, depth + 1);
}

/* The KeyValues in field num of the messages given (their occurrences add
 * up) as one JSON object's members, without braces; *first tracks commas
 * across calls. */
static bool
put_kv_members(dec_t *d, gr_buf_t *out, const uint8_t *p, size_t n,
               uint32_t num, const uint8_t *after, bool *first, int depth)
{
    msg_t m = msg_of(p, n);
    field_t f;
    int rc;
    while ((rc = read_field(d, &m, &f)) > 0) {
        if (f.num != num || f.wt != WT_LEN || (after && f.at <= after))
            continue;
        if (!*first)
            gr_buf_putc(out, ',');
        *first = false;
        if (!put_kv(d, out, f.data, f.len, depth))
            return false;
    }
    return rc == 0;
}

/* An AnyValue (otlp.h's mapping). */
static bool
put_any(dec_t *d, gr_buf_t *out, const uint8_t *p, size_t n, int depth)
{
    static const member_t mem[] = {
        { 1, WT_LEN }, { 2, WT_VARINT }, { 3, WT_VARINT }, { 4, WT_I64 },
        { 5, WT_LEN }, { 6, WT_LEN },    { 7, WT_LEN },
    };
    const uint8_t *since;
    msg_t m;
    field_t f, last = { 0 };
    bool first = true;
    int k, rc;

    if (depth > ANY_DEPTH_MAX) {
        fail(d, "attribute values nested too deep");
        return false;
    }
    k = oneof_last(d, p, n, mem, 7, &since);
    if (k == -2)
        return false;
    if (k == -1) {
        gr_buf_puts(out, "null");
        return true;
    }
    if (mem[k].num == 5 || mem[k].num == 6) {
        /* ArrayValue / KeyValueList: field 1 of each occurrence */
        gr_buf_putc(out, mem[k].num == 5 ? '[' : '{');
        m = msg_of(p, n);
        while ((rc = read_field(d, &m, &f)) > 0) {
            if (f.num != mem[k].num || f.wt != WT_LEN ||
                (since && f.at <= since))
                continue;
            if (mem[k].num == 6) {
                if (!put_kv_members(d, out, f.data, f.len, 1, NULL, &first,
                                    depth))
                    return false;
                continue;
            }
            {
                msg_t a = msg_of(f.data, f.len);
                field_t v;
                int rc2;
                while ((rc2 = read_field(d, &a, &v)) > 0) {
                    if (v.num != 1 || v.wt != WT_LEN)
                        continue;
                    if (!first)
                        gr_buf_putc(out, ',');
                    first = false;
                    if (!put_any(d, out, v.data, v.len, depth + 1))
                        return false;
                }
                if (rc2 < 0)
                    return false;
            }
        }
        if (rc < 0)
            return false;
        gr_buf_putc(out, mem[k].num == 5 ? ']' : '}');
        return true;
    }
    /* a scalar: its last occurrence */
    m = msg_of(p, n);
    while ((rc = read_field(d, &m, &f)) > 0)
        if (f.num == mem[k].num && f.wt == mem[k].wt)
            last = f;
    if (rc < 0)
        return false;
    switch (last.num) {
    case 1:
        return put_string_field(d, out, &last);
    case 2:
        gr_buf_puts(out, last.v ? "true" : "false");
        return true;
    case 3:
        gr_buf_printf(out, "%lld", (long long)(int64_t)last.v);
        return true;
    case 4: {
        double v;
        memcpy(&v, &last.v, sizeof v);
        put_double(out, v);
        return true;
    }
    default:
        put_base64(out, last.data, last.len);
        return true;
    }
}

/* --- metrics */

typedef struct metric_ctx {
    const char *prefix;
    gr_buf_t *out;
    const field_t *name; /* NULL: none */
    const char *type;    /* "gauge", "sum" */
    const char *temporality; /* sums only */
    bool monotonic;
    const gr_buf_t *resource; /* the resource's members */
} metric_ctx_t;

/* One NumberDataPoint as a line. */
static bool
put_point(dec_t *d, const metric_ctx_t *mc, const uint8_t *p, size_t n)
{
    static const member_t val[] = { { 4, WT_I64 }, { 6, WT_I64 } };
    gr_buf_t *out = mc->out;
    uint64_t t = 0, start = 0;
    const uint8_t *since;
    msg_t m = msg_of(p, n);
    field_t f, value = { 0 };
    bool first = true;
    int k, rc;

    k = oneof_last(d, p, n, val, 2, &since);
    if (k == -2)
        return false;
    while ((rc = read_field(d, &m, &f)) > 0) {
        if (f.wt != WT_I64)
            continue;
        if (f.num == 2)
            start = f.v;
        else if (f.num == 3)
            t = f.v;
        else if (k >= 0 && f.num == val[k].num)
            value = f;
    }
    if (rc < 0)
        return false;
    gr_buf_putc(out, '{');
    gr_buf_puts(out, mc->prefix);
    gr_buf_puts(out, "\"metric\":");
    if (mc->name == NULL)
        gr_buf_puts(out, "\"\"");
    else if (!put_string_field(d, out, mc->name))
        return false;
    gr_buf_printf(out, ",\"type\":\"%s\"", mc->type);
    if (mc->temporality != NULL)
        gr_buf_printf(out, ",\"temporality\":\"%s\",\"monotonic\":%s",
                      mc->temporality, mc->monotonic ? "true" : "false");
    gr_buf_puts(out, ",\"value\":");
    if (k < 0) {
        gr_buf_puts(out, "null");
    } else if (val[k].num == 6) {
        gr_buf_printf(out, "%lld", (long long)(int64_t)value.v);
    } else {
        double v;
        memcpy(&v, &value.v, sizeof v);
        put_double(out, v);
    }
    gr_buf_printf(out, ",\"time_unix_nano\":%llu,\"start_time_unix_nano\":%llu",
                  (unsigned long long)t, (unsigned long long)start);
    gr_buf_puts(out, ",\"attributes\":{");
    if (!put_kv_members(d, out, p, n, 7, NULL, &first, 0))
        return false;
    gr_buf_puts(out, "},\"resource\":{");
    gr_buf_append(out, mc->resource->ptr, mc->resource->len);
    gr_buf_puts(out, "}}\n");
    d->st.points++;
    return true;
}

static const char *
temporality_name(uint64_t v)
{
    /* AggregationTemporality: 0 UNSPECIFIED, 1 DELTA, 2 CUMULATIVE */
    return v == 1 ? "delta" : v == 2 ? "cumulative" : "unspecified";
}

static bool
put_metric(dec_t *d, metric_ctx_t *mc, const uint8_t *p, size_t n)
{
    static const member_t data[] = {
        { 5, WT_LEN },  { 7, WT_LEN },  { 9, WT_LEN },
        { 10, WT_LEN }, { 11, WT_LEN },
    };
    const uint8_t *since;
    msg_t m = msg_of(p, n);
    field_t f, name = { 0 };
    bool has_name = false;
    int k, rc;

    d->st.metrics++;
    while ((rc = read_field(d, &m, &f)) > 0)
        if (f.num == 1 && f.wt == WT_LEN) {
            name = f;
            has_name = true;
        }
    if (rc < 0)
        return false;
    k = oneof_last(d, p, n, data, 5, &since);
    if (k == -2)
        return false;
    if (k < 0 || data[k].num > 7) {
        d->st.skipped++;
        return true;
    }
    mc->name = has_name ? &name : NULL;
    mc->type = data[k].num == 5 ? "gauge" : "sum";
    mc->temporality = NULL;
    mc->monotonic = false;
    if (data[k].num == 7) {
        /* Sum's scalars, over the occurrences that merge */
        uint64_t temp = 0;
        m = msg_of(p, n);
        while ((rc = read_field(d, &m, &f)) > 0) {
            msg_t s;
            field_t g;
            int rc2;
            if (f.num != 7 || f.wt != WT_LEN || (since && f.at <= since))
                continue;
            s = msg_of(f.data, f.len);
            while ((rc2 = read_field(d, &s, &g)) > 0) {
                if (g.num == 2 && g.wt == WT_VARINT)
                    temp = g.v;
                else if (g.num == 3 && g.wt == WT_VARINT)
                    mc->monotonic = g.v != 0;
            }
            if (rc2 < 0)
                return false;
        }
        if (rc < 0)
            return false;
        mc->temporality = temporality_name(temp);
    }
    m = msg_of(p, n);
    while ((rc = read_field(d, &m, &f)) > 0) {
        msg_t s;
        field_t g;
        int rc2;
        if (f.num != data[k].num || f.wt != WT_LEN ||
            (since && f.at <= since))
            continue;
        s = msg_of(f.data, f.len);
        while ((rc2 = read_field(d, &s, &g)) > 0)
            if (g.num == 1 && g.wt == WT_LEN &&
                !put_point(d, mc, g.data, g.len))
                return false;
        if (rc2 < 0)
            return false;
    }
    return rc == 0;
}

static bool
put_scope_metrics(dec_t *d, metric_ctx_t *mc, const uint8_t *p, size_t n)
{
    msg_t m = msg_of(p, n);
    field_t f;
    int rc;
    while ((rc = read_field(d, &m, &f)) > 0)
        if (f.num == 2 && f.wt == WT_LEN && !put_metric(d, mc, f.data, f.len))
            return false;
    return rc == 0;
}

static bool
put_resource_metrics(dec_t *d, const char *prefix, gr_buf_t *out,
                     const uint8_t *p, size_t n)
{
    gr_buf_t res = GR_BUF_INIT;
    metric_ctx_t mc = { prefix, out, NULL, NULL, NULL, false, &res };
    msg_t m = msg_of(p, n);
    field_t f;
    bool first = true, ok = true;
    int rc;

    /* the resource first: its occurrences merge, wherever they are */
    while ((rc = read_field(d, &m, &f)) > 0)
        if (f.num == 1 && f.wt == WT_LEN &&
            !put_kv_members(d, &res, f.data, f.len, 1, NULL, &first, 0)) {
            ok = false;
            break;
        }
    if (ok && rc == 0) {
        m = msg_of(p, n);
        while ((rc = read_field(d, &m, &f)) > 0)
            if (f.num == 2 && f.wt == WT_LEN &&
                !put_scope_metrics(d, &mc, f.data, f.len)) {
                ok = false;
                break;
            }
    }
    if (res.oom)
        out->oom = 1;
    gr_buf_fini(&res);
    return ok && rc == 0;
}

int
gr_otlp_to_jsonl(const uint8_t *p, size_t n, const char *prefix,
                 gr_buf_t *out, gr_otlp_stats_t *st, char *why,
                 size_t why_len)
{
    dec_t d = { why, why_len, false, { 0, 0, 0 } };
    size_t old_len = out->len;
    int old_oom = out->oom;
    msg_t m = msg_of(p, n);
    field_t f;
    int rc;

    if (why_len > 0)
        why[0] = '\0';
    while ((rc = read_field(&d, &m, &f)) > 0)
        if (f.num == 1 && f.wt == WT_LEN &&
            !put_resource_metrics(&d, prefix, out, f.data, f.len)) {
            rc = -1;
            break;
        }
    if (rc == 0 && out->oom && !old_oom) {
        fail(&d, "out of memory");
        rc = -1;
    }
    if (rc != 0) {
        if (!d.failed)
            fail(&d, "malformed");
        out->len = old_len;
        out->oom = old_oom;
        return -1;
    }
    if (st != NULL)
        *st = d.st;
    return 0;
}
