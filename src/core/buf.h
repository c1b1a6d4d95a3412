/*
 * gr_buf_t: a growable byte buffer. All-zero is a valid empty buffer.
 * Appends never fail silently: on ENOMEM the buffer is marked (oom) and later
 * appends do nothing, so a caller checks once at the end.
 */
#ifndef GR_CORE_BUF_H
#define GR_CORE_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct gr_buf {
    uint8_t *ptr;
    size_t len;
    size_t cap;
    int oom;
} gr_buf_t;

#define GR_BUF_INIT {NULL, 0, 0, 0}

void gr_buf_fini(gr_buf_t *b);
/* Room for at least n more bytes; 0 or GR_ERR_NOMEM. */
int gr_buf_reserve(gr_buf_t *b, size_t n);
void gr_buf_append(gr_buf_t *b, const void *p, size_t n);
void gr_buf_putc(gr_buf_t *b, char c);
void gr_buf_puts(gr_buf_t *b, const char *s);
void gr_buf_printf(gr_buf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* NUL-terminated view of the content (the NUL is not counted in len). */
const char *gr_buf_cstr(gr_buf_t *b);
void gr_buf_reset(gr_buf_t *b);

#endif
