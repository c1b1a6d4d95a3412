/*
 * SASL: see sasl.h. The states follow Kafka's SaslServerAuthenticator,
 * and the answers its Selector and KafkaApis give:
 *
 *   state            ApiVersions  SaslHandshake   SaslAuthenticate  other
 *   INITIAL          answer (1)   answer (2)      close             close
 *   HANDSHAKE_OR_V.  answer (1)   answer (2)      close             close
 *   HANDSHAKE_REQ.   close        answer (2)      close             close
 *   AUTHENTICATE     fail         fail (3)        step (4)          fail
 *   BAD_MECHANISM    fail         fail            fail              fail
 *   COMPLETE         answer       re-auth (5)     ILLEGAL_SASL_ST.  answer
 *
 * (1) moves to HANDSHAKE_REQUEST when answered without error. (2) an
 * enabled mechanism moves to AUTHENTICATE (v0: the next frames are raw
 * tokens), another is answered UNSUPPORTED_SASL_MECHANISM and fails.
 * (3) answered ILLEGAL_SASL_STATE. (4) each step answers the mechanism's
 * bytes, a failure SASL_AUTHENTICATION_FAILED with Kafka's message (raw
 * tokens: no answer); done moves to COMPLETE. (5) with a session
 * lifetime, and at least a second after the last re-authentication
 * began: handled as in HANDSHAKE_REQUEST (the mechanism may not change:
 * BAD_MECHANISM; nor may the principal); otherwise ILLEGAL_SASL_STATE, as
 * KafkaApis answers. "fail": Kafka's authentication failure, the answer
 * (if any) written and the connection closed after
 * connection.failed.authentication.delay.ms; "close": at once, without
 * an answer. In COMPLETE a request that comes after the session's end
 * (connections.max.reauth.ms, or the credential's) closes the connection
 * at once, as Kafka's Processor does, unless it begins a re-authentication.
 */
#include "net/sasl.h"
#include "broker.h"
#include "core/conf.h"
#include "core/log.h"
#include "core/time.h"
#include "net/conn.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MECHS 8

/* The mechanisms Gregor implements; sasl.enabled.mechanisms may name only
 * these. */
static const gr_sasl_mech_t *const mechs[] = {
    &gr_sasl_plain,
    &gr_sasl_scram_sha256,
    &gr_sasl_scram_sha512,
    &gr_sasl_oauthbearer,
};

typedef struct lmech {
    const gr_sasl_mech_t *m;
    void *cfg;
    int64_t reauth_ms; /* connections.max.reauth.ms for it; <= 0: none */
} lmech_t;

struct gr_sasl_listener {
    char name[64];
    lmech_t mechs[MAX_MECHS];
    int nmechs;
    int64_t delay_ms;    /* connection.failed.authentication.delay.ms */
    int64_t max_receive; /* sasl.server.max.receive.size */
};

typedef enum sstate {
    S_INITIAL,
    S_HANDSHAKE_OR_VERSIONS,
    S_HANDSHAKE,
    S_AUTHENTICATE,
    S_BAD_MECHANISM,
    S_COMPLETE,
    S_FAILED,
} sstate_t;

struct gr_sasl_conn {
    gr_sasl_listener_t *sl;
    gr_broker_t *broker;
    sstate_t state;
    bool raw;      /* v0 handshake: tokens without Kafka headers */
    bool reauth;   /* re-authenticating (a principal stays) */
    int mech;      /* index in sl->mechs, -1 before the handshake */
    int prev_mech; /* of the authentication re-authenticated */
    void *mstate;
    char principal[272];
    char bad_mech_msg[256];
    int64_t expiry_us;       /* session end (monotonic); 0: none */
    int64_t reauth_start_us; /* last re-authentication begun; 0: none */
};

/* --- configuration */

static void
lower(char *dst, size_t n, const char *src)
{
    size_t i;
    for (i = 0; i + 1 < n && src[i]; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

const char *
gr_sasl_cfg_get(const gr_sasl_mech_cfg_t *mc, const char *key)
{
    char k[256], m[64];
    const char *v;
    lower(m, sizeof m, mc->mechanism);
    snprintf(k, sizeof k, "%s%s.%s", mc->prefix, m, key);
    if ((v = gr_conf_extra_get(mc->conf, k)) != NULL)
        return v;
    snprintf(k, sizeof k, "%s%s", mc->prefix, key);
    if ((v = gr_conf_extra_get(mc->conf, k)) != NULL)
        return v;
    return gr_conf_extra_get(mc->conf, key);
}

/* A listener's value of an implemented key: listener.name.<l>.<mech>.<key>
 * (mech may be NULL), listener.name.<l>.<key>, else the broker's. */
static const char *
lval(const gr_conf_t *conf, const char *prefix, const char *mech,
     gr_conf_id_t id)
{
    char k[256], m[64];
    const char *v;
    if (mech != NULL) {
        lower(m, sizeof m, mech);
        snprintf(k, sizeof k, "%s%s.%s", prefix, m, gr_conf_name(id));
        if ((v = gr_conf_extra_get(conf, k)) != NULL)
            return v;
    }
    snprintf(k, sizeof k, "%s%s", prefix, gr_conf_name(id));
    if ((v = gr_conf_extra_get(conf, k)) != NULL)
        return v;
    return gr_conf_str(conf, id);
}

static int
lval_int(const gr_conf_t *conf, const char *prefix, const char *mech,
         gr_conf_id_t id, int64_t *out)
{
    const char *v = lval(conf, prefix, mech, id);
    char *end;
    long long x;
    if (v == NULL) {
        *out = gr_conf_int(conf, id);
        return 0;
    }
    x = strtoll(v, &end, 10);
    if (end == v || *end != '\0' || x < 0) {
        GR_LOG_ERROR("invalid value %s for configuration %s%s", v, prefix,
                     gr_conf_name(id));
        return -1;
    }
    *out = x;
    return 0;
}

/* The login module a mechanism's JAAS entry must name. */
static const char *
login_module_of(const char *mech)
{
    if (!strcmp(mech, "PLAIN"))
        return "org.apache.kafka.common.security.plain.PlainLoginModule";
    if (!strncmp(mech, "SCRAM-", 6))
        return "org.apache.kafka.common.security.scram.ScramLoginModule";
    if (!strcmp(mech, "OAUTHBEARER"))
        return "org.apache.kafka.common.security.oauthbearer."
               "OAuthBearerLoginModule";
    return NULL;
}

/* The mechanism's JAAS entry (*out NULL when none is given). 0 or -1
 * (logged: malformed). */
static int
load_jaas(const gr_conf_t *conf, const char *lname, const char *prefix,
          const char *mech, gr_jaas_t **out)
{
    char k[256], m[64], err[256];
    const char *v, *key = k;
    gr_jaas_t *j;
    bool global = false;

    *out = NULL;
    lower(m, sizeof m, mech);
    snprintf(k, sizeof k, "%s%s.sasl.jaas.config", prefix, m);
    v = gr_conf_extra_get(conf, k);
    if (v == NULL) {
        v = gr_conf_str(conf, GR_CONF_SASL_JAAS_CONFIG);
        key = "sasl.jaas.config";
        global = true;
    }
    if (v == NULL)
        return 0;
    j = gr_jaas_parse(v, err, sizeof err);
    if (j == NULL) {
        GR_LOG_ERROR("listener %s: invalid %s: %s", lname, key, err);
        return -1;
    }
    /* sasl.jaas.config serves the mechanism of its login module (Kafka
     * reads only the prefixed key on a broker) */
    if (global && (login_module_of(mech) == NULL ||
                   strcmp(j->module, login_module_of(mech)) != 0)) {
        gr_jaas_free(j);
        return 0;
    }
    if (!global && login_module_of(mech) != NULL &&
        strcmp(j->module, login_module_of(mech)) != 0) {
        GR_LOG_ERROR("listener %s: %s names login module %s; mechanism %s "
                     "takes %s",
                     lname, key, j->module, mech, login_module_of(mech));
        gr_jaas_free(j);
        return -1;
    }
    *out = j;
    return 0;
}

static const gr_sasl_mech_t *
mech_find(const char *name)
{
    for (size_t i = 0; i < sizeof mechs / sizeof mechs[0]; i++)
        if (strcmp(mechs[i]->name, name) == 0)
            return mechs[i];
    return NULL;
}

gr_sasl_listener_t *
gr_sasl_listener_new(const gr_conf_t *conf, const char *name)
{
    gr_sasl_listener_t *sl = calloc(1, sizeof(*sl));
    char prefix[128], lname[64], buf[1024];
    const char *items[MAX_MECHS + 1], *list;
    int n;

    if (sl == NULL)
        return NULL;
    snprintf(sl->name, sizeof sl->name, "%s", name);
    lower(lname, sizeof lname, name);
    snprintf(prefix, sizeof prefix, "listener.name.%s.", lname);
    list = lval(conf, prefix, NULL, GR_CONF_SASL_ENABLED_MECHANISMS);
    n = gr_conf_list_split(list ? list : "", buf, sizeof buf, items,
                           MAX_MECHS + 1);
    if (n == 0) {
        GR_LOG_ERROR("listener %s: no SASL mechanism is enabled "
                     "(sasl.enabled.mechanisms)",
                     name);
        goto fail;
    }
    if (n > MAX_MECHS) {
        GR_LOG_ERROR("listener %s: more than %d SASL mechanisms in "
                     "sasl.enabled.mechanisms",
                     name, MAX_MECHS);
        goto fail;
    }
    if (lval_int(conf, prefix, NULL,
                 GR_CONF_CONNECTION_FAILED_AUTHENTICATION_DELAY_MS,
                 &sl->delay_ms) != 0 ||
        lval_int(conf, prefix, NULL, GR_CONF_SASL_SERVER_MAX_RECEIVE_SIZE,
                 &sl->max_receive) != 0)
        goto fail;
    for (int i = 0; i < n; i++) {
        const gr_sasl_mech_t *m = mech_find(items[i]);
        gr_sasl_mech_cfg_t mc = { .conf = conf,
                                  .listener = name,
                                  .mechanism = items[i] };
        gr_jaas_t *jaas = NULL;
        lmech_t *lm;
        bool dup = false;
        for (int k = 0; k < sl->nmechs; k++)
            dup |= strcmp(sl->mechs[k].m->name, items[i]) == 0;
        if (dup)
            continue; /* Kafka keeps a set */
        if (m == NULL) {
            if (!strcmp(items[i], "GSSAPI"))
                GR_LOG_ERROR("listener %s: SASL mechanism GSSAPI (Kerberos) "
                             "is not supported by Gregor; enable PLAIN, "
                             "SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER in "
                             "sasl.enabled.mechanisms (GSSAPI is Kafka's "
                             "default)",
                             name);
            else
                GR_LOG_ERROR("listener %s: SASL mechanism %s (in "
                             "sasl.enabled.mechanisms) is not supported; "
                             "Gregor has PLAIN, SCRAM-SHA-256, "
                             "SCRAM-SHA-512 and OAUTHBEARER",
                             name, items[i]);
            goto fail;
        }
        if (load_jaas(conf, name, prefix, items[i], &jaas) != 0)
            goto fail;
        snprintf(mc.prefix, sizeof mc.prefix, "%s", prefix);
        mc.jaas = jaas;
        lm = &sl->mechs[sl->nmechs];
        lm->m = m;
        if (lval_int(conf, prefix, items[i], GR_CONF_CONNECTIONS_MAX_REAUTH_MS,
                     &lm->reauth_ms) != 0 ||
            (m->configure != NULL && m->configure(&mc, &lm->cfg) != 0)) {
            gr_jaas_free(jaas);
            goto fail;
        }
        gr_jaas_free(jaas);
        sl->nmechs++;
    }
    return sl;
fail:
    gr_sasl_listener_free(sl);
    return NULL;
}

void
gr_sasl_listener_free(gr_sasl_listener_t *sl)
{
    if (sl == NULL)
        return;
    for (int i = 0; i < sl->nmechs; i++)
        if (sl->mechs[i].m->unconfigure != NULL)
            sl->mechs[i].m->unconfigure(sl->mechs[i].cfg);
    free(sl);
}

/* --- connections */

gr_sasl_conn_t *
gr_sasl_conn_new(gr_sasl_listener_t *sl, gr_broker_t *b)
{
    gr_sasl_conn_t *sc = calloc(1, sizeof(*sc));
    if (sc == NULL)
        return NULL;
    sc->sl = sl;
    sc->broker = b;
    sc->mech = sc->prev_mech = -1;
    return sc;
}

static void
mech_end(gr_sasl_conn_t *sc)
{
    if (sc->mstate != NULL)
        sc->sl->mechs[sc->mech].m->end(sc->mstate);
    sc->mstate = NULL;
}

void
gr_sasl_conn_free(gr_sasl_conn_t *sc)
{
    if (sc == NULL)
        return;
    mech_end(sc);
    free(sc);
}

bool
gr_sasl_conn_ready(const gr_sasl_conn_t *sc)
{
    return sc->state == S_COMPLETE;
}

const char *
gr_sasl_conn_principal(const gr_sasl_conn_t *sc)
{
    return sc->principal[0] ? sc->principal : NULL;
}

bool
gr_sasl_conn_raw(const gr_sasl_conn_t *sc)
{
    return sc->raw && sc->state == S_AUTHENTICATE;
}

int64_t
gr_sasl_conn_max_receive(const gr_sasl_conn_t *sc)
{
    return sc->state == S_COMPLETE ? 0 : sc->sl->max_receive;
}

/* --- failures */

/* Kafka's authentication failure: logged as its Selector does, the
 * answer in req->resp written (reply) and the connection closed after
 * the delay. Returns 0. */
static int
fail(gr_req_t *req, gr_sasl_conn_t *sc, bool reply, const char *msg)
{
    GR_LOG_INFO("Failed %sauthentication with %s on %s (%s)",
                sc->reauth ? "re-" : "", gr_req_peer(req), sc->sl->name, msg);
    mech_end(sc);
    sc->state = S_FAILED;
    /* the answer goes out at once and the close waits, as Kafka's
     * Selector delays it: a client that reads the answer sees why */
    if (reply)
        return gr_req_reply_and_close_after(req, sc->sl->delay_ms);
    return gr_req_close_after(req, sc->sl->delay_ms);
}

void
gr_sasl_refuse_frame(gr_req_t *req, const char *why)
{
    gr_sasl_conn_t *sc = gr_req_sasl(req);
    char msg[256];
    snprintf(msg, sizeof msg,
             "Failing SASL authentication due to invalid receive size: %s",
             why);
    fail(req, sc, false, msg);
}

/* --- the exchange */

static const char *
api_name(int16_t key)
{
    const gr_proto_api_t *api = gr_proto_api(key);
    return api != NULL ? api->name : "unknown";
}

int
gr_sasl_gate(gr_req_t *req)
{
    gr_sasl_conn_t *sc = gr_req_sasl(req);
    int16_t key = req->hdr.api_key;
    char msg[256];

    switch (sc->state) {
    case S_INITIAL:
    case S_HANDSHAKE_OR_VERSIONS:
        if (key == GR_API_API_VERSIONS || key == GR_API_SASL_HANDSHAKE) {
            sc->state = S_HANDSHAKE_OR_VERSIONS;
            return 0;
        }
        GR_LOG_INFO("closing connection %s on %s: unexpected Kafka request "
                    "of type %s during SASL handshake%s",
                    gr_req_peer(req), sc->sl->name, api_name(key),
                    sc->state == S_INITIAL
                        ? " (invalid request, potential reasons: kafka "
                          "client configured with the wrong security "
                          "protocol, it does not support KIP-43 or it is "
                          "not a kafka client)"
                        : "");
        gr_req_close(req, "request before SASL authentication");
        return 1;
    case S_HANDSHAKE:
        if (key == GR_API_SASL_HANDSHAKE)
            return 0;
        GR_LOG_INFO("closing connection %s on %s: unexpected %s request "
                    "during SASL handshake",
                    gr_req_peer(req), sc->sl->name, api_name(key));
        gr_req_close(req, "request before SASL authentication");
        return 1;
    case S_AUTHENTICATE:
        /* ApiVersions and SaslHandshake are answered ILLEGAL_SASL_STATE
         * by their handlers (gr_sasl_api_versions_refused) */
        if (key == GR_API_SASL_AUTHENTICATE || key == GR_API_SASL_HANDSHAKE ||
            key == GR_API_API_VERSIONS)
            return 0;
        snprintf(msg, sizeof msg,
                 "Unexpected Kafka request of type %s during SASL "
                 "authentication.",
                 api_name(key));
        fail(req, sc, false, msg);
        return 1;
    case S_BAD_MECHANISM:
        fail(req, sc, false, sc->bad_mech_msg);
        return 1;
    case S_COMPLETE:
        if (sc->expiry_us != 0 && gr_mono_us() - sc->expiry_us > 0) {
            /* a handshake that begins a re-authentication goes on */
            if (key == GR_API_SASL_HANDSHAKE &&
                (sc->reauth_start_us == 0 ||
                 gr_mono_us() - sc->reauth_start_us >= 1000000))
                return 0;
            GR_LOG_DEBUG("closing connection %s on %s: its SASL session "
                         "ended (connections.max.reauth.ms) and it did not "
                         "re-authenticate",
                         gr_req_peer(req), sc->sl->name);
            gr_req_close(req, "SASL session expired");
            return 1;
        }
        return 0;
    case S_FAILED:
        gr_req_close(req, "authentication failed");
        return 1;
    }
    return 0;
}

int
gr_sasl_api_versions_refused(gr_req_t *req, int16_t *error_code)
{
    gr_sasl_conn_t *sc = gr_req_sasl(req);
    if (sc == NULL || sc->state != S_AUTHENTICATE)
        return 0;
    *error_code = GR_KERR_ILLEGAL_SASL_STATE;
    fail(req, sc, true,
         "Unexpected Kafka request of type API_VERSIONS during SASL "
         "authentication.");
    return 1;
}

void
gr_sasl_api_versions_done(gr_req_t *req, int16_t error_code)
{
    gr_sasl_conn_t *sc = gr_req_sasl(req);
    if (sc != NULL && error_code == 0 &&
        (sc->state == S_INITIAL || sc->state == S_HANDSHAKE_OR_VERSIONS))
        sc->state = S_HANDSHAKE;
}

/* The enabled mechanisms, in req's arena, into rs. */
static void
list_mechanisms(gr_req_t *req, gr_sasl_conn_t *sc,
                gr_sasl_handshake_response_t *rs)
{
    gr_str_t *m = gr_arena_alloc(req->a, sizeof(*m) * MAX_MECHS);
    if (m == NULL)
        return;
    for (int i = 0; i < sc->sl->nmechs; i++)
        m[i] = (gr_str_t){ sc->sl->mechs[i].m->name,
                           (int32_t)strlen(sc->sl->mechs[i].m->name) };
    rs->mechanisms = m;
    rs->mechanisms_cnt = sc->sl->nmechs;
}

int
gr_sasl_handshake(gr_req_t *req)
{
    const gr_sasl_handshake_request_t *rq = req->body;
    gr_sasl_handshake_response_t *rs = req->resp;
    gr_sasl_conn_t *sc = gr_req_sasl(req);
    char mech[64];
    int idx = -1;

    if (sc == NULL) {
        rs->error_code = GR_KERR_ILLEGAL_SASL_STATE;
        return gr_req_reply(req);
    }
    if (sc->state == S_AUTHENTICATE) {
        rs->error_code = GR_KERR_ILLEGAL_SASL_STATE;
        return fail(req, sc, true,
                    "Unexpected Kafka request of type SASL_HANDSHAKE during "
                    "SASL authentication.");
    }
    if (sc->state == S_COMPLETE) {
        int64_t now = gr_mono_us();
        if (sc->expiry_us == 0 ||
            (sc->reauth_start_us != 0 && now - sc->reauth_start_us < 1000000)) {
            rs->error_code = GR_KERR_ILLEGAL_SASL_STATE;
            return gr_req_reply(req);
        }
        /* KIP-368: the client re-authenticates */
        sc->reauth_start_us = now;
        sc->reauth = true;
        sc->prev_mech = sc->mech;
        sc->mech = -1;
        GR_LOG_DEBUG("%s on %s begins re-authentication", gr_req_peer(req),
                     sc->sl->name);
    }
    snprintf(mech, sizeof mech, "%.*s",
             rq->mechanism.len > 0 ? (int)rq->mechanism.len : 0,
             rq->mechanism.ptr ? rq->mechanism.ptr : "");
    for (int i = 0; i < sc->sl->nmechs; i++)
        if ((size_t)rq->mechanism.len == strlen(sc->sl->mechs[i].m->name) &&
            memcmp(rq->mechanism.ptr, sc->sl->mechs[i].m->name,
                   (size_t)rq->mechanism.len) == 0)
            idx = i;
    list_mechanisms(req, sc, rs);
    if (idx < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "Unsupported SASL mechanism %s", mech);
        rs->error_code = GR_KERR_UNSUPPORTED_SASL_MECHANISM;
        return fail(req, sc, true, msg);
    }
    rs->error_code = GR_KERR_NONE;
    sc->raw = req->version < 1;
    if (sc->reauth && idx != sc->prev_mech) {
        snprintf(sc->bad_mech_msg, sizeof sc->bad_mech_msg,
                 "SASL mechanism '%s' requested by client is not supported "
                 "for re-authentication of mechanism '%s'",
                 mech, sc->sl->mechs[sc->prev_mech].m->name);
        sc->state = S_BAD_MECHANISM;
        return gr_req_reply(req);
    }
    sc->mech = idx;
    sc->mstate =
        sc->sl->mechs[idx].m->start(sc->sl->mechs[idx].cfg, req->broker);
    if (sc->mstate == NULL)
        return gr_req_close(req, "out of memory");
    sc->state = S_AUTHENTICATE;
    return gr_req_reply(req);
}

/* The session's lifetime from now, as Kafka's
 * calcCompletionTimesAndReturnSessionLifetimeMs; sets expiry_us. */
static int64_t
session_lifetime(gr_sasl_conn_t *sc, int64_t cred_expiry_ms)
{
    int64_t reauth = sc->sl->mechs[sc->mech].reauth_ms, life = 0;
    bool max_set = reauth > 0;
    sc->expiry_us = 0;
    if (cred_expiry_ms >= 0 || max_set) {
        int64_t left = cred_expiry_ms - gr_wall_ms();
        if (cred_expiry_ms < 0)
            life = reauth;
        else if (!max_set)
            life = left;
        else
            life = left < reauth ? left : reauth;
        if (life < 0)
            life = 0;
        sc->expiry_us = gr_mono_us() + life * 1000;
        if (sc->expiry_us == 0)
            sc->expiry_us = 1;
    }
    return life;
}

/* One step of the mechanism over in. GR_SASL_OK with st->done when
 * authenticated (the connection is COMPLETE, *life its session
 * lifetime); else st->error says why (already in the client's words for
 * GR_SASL_DENIED). */
static int
do_step(gr_sasl_conn_t *sc, const uint8_t *in, size_t len, gr_sasl_step_t *st,
        int64_t *life)
{
    const gr_sasl_mech_t *m = sc->sl->mechs[sc->mech].m;
    int rc;
    memset(st, 0, sizeof *st);
    st->credential_expiry_ms = -1;
    rc = m->step(sc->mstate, in, len, st);
    if (rc == GR_SASL_DENIED) {
        GR_LOG_DEBUG("SASL/%s: %s", m->name, st->error);
        snprintf(st->error, sizeof st->error,
                 "Authentication failed during %s due to invalid "
                 "credentials with SASL mechanism %s",
                 sc->reauth ? "re-authentication" : "authentication", m->name);
        return GR_SASL_FAIL;
    }
    if (rc != GR_SASL_OK)
        return GR_SASL_FAIL;
    if (!st->done)
        return GR_SASL_OK;
    {
        char p[sizeof sc->principal];
        snprintf(p, sizeof p, "User:%s", st->authorization_id);
        if (sc->reauth && strcmp(p, sc->principal) != 0) {
            snprintf(st->error, sizeof st->error,
                     "Cannot change principals during re-authentication "
                     "from User.%s: User.%s",
                     sc->principal + 5, st->authorization_id);
            return GR_SASL_FAIL;
        }
        memcpy(sc->principal, p, sizeof p);
    }
    *life = session_lifetime(sc, st->credential_expiry_ms);
    mech_end(sc);
    sc->state = S_COMPLETE;
    sc->raw = false;
    GR_LOG_DEBUG("%s authenticated as %s with SASL/%s%s", sc->sl->name,
                 sc->principal, m->name, sc->reauth ? " (again)" : "");
    return GR_SASL_OK;
}

int
gr_sasl_authenticate(gr_req_t *req)
{
    const gr_sasl_authenticate_request_t *rq = req->body;
    gr_sasl_authenticate_response_t *rs = req->resp;
    gr_sasl_conn_t *sc = gr_req_sasl(req);
    gr_sasl_step_t st;
    int64_t life = 0;
    uint8_t *out;

    if (sc == NULL || sc->state == S_COMPLETE) {
        rs->error_code = GR_KERR_ILLEGAL_SASL_STATE;
        rs->error_message =
            GR_STR("SaslAuthenticate request received after successful "
                   "authentication");
        return gr_req_reply(req);
    }
    if (do_step(sc, rq->auth_bytes.ptr,
                rq->auth_bytes.len > 0 ? (size_t)rq->auth_bytes.len : 0, &st,
                &life) != GR_SASL_OK) {
        char *m = gr_arena_alloc(req->a, strlen(st.error) + 1);
        gr_buf_fini(&st.out);
        rs->error_code = GR_KERR_SASL_AUTHENTICATION_FAILED;
        if (m != NULL) {
            strcpy(m, st.error);
            rs->error_message = (gr_str_t){ m, (int32_t)strlen(m) };
        }
        return fail(req, sc, true, st.error);
    }
    out = gr_arena_alloc(req->a, st.out.len + 1);
    if (out == NULL) {
        gr_buf_fini(&st.out);
        return gr_req_close(req, "out of memory");
    }
    if (st.out.len > 0)
        memcpy(out, st.out.ptr, st.out.len);
    rs->error_code = GR_KERR_NONE;
    rs->auth_bytes = (gr_bytes_t){ out, (int32_t)st.out.len };
    rs->session_lifetime_ms = life;
    gr_buf_fini(&st.out);
    return gr_req_reply(req);
}

void
gr_sasl_raw_token(gr_req_t *req, const uint8_t *frame, size_t len)
{
    gr_sasl_conn_t *sc = gr_req_sasl(req);
    gr_sasl_step_t st;
    int64_t life = 0;

    if (do_step(sc, frame, len, &st, &life) != GR_SASL_OK) {
        gr_buf_fini(&st.out);
        fail(req, sc, false, st.error);
        return;
    }
    gr_req_reply_raw(req, st.out.ptr, st.out.len);
    gr_buf_fini(&st.out);
}
