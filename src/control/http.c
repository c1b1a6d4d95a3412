/* The HTTP/1.1 request parser: see http.h. */
#include "control/http.h"

#include <string.h>

/* RFC 9110 tchar */
static bool
is_tchar(uint8_t c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
        (c >= 'A' && c <= 'Z'))
        return true;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int
lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* s[0..n) equals the lower-case literal lit, ignoring case */
static bool
eq_nocase(const uint8_t *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    if (n != k)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower(s[i]) != lit[i])
            return false;
    return true;
}

/* Whether the comma-separated list s[0..n) holds token tok (any case). */
static bool
list_has(const uint8_t *s, size_t n, const char *tok)
{
    size_t i = 0;
    while (i < n) {
        size_t b, e;
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
            i++;
        b = i;
        while (i < n && s[i] != ',')
            i++;
        e = i;
        while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
            e--;
        if (e > b && eq_nocase(s + b, e - b, tok))
            return true;
    }
    return false;
}

/* The end of the line starting at p[at]: the index of its LF, or -1. The
 * line's content ends before an optional CR. */
static long
line_end(const uint8_t *p, size_t n, size_t at)
{
    const uint8_t *lf = memchr(p + at, '\n', n - at);
    return lf ? (long)(lf - p) : -1;
}

static size_t
content_end(const uint8_t *p, size_t b, size_t lf)
{
    return lf > b && p[lf - 1] == '\r' ? lf - 1 : lf;
}

static long
parse_request_line(const uint8_t *p, size_t e, gr_http_req_t *r)
{
    size_t i = 0, t;
    while (i < e && is_tchar(p[i]))
        i++;
    if (i == 0 || i >= e || p[i] != ' ')
        return -400;
    r->method = (const char *)p;
    r->method_len = i;
    t = ++i;
    while (i < e && p[i] > ' ' && p[i] < 0x7f)
        i++;
    if (i == t || i >= e || p[i] != ' ' || p[t] != '/')
        return -400;
    r->target = (const char *)p + t;
    r->target_len = i - t;
    i++;
    if (e - i != 8 || memcmp(p + i, "HTTP/", 5) != 0 || p[i + 6] != '.' ||
        p[i + 5] < '0' || p[i + 5] > '9' || p[i + 7] < '0' || p[i + 7] > '9')
        return -400;
    if (p[i + 5] != '1' || (p[i + 7] != '0' && p[i + 7] != '1'))
        return -505;
    r->minor = p[i + 7] - '0';
    r->keep_alive = r->minor == 1;
    return 0;
}

/* One header field line p[b..e). */
static long
parse_field(const uint8_t *p, size_t b, size_t e, gr_http_req_t *r,
            bool *have_len)
{
    size_t i = b, vb, ve;
    while (i < e && is_tchar(p[i]))
        i++;
    if (i == b || i >= e || p[i] != ':')
        return -400; /* no name, space before the colon, or no colon */
    vb = i + 1;
    while (vb < e && (p[vb] == ' ' || p[vb] == '\t'))
        vb++;
    ve = e;
    while (ve > vb && (p[ve - 1] == ' ' || p[ve - 1] == '\t'))
        ve--;
    for (size_t k = vb; k < ve; k++)
        if ((p[k] < 0x20 && p[k] != '\t') || p[k] == 0x7f)
            return -400;
    if (eq_nocase(p + b, i - b, "content-length")) {
        size_t v = 0;
        if (ve == vb)
            return -400;
        for (size_t k = vb; k < ve; k++) {
            if (p[k] < '0' || p[k] > '9')
                return -400;
            if (v > GR_HTTP_MAX_BODY)
                return -413;
            v = v * 10 + (size_t)(p[k] - '0');
        }
        if (v > GR_HTTP_MAX_BODY)
            return -413;
        if (*have_len && v != r->body_len)
            return -400; /* two different lengths */
        *have_len = true;
        r->body_len = v;
    } else if (eq_nocase(p + b, i - b, "transfer-encoding")) {
        return -501;
    } else if (eq_nocase(p + b, i - b, "connection")) {
        if (list_has(p + vb, ve - vb, "close"))
            r->keep_alive = false;
        else if (list_has(p + vb, ve - vb, "keep-alive"))
            r->keep_alive = true;
    } else if (eq_nocase(p + b, i - b, "expect")) {
        if (!eq_nocase(p + vb, ve - vb, "100-continue"))
            return -400; /* 417 in RFC 9110; no client sends another */
        r->expect_continue = true;
    }
    return 0;
}

long
gr_http_parse(const uint8_t *p, size_t n, gr_http_req_t *r)
{
    size_t at = 0;
    bool have_len = false;
    long lf, rc;

    memset(r, 0, sizeof *r);
    /* a bare CRLF before a request line is ignored (RFC 9112 2.2) */
    while (at < n && at < 4 && (p[at] == '\r' || p[at] == '\n'))
        at++;
    lf = line_end(p, n > GR_HTTP_MAX_HEADER ? GR_HTTP_MAX_HEADER : n, at);
    if (lf < 0)
        return n >= GR_HTTP_MAX_HEADER ? -431 : 0;
    rc = parse_request_line(p + at, content_end(p, at, (size_t)lf) - at, r);
    if (rc != 0)
        return rc;
    at = (size_t)lf + 1;
    for (;;) {
        size_t e;
        lf = line_end(p, n > GR_HTTP_MAX_HEADER ? GR_HTTP_MAX_HEADER : n, at);
        if (lf < 0)
            return n >= GR_HTTP_MAX_HEADER ? -431 : 0;
        e = content_end(p, at, (size_t)lf);
        if (e == at)
            break; /* the empty line */
        if (p[at] == ' ' || p[at] == '\t')
            return -400; /* obsolete line folding */
        if ((rc = parse_field(p, at, e, r, &have_len)) != 0)
            return rc;
        at = (size_t)lf + 1;
    }
    r->header_len = (size_t)lf + 1;
    r->headers_done = true;
    if (n - r->header_len < r->body_len)
        return 0;
    r->body = p + r->header_len;
    return (long)(r->header_len + r->body_len);
}

size_t
gr_http_path_len(const char *target, size_t len)
{
    const char *q = memchr(target, '?', len);
    return q ? (size_t)(q - target) : len;
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* %-decodes s[0..n) into out; '+' is a space (forms). false when it does
 * not fit or an escape is malformed. */
static bool
decode(const char *s, size_t n, char *out, size_t outsz)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '%') {
            int h, l;
            if (n - i < 3 || (h = hexval(s[i + 1])) < 0 ||
                (l = hexval(s[i + 2])) < 0)
                return false;
            c = h * 16 + l;
            i += 2;
        } else if (c == '+') {
            c = ' ';
        }
        if (c == 0 || k + 1 >= outsz)
            return false;
        out[k++] = (char)c;
    }
    out[k] = '\0';
    return true;
}

bool
gr_http_query_get(const char *target, size_t len, const char *name, char *out,
                  size_t outsz)
{
    size_t plen = gr_http_path_len(target, len), nlen = strlen(name);
    size_t i = plen + 1;
    if (outsz == 0 || plen >= len)
        return false;
    while (i <= len) {
        size_t b = i, eq, e;
        while (i < len && target[i] != '&')
            i++;
        e = i++;
        eq = b;
        while (eq < e && target[eq] != '=')
            eq++;
        if (eq - b == nlen && memcmp(target + b, name, nlen) == 0)
            return decode(target + (eq < e ? eq + 1 : e),
                          eq < e ? e - eq - 1 : 0, out, outsz);
    }
    return false;
}

const char *
gr_http_reason(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 413:
        return "Content Too Large";
    case 422:
        return "Unprocessable Content";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    }
    return "Unknown";
}
