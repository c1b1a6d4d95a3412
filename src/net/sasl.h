/*
 * SASL on SASL_PLAINTEXT and SASL_SSL listeners, as Kafka's
 * SaslServerAuthenticator: the exchange (SaslHandshake v0-v1, then
 * SaslAuthenticate v0-v2 or, after a v0 handshake, raw length-prefixed
 * tokens), the requests allowed before authentication, failures answered
 * SASL_AUTHENTICATION_FAILED and closed after
 * connection.failed.authentication.delay.ms, the principal ("User:<name>")
 * later requests carry, and KIP-368 session lifetimes
 * (connections.max.reauth.ms, re-authentication mid-connection, a
 * connection past its lifetime closed at its next request).
 *
 * A mechanism is a small vtable (gr_sasl_mech_t): configure() once per
 * listener at start-up from its settings and JAAS entry, start() an
 * exchange, step() from the client's bytes to the server's, end(). The
 * mechanisms are listed in sasl.c's table; one that a listener enables
 * and the table lacks (GSSAPI) stops start-up. Loop thread only.
 */
#ifndef GR_NET_SASL_H
#define GR_NET_SASL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "net/jaas.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_conf gr_conf_t;
typedef struct gr_req gr_req_t;
typedef struct gr_sasl_listener gr_sasl_listener_t;
typedef struct gr_sasl_conn gr_sasl_conn_t;

/* What configure() is given for one mechanism of one listener. */
typedef struct gr_sasl_mech_cfg {
    const gr_conf_t *conf;
    const char *listener;  /* the listener's name, as configured */
    const char *mechanism; /* "PLAIN", "SCRAM-SHA-256", "OAUTHBEARER" */
    /* the mechanism's JAAS entry: listener.name.<l>.<mech lower
     * case>.sasl.jaas.config, else sasl.jaas.config when its login module
     * is the mechanism's; NULL when neither is given */
    const gr_jaas_t *jaas;
    char prefix[128]; /* "listener.name.<l lower case>." */
} gr_sasl_mech_cfg_t;

/* A setting of the mechanism on its listener, as Kafka's
 * valuesWithPrefixOverride reads it: listener.name.<l>.<mech lower
 * case>.<key>, then listener.name.<l>.<key>, then <key> itself. Only keys
 * conf.def does not implement (gr_conf_extra_get); NULL when none is
 * given. */
const char *gr_sasl_cfg_get(const gr_sasl_mech_cfg_t *mc, const char *key);

/* The result of one step. */
typedef enum gr_sasl_rc {
    GR_SASL_OK = 0,     /* out holds the server's bytes (maybe none); done
                         * says whether the exchange is complete */
    GR_SASL_FAIL = -1,  /* error is the message the client is sent, as
                         * Kafka's SaslAuthenticationException */
    GR_SASL_DENIED = -2 /* invalid credentials (Kafka's SaslException):
                         * the client is sent "Authentication failed during
                         * authentication due to invalid credentials with
                         * SASL mechanism <name>"; error is logged only */
} gr_sasl_rc_t;

typedef struct gr_sasl_step {
    gr_buf_t out;               /* the server's bytes (an empty buffer: none) */
    bool done;                  /* authenticated: authorization_id is set */
    char authorization_id[256]; /* the principal's name: "User:" + it */
    /* the credential's end (OAUTHBEARER's token exp), wall-clock ms
     * since the epoch; -1: it has none. The session ends at the earlier
     * of this and connections.max.reauth.ms (Kafka's
     * CREDENTIAL.LIFETIME.MS) */
    int64_t credential_expiry_ms;
    char error[512];
} gr_sasl_step_t;

typedef struct gr_sasl_mech {
    const char *name;
    /* At start-up, for each listener enabling the mechanism: reads its
     * settings (mc lives only during the call) into *cfg (may stay
     * NULL). 0, or -1 with the reason logged: start-up stops. */
    int (*configure)(const gr_sasl_mech_cfg_t *mc, void **cfg);
    void (*unconfigure)(void *cfg);
    /* A new exchange on a connection; NULL when out of memory. */
    void *(*start)(void *cfg, gr_broker_t *b);
    /* The client's next bytes (in, len; valid during the call). st is
     * zeroed with credential_expiry_ms -1 and out empty before each call;
     * the framework frees out. Returns gr_sasl_rc_t. After a failure or
     * done no further step is made. */
    int (*step)(void *state, const uint8_t *in, size_t len, gr_sasl_step_t *st);
    void (*end)(void *state);
} gr_sasl_mech_t;

/* The mechanisms Gregor has (sasl_plain.c, sasl_scram.c, ...). */
extern const gr_sasl_mech_t gr_sasl_plain;
extern const gr_sasl_mech_t gr_sasl_scram_sha256;
extern const gr_sasl_mech_t gr_sasl_scram_sha512;
extern const gr_sasl_mech_t gr_sasl_oauthbearer; /* net/sasl_oauth.c */

/* --- listeners and connections (net/listener.c, net/conn.c) */

/* The SASL set-up of listener `name`: sasl.enabled.mechanisms (or
 * listener.name.<l>.sasl.enabled.mechanisms), each mechanism configured,
 * connections.max.reauth.ms per mechanism. NULL with the reason logged
 * (start-up stops). */
gr_sasl_listener_t *gr_sasl_listener_new(const gr_conf_t *conf,
                                         const char *name);
void gr_sasl_listener_free(gr_sasl_listener_t *sl);

/* A connection's SASL state; NULL when out of memory. */
gr_sasl_conn_t *gr_sasl_conn_new(gr_sasl_listener_t *sl, gr_broker_t *b);
void gr_sasl_conn_free(gr_sasl_conn_t *sc);
/* Whether the connection is authenticated (and not re-authenticating). */
bool gr_sasl_conn_ready(const gr_sasl_conn_t *sc);
/* The principal once authenticated ("User:alice"), else NULL. */
const char *gr_sasl_conn_principal(const gr_sasl_conn_t *sc);
/* Whether the next frames are raw tokens (after SaslHandshake v0). */
bool gr_sasl_conn_raw(const gr_sasl_conn_t *sc);
/* The largest frame taken before authentication
 * (sasl.server.max.receive.size); 0 once authenticated. */
int64_t gr_sasl_conn_max_receive(const gr_sasl_conn_t *sc);

/* A raw token (frame after a v0 handshake) as request req: answered with
 * a raw token, or the connection closed after the failure delay. */
void gr_sasl_raw_token(gr_req_t *req, const uint8_t *frame, size_t len);
/* Frames that break the rules before authentication (too large): the
 * connection fails authentication and closes after the delay. */
void gr_sasl_refuse_frame(gr_req_t *req, const char *why);

/* Called by dispatch with every request of a SASL connection once its
 * header is decoded: 0 lets it through to its handler; non-zero when the
 * request was refused (answered and closing, or closed), as Kafka
 * refuses requests before authentication and requests of a connection
 * past its session lifetime. */
int gr_sasl_gate(gr_req_t *req);
/* ApiVersions during a SASL exchange (after the handshake): sets
 * *error_code to ILLEGAL_SASL_STATE and answers it as a failed
 * authentication (returns 1: the handler is done); else 0. */
int gr_sasl_api_versions_refused(gr_req_t *req, int16_t *error_code);
/* After ApiVersions answered (error_code 0: the handshake comes next). */
void gr_sasl_api_versions_done(gr_req_t *req, int16_t error_code);

/* The handlers' work (api/sasl_handshake.c, api/sasl_authenticate.c):
 * every state, including a listener without SASL (ILLEGAL_SASL_STATE).
 * Return what a handler returns. */
int gr_sasl_handshake(gr_req_t *req);
int gr_sasl_authenticate(gr_req_t *req);

/* --- parsers of client messages (the mechanisms', tests, fuzzing) */

/* The three tokens of a PLAIN message (authzid, authcid, password),
 * split at NULs as Kafka's extractTokens (at most four pieces; exactly
 * three are valid); tok point into in. 0, or -1 with Kafka's message in
 * err (n bytes). */
int gr_sasl_plain_parse(const uint8_t *in, size_t len, const uint8_t *tok[3],
                        size_t toklen[3], char *err, size_t n);

#endif
