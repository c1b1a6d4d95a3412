/* Growable byte buffer: see buf.h. */
#include "core/buf.h"
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
gr_buf_fini(gr_buf_t *b)
{
    free(b->ptr);
    b->ptr = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

int
gr_buf_reserve(gr_buf_t *b, size_t n)
{
    size_t cap;
    uint8_t *p;

    if (b->oom)
        return GR_ERR_NOMEM;
    if (b->cap - b->len >= n)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return GR_ERR_NOMEM;
        }
        cap *= 2;
    }
    p = realloc(b->ptr, cap);
    if (p == NULL) {
        b->oom = 1;
        return GR_ERR_NOMEM;
    }
    b->ptr = p;
    b->cap = cap;
    return 0;
}

void
gr_buf_append(gr_buf_t *b, const void *p, size_t n)
{
    if (n == 0 || gr_buf_reserve(b, n) != 0)
        return;
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
}

void
gr_buf_putc(gr_buf_t *b, char c)
{
    if (gr_buf_reserve(b, 1) != 0)
        return;
    b->ptr[b->len++] = (uint8_t)c;
}

void
gr_buf_puts(gr_buf_t *b, const char *s)
{
    gr_buf_append(b, s, strlen(s));
}

void
gr_buf_printf(gr_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || gr_buf_reserve(b, (size_t)n + 1) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf((char *)b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *
gr_buf_cstr(gr_buf_t *b)
{
    if (gr_buf_reserve(b, 1) != 0)
        return "";
    b->ptr[b->len] = '\0';
    return (const char *)b->ptr;
}

void
gr_buf_reset(gr_buf_t *b)
{
    b->len = 0;
}
