/*
 * Fuzz target "oauth": SASL/OAUTHBEARER peer input (src/net/sasl_oauth.c).
 * The first byte picks what the rest is:
 *
 *   0: a client's messages, split at 0xff bytes, through one exchange of
 *      the unsecured validator (gr_oauth_step): the first message's
 *      grammar, the token's base64url and JSON, the JSON error and the
 *      0x01 after it;
 *   1: a token for the unsecured validator (gr_oauth_validate), with the
 *      JAAS options that turn on every check (required scope, skew);
 *   2: a JWKS document, then after the first '\n' a compact JWS verified
 *      with its keys (gr_jwks_parse, gr_jwks_verify): the keys' members,
 *      OpenSSL's import of them, the JWS header, the signature's form;
 *   other: the base64url decoder on the rest.
 *
 * Checks: slices of the first message lie inside it and follow its
 * grammar (the token holds only token characters); an exchange's outcome
 * is one of three, a challenge is Kafka's JSON error and the next message
 * always fails; a validated token has a non-empty principal without
 * NULs; a decoded length fits the bound the header gives.
 */
#include "fuzz.h"

#include "core/str.h"
#include "net/sasl_oauth.h"

#include <stdbool.h>
#include <string.h>

static const char *
jaas(void *arg, const char *key)
{
    (void)arg;
    if (strcmp(key, "unsecuredValidatorRequiredScope") == 0)
        return "read write";
    if (strcmp(key, "unsecuredValidatorAllowableClockSkewMs") == 0)
        return "1000";
    return NULL;
}

static gr_oauth_t *
unsecured(void)
{
    static gr_oauth_t *o;
    if (o == NULL) {
        gr_oauth_cfg_t c = { "FUZZ", NULL, jaas, NULL };
        char why[256];
        o = gr_oauth_new(&c, why, sizeof why);
        GR_FUZZ_CHECK(o != NULL);
    }
    return o;
}

static bool
in(const void *x, size_t len, const uint8_t *p, size_t n)
{
    const uint8_t *q = x;
    return q >= p && q + len <= p + n;
}

static void
first_message(const uint8_t *p, size_t n)
{
    gr_oauth_initial_t ini;
    char why[256];
    if (gr_oauth_initial_parse(p, n, &ini, why, sizeof why) != 0) {
        GR_FUZZ_CHECK(strstr(why, "OAUTHBEARER client first message") != NULL);
        return;
    }
    GR_FUZZ_CHECK(n >= 6 && p[0] == 'n' && p[n - 1] == 0x01);
    GR_FUZZ_CHECK(ini.token_len > 0 && in(ini.token, ini.token_len, p, n));
    for (size_t i = 0; i < ini.token_len; i++)
        GR_FUZZ_CHECK(ini.token[i] > 0x20 && ini.token[i] < 0x7f &&
                      ini.token[i] != 0x01);
    if (ini.authzid != NULL)
        GR_FUZZ_CHECK(ini.authzid_len > 0 &&
                      in(ini.authzid, ini.authzid_len, p, n) &&
                      memchr(ini.authzid, ',', ini.authzid_len) == NULL);
    GR_FUZZ_CHECK(ini.extensions >= 0 && (size_t)ini.extensions <= n / 3);
}

static void
exchange(const uint8_t *p, size_t n)
{
    gr_oauth_sess_t s = { 0 };
    bool after_error = false;
    size_t at = 0;
    while (at <= n) {
        const uint8_t *e = memchr(p + at, 0xff, n - at);
        size_t len = e != NULL ? (size_t)(e - (p + at)) : n - at;
        gr_oauth_result_t r;
        first_message(p + at, len);
        gr_oauth_step(unsecured(), &s, p + at, len, 1700000000000LL, &r);
        switch (r.outcome) {
        case GR_OAUTH_DONE:
            GR_FUZZ_CHECK(!after_error);
            GR_FUZZ_CHECK(r.tok.principal[0] != '\0');
            break;
        case GR_OAUTH_CHALLENGE:
            GR_FUZZ_CHECK(!after_error);
            GR_FUZZ_CHECK(r.reply_len > 12 &&
                          memcmp(r.reply, "{\"status\":\"", 11) == 0 &&
                          r.reply[r.reply_len - 1] == '}');
            break;
        case GR_OAUTH_FAILED:
            GR_FUZZ_CHECK(r.message[0] != '\0');
            break;
        }
        after_error = r.outcome == GR_OAUTH_CHALLENGE;
        if (e == NULL)
            break;
        at += len + 1;
    }
}

static void
token(const uint8_t *p, size_t n)
{
    gr_oauth_token_t t;
    const char *status;
    char scope[512], why[512];
    if (gr_oauth_validate(unsecured(), (const char *)p, n, 1700000000000LL, &t,
                          &status, scope, sizeof scope, why, sizeof why) == 0) {
        size_t l = strlen(t.principal);
        GR_FUZZ_CHECK(l > 0 && l < GR_OAUTH_PRINCIPAL_MAX);
    } else {
        GR_FUZZ_CHECK(strcmp(status, "invalid_token") == 0 ||
                      (strcmp(status, "insufficient_scope") == 0 &&
                       strcmp(scope, "[read, write]") == 0));
        GR_FUZZ_CHECK(why[0] != '\0');
    }
}

static void
jwks(const uint8_t *p, size_t n)
{
    const uint8_t *nl = memchr(p, '\n', n);
    size_t dl = nl != NULL ? (size_t)(nl - p) : n;
    char why[256];
    int skipped = -1;
    gr_jwks_t *k =
        gr_jwks_parse((const char *)p, dl, &skipped, why, sizeof why);
    if (k != NULL)
        GR_FUZZ_CHECK(skipped >= 0 && gr_jwks_count(k) >= 0);
    if (nl != NULL) {
        why[0] = '\0';
        if (gr_jwks_verify(k, (const char *)nl + 1, n - dl - 1, why,
                           sizeof why) != 0)
            GR_FUZZ_CHECK(why[0] != '\0');
    }
    gr_jwks_free(k);
}

int
gr_fuzz_oauth(const uint8_t *data, size_t n)
{
    if (n == 0)
        return 0;
    switch (data[0]) {
    case 0:
        exchange(data + 1, n - 1);
        break;
    case 1:
        token(data + 1, n - 1);
        break;
    case 2:
        jwks(data + 1, n - 1);
        break;
    default: {
        uint8_t *out = malloc((n - 1) * 3 / 4 + 3);
        long k;
        GR_FUZZ_CHECK(out != NULL);
        k = gr_base64url_decode((const char *)data + 1, n - 1, out);
        GR_FUZZ_CHECK(k >= -1 && (k < 0 || (size_t)k <= (n - 1) * 3 / 4));
        free(out);
        break;
    }
    }
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_oauth)
