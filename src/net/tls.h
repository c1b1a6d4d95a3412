/*
 * TLS of SSL listeners, with OpenSSL 3. A listener's context is built at
 * start-up from Kafka's ssl.* settings (each overridable per listener as
 * listener.name.<listener lower-cased>.<key>); any setting it cannot honour
 * stops start-up with a message naming it (security fails closed). A
 * connection's TLS state is non-blocking: the handshake runs inside the
 * first reads, and every call says whether it waits for the socket to be
 * readable or writable (gr_tls_wants()). Loop thread only.
 */
#ifndef GR_NET_TLS_H
#define GR_NET_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct gr_conf gr_conf_t;
typedef struct gr_tls_ctx gr_tls_ctx_t;
typedef struct gr_tls gr_tls_t;

/* The context of listener `name` (its keystore, truststore, client auth,
 * protocols and ciphers). NULL with the reason logged. */
gr_tls_ctx_t *gr_tls_ctx_new(const gr_conf_t *conf, const char *name);
void gr_tls_ctx_free(gr_tls_ctx_t *ctx);
/* Certificate reload without restart: at most once per
 * GR_TLS_RELOAD_CHECK_US (called as connections arrive), a change of the
 * keystore or truststore file (mtime, size or inode: a rewrite or a
 * rename over it) builds the context anew from the same settings; new
 * connections use it, open ones keep theirs. A file that does not load
 * keeps the old context (logged). now_us: gr_mono_us(). */
#define GR_TLS_RELOAD_CHECK_US 1000000
void gr_tls_ctx_check_reload(gr_tls_ctx_t *ctx, int64_t now_us);
/* How many times the context was rebuilt (tests). */
int gr_tls_ctx_reloads(const gr_tls_ctx_t *ctx);

/* A server-side TLS session on the connected socket fd; peer names it in
 * log lines. NULL when out of memory. */
gr_tls_t *gr_tls_new(gr_tls_ctx_t *ctx, int fd, const char *peer);
/* Sends close_notify when it can without blocking, then frees. */
void gr_tls_free(gr_tls_t *t);

/* As read(2)/write(2): > 0 bytes, 0 at the peer's end (read), -1 with
 * errno EAGAIN (see gr_tls_wants()) or EPROTO/other (the reason logged and
 * in gr_tls_error()). Writes may be partial; a write that returned EAGAIN
 * is retried with the same bytes. */
ssize_t gr_tls_read(gr_tls_t *t, void *buf, size_t n);
ssize_t gr_tls_write(gr_tls_t *t, const void *buf, size_t n);
/* Writes up to n bytes of file fd from off: with the kernel's TLS
 * (SSL_sendfile) when it engaged on this connection, else read into a
 * bounded buffer and written. Returns as gr_tls_write. */
ssize_t gr_tls_sendfile(gr_tls_t *t, int fd, int64_t off, size_t n);

#define GR_TLS_WANT_READ  1
#define GR_TLS_WANT_WRITE 2
/* What the last read (writing false) or write that returned EAGAIN waits
 * for (0: nothing). */
int gr_tls_wants(const gr_tls_t *t, bool writing);
/* Decrypted bytes OpenSSL holds that no read has taken yet (the socket
 * will not signal them). */
size_t gr_tls_pending(const gr_tls_t *t);
bool gr_tls_handshake_done(const gr_tls_t *t);
/* Whether file ranges go out with the kernel's TLS (kTLS send engaged). */
bool gr_tls_ktls_send(const gr_tls_t *t);
/* The principal of the client ("User:CN=...,O=..." by
 * ssl.principal.mapping.rules; "User:ANONYMOUS" without a certificate),
 * once the handshake is done. */
const char *gr_tls_principal(const gr_tls_t *t);
const char *gr_tls_error(const gr_tls_t *t);

/* Kafka's (Java's) cipher suite name to OpenSSL's: the IANA TLS_* names of
 * every suite this OpenSSL knows, and OpenSSL's own names as they are.
 * Writes the OpenSSL name into out and returns 1 for a TLS 1.3 suite, 0
 * for an older one, -1 when unknown. */
int gr_tls_cipher_name(const char *java, char *out, size_t n);

/* An inline PEM value as Kafka takes it (ssl.keystore.key, ...): each
 * "-----BEGIN X-----" ... "-----END X-----" block with its base64 in any
 * whitespace, rewritten as OpenSSL reads PEM (64 columns). A malloc'd
 * string, or NULL when in has no block or a block is malformed. */
char *gr_tls_pem_normalize(const char *in);

/* ssl.principal.mapping.rules applied to a distinguished name (RFC 2253,
 * as Java's X500Principal.getName()): Kafka's DEFAULT and
 * RULE:pattern/replacement/[LU] rules, first match wins; no match gives
 * dn. Returns 0, or -1 with why filled for an invalid rules string (also
 * the start-up check, with dn NULL). */
int gr_tls_map_principal(const char *rules, const char *dn, char *out,
                         size_t n, char *why, size_t why_len);

#endif
