/* The Prometheus text exposition format: see prom.h. */
#include "control/prom.h"

#include "core/str.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
escape(gr_buf_t *o, const char *s, size_t n, bool quote)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t k;
        if (p[i] == '\\') {
            gr_buf_puts(o, "\\\\");
            i++;
        } else if (p[i] == '\n') {
            gr_buf_puts(o, "\\n");
            i++;
        } else if (quote && p[i] == '"') {
            gr_buf_puts(o, "\\\"");
            i++;
        } else if ((k = gr_utf8_len(p + i, n - i)) == 0) {
            gr_buf_puts(o, "\xef\xbf\xbd"); /* U+FFFD */
            i++;
        } else {
            gr_buf_append(o, p + i, k);
            i += k;
        }
    }
}

void
gr_prom_escape_value(gr_buf_t *o, const char *s, size_t n)
{
    escape(o, s, n, true);
}

void
gr_prom_escape_help(gr_buf_t *o, const char *s)
{
    escape(o, s, strlen(s), false);
}

void
gr_prom_family(gr_buf_t *o, const char *name, const char *type,
               const char *help)
{
    gr_buf_printf(o, "# HELP %s ", name);
    gr_prom_escape_help(o, help);
    gr_buf_printf(o, "\n# TYPE %s %s\n", name, type);
}

gr_prom_sample_t
gr_prom_begin(gr_buf_t *o, const char *name, const char *suffix)
{
    gr_prom_sample_t s = { o, false };
    gr_buf_puts(o, name);
    if (suffix != NULL)
        gr_buf_puts(o, suffix);
    return s;
}

void
gr_prom_label(gr_prom_sample_t *s, const char *name, const char *value,
              size_t n)
{
    gr_buf_putc(s->o, s->labels ? ',' : '{');
    s->labels = true;
    gr_buf_puts(s->o, name);
    gr_buf_puts(s->o, "=\"");
    if (value != NULL)
        escape(s->o, value, n == (size_t)-1 ? strlen(value) : n, true);
    gr_buf_putc(s->o, '"');
}

void
gr_prom_label_int(gr_prom_sample_t *s, const char *name, int64_t v)
{
    char num[24];
    int n = snprintf(num, sizeof num, "%lld", (long long)v);
    gr_prom_label(s, name, num, (size_t)n);
}

static void
end(gr_prom_sample_t *s)
{
    if (s->labels)
        gr_buf_putc(s->o, '}');
    gr_buf_putc(s->o, ' ');
}

void
gr_prom_end_int(gr_prom_sample_t *s, int64_t v)
{
    end(s);
    gr_buf_printf(s->o, "%lld\n", (long long)v);
}

void
gr_prom_end_double(gr_prom_sample_t *s, double v)
{
    char num[40];
    end(s);
    if (isnan(v)) {
        gr_buf_puts(s->o, "NaN\n");
        return;
    }
    if (isinf(v)) {
        gr_buf_puts(s->o, v > 0 ? "+Inf\n" : "-Inf\n");
        return;
    }
    /* the shortest of %.15g .. %.17g that reads back the same */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(num, sizeof num, "%.*g", prec, v);
        if (strtod(num, NULL) == v)
            break;
    }
    gr_buf_printf(s->o, "%s\n", num);
}

size_t
gr_prom_sanitize(char *out, size_t outsz, const char *s, size_t n, bool label)
{
    size_t w = 0;
    if (outsz == 0)
        return 0;
    if (n > 0 && s[0] >= '0' && s[0] <= '9' && w + 1 < outsz)
        out[w++] = '_';
    for (size_t i = 0; i < n && w + 1 < outsz; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '_' || (!label && c == ':');
        out[w++] = ok ? c : '_';
    }
    if (w == 0 && outsz > 1)
        out[w++] = '_';
    /* "__" starts the names Prometheus reserves for itself */
    if (label && w >= 2 && out[0] == '_' && out[1] == '_')
        out[0] = 'x';
    out[w] = '\0';
    return w;
}
