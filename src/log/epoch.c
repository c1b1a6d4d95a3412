/* The leader-epoch cache and its checkpoint text: see epoch.h. */
#include "log/epoch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void
gr_epochs_fini(gr_epochs_t *c)
{
    free(c->v);
    c->v = NULL;
    c->n = c->cap = 0;
}

void
gr_epochs_clear(gr_epochs_t *c)
{
    c->n = 0;
}

int32_t
gr_epochs_latest(const gr_epochs_t *c)
{
    return c->n > 0 ? c->v[c->n - 1].epoch : -1;
}

static int
push(gr_epochs_t *c, int32_t epoch, int64_t start)
{
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 4;
        gr_epoch_entry_t *v = realloc(c->v, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return -1;
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n].epoch = epoch;
    c->v[c->n].start_offset = start;
    c->n++;
    return 0;
}

int
gr_epochs_assign(gr_epochs_t *c, int32_t epoch, int64_t start_offset)
{
    if (epoch < 0 || start_offset < 0)
        return 0;
    if (c->n > 0 && c->v[c->n - 1].epoch == epoch &&
        c->v[c->n - 1].start_offset <= start_offset)
        return 0;
    if (c->n == c->cap) { /* room first: a failure changes nothing */
        int cap = c->cap ? c->cap * 2 : 4;
        gr_epoch_entry_t *v = realloc(c->v, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return -1;
        c->v = v;
        c->cap = cap;
    }
    while (c->n > 0 && (c->v[c->n - 1].epoch >= epoch ||
                        c->v[c->n - 1].start_offset >= start_offset))
        c->n--;
    return push(c, epoch, start_offset) == 0 ? 1 : -1;
}

bool
gr_epochs_truncate_start(gr_epochs_t *c, int64_t offset)
{
    int k = 0; /* entries starting at or below offset */
    while (k < c->n && c->v[k].start_offset <= offset)
        k++;
    if (k == 0)
        return false;
    if (k == 1 && c->v[0].start_offset == offset)
        return false;
    c->v[k - 1].start_offset = offset;
    memmove(c->v, c->v + k - 1, (size_t)(c->n - k + 1) * sizeof(*c->v));
    c->n -= k - 1;
    return true;
}

bool
gr_epochs_truncate_end(gr_epochs_t *c, int64_t offset)
{
    int n = c->n;
    if (offset < 0)
        return false;
    while (c->n > 0 && c->v[c->n - 1].start_offset >= offset)
        c->n--;
    return c->n != n;
}

void
gr_epochs_end_offset(const gr_epochs_t *c, int32_t requested, int64_t leo,
                     int32_t *epoch, int64_t *end_offset)
{
    int hi; /* the first entry above requested */

    *epoch = -1;
    *end_offset = -1;
    if (requested == -1 || c->n == 0)
        return;
    if (c->v[c->n - 1].epoch == requested) {
        *epoch = requested;
        *end_offset = leo;
        return;
    }
    for (hi = 0; hi < c->n && c->v[hi].epoch <= requested; hi++)
        ;
    if (hi == c->n)
        return; /* above every epoch */
    /* below the first: the requested epoch with the first start (data
     * before it is gone); else the floor epoch */
    *epoch = hi == 0 ? requested : c->v[hi - 1].epoch;
    *end_offset = c->v[hi].start_offset;
}

/* One line of text[*pos, n): its bounds without "\n"; false at the end. */
static bool
next_line(const char *text, size_t n, size_t *pos, const char **line,
          size_t *len)
{
    const char *nl;
    if (*pos >= n)
        return false;
    *line = text + *pos;
    nl = memchr(*line, '\n', n - *pos);
    *len = nl ? (size_t)(nl - *line) : n - *pos;
    *pos += *len + (nl ? 1 : 0);
    return true;
}

/* A decimal integer of the line at *i (Java's parseInt/parseLong: an
 * optional sign, digits), within [min, max]. */
static bool
parse_num(const char *s, size_t len, size_t *i, int64_t min, int64_t max,
          int64_t *out)
{
    bool neg = false;
    uint64_t v = 0;
    size_t start;

    if (*i < len && (s[*i] == '-' || s[*i] == '+'))
        neg = s[(*i)++] == '-';
    start = *i;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(s[(*i)++] - '0');
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
    }
    if (*i == start)
        return false;
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)v;
    }
    return *out >= min && *out <= max;
}

/* A whole line that is one number (Kafka trims nothing: "0" exactly). */
static bool
line_num(const char *s, size_t len, int64_t min, int64_t max, int64_t *out)
{
    size_t i = 0;
    return parse_num(s, len, &i, min, max, out) && i == len;
}

int
gr_epochs_parse(gr_epochs_t *c, const char *text, size_t n, const char **why)
{
    const char *line;
    size_t pos = 0, len;
    int64_t version, count;

    gr_epochs_clear(c);
    if (!next_line(text, n, &pos, &line, &len) ||
        !line_num(line, len, 0, 0, &version)) {
        *why = "not version 0";
        return -1;
    }
    if (!next_line(text, n, &pos, &line, &len) ||
        !line_num(line, len, 0, INT32_MAX, &count)) {
        *why = "no entry count";
        return -1;
    }
    for (int64_t k = 0; k < count; k++) {
        int64_t epoch, start;
        size_t i = 0, sp;
        if (!next_line(text, n, &pos, &line, &len)) {
            *why = "fewer entries than its count";
            goto bad;
        }
        /* "<epoch> <offset>": Kafka splits on runs of white space */
        if (!parse_num(line, len, &i, INT32_MIN, INT32_MAX, &epoch))
            goto malformed;
        for (sp = i; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
            ;
        if (i == sp || !parse_num(line, len, &i, INT64_MIN, INT64_MAX, &start))
            goto malformed;
        if (i != len)
            goto malformed;
        if (epoch < 0 || start < 0) {
            *why = "a negative epoch or offset";
            goto bad;
        }
        if (c->n > 0 && (c->v[c->n - 1].epoch >= epoch ||
                         c->v[c->n - 1].start_offset >= start)) {
            *why = "entries not increasing";
            goto bad;
        }
        if (push(c, (int32_t)epoch, start) != 0) {
            *why = strerror(ENOMEM);
            goto bad;
        }
    }
    if (next_line(text, n, &pos, &line, &len)) {
        *why = "more entries than its count";
        goto bad;
    }
    return 0;
malformed:
    *why = "a malformed entry line";
bad:
    gr_epochs_clear(c);
    return -1;
}

void
gr_epochs_format(const gr_epochs_t *c, gr_buf_t *out)
{
    gr_buf_printf(out, "0\n%d\n", c->n);
    for (int i = 0; i < c->n; i++)
        gr_buf_printf(out, "%" PRId32 " %" PRId64 "\n", c->v[i].epoch,
                      c->v[i].start_offset);
}
