/*
 * Arena allocator: see arena.h. Chunks form a singly linked list, newest first;
 * an allocation larger than a chunk gets a chunk of its own.
 */
#include "core/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
    struct chunk *next;
    size_t size; /* bytes in data[] */
    size_t used;
    _Alignas(16) unsigned char data[];
} chunk_t;

struct gr_arena {
    chunk_t *head;  /* current chunk */
    chunk_t *first; /* kept by reset */
    size_t chunk_size;
    size_t footprint;
};

static chunk_t *
chunk_new(gr_arena_t *a, size_t size)
{
    chunk_t *c = malloc(sizeof(*c) + size);
    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    a->footprint += sizeof(*c) + size;
    return c;
}

gr_arena_t *
gr_arena_new(size_t chunk_size)
{
    gr_arena_t *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return NULL;
    a->chunk_size = chunk_size < 256 ? 256 : chunk_size;
    return a;
}

void
gr_arena_destroy(gr_arena_t *a)
{
    chunk_t *c, *next;
    if (a == NULL)
        return;
    for (c = a->head; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

void *
gr_arena_alloc(gr_arena_t *a, size_t size)
{
    chunk_t *c = a->head;
    size_t need = (size + 7) & ~(size_t)7;
    void *p;

    if (need < size)
        return NULL;
    if (c == NULL || c->size - c->used < need) {
        size_t csize = need > a->chunk_size ? need : a->chunk_size;
        chunk_t *n = chunk_new(a, csize);
        if (n == NULL)
            return NULL;
        if (a->first == NULL)
            a->first = n;
        /* a big one-off chunk goes behind the current one, so the current
         * chunk's free space is not wasted */
        if (c != NULL && need > a->chunk_size) {
            n->next = c->next;
            c->next = n;
            n->used = need;
            return n->data;
        }
        n->next = c;
        a->head = c = n;
    }
    p = c->data + c->used;
    c->used += need;
    return p;
}

void *
gr_arena_zalloc(gr_arena_t *a, size_t size)
{
    void *p = gr_arena_alloc(a, size);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

void *
gr_arena_memdup(gr_arena_t *a, const void *p, size_t size)
{
    void *q = gr_arena_alloc(a, size ? size : 1);
    if (q != NULL && size)
        memcpy(q, p, size);
    return q;
}

char *
gr_arena_strndup(gr_arena_t *a, const char *s, size_t len)
{
    char *q = gr_arena_alloc(a, len + 1);
    if (q == NULL)
        return NULL;
    if (len)
        memcpy(q, s, len);
    q[len] = '\0';
    return q;
}

char *
gr_arena_printf(gr_arena_t *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *q;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    q = gr_arena_alloc(a, (size_t)n + 1);
    if (q == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(q, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return q;
}

void
gr_arena_reset(gr_arena_t *a)
{
    chunk_t *c, *next;
    for (c = a->head; c != NULL; c = next) {
        next = c->next;
        if (c != a->first) {
            a->footprint -= sizeof(*c) + c->size;
            free(c);
        }
    }
    /* a first chunk grown for one big allocation is not kept */
    if (a->first != NULL && a->first->size > a->chunk_size) {
        a->footprint -= sizeof(*a->first) + a->first->size;
        free(a->first);
        a->first = NULL;
    }
    a->head = a->first;
    if (a->first != NULL) {
        a->first->next = NULL;
        a->first->used = 0;
    }
}

size_t
gr_arena_footprint(const gr_arena_t *a)
{
    return a->footprint;
}
