/*
 * A small HTTP/1.1 request parser for the control listener (control.c):
 * the request line, the header fields it needs (Content-Length,
 * Connection, Expect, Transfer-Encoding) and a body of Content-Length
 * bytes. It parses from the start of a buffer each time more bytes arrive
 * (requests are small and bounded), keeps no state between calls and
 * points into the buffer instead of copying. Peer input: bounded, every
 * malformed input answered with a status, never a crash (the "http" fuzz
 * target, tests/fuzz/fuzz_http.c).
 *
 * What it accepts: "METHOD SP /target SP HTTP/1.0|1.1", lines ending in
 * CRLF or a bare LF, header fields "name: value" (name a token, no space
 * before the colon, no obsolete line folding), a body only by
 * Content-Length (chunked transfer coding is refused with 501: no client
 * of this interface needs it).
 */
#ifndef GR_CONTROL_HTTP_H
#define GR_CONTROL_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gr_http_req {
    const char *method; /* not NUL-terminated: method_len bytes */
    size_t method_len;
    const char *target; /* "/v1/faults?api=Produce" */
    size_t target_len;
    int minor;            /* HTTP/1.<minor>: 0 or 1 */
    bool keep_alive;      /* 1.1 unless "Connection: close"; 1.0 only with
                           * "Connection: keep-alive" */
    bool expect_continue; /* "Expect: 100-continue" */
    bool headers_done;    /* the header section is complete */
    size_t header_len;    /* bytes of the request line and headers */
    size_t body_len;      /* Content-Length */
    const uint8_t *body;
} gr_http_req_t;

/* Limits: the request line and header section together, and the body. */
#define GR_HTTP_MAX_HEADER 8192
#define GR_HTTP_MAX_BODY   65536

/*
 * Parses one request from p[0..n). Returns the bytes it takes (request
 * line, headers and body) when it is complete; 0 when more bytes are
 * needed (r->headers_done tells whether the header section is complete,
 * and then r->expect_continue whether the client waits for "100
 * Continue"); or minus the HTTP status to answer before closing: -400
 * (malformed), -413 (body above GR_HTTP_MAX_BODY), -431 (header section
 * above GR_HTTP_MAX_HEADER), -501 (Transfer-Encoding), -505 (not
 * HTTP/1.0 or 1.1). Pointers in r point into p.
 */
long gr_http_parse(const uint8_t *p, size_t n, gr_http_req_t *r);

/* The path of a target (what precedes '?'): its length. */
size_t gr_http_path_len(const char *target, size_t len);
/* The value of query parameter name in target, %-decoded into out
 * (NUL-terminated, at most outsz - 1 bytes). true when present and it
 * fits. */
bool gr_http_query_get(const char *target, size_t len, const char *name,
                       char *out, size_t outsz);
/* "OK", "Not Found", ... for the statuses the control listener sends. */
const char *gr_http_reason(int status);

#endif
