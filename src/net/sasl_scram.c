/*
 * SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka's
 * ScramSaslServer: client-first -> server-first (the client's nonce and
 * ours, from RAND_bytes; the user's salt and iterations), client-final
 * -> server-final (the server signature) once the proof matches the
 * stored key, compared in constant time. Users and keys come from the
 * credentials store (net/scram.h), so a change through
 * AlterUserScramCredentials counts at the next login. Failures carry
 * Kafka's reasons; the client is sent Kafka's generic message for all
 * but a foreign authorization id (GR_SASL_DENIED).
 */
#include "broker.h"
#include "core/str.h"
#include "net/sasl.h"
#include "net/scram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

typedef struct scram_state {
    int type;
    gr_broker_t *b;
    int step;         /* 0: client-first expected, 1: client-final */
    char *first_bare; /* client-first-message-bare */
    char *server_first;
    char nonce[256 + 32]; /* client nonce + ours */
    size_t cnonce_len;    /* the client's part */
    char user[256];
    uint8_t stored_key[GR_SCRAM_MAX_HASH];
    uint8_t server_key[GR_SCRAM_MAX_HASH];
} scram_state_t;

static void *
scram_start(int type, gr_broker_t *b)
{
    scram_state_t *s = calloc(1, sizeof(*s));
    if (s != NULL) {
        s->type = type;
        s->b = b;
    }
    return s;
}

static void *
start256(void *cfg, gr_broker_t *b)
{
    (void)cfg;
    return scram_start(GR_SCRAM_SHA_256, b);
}

static void *
start512(void *cfg, gr_broker_t *b)
{
    (void)cfg;
    return scram_start(GR_SCRAM_SHA_512, b);
}

static void
scram_end(void *p)
{
    scram_state_t *s = p;
    if (s == NULL)
        return;
    free(s->first_bare);
    free(s->server_first);
    OPENSSL_cleanse(s, sizeof *s);
    free(s);
}

/* Our nonce: 24 characters of [0-9a-z] from RAND_bytes (Kafka's is a
 * 130-bit number in base 36). 0 or -1. */
static int
make_nonce(char *out)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    uint8_t r[24];
    if (RAND_bytes(r, sizeof r) != 1)
        return -1;
    for (size_t i = 0; i < sizeof r; i++)
        out[i] = digits[r[i] % 36];
    out[sizeof r] = '\0';
    return 0;
}

static int
client_first(scram_state_t *s, const uint8_t *in, size_t len,
             gr_sasl_step_t *st)
{
    gr_scram_client_first_t m;
    const gr_scram_cred_t *c;
    char ours[32], *salt64;
    int n;

    if (gr_scram_parse_client_first(in, len, &m, st->error, sizeof st->error) !=
        0)
        return GR_SASL_DENIED;
    if (m.tokenauth) {
        snprintf(st->error, sizeof st->error,
                 "Token Authentication failed: Invalid tokenId : %s "
                 "(Gregor has no delegation tokens)",
                 m.user);
        return GR_SASL_DENIED;
    }
    c = gr_scram_store_get(s->b != NULL ? s->b->scram : NULL, m.user, s->type);
    if (c == NULL) {
        snprintf(st->error, sizeof st->error,
                 "Authentication failed: Invalid user credentials");
        return GR_SASL_DENIED;
    }
    if (m.authzid[0] != '\0' && strcmp(m.authzid, m.user) != 0) {
        snprintf(st->error, sizeof st->error,
                 "Authentication failed: Client requested an authorization "
                 "id that is different from username");
        return GR_SASL_FAIL;
    }
    if (c->iterations < GR_SCRAM_MIN_ITERATIONS) {
        snprintf(st->error, sizeof st->error,
                 "Iterations %d is less than the minimum %d for %s",
                 (int)c->iterations, GR_SCRAM_MIN_ITERATIONS,
                 gr_scram_mech_name(s->type));
        return GR_SASL_DENIED;
    }
    if (m.nonce_len > 256 || make_nonce(ours) != 0) {
        snprintf(st->error, sizeof st->error, "nonce too long or no random");
        return GR_SASL_DENIED;
    }
    snprintf(s->nonce, sizeof s->nonce, "%.*s%s", (int)m.nonce_len, m.nonce,
             ours);
    s->cnonce_len = m.nonce_len;
    snprintf(s->user, sizeof s->user, "%s", m.user);
    memcpy(s->stored_key, c->stored_key, sizeof s->stored_key);
    memcpy(s->server_key, c->server_key, sizeof s->server_key);
    s->first_bare = strndup(m.bare, m.bare_len);
    salt64 = malloc(4 * (c->salt_len / 3 + 1) + 1);
    if (s->first_bare == NULL || salt64 == NULL) {
        free(salt64);
        snprintf(st->error, sizeof st->error, "out of memory");
        return GR_SASL_DENIED;
    }
    gr_base64_encode(c->salt, c->salt_len, salt64);
    n = asprintf(&s->server_first, "r=%s,s=%s,i=%d", s->nonce, salt64,
                 (int)c->iterations);
    free(salt64);
    if (n < 0) {
        s->server_first = NULL;
        snprintf(st->error, sizeof st->error, "out of memory");
        return GR_SASL_DENIED;
    }
    gr_buf_append(&st->out, s->server_first, (size_t)n);
    s->step = 1;
    return GR_SASL_OK;
}

static int
client_final(scram_state_t *s, const uint8_t *in, size_t len,
             gr_sasl_step_t *st)
{
    gr_scram_client_final_t m;
    size_t h = gr_scram_hash_len(s->type);
    uint8_t sig[GR_SCRAM_MAX_HASH], key[GR_SCRAM_MAX_HASH];
    uint8_t stored[GR_SCRAM_MAX_HASH];
    char *auth = NULL, v[4 * (GR_SCRAM_MAX_HASH / 3 + 1) + 3];
    int n, rc = GR_SASL_DENIED;

    if (gr_scram_parse_client_final(in, len, &m, st->error, sizeof st->error) !=
        0)
        return GR_SASL_DENIED;
    /* RFC 5802: the nonce of server-first. librdkafka before 2.6.1
     * (Debian's 2.0.2 among them) sends the client's part twice, client
     * nonce + server-first's nonce; Kafka 3.8.1-3.9 took that (its
     * endsWith), Kafka 4 refuses it. Gregor takes exactly that form too,
     * which still echoes the whole server nonce (docs/compatibility.md) */
    if (!(m.nonce_len == strlen(s->nonce) &&
          memcmp(m.nonce, s->nonce, m.nonce_len) == 0) &&
        !(m.nonce_len == s->cnonce_len + strlen(s->nonce) &&
          memcmp(m.nonce, s->nonce, s->cnonce_len) == 0 &&
          memcmp(m.nonce + s->cnonce_len, s->nonce, strlen(s->nonce)) == 0)) {
        snprintf(st->error, sizeof st->error,
                 "Invalid client nonce in the final client message.");
        return GR_SASL_DENIED;
    }
    n = asprintf(&auth, "%s,%s,%.*s", s->first_bare, s->server_first,
                 (int)m.without_proof_len, m.without_proof);
    if (n < 0) {
        snprintf(st->error, sizeof st->error, "out of memory");
        return GR_SASL_DENIED;
    }
    /* ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage);
     * H(ClientKey) must be StoredKey */
    if (gr_scram_hmac(s->type, s->stored_key, h, auth, (size_t)n, sig) != 0)
        goto out;
    for (size_t i = 0; i < h; i++)
        key[i] = (uint8_t)((i < m.proof_len ? m.proof[i] : 0) ^ sig[i]);
    if (gr_scram_hash(s->type, key, h, stored) != 0)
        goto out;
    if (m.proof_len != h || CRYPTO_memcmp(stored, s->stored_key, h) != 0) {
        snprintf(st->error, sizeof st->error, "Invalid client credentials");
        goto out;
    }
    if (gr_scram_hmac(s->type, s->server_key, h, auth, (size_t)n, sig) != 0)
        goto out;
    memcpy(v, "v=", 2);
    gr_base64_encode(sig, h, v + 2);
    gr_buf_append(&st->out, v, strlen(v));
    snprintf(st->authorization_id, sizeof st->authorization_id, "%s", s->user);
    st->done = true;
    s->step = 2;
    rc = GR_SASL_OK;
out:
    OPENSSL_cleanse(key, sizeof key);
    free(auth);
    return rc;
}

static int
scram_step(void *p, const uint8_t *in, size_t len, gr_sasl_step_t *st)
{
    scram_state_t *s = p;
    if (s->step == 0)
        return client_first(s, in, len, st);
    if (s->step == 1)
        return client_final(s, in, len, st);
    snprintf(st->error, sizeof st->error,
             "Unexpected challenge in Sasl server state COMPLETE");
    return GR_SASL_FAIL;
}

const gr_sasl_mech_t gr_sasl_scram_sha256 = {
    .name = "SCRAM-SHA-256",
    .start = start256,
    .step = scram_step,
    .end = scram_end,
};

const gr_sasl_mech_t gr_sasl_scram_sha512 = {
    .name = "SCRAM-SHA-512",
    .start = start512,
    .step = scram_step,
    .end = scram_end,
};
