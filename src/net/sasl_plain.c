/*
 * SASL/PLAIN (RFC 4616) as Kafka's PlainSaslServer: the client's one
 * message is authzid NUL authcid NUL passwd; the users are the
 * user_<name>="<password>" options of the listener's PlainLoginModule
 * entry (Kafka's PlainServerCallbackHandler), compared in constant time.
 * The messages of failures are Kafka's.
 */
#include "core/log.h"
#include "net/sasl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

typedef struct plain_user {
    char *name;
    char *password;
} plain_user_t;

typedef struct plain_cfg {
    plain_user_t *users;
    int nusers;
} plain_cfg_t;

static void
plain_unconfigure(void *p)
{
    plain_cfg_t *c = p;
    if (c == NULL)
        return;
    for (int i = 0; i < c->nusers; i++) {
        free(c->users[i].name);
        OPENSSL_clear_free(c->users[i].password, strlen(c->users[i].password));
    }
    free(c->users);
    free(c);
}

static int
plain_configure(const gr_sasl_mech_cfg_t *mc, void **out)
{
    plain_cfg_t *c;
    if (mc->jaas == NULL) {
        GR_LOG_ERROR("listener %s: SASL/PLAIN has no users: set %splain."
                     "sasl.jaas.config (or sasl.jaas.config) to "
                     "org.apache.kafka.common.security.plain.PlainLoginModule "
                     "required user_<name>=\"<password>\" ...;",
                     mc->listener, mc->prefix);
        return -1;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return -1;
    c->users = calloc((size_t)mc->jaas->nopts + 1, sizeof(*c->users));
    if (c->users == NULL) {
        free(c);
        return -1;
    }
    for (int i = 0; i < mc->jaas->nopts; i++) {
        const gr_jaas_option_t *o = &mc->jaas->opts[i];
        if (strncmp(o->key, "user_", 5) != 0)
            continue; /* username/password: Kafka's inter-broker client */
        c->users[c->nusers].name = strdup(o->key + 5);
        c->users[c->nusers].password = strdup(o->value);
        if (c->users[c->nusers].name == NULL ||
            c->users[c->nusers].password == NULL) {
            free(c->users[c->nusers].name);
            free(c->users[c->nusers].password);
            plain_unconfigure(c);
            return -1;
        }
        c->nusers++;
    }
    if (c->nusers == 0)
        GR_LOG_WARN("listener %s: the SASL/PLAIN JAAS entry defines no "
                    "user (user_<name>=\"<password>\"): no client can log "
                    "in with PLAIN",
                    mc->listener);
    *out = c;
    return 0;
}

typedef struct plain_state {
    const plain_cfg_t *cfg;
} plain_state_t;

static void *
plain_start(void *cfg, gr_broker_t *b)
{
    plain_state_t *s = calloc(1, sizeof(*s));
    (void)b;
    if (s != NULL)
        s->cfg = cfg;
    return s;
}

static void
plain_end(void *s)
{
    free(s);
}

/* Equal in time that depends on the lengths only (Kafka's
 * Utils.isEqualConstantTime). */
static bool
equal_ct(const char *a, size_t alen, const char *b, size_t blen)
{
    unsigned char diff = alen != blen;
    for (size_t i = 0; i < alen; i++)
        diff |= (unsigned char)(a[i] ^ (i < blen ? b[i] : 0));
    return diff == 0;
}

int
gr_sasl_plain_parse(const uint8_t *in, size_t len, const uint8_t *tok[3],
                    size_t toklen[3], char *err, size_t n)
{
    size_t start = 0;
    int ntok = 0;
    for (int i = 0; i < 4; i++) {
        const uint8_t *z =
            start <= len ? memchr(in + start, 0, len - start) : NULL;
        size_t end = z ? (size_t)(z - in) : len;
        if (ntok < 3) {
            tok[ntok] = in + start;
            toklen[ntok] = end - start;
        }
        ntok++;
        if (z == NULL)
            break;
        start = end + 1;
    }
    if (ntok != 3) {
        snprintf(err, n,
                 "Invalid SASL/PLAIN response: expected 3 tokens, got %d",
                 ntok);
        return -1;
    }
    return 0;
}

static int
plain_step(void *p, const uint8_t *in, size_t len, gr_sasl_step_t *st)
{
    plain_state_t *s = p;
    const uint8_t *tok[3];
    size_t tl[3];
    const plain_user_t *u = NULL;
    bool ok = false;

    if (gr_sasl_plain_parse(in, len, tok, tl, st->error, sizeof st->error) != 0)
        return GR_SASL_FAIL;
    if (tl[1] == 0) {
        snprintf(st->error, sizeof st->error,
                 "Authentication failed: username not specified");
        return GR_SASL_FAIL;
    }
    if (tl[2] == 0) {
        snprintf(st->error, sizeof st->error,
                 "Authentication failed: password not specified");
        return GR_SASL_FAIL;
    }
    for (int i = 0; i < s->cfg->nusers; i++) {
        const plain_user_t *c = &s->cfg->users[i];
        if (strlen(c->name) == tl[1] && memcmp(c->name, tok[1], tl[1]) == 0)
            u = c;
    }
    if (u != NULL)
        ok = equal_ct((const char *)tok[2], tl[2], u->password,
                      strlen(u->password));
    if (!ok || tl[1] >= sizeof st->authorization_id) {
        snprintf(st->error, sizeof st->error,
                 "Authentication failed: Invalid username or password");
        return GR_SASL_FAIL;
    }
    if (tl[0] != 0 && (tl[0] != tl[1] || memcmp(tok[0], tok[1], tl[0]))) {
        snprintf(st->error, sizeof st->error,
                 "Authentication failed: Client requested an authorization "
                 "id that is different from username");
        return GR_SASL_FAIL;
    }
    memcpy(st->authorization_id, tok[1], tl[1]);
    st->authorization_id[tl[1]] = '\0';
    st->done = true;
    return GR_SASL_OK;
}

const gr_sasl_mech_t gr_sasl_plain = {
    .name = "PLAIN",
    .configure = plain_configure,
    .unconfigure = plain_unconfigure,
    .start = plain_start,
    .step = plain_step,
    .end = plain_end,
};
