/* JSON: see json.h. The parser makes two passes per container: members
 * are parsed into a temporary chain, then copied into one array. */
#include "core/json.h"

#include "core/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jp {
    gr_arena_t *a;
    const char *p, *end;
    char *err;
    size_t errsz;
    int depth;
    bool floats; /* gr_json_parse_floats() */
} jp_t;

static bool value(jp_t *j, gr_json_t *out);

static bool
fail(jp_t *j, const char *what)
{
    if (j->errsz > 0 && j->err[0] == '\0')
        snprintf(j->err, j->errsz, "%s", what);
    return false;
}

static void
ws(jp_t *j)
{
    while (j->p < j->end &&
           (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool
lit(jp_t *j, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n) != 0)
        return fail(j, "invalid literal");
    j->p += n;
    return true;
}

static int
hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int c = (unsigned char)p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t
put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A string; the decoded bytes never outnumber the encoded ones, so the
 * output is sized by the input. */
static bool
string(jp_t *j, const char **s, size_t *slen)
{
    const char *b;
    char *o;
    size_t k = 0;
    if (j->p == j->end || *j->p != '"')
        return fail(j, "expected a string");
    b = ++j->p;
    while (j->p < j->end && *j->p != '"') {
        if (*j->p == '\\' && j->end - j->p >= 2)
            j->p++;
        j->p++;
    }
    if (j->p == j->end)
        return fail(j, "unterminated string");
    o = gr_arena_alloc(j->a, (size_t)(j->p - b) + 1);
    if (o == NULL)
        return fail(j, "out of memory");
    for (const char *q = b; q < j->p;) {
        unsigned char c = (unsigned char)*q++;
        if (c < 0x20)
            return fail(j, "control character in a string");
        if (c != '\\') {
            o[k++] = (char)c;
            continue;
        }
        c = (unsigned char)*q++; /* the scan above saw a byte after '\' */
        switch (c) {
        case '"':
            o[k++] = '"';
            break;
        case '\\':
            o[k++] = '\\';
            break;
        case '/':
            o[k++] = '/';
            break;
        case 'b':
            o[k++] = '\b';
            break;
        case 'f':
            o[k++] = '\f';
            break;
        case 'n':
            o[k++] = '\n';
            break;
        case 'r':
            o[k++] = '\r';
            break;
        case 't':
            o[k++] = '\t';
            break;
        case 'u': {
            int hi, lo;
            uint32_t cp;
            if (j->p - q < 4 || (hi = hex4(q)) < 0)
                return fail(j, "bad \\u escape");
            q += 4;
            cp = (uint32_t)hi;
            if (hi >= 0xd800 && hi < 0xdc00) {
                if (j->p - q < 6 || q[0] != '\\' || q[1] != 'u' ||
                    (lo = hex4(q + 2)) < 0xdc00 || lo >= 0xe000)
                    return fail(j, "unpaired surrogate");
                q += 6;
                cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) +
                     ((uint32_t)lo - 0xdc00);
            } else if (hi >= 0xdc00 && hi < 0xe000) {
                return fail(j, "unpaired surrogate");
            }
            /* an escape is 6 bytes in, at most 3 out; a pair 12 in, 4 out */
            k += put_utf8(o + k, cp);
            break;
        }
        default:
            return fail(j, "bad escape");
        }
    }
    o[k] = '\0';
    j->p++; /* the closing quote */
    *s = o;
    *slen = k;
    return true;
}

/* A number with a fraction or an exponent, or an integer beyond int64,
 * from b (its sign included) on: RFC 8259's grammar, then strtod. */
static bool
number_double(jp_t *j, const char *b, gr_json_t *out)
{
    const char *q = b;
    char tmp[64];
    if (q < j->end && *q == '-')
        q++;
    while (q < j->end && *q >= '0' && *q <= '9')
        q++;
    if (q < j->end && *q == '.') {
        const char *d = ++q;
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
        if (q == d)
            return fail(j, "expected a digit after '.'");
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        const char *d;
        q++;
        if (q < j->end && (*q == '+' || *q == '-'))
            q++;
        d = q;
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
        if (q == d)
            return fail(j, "expected a digit in the exponent");
    }
    if ((size_t)(q - b) >= sizeof tmp)
        return fail(j, "number too long");
    memcpy(tmp, b, (size_t)(q - b));
    tmp[q - b] = '\0';
    out->type = GR_JSON_DBL;
    out->d = strtod(tmp, NULL);
    j->p = q;
    return true;
}

static bool
number(jp_t *j, gr_json_t *jv)
{
    int64_t *out = &jv->i;
    const char *start = j->p;
    bool neg = false;
    uint64_t v = 0, lim;
    const char *b;
    if (j->p < j->end && *j->p == '-') {
        neg = true;
        j->p++;
    }
    b = j->p;
    lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        unsigned d = (unsigned)(*j->p - '0');
        if (v > (lim - d) / 10) {
            if (j->floats && (*b != '0' || j->p == b))
                return number_double(j, start, jv);
            return fail(j, "number out of range");
        }
        v = v * 10 + d;
        j->p++;
    }
    if (j->p == b)
        return fail(j, "expected a value");
    if (*b == '0' && j->p - b > 1)
        return fail(j, "leading zero");
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) {
        if (j->floats)
            return number_double(j, start, jv);
        return fail(j, "numbers must be integers");
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

typedef struct chain {
    gr_json_t v;
    struct chain *next;
} chain_t;

/* An array or object: '[' or '{' at j->p. */
static bool
container(jp_t *j, gr_json_t *out, bool obj)
{
    chain_t *head = NULL, **tail = &head;
    int n = 0;
    char close = obj ? '}' : ']';
    if (++j->depth > GR_JSON_MAX_DEPTH)
        return fail(j, "nested too deeply");
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
    } else {
        for (;;) {
            chain_t *c = gr_arena_zalloc(j->a, sizeof *c);
            if (c == NULL)
                return fail(j, "out of memory");
            ws(j);
            if (obj) {
                size_t kl;
                if (!string(j, &c->v.key, &kl))
                    return false;
                ws(j);
                if (j->p == j->end || *j->p != ':')
                    return fail(j, "expected ':'");
                j->p++;
                ws(j);
            }
            if (!value(j, &c->v))
                return false;
            *tail = c;
            tail = &c->next;
            n++;
            ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == close) {
                j->p++;
                break;
            }
            return fail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    out->type = obj ? GR_JSON_OBJ : GR_JSON_ARR;
    out->n = n;
    if (n > 0) {
        int i = 0;
        out->kids = gr_arena_alloc(j->a, (size_t)n * sizeof(gr_json_t));
        if (out->kids == NULL)
            return fail(j, "out of memory");
        for (chain_t *c = head; c != NULL; c = c->next)
            out->kids[i++] = c->v;
    }
    j->depth--;
    return true;
}

static bool
value(jp_t *j, gr_json_t *out)
{
    const char *key = out->key;
    memset(out, 0, sizeof *out);
    out->key = key;
    ws(j);
    if (j->p == j->end)
        return fail(j, "expected a value");
    switch (*j->p) {
    case '{':
        return container(j, out, true);
    case '[':
        return container(j, out, false);
    case '"':
        out->type = GR_JSON_STR;
        return string(j, &out->s, &out->slen);
    case 't':
        out->type = GR_JSON_BOOL;
        out->b = true;
        return lit(j, "true");
    case 'f':
        out->type = GR_JSON_BOOL;
        return lit(j, "false");
    case 'n':
        out->type = GR_JSON_NULL;
        return lit(j, "null");
    default:
        out->type = GR_JSON_INT;
        return number(j, out);
    }
}

static gr_json_t *
parse(gr_arena_t *a, const char *p, size_t n, char *err, size_t errsz,
      bool floats)
{
    jp_t j = { a, p, p + n, err, errsz, 0, floats };
    gr_json_t *v = gr_arena_zalloc(a, sizeof *v);
    if (errsz > 0)
        err[0] = '\0';
    if (v == NULL) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    if (!value(&j, v))
        goto bad;
    ws(&j);
    if (j.p != j.end) {
        fail(&j, "trailing bytes");
        goto bad;
    }
    return v;
bad:
    /* say where */
    if (errsz > 0) {
        size_t len = strlen(err);
        snprintf(err + len, errsz - len, " at byte %zu", (size_t)(j.p - p));
    }
    return NULL;
}

gr_json_t *
gr_json_parse(gr_arena_t *a, const char *p, size_t n, char *err, size_t errsz)
{
    return parse(a, p, n, err, errsz, false);
}

gr_json_t *
gr_json_parse_floats(gr_arena_t *a, const char *p, size_t n, char *err,
                     size_t errsz)
{
    return parse(a, p, n, err, errsz, true);
}

const gr_json_t *
gr_json_get(const gr_json_t *o, const char *key)
{
    if (o == NULL || o->type != GR_JSON_OBJ)
        return NULL;
    for (int i = 0; i < o->n; i++)
        if (o->kids[i].key != NULL && strcmp(o->kids[i].key, key) == 0)
            return &o->kids[i];
    return NULL;
}

/* --- writing */

void
gr_json_put_str(gr_buf_t *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t from = 0, i = 0;
    gr_buf_putc(out, '"');
    while (i < n) {
        unsigned char c = u[i];
        const char *esc;
        char x[7];
        size_t k;
        if (c >= 0x80) {
            if ((k = gr_utf8_len(u + i, n - i)) != 0) {
                i += k;
                continue;
            }
            esc = "\xef\xbf\xbd"; /* U+FFFD for a byte that starts none */
        } else if (c >= 0x20 && c != '"' && c != '\\') {
            i++;
            continue;
        } else {
            switch (c) {
            case '"':
                esc = "\\\"";
                break;
            case '\\':
                esc = "\\\\";
                break;
            case '\n':
                esc = "\\n";
                break;
            case '\r':
                esc = "\\r";
                break;
            case '\t':
                esc = "\\t";
                break;
            case '\b':
                esc = "\\b";
                break;
            case '\f':
                esc = "\\f";
                break;
            default:
                snprintf(x, sizeof x, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
                esc = x;
                break;
            }
        }
        gr_buf_append(out, u + from, i - from);
        gr_buf_puts(out, esc);
        from = ++i;
    }
    gr_buf_append(out, u + from, n - from);
    gr_buf_putc(out, '"');
}
