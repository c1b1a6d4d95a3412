/*
 * Arena: a bump allocator for memory that lives as long as one request (the
 * decoded body, the response) or one load. Memory comes in chunks; reset keeps
 * the first chunk so a connection's steady state allocates nothing.
 * Not thread safe; loop thread only unless the arena is private.
 */
#ifndef GR_CORE_ARENA_H
#define GR_CORE_ARENA_H

#include <stddef.h>

typedef struct gr_arena gr_arena_t;

/* A new arena whose chunks hold at least chunk_size bytes. NULL on ENOMEM. */
gr_arena_t *gr_arena_new(size_t chunk_size);
void gr_arena_destroy(gr_arena_t *a);
/* size bytes aligned to 8; NULL on ENOMEM. Valid until reset or destroy. */
void *gr_arena_alloc(gr_arena_t *a, size_t size);
void *gr_arena_zalloc(gr_arena_t *a, size_t size);
void *gr_arena_memdup(gr_arena_t *a, const void *p, size_t size);
char *gr_arena_strndup(gr_arena_t *a, const char *s, size_t len);
char *gr_arena_printf(gr_arena_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Frees every chunk but the first and rewinds it. */
void gr_arena_reset(gr_arena_t *a);
/* Bytes held from the heap (chunks), for memory accounting. */
size_t gr_arena_footprint(const gr_arena_t *a);

#endif
