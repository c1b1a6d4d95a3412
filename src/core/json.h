/*
 * JSON: a parser (RFC 8259, numbers limited to integers that fit an int64
 * unless floats are asked for, nesting to GR_JSON_MAX_DEPTH) into a tree
 * in an arena, and lookups, for what peers send (control request bodies,
 * OAuth tokens and JWKS documents, ZooKeeper's znodes); and strings
 * written as JSON, the rest of an answer being gr_buf_printf()'s. Peer
 * input: fuzzed with the HTTP parser (tests/fuzz/fuzz_http.c) and the
 * OAuth one.
 */
#ifndef GR_CORE_JSON_H
#define GR_CORE_JSON_H

#include "core/arena.h"
#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_JSON_MAX_DEPTH 16

typedef enum gr_json_type {
    GR_JSON_NULL,
    GR_JSON_BOOL,
    GR_JSON_INT,
    GR_JSON_DBL, /* gr_json_parse_floats() only */
    GR_JSON_STR,
    GR_JSON_ARR,
    GR_JSON_OBJ
} gr_json_type_t;

typedef struct gr_json gr_json_t;
struct gr_json {
    gr_json_type_t type;
    bool b;
    int64_t i;
    double d;      /* GR_JSON_DBL */
    const char *s; /* GR_JSON_STR: decoded, NUL-terminated (may hold NULs:
                    * slen counts them) */
    size_t slen;
    const char *key; /* an object member's name, or NULL */
    gr_json_t *kids; /* array elements / object members, in order */
    int n;
};

/* Parses p[0..n) (one value, whitespace around it). The tree lives in a;
 * NULL on error with a reason in err. */
gr_json_t *gr_json_parse(gr_arena_t *a, const char *p, size_t n, char *err,
                         size_t errsz);
/* As gr_json_parse, with numbers that have a fraction or an exponent, and
 * integers beyond int64, as GR_JSON_DBL: for JSON the broker wrote itself
 * (client telemetry lines, src/control/metrics.c). */
gr_json_t *gr_json_parse_floats(gr_arena_t *a, const char *p, size_t n,
                                char *err, size_t errsz);
/* The first member of object o named key, or NULL (also when o is not an
 * object). */
const gr_json_t *gr_json_get(const gr_json_t *o, const char *key);

/* s[0..n) as a JSON string (quoted, escaped) appended to out; bytes that
 * are not UTF-8 become U+FFFD. */
void gr_json_put_str(gr_buf_t *out, const char *s, size_t n);

#endif
