/*
 * SASL/OAUTHBEARER on the broker side (RFC 7628, KIP-255), as Kafka's
 * OAuthBearerSaslServer with its two validators:
 *
 *   - unsecured (Kafka's default, OAuthBearerUnsecuredValidatorCallback-
 *     Handler): an alg "none" JWS whose claims are checked, with the
 *     unsecuredValidator* options of the listener's OAuthBearerLoginModule
 *     JAAS entry;
 *   - signed (sasl.server.callback.handler.class = OAuthBearerValidator-
 *     CallbackHandler, Kafka's BrokerJwtValidator): an RS256/384/512,
 *     PS256/384/512 or ES256/384/512 JWS verified with OpenSSL against the
 *     keys of a JWKS file (sasl.oauthbearer.jwks.endpoint.url, file://),
 *     reloaded when the file changes, and its exp, iat, nbf, aud and iss
 *     checked as jose4j's JwtConsumer does.
 *
 * The exchange: the client's first message carries the token; a token that
 * does not validate is answered with Kafka's JSON error
 * ({"status":"invalid_token"}), the client answers with a single 0x01 and
 * authentication fails with that JSON as the error message. A malformed
 * first message fails at once with Kafka's generic message. This file knows
 * neither connections nor the configuration table: the SASL framework
 * (src/net/sasl.c) feeds it the client's bytes and gives it the settings
 * through lookups. Loop thread only.
 */
#ifndef GR_NET_SASL_OAUTH_H
#define GR_NET_SASL_OAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gr_oauth gr_oauth_t;
typedef struct gr_jwks gr_jwks_t;

/* --- the client's first message (RFC 7628 section 3.1) */

/* Kafka's grammar (OAuthBearerClientInitialResponse):
 *   "n," ["a=" saslname] "," 0x01 *(key "=" value 0x01) 0x01
 * saslname: bytes 0x01-0x7F but '=' and ',', or "=2C", "=3D" (kept as
 * written: Kafka compares them undecoded); key [A-Za-z]+; value
 * [0x21-0x7E SP HT CR LF]+; a later key replaces an earlier one; "auth" is
 * required and is "<scheme> <token>", scheme "bearer" in any case, token
 * [-_~+/.A-Za-z0-9]+ followed by '=' padding. The other keys are
 * extensions (all accepted, as both Kafka validators do). Slices point
 * into the message. */
typedef struct gr_oauth_initial {
    const char *authzid; /* NULL when absent */
    size_t authzid_len;
    const char *token;
    size_t token_len;
    int extensions; /* key=value pairs besides auth */
} gr_oauth_initial_t;

/* 0, or -1 with Kafka's SaslException text in why (errsz bytes). */
int gr_oauth_initial_parse(const uint8_t *p, size_t n, gr_oauth_initial_t *out,
                           char *why, size_t errsz);

/* --- settings */

/* A setting's value, NULL when not given. conf answers Kafka config keys
 * as the listener sees them (listener.name.<l>.oauthbearer.<key>, then
 * listener.name.<l>.<key>, then <key>: the caller resolves the prefixes),
 * jaas the options of the listener's OAuthBearerLoginModule entry. */
typedef const char *(*gr_oauth_get_fn)(void *arg, const char *key);

typedef struct gr_oauth_cfg {
    const char *listener; /* for log lines */
    gr_oauth_get_fn conf;
    gr_oauth_get_fn jaas;
    void *arg;
} gr_oauth_cfg_t;

/* Kafka's server callback handler classes Gregor implements. */
#define GR_OAUTH_UNSECURED_HANDLER                                      \
    "org.apache.kafka.common.security.oauthbearer.internals.unsecured." \
    "OAuthBearerUnsecuredValidatorCallbackHandler"
#define GR_OAUTH_SECURED_HANDLER                    \
    "org.apache.kafka.common.security.oauthbearer." \
    "OAuthBearerValidatorCallbackHandler"
/* Kafka's system property (here a setting, docs/compatibility.md) listing
 * the JWKS URLs a broker may read. */
#define GR_OAUTH_ALLOWED_URLS "org.apache.kafka.sasl.oauthbearer.allowed.urls"

/* The validator of one listener from its settings (Kafka's names and
 * defaults; the signed validator loads its JWKS file now). NULL with
 * Kafka's ConfigException text in why: start-up fails (security fails
 * closed). */
gr_oauth_t *gr_oauth_new(const gr_oauth_cfg_t *cfg, char *why, size_t errsz);
void gr_oauth_free(gr_oauth_t *o);
/* Whether o verifies signatures (the signed validator). */
bool gr_oauth_is_signed(const gr_oauth_t *o);

/* --- validation */

#define GR_OAUTH_PRINCIPAL_MAX 1024

typedef struct gr_oauth_token {
    char principal[GR_OAUTH_PRINCIPAL_MAX]; /* the sub (or configured) claim */
    int64_t lifetime_ms;                    /* exp, in ms since the epoch */
    int64_t start_ms; /* iat in ms, -1 when the token has none */
} gr_oauth_token_t;

/* The longest token validated: a longer one is refused (invalid_token)
 * before any decoding. Kafka takes any size up to
 * sasl.server.max.receive.size (512 KiB): decoding a 480 KB token of
 * numbers held the loop 43 ms; real JWTs are a few KB (identity
 * providers keep them under HTTP header limits). */
#define GR_OAUTH_MAX_TOKEN_BYTES 65536

/* Validates a token (compact JWS) at wall time now_ms. 0 with tok filled,
 * or -1 with the reason in why (for the log; the client only learns the
 * status) and the RFC 6750 status in status: "invalid_token", or
 * "insufficient_scope" with the required scope as Kafka prints it ("[a,
 * b]") in scope (scopesz bytes). */
int gr_oauth_validate(gr_oauth_t *o, const char *token, size_t len,
                      int64_t now_ms, gr_oauth_token_t *tok,
                      const char **status, char *scope, size_t scopesz,
                      char *why, size_t errsz);

/* --- one connection's exchange */

typedef struct gr_oauth_sess {
    bool errored;         /* the JSON error went out: the next message ends */
    char error_json[512]; /* Kafka's jsonErrorResponse */
} gr_oauth_sess_t;

typedef enum gr_oauth_outcome {
    GR_OAUTH_DONE,      /* authenticated: tok filled, send an empty reply */
    GR_OAUTH_CHALLENGE, /* send reply (the JSON error), await the 0x01 */
    GR_OAUTH_FAILED,    /* answer SASL_AUTHENTICATION_FAILED with message */
} gr_oauth_outcome_t;

typedef struct gr_oauth_result {
    gr_oauth_outcome_t outcome;
    const char *reply; /* CHALLENGE: bytes in sess, valid until its next step */
    size_t reply_len;
    char message[512]; /* FAILED: the error message the client sees */
    bool generic;      /* FAILED: message is Kafka's generic one for a
                        * SaslException (invalid credentials) */
    char why[512];     /* CHALLENGE, FAILED: the reason, for the log */
    gr_oauth_token_t tok;
} gr_oauth_result_t;

/* Evaluates one client message (a SaslAuthenticate's auth_bytes, or a v0
 * handshake's raw token) at wall time now_ms, as OAuthBearerSaslServer.
 * evaluateResponse. A message after the JSON error ends the exchange:
 * 0x01, as RFC 7628 says, fails with that JSON as the message; anything
 * else fails too (Kafka would validate it as a new first message: the
 * difference bounds a connection to one validation, docs/compatibility.md).
 */
void gr_oauth_step(gr_oauth_t *o, gr_oauth_sess_t *s, const uint8_t *in,
                   size_t n, int64_t now_ms, gr_oauth_result_t *r);

/* Kafka's session lifetime (SaslServerAuthenticator.ReauthInfo) for a
 * credential expiring at lifetime_ms (-1: none) authenticated at now_ms
 * with connections.max.reauth.ms max_reauth_ms (<= 0: not set): the
 * smaller of the two when both are, 0 when neither, never negative. */
int64_t gr_oauth_session_lifetime_ms(int64_t lifetime_ms, int64_t now_ms,
                                     int64_t max_reauth_ms);

/* --- JWKS (RFC 7517), exposed for tests and the fuzz target */

/* The keys of a JWKS document: {"keys":[...]}. RSA (n, e; 2048 bits or
 * more, as jose4j wants) and EC (P-256, P-384, P-521: crv, x, y, the
 * point checked) keys are kept, with kid, use and alg; a key of another
 * type or that does not load is skipped (logged at debug, counted in
 * *skipped), as jose4j's JsonWebKeySet does. NULL with the reason in why
 * when the document is not JSON or has no "keys" array. */
gr_jwks_t *gr_jwks_parse(const char *p, size_t n, int *skipped, char *why,
                         size_t errsz);
void gr_jwks_free(gr_jwks_t *k);
int gr_jwks_count(const gr_jwks_t *k);
/* Verifies a compact JWS's signature (alg from its header) with the key
 * jose4j's VerificationJwkSelector would pick (by kid when the header has
 * one, key type and curve from alg, use "sig" or none, alg when the key
 * names one). 0, or -1 with the reason in why. */
int gr_jwks_verify(const gr_jwks_t *k, const char *token, size_t len, char *why,
                   size_t errsz);

/* How often the JWKS file's stamp (mtime, size, inode) is looked at, at
 * most, as tokens arrive; a change loads it anew (a file that does not
 * load keeps the old keys, logged). */
#define GR_OAUTH_JWKS_CHECK_MS 1000
/* The largest JWKS file read. */
#define GR_OAUTH_JWKS_MAX_BYTES (1024 * 1024)
/* How many times the JWKS file was loaded again (tests). */
int gr_oauth_jwks_reloads(const gr_oauth_t *o);

#endif
