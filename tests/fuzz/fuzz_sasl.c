/*
 * Fuzz target "sasl": the parsers of SASL client bytes and of JAAS text
 * (src/net/sasl_plain.c, scram.c, jaas.c) and the SCRAM server's exchange.
 * Input: a selector byte, then the bytes. 0: a PLAIN message; 1: a SCRAM
 * client-first message; 2: a SCRAM client-final message; 3: JAAS text;
 * 4: base64; 5: a SCRAM-SHA-256 exchange with a store holding user "u"
 * (the bytes split at the first NUL into client-first and client-final).
 *
 * Checks: tokens and slices lie in the input and add up; decoded names fit
 * their buffers and are NUL-terminated; a proof is at most a digest long;
 * a JAAS entry has a module, a flag and NUL-terminated options; base64
 * decodes to at most 3/4 of its length; the exchange never completes
 * without the right proof (none can be guessed) and its server-first
 * echoes the client's nonce.
 */
#include "fuzz.h"

#include "broker.h"
#include "core/str.h"
#include "net/jaas.h"
#include "net/sasl.h"
#include "net/scram.h"

#include <stdbool.h>
#include <string.h>

static bool
inside(const void *p, size_t len, const uint8_t *data, size_t n)
{
    const uint8_t *q = p;
    return q >= data && q + len <= data + n;
}

static void
plain(const uint8_t *d, size_t n)
{
    const uint8_t *tok[3];
    size_t tl[3];
    char err[128];
    if (gr_sasl_plain_parse(d, n, tok, tl, err, sizeof err) != 0) {
        GR_FUZZ_CHECK(memchr(err, 0, sizeof err) != NULL);
        return;
    }
    for (int i = 0; i < 3; i++)
        GR_FUZZ_CHECK(inside(tok[i], tl[i], d, n));
    GR_FUZZ_CHECK(tl[0] + tl[1] + tl[2] + 2 == n);
}

static void
client_first(const uint8_t *d, size_t n)
{
    gr_scram_client_first_t m;
    char err[300];
    if (gr_scram_parse_client_first(d, n, &m, err, sizeof err) != 0)
        return;
    GR_FUZZ_CHECK(inside(m.bare, m.bare_len, d, n));
    GR_FUZZ_CHECK(inside(m.nonce, m.nonce_len, d, n) && m.nonce_len > 0);
    GR_FUZZ_CHECK(memchr(m.user, 0, sizeof m.user) && m.user[0] != '\0');
    GR_FUZZ_CHECK(memchr(m.authzid, 0, sizeof m.authzid) != NULL);
    GR_FUZZ_CHECK(memchr(m.nonce, ',', m.nonce_len) == NULL);
}

static void
client_final(const uint8_t *d, size_t n)
{
    gr_scram_client_final_t m;
    char err[300];
    if (gr_scram_parse_client_final(d, n, &m, err, sizeof err) != 0)
        return;
    GR_FUZZ_CHECK(inside(m.without_proof, m.without_proof_len, d, n));
    GR_FUZZ_CHECK(inside(m.nonce, m.nonce_len, d, n) && m.nonce_len > 0);
    GR_FUZZ_CHECK(m.proof_len <= GR_SCRAM_MAX_HASH);
    GR_FUZZ_CHECK(m.without_proof_len + 3 <= n);
}

static void
jaas(const uint8_t *d, size_t n)
{
    char *s = malloc(n + 1), err[256];
    gr_jaas_t *j;
    GR_FUZZ_CHECK(s != NULL);
    memcpy(s, d, n);
    s[n] = '\0';
    j = gr_jaas_parse(s, err, sizeof err);
    if (j != NULL) {
        GR_FUZZ_CHECK(j->module != NULL && j->flag != NULL);
        for (int i = 0; i < j->nopts; i++) {
            GR_FUZZ_CHECK(j->opts[i].key && j->opts[i].value);
            GR_FUZZ_CHECK(gr_jaas_option(j, j->opts[i].key) != NULL);
        }
        gr_jaas_free(j);
    } else {
        GR_FUZZ_CHECK(memchr(err, 0, sizeof err) != NULL);
    }
    free(s);
}

static void
base64(const uint8_t *d, size_t n)
{
    uint8_t *out = malloc(n / 4 * 3 + 3);
    long k;
    GR_FUZZ_CHECK(out != NULL);
    k = gr_base64_decode((const char *)d, n, out);
    GR_FUZZ_CHECK(k >= -1 && (k < 0 || (size_t)k <= n / 4 * 3));
    if (k >= 0) {
        /* what decodes re-encodes to text that decodes the same */
        char *e = malloc((size_t)k / 3 * 4 + 5);
        uint8_t *again = malloc((size_t)k + 3);
        GR_FUZZ_CHECK(e != NULL && again != NULL);
        gr_base64_encode(out, (size_t)k, e);
        GR_FUZZ_CHECK(strlen(e) == n);
        GR_FUZZ_CHECK(gr_base64_decode(e, n, again) == k);
        GR_FUZZ_CHECK(k == 0 || memcmp(again, out, (size_t)k) == 0);
        free(again);
        free(e);
    }
    free(out);
}

static void
exchange(const uint8_t *d, size_t n)
{
    static gr_scram_store_t *store;
    static struct gr_broker b;
    const uint8_t *z = memchr(d, 0, n);
    gr_sasl_step_t st;
    void *s;
    int rc;

    if (store == NULL) {
        uint8_t salted[32], sk[32], vk[32];
        store = gr_scram_store_open("/nonexistent-gregor-fuzz");
        GR_FUZZ_CHECK(store != NULL);
        GR_FUZZ_CHECK(gr_scram_salted_password(GR_SCRAM_SHA_256, "pw", 2,
                                               (const uint8_t *)"salt", 4, 4096,
                                               salted) == 0);
        GR_FUZZ_CHECK(gr_scram_keys(GR_SCRAM_SHA_256, salted, sk, vk) == 0);
        GR_FUZZ_CHECK(gr_scram_store_set(store, "u", GR_SCRAM_SHA_256, 4096,
                                         (const uint8_t *)"salt", 4, sk,
                                         vk) == 0);
        b.scram = store;
    }
    s = gr_sasl_scram_sha256.start(NULL, &b);
    GR_FUZZ_CHECK(s != NULL);
    memset(&st, 0, sizeof st);
    rc = gr_sasl_scram_sha256.step(s, d, z ? (size_t)(z - d) : n, &st);
    if (rc == GR_SASL_OK) {
        gr_scram_client_first_t m;
        char err[300];
        GR_FUZZ_CHECK(!st.done);
        GR_FUZZ_CHECK(gr_scram_parse_client_first(d, z ? (size_t)(z - d) : n,
                                                  &m, err, sizeof err) == 0);
        GR_FUZZ_CHECK(st.out.len > 2 + m.nonce_len &&
                      memcmp(st.out.ptr + 2, m.nonce, m.nonce_len) == 0);
        gr_buf_fini(&st.out);
        if (z != NULL) {
            memset(&st, 0, sizeof st);
            rc = gr_sasl_scram_sha256.step(s, z + 1, n - (size_t)(z - d) - 1,
                                           &st);
            GR_FUZZ_CHECK(rc != GR_SASL_OK || !st.done);
        }
    }
    gr_buf_fini(&st.out);
    gr_sasl_scram_sha256.end(s);
}

int
gr_fuzz_sasl(const uint8_t *data, size_t n)
{
    if (n == 0)
        return 0;
    switch (data[0]) {
    case 0:
        plain(data + 1, n - 1);
        break;
    case 1:
        client_first(data + 1, n - 1);
        break;
    case 2:
        client_final(data + 1, n - 1);
        break;
    case 3:
        jaas(data + 1, n - 1);
        break;
    case 4:
        base64(data + 1, n - 1);
        break;
    default:
        exchange(data + 1, n - 1);
        break;
    }
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_sasl)
