/*
 * net/sasl_oauth: OAUTHBEARER's first message, Kafka's unsecured and
 * signed validators (tokens signed here with OpenSSL against a JWKS file
 * written here), the exchange with its JSON error, and the session
 * lifetime with connections.max.reauth.ms.
 */
#include "../unit.h"

#include "core/conf.h"
#include "core/log.h"
#include "core/str.h"
#include "net/sasl.h"
#include "net/sasl_oauth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#define NOW 1700000000000LL /* ms */

/* --- helpers */

/* base64url without padding, as JWTs carry it (core/str checks the
 * encoder against RFC 4648's vectors) */
static char *
b64url(const void *p, size_t n)
{
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    ck_assert(out != NULL);
    gr_base64_encode_as(p, n, out, GR_BASE64_URL | GR_BASE64_NOPAD);
    return out;
}

static char *
strcat3(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%s%s%s", a, b, c);
    return s;
}

/* header.claims. (base64url of each, no signature) */
static char *
unsigned_jws(const char *hdr, const char *claims)
{
    char *h = b64url(hdr, strlen(hdr)), *c = b64url(claims, strlen(claims));
    char *hc = strcat3(h, ".", c), *t = strcat3(hc, ".", "");
    free(h);
    free(c);
    free(hc);
    return t;
}

typedef struct kv {
    const char *k, *v;
} kv_t;

typedef struct settings {
    kv_t conf[16];
    kv_t jaas[8];
} settings_t;

static const char *
find(const kv_t *t, int n, const char *key)
{
    for (int i = 0; i < n && t[i].k != NULL; i++)
        if (strcmp(t[i].k, key) == 0)
            return t[i].v;
    return NULL;
}

static const char *
conf_get(void *arg, const char *key)
{
    return find(((settings_t *)arg)->conf, 16, key);
}

static const char *
jaas_get(void *arg, const char *key)
{
    return find(((settings_t *)arg)->jaas, 8, key);
}

static gr_oauth_t *
make(settings_t *s, char *why, size_t n)
{
    gr_oauth_cfg_t c = { "TEST", conf_get, jaas_get, s };
    why[0] = '\0';
    return gr_oauth_new(&c, why, n);
}

static int
validate(gr_oauth_t *o, const char *tok, gr_oauth_token_t *t,
         const char **status, char *why, size_t n)
{
    char scope[512];
    return gr_oauth_validate(o, tok, strlen(tok), NOW, t, status, scope,
                             sizeof scope, why, n);
}

/* --- the first message */

#define MSG(s) (const uint8_t *)(s), sizeof(s) - 1

START_TEST(test_initial_ok)
{
    gr_oauth_initial_t ini;
    char why[256];
    /* librdkafka's and Kafka's form: no authzid, extensions after auth */
    ck_assert_int_eq(gr_oauth_initial_parse(MSG("n,,\x01"
                                                "auth=Bearer eyJh.eyJz.\x01"
                                                "\x01"),
                                            &ini, why, sizeof why),
                     0);
    ck_assert_ptr_null(ini.authzid);
    ck_assert_int_eq((int)ini.token_len, 10);
    ck_assert(memcmp(ini.token, "eyJh.eyJz.", 10) == 0);
    ck_assert_int_eq(ini.extensions, 0);
    /* authzid with an escape, extensions, scheme in any case, padding */
    ck_assert_int_eq(gr_oauth_initial_parse(MSG("n,a=al=2Cice,\x01"
                                                "traceId=x y\x01"
                                                "auth=bEaReR  abc+/~_-.9==\x01"
                                                "logicalCluster=lkc-1\x01"
                                                "\x01"),
                                            &ini, why, sizeof why),
                     0);
    ck_assert_int_eq((int)ini.authzid_len, 8);
    ck_assert(memcmp(ini.authzid, "al=2Cice", 8) == 0);
    ck_assert_int_eq((int)ini.token_len, 12);
    ck_assert(memcmp(ini.token, "abc+/~_-.9==", 12) == 0);
    ck_assert_int_eq(ini.extensions, 2);
    /* a later auth replaces an earlier one (Utils.parseMap) */
    ck_assert_int_eq(gr_oauth_initial_parse(MSG("n,,\x01"
                                                "auth=Bearer one\x01"
                                                "auth=Bearer two\x01"
                                                "\x01"),
                                            &ini, why, sizeof why),
                     0);
    ck_assert(ini.token_len == 3 && memcmp(ini.token, "two", 3) == 0);
}
END_TEST

START_TEST(test_initial_bad)
{
    static const struct {
        const char *m;
        size_t n;
        const char *why;
    } bad[] = {
#define B(s, w) { s, sizeof(s) - 1, w }
        B("", "Invalid OAUTHBEARER client first message"),
        B("y,,\x01"
          "auth=Bearer t\x01\x01",
          "Invalid OAUTHBEARER client first message"),
        /* no final 0x01 */
        B("n,,\x01"
          "auth=Bearer t\x01",
          "Invalid OAUTHBEARER client first message"),
        /* bytes after the final 0x01 */
        B("n,,\x01"
          "auth=Bearer t\x01\x01x",
          "Invalid OAUTHBEARER client first message"),
        /* empty authzid, bad escape */
        B("n,a=,\x01"
          "auth=Bearer t\x01\x01",
          "Invalid OAUTHBEARER client first message"),
        B("n,a=x=41,\x01"
          "auth=Bearer t\x01\x01",
          "Invalid OAUTHBEARER client first message"),
        /* a key that is not letters, an empty value, a byte above 0x7E */
        B("n,,\x01"
          "auth1=Bearer t\x01\x01",
          "Invalid OAUTHBEARER client first message"),
        B("n,,\x01"
          "x=\x01"
          "auth=Bearer t\x01\x01",
          "Invalid OAUTHBEARER client first message"),
        B("n,,\x01"
          "auth=Bearer t\xc3\xa9\x01\x01",
          "Invalid OAUTHBEARER client first message"),
        B("n,,\x01"
          "a\0=b\x01"
          "auth=Bearer t\x01\x01",
          "Invalid OAUTHBEARER client first message"),
        /* no auth, a bad auth, another scheme */
        B("n,,\x01"
          "x=y\x01\x01",
          "Invalid OAUTHBEARER client first message: 'auth' not specified"),
        B("n,,\x01\x01",
          "Invalid OAUTHBEARER client first message: 'auth' not specified"),
        B("n,,\x01"
          "auth=Bearer a b\x01\x01",
          "Invalid OAUTHBEARER client first message: invalid 'auth' format"),
        B("n,,\x01"
          "auth=Bearer\x01\x01",
          "Invalid OAUTHBEARER client first message: invalid 'auth' format"),
        B("n,,\x01"
          "auth=Bearer t=a\x01\x01",
          "Invalid OAUTHBEARER client first message: invalid 'auth' format"),
        B("n,,\x01"
          "auth=Basic dXNlcg==\x01\x01",
          "Invalid scheme in OAUTHBEARER client first message: Basic"),
#undef B
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_oauth_initial_t ini;
        char why[256] = "";
        ck_assert_msg(gr_oauth_initial_parse((const uint8_t *)bad[i].m,
                                             bad[i].n, &ini, why,
                                             sizeof why) == -1,
                      "case %zu accepted", i);
        ck_assert_msg(strcmp(why, bad[i].why) == 0, "case %zu: %s", i, why);
    }
}
END_TEST

/* --- the unsecured validator */

#define HDR_NONE "{\"alg\":\"none\"}"

START_TEST(test_unsecured_ok)
{
    settings_t s = { { { NULL, NULL } }, { { NULL, NULL } } };
    char why[512];
    gr_oauth_token_t t;
    const char *status;
    gr_oauth_t *o = make(&s, why, sizeof why);
    char *tok;
    ck_assert_msg(o != NULL, "%s", why);
    ck_assert(!gr_oauth_is_signed(o));
    /* librdkafka's builtin token: iat and exp with fractions */
    tok = unsigned_jws(HDR_NONE, "{\"sub\":\"alice\",\"iat\":1699999999.5,"
                                 "\"exp\":1700003600.25,\"scope\":\"a b\"}");
    ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == 0, "%s",
                  why);
    ck_assert_str_eq(t.principal, "alice");
    ck_assert_int_eq(t.lifetime_ms, 1700003600250LL);
    ck_assert_int_eq(t.start_ms, 1699999999500LL);
    free(tok);
    /* no iat; a non-string sub (bool) is its text, as Jackson's asText */
    tok = unsigned_jws(HDR_NONE, "{\"sub\":true,\"exp\":1700000001}");
    ck_assert_int_eq(validate(o, tok, &t, &status, why, sizeof why), 0);
    ck_assert_str_eq(t.principal, "true");
    ck_assert_int_eq(t.start_ms, -1);
    free(tok);
    gr_oauth_free(o);
}
END_TEST

START_TEST(test_unsecured_refused)
{
    static const struct {
        const char *hdr, *claims, *why;
    } bad[] = {
        { "{\"alg\":\"HS256\"}", "{\"sub\":\"a\",\"exp\":1700000100}",
          "Unsecured JWS must have 'none' for an algorithm" },
        { "{\"typ\":\"JWT\"}", "{\"sub\":\"a\",\"exp\":1700000100}",
          "JWS header must have an Algorithm value" },
        { HDR_NONE, "{\"sub\":\"a\"}", "No expiration time in JWT" },
        { HDR_NONE, "{\"sub\":\"a\",\"exp\":\"soon\"}",
          "The 'exp' claim was not of type Number: String" },
        { HDR_NONE, "{\"sub\":7,\"exp\":1700000100}",
          "The 'sub' claim was not of type String: Integer" },
        { HDR_NONE, "{\"exp\":1700000100}",
          "No principal name in JWT claim: sub" },
        { HDR_NONE, "{\"sub\":\"  \",\"exp\":1700000100}",
          "No principal name in JWT claim: sub" },
        { HDR_NONE, "{\"sub\":\"a\",\"exp\":1700000100,\"scope\":5}",
          "The 'scope' claim was not of type List: Integer" },
        /* expired: exactly at now is expired */
        { HDR_NONE, "{\"sub\":\"a\",\"exp\":1700000000}",
          "The indicated time (1700000000000 ms) minus allowable clock skew "
          "(0 ms) was on or after the Expiration Time value "
          "(1700000000.000000 seconds)" },
        { HDR_NONE, "{\"sub\":\"a\",\"iat\":1700000001,\"exp\":1700000100}",
          "The Issued At value (1700000001.000000 seconds) was after the "
          "indicated time (1700000000000 ms) plus allowable clock skew (0 "
          "ms)" },
        { HDR_NONE, "{\"sub\":\"a\",\"iat\":1600000000,\"exp\":1500000000}",
          "The indicated time (1700000000000 ms) minus allowable clock skew "
          "(0 ms) was on or after the Expiration Time value "
          "(1500000000.000000 seconds)" },
        { HDR_NONE, "not json", "malformed JSON" },
        /* the first JSON value only? no: trailing bytes are refused */
    };
    settings_t s = { { { NULL, NULL } }, { { NULL, NULL } } };
    char why[512];
    gr_oauth_token_t t;
    const char *status;
    gr_oauth_t *o = make(&s, why, sizeof why);
    ck_assert(o != NULL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *tok = unsigned_jws(bad[i].hdr, bad[i].claims);
        why[0] = '\0';
        ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == -1,
                      "case %zu accepted", i);
        ck_assert_msg(strncmp(why, bad[i].why, strlen(bad[i].why)) == 0,
                      "case %zu: %s", i, why);
        ck_assert_str_eq(status, "invalid_token");
        free(tok);
    }
    /* a token above GR_OAUTH_MAX_TOKEN_BYTES is not decoded */
    {
        size_t big = GR_OAUTH_MAX_TOKEN_BYTES + 1;
        char *tok = malloc(big + 1);
        memset(tok, 'a', big);
        tok[big] = '\0';
        ck_assert_int_eq(validate(o, tok, &t, &status, why, sizeof why), -1);
        ck_assert_str_eq(why, "a token of 65537 bytes: Gregor takes at most "
                              "65536");
        free(tok);
    }
    /* the compact serialization itself */
    ck_assert_int_eq(validate(o, "a..b", &t, &status, why, sizeof why), -1);
    ck_assert_str_eq(why, "Malformed compact serialization contains '..'");
    ck_assert_int_eq(validate(o, "a.b", &t, &status, why, sizeof why), -1);
    ck_assert(strstr(why, "must have 3 dot-separated") != NULL);
    ck_assert_int_eq(validate(o, "eyJ!.e30.", &t, &status, why, sizeof why),
                     -1);
    ck_assert_str_eq(why, "malformed Base64 URL encoded value");
    {
        /* a signature on an unsecured JWS */
        char *tok =
            unsigned_jws(HDR_NONE, "{\"sub\":\"a\",\"exp\":1800000000}");
        char *sig = strcat3(tok, "c2ln", "");
        ck_assert_int_eq(validate(o, sig, &t, &status, why, sizeof why), -1);
        ck_assert_str_eq(why, "Unsecured JWS must not contain a digital "
                              "signature");
        free(sig);
        free(tok);
    }
    gr_oauth_free(o);
}
END_TEST

START_TEST(test_unsecured_options)
{
    /* the JAAS options of OAuthBearerLoginModule */
    settings_t s = {
        { { NULL, NULL } },
        { { "unsecuredValidatorPrincipalClaimName", " user " },
          { "unsecuredValidatorScopeClaimName", "perms" },
          { "unsecuredValidatorRequiredScope", "read  write" },
          { "unsecuredValidatorAllowableClockSkewMs", "5000" },
          { NULL, NULL } },
    };
    char why[512], scope[512];
    gr_oauth_token_t t;
    const char *status;
    gr_oauth_t *o = make(&s, why, sizeof why);
    char *tok;
    ck_assert_msg(o != NULL, "%s", why);
    /* expired 4 s ago: inside the 5 s skew */
    tok = unsigned_jws(HDR_NONE, "{\"user\":\"bob\",\"exp\":1699999996,"
                                 "\"perms\":[\"write\",\" read \",\"x\"]}");
    ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == 0, "%s",
                  why);
    ck_assert_str_eq(t.principal, "bob");
    free(tok);
    /* a scope missing: insufficient_scope with Kafka's List.toString() */
    tok = unsigned_jws(HDR_NONE, "{\"user\":\"bob\",\"exp\":1800000000,"
                                 "\"perms\":\"read\"}");
    ck_assert_int_eq(gr_oauth_validate(o, tok, strlen(tok), NOW, &t, &status,
                                       scope, sizeof scope, why, sizeof why),
                     -1);
    ck_assert_str_eq(status, "insufficient_scope");
    ck_assert_str_eq(scope, "[read, write]");
    free(tok);
    gr_oauth_free(o);

    /* options Kafka refuses */
    s.jaas[3].v = "-1";
    ck_assert_ptr_null(make(&s, why, sizeof why));
    ck_assert(strstr(why, "must not be negative") != NULL);
    s.jaas[3].v = "5s";
    ck_assert_ptr_null(make(&s, why, sizeof why));
    ck_assert_str_eq(why, "For input string: \"5s\"");
    s.jaas[3].v = NULL;
    s.jaas[2].v = "read \"write\"";
    ck_assert_ptr_null(make(&s, why, sizeof why));
    ck_assert(strstr(why, "Invalid scope value") != NULL);
    /* another callback handler class */
    s.jaas[2].v = NULL;
    s.conf[0].k = "sasl.server.callback.handler.class";
    s.conf[0].v = "com.example.MyHandler";
    ck_assert_ptr_null(make(&s, why, sizeof why));
    ck_assert(strstr(why, "com.example.MyHandler is not supported") != NULL);
}
END_TEST

/* --- the exchange */

/* One step of the exchange on the client's first message with tok (and
 * authzid, or none). */
static void
step_token(gr_oauth_t *o, gr_oauth_sess_t *sess, const char *authzid,
           const char *tok, gr_oauth_result_t *r)
{
    char msg[2048];
    int n = snprintf(msg, sizeof msg,
                     "n,%s%s,\x01"
                     "auth=Bearer %s\x01\x01",
                     authzid ? "a=" : "", authzid ? authzid : "", tok);
    ck_assert(n > 0 && (size_t)n < sizeof msg);
    gr_oauth_step(o, sess, (uint8_t *)msg, (size_t)n, NOW, r);
}

START_TEST(test_step_error_then_ack)
{
    settings_t s = { { { NULL, NULL } },
                     { { "unsecuredValidatorRequiredScope", "admin" },
                       { NULL, NULL } } };
    char why[512];
    gr_oauth_t *o = make(&s, why, sizeof why);
    gr_oauth_sess_t sess = { 0 };
    gr_oauth_result_t r;
    char *tok;
    ck_assert(o != NULL);

    /* expired: the JSON error, then 0x01, then the failure with it */
    tok = unsigned_jws(HDR_NONE, "{\"sub\":\"a\",\"exp\":1600000000,"
                                 "\"scope\":\"admin\"}");
    step_token(o, &sess, NULL, tok, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_CHALLENGE);
    ck_assert_int_eq((int)r.reply_len, 26);
    ck_assert(memcmp(r.reply, "{\"status\":\"invalid_token\"}", 26) == 0);
    ck_assert(strstr(r.why, "Expiration Time") != NULL);
    gr_oauth_step(o, &sess, (const uint8_t *)"\x01", 1, NOW, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_FAILED);
    ck_assert_str_eq(r.message, "{\"status\":\"invalid_token\"}");
    free(tok);

    /* insufficient scope: the scope in the JSON, Kafka's format */
    tok = unsigned_jws(HDR_NONE, "{\"sub\":\"a\",\"exp\":1800000000}");
    step_token(o, &sess, NULL, tok, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_CHALLENGE);
    ck_assert_str_eq(r.reply, "{\"status\":\"insufficient_scope\", "
                              "\"scope\":\"[admin]\"}");
    /* a second token instead of 0x01 ends the exchange too */
    step_token(o, &sess, NULL, tok, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_FAILED);
    ck_assert_str_eq(r.message, "Authentication failed during authentication "
                                "due to invalid credentials with SASL "
                                "mechanism OAUTHBEARER");
    free(tok);

    /* a good token; an authzid that is not the principal */
    tok = unsigned_jws(HDR_NONE, "{\"sub\":\"alice\",\"exp\":1700000600,"
                                 "\"scope\":\"admin\"}");
    step_token(o, &sess, NULL, tok, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_DONE);
    ck_assert_str_eq(r.tok.principal, "alice");
    ck_assert_int_eq(r.tok.lifetime_ms, 1700000600000LL);
    step_token(o, &sess, "alice", tok, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_DONE);
    step_token(o, &sess, "bob", tok, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_FAILED);
    ck_assert_str_eq(r.message,
                     "Authentication failed: Client requested an "
                     "authorization id (bob) that is different from the "
                     "token's principal name (alice)");
    free(tok);

    /* a malformed first message fails at once, generically */
    gr_oauth_step(o, &sess, (const uint8_t *)"\x01", 1, NOW, &r);
    ck_assert_int_eq(r.outcome, GR_OAUTH_FAILED);
    ck_assert(strstr(r.message, "invalid credentials") != NULL);
    ck_assert_str_eq(r.why, "Invalid OAUTHBEARER client first message");
    gr_oauth_free(o);
}
END_TEST

START_TEST(test_session_lifetime)
{
    /* SaslServerAuthenticator.ReauthInfo.calcCompletionTimesAndReturn-
     * SessionLifetimeMs: min(token, connections.max.reauth.ms) */
    ck_assert_int_eq(gr_oauth_session_lifetime_ms(NOW + 60000, NOW, 0), 60000);
    ck_assert_int_eq(gr_oauth_session_lifetime_ms(NOW + 60000, NOW, 10000),
                     10000);
    ck_assert_int_eq(gr_oauth_session_lifetime_ms(NOW + 6000, NOW, 10000),
                     6000);
    ck_assert_int_eq(gr_oauth_session_lifetime_ms(-1, NOW, 10000), 10000);
    ck_assert_int_eq(gr_oauth_session_lifetime_ms(-1, NOW, 0), 0);
    ck_assert_int_eq(gr_oauth_session_lifetime_ms(NOW - 5, NOW, 0), 0);
}
END_TEST

/* --- signed tokens */

typedef struct signer {
    EVP_PKEY *pkey;
    const char *alg, *kid;
} signer_t;

static void
bn_member(FILE *f, const char *name, EVP_PKEY *k, const char *param)
{
    BIGNUM *bn = NULL;
    uint8_t buf[1024];
    int n;
    char *s;
    ck_assert(EVP_PKEY_get_bn_param(k, param, &bn) == 1);
    n = BN_bn2bin(bn, buf);
    s = b64url(buf, (size_t)n);
    fprintf(f, ",\"%s\":\"%s\"", name, s);
    free(s);
    BN_free(bn);
}

static void
jwk_write(FILE *f, const signer_t *s)
{
    if (EVP_PKEY_is_a(s->pkey, "RSA")) {
        fprintf(f, "{\"kty\":\"RSA\",\"kid\":\"%s\",\"use\":\"sig\"", s->kid);
        bn_member(f, "n", s->pkey, OSSL_PKEY_PARAM_RSA_N);
        bn_member(f, "e", s->pkey, OSSL_PKEY_PARAM_RSA_E);
    } else {
        uint8_t pt[200];
        size_t n = 0, c;
        char *x, *y;
        ck_assert(EVP_PKEY_get_octet_string_param(s->pkey,
                                                  OSSL_PKEY_PARAM_PUB_KEY, pt,
                                                  sizeof pt, &n) == 1);
        ck_assert(pt[0] == 0x04);
        c = (n - 1) / 2;
        x = b64url(pt + 1, c);
        y = b64url(pt + 1 + c, c);
        fprintf(f,
                "{\"kty\":\"EC\",\"kid\":\"%s\",\"crv\":\"P-256\",\"x\":\"%s\","
                "\"y\":\"%s\"",
                s->kid, x, y);
        free(x);
        free(y);
    }
    fprintf(f, "}");
}

static void
jwks_write(const char *path, const signer_t *keys, int n)
{
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    /* a key type Gregor does not use is skipped, as jose4j does */
    fprintf(f, "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"AA\"}");
    for (int i = 0; i < n; i++) {
        fprintf(f, ",");
        jwk_write(f, &keys[i]);
    }
    fprintf(f, "]}");
    fclose(f);
}

static char *
sign_jws(const signer_t *s, const char *claims)
{
    char hdr[256], *h, *c, *input, *sig, *tok;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t der[600], raw[132];
    size_t dl = sizeof der;
    bool ec = !EVP_PKEY_is_a(s->pkey, "RSA");
    snprintf(hdr, sizeof hdr, "{\"alg\":\"%s\",\"typ\":\"JWT\",\"kid\":\"%s\"}",
             s->alg, s->kid);
    h = b64url(hdr, strlen(hdr));
    c = b64url(claims, strlen(claims));
    input = strcat3(h, ".", c);
    ck_assert(EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, s->pkey,
                                    NULL) == 1);
    ck_assert(EVP_DigestSign(md, der, &dl, (uint8_t *)input, strlen(input)) ==
              1);
    EVP_MD_CTX_free(md);
    if (ec) {
        const uint8_t *p = der;
        ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)dl);
        ck_assert(es != NULL);
        BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + 32, 32);
        ECDSA_SIG_free(es);
        sig = b64url(raw, 64);
    } else {
        sig = b64url(der, dl);
    }
    {
        char *hc = strcat3(input, ".", "");
        tok = strcat3(hc, sig, "");
        free(hc);
    }
    free(h);
    free(c);
    free(input);
    free(sig);
    return tok;
}

typedef struct signed_fx {
    char dir[64], path[96], url[128];
    signer_t rsa, ec, other;
    settings_t s;
} signed_fx_t;

/* The signed tests' checked fixture: each test gets its own keys, JWKS
 * file and settings in fx, to change as it likes. */
static signed_fx_t fx;

static void
signed_setup(void)
{
    memset(&fx, 0, sizeof fx);
    snprintf(fx.dir, sizeof fx.dir, "/tmp/check_oauth.XXXXXX");
    ck_assert(mkdtemp(fx.dir) != NULL);
    snprintf(fx.path, sizeof fx.path, "%s/jwks.json", fx.dir);
    snprintf(fx.url, sizeof fx.url, "file://%s", fx.path);
    fx.rsa.pkey = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    fx.rsa.alg = "RS256";
    fx.rsa.kid = "r1";
    fx.ec.pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    fx.ec.alg = "ES256";
    fx.ec.kid = "e1";
    fx.other.pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    fx.other.alg = "ES256";
    fx.other.kid = "e1"; /* same kid, another key: a forged signature */
    ck_assert(fx.rsa.pkey && fx.ec.pkey && fx.other.pkey);
    {
        signer_t keys[2] = { fx.rsa, fx.ec };
        jwks_write(fx.path, keys, 2);
    }
    fx.s.conf[0] = (kv_t){ "sasl.server.callback.handler.class",
                            GR_OAUTH_SECURED_HANDLER };
    fx.s.conf[1] = (kv_t){ "sasl.oauthbearer.jwks.endpoint.url", fx.url };
    fx.s.conf[2] = (kv_t){ GR_OAUTH_ALLOWED_URLS, fx.url };
    fx.s.conf[3] =
        (kv_t){ "sasl.oauthbearer.expected.audience", "kafka, other" };
    fx.s.conf[4] =
        (kv_t){ "sasl.oauthbearer.expected.issuer", "https://issuer.example" };
}

static void
signed_teardown(void)
{
    EVP_PKEY_free(fx.rsa.pkey);
    EVP_PKEY_free(fx.ec.pkey);
    EVP_PKEY_free(fx.other.pkey);
    unlink(fx.path);
    rmdir(fx.dir);
}

#define GOOD_CLAIMS                                                         \
    "{\"sub\":\"svc-1\",\"iss\":\"https://issuer.example\",\"aud\":[\"x\"," \
    "\"kafka\"],\"iat\":1699999000,\"exp\":1700003600,\"scope\":[\"a\"]}"

START_TEST(test_signed_ok)
{
    char why[512];
    gr_oauth_token_t t;
    const char *status;
    gr_oauth_t *o;
    char *tok;
    o = make(&fx.s, why, sizeof why);
    ck_assert_msg(o != NULL, "%s", why);
    ck_assert(gr_oauth_is_signed(o));
    tok = sign_jws(&fx.rsa, GOOD_CLAIMS);
    ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == 0, "%s",
                  why);
    ck_assert_str_eq(t.principal, "svc-1");
    ck_assert_int_eq(t.lifetime_ms, 1700003600000LL);
    ck_assert_int_eq(t.start_ms, 1699999000000LL);
    free(tok);
    tok = sign_jws(&fx.ec, GOOD_CLAIMS);
    ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == 0, "%s",
                  why);
    free(tok);
    gr_oauth_free(o);
}
END_TEST

START_TEST(test_signed_refused)
{
    static const struct {
        const char *claims, *why;
    } bad[] = {
        { "{\"sub\":\"s\",\"iss\":\"https://issuer.example\",\"aud\":\"kafka\","
          "\"iat\":1699999000,\"exp\":1699999900}",
          "The JWT is no longer valid" },
        { "{\"sub\":\"s\",\"iss\":\"https://issuer.example\",\"aud\":\"nope\","
          "\"iat\":1699999000,\"exp\":1700003600}",
          "Audience (aud) claim doesn't contain an acceptable identifier" },
        { "{\"sub\":\"s\",\"iss\":\"https://issuer.example\","
          "\"iat\":1699999000,\"exp\":1700003600}",
          "No Audience (aud) claim present." },
        { "{\"sub\":\"s\",\"iss\":\"https://evil.example\",\"aud\":\"kafka\","
          "\"iat\":1699999000,\"exp\":1700003600}",
          "Issuer (iss) claim value (https://evil.example) doesn't match" },
        { "{\"sub\":\"s\",\"iss\":\"https://issuer.example\",\"aud\":\"kafka\","
          "\"exp\":1700003600}",
          "No Issued At (iat) claim present." },
        { "{\"sub\":\"s\",\"iss\":\"https://issuer.example\",\"aud\":\"kafka\","
          "\"iat\":1699999000}",
          "No Expiration Time (exp) claim present." },
        { "{\"sub\":\"s\",\"iss\":\"https://issuer.example\",\"aud\":\"kafka\","
          "\"iat\":1699999000,\"exp\":1700003600,\"nbf\":1700000100}",
          "The JWT is not yet valid" },
        { "{\"iss\":\"https://issuer.example\",\"aud\":\"kafka\","
          "\"iat\":1699999000,\"exp\":1700003600}",
          "sub value must be non-null" },
        { "{\"sub\":\"s\",\"iss\":\"https://issuer.example\",\"aud\":\"kafka\","
          "\"iat\":1699999000,\"exp\":1700003600,\"scope\":[\"a\",\"a\"]}",
          "scope value must not contain duplicates" },
        { "{\"sub\":\"s\",\"sub\":\"t\",\"iss\":\"https://issuer.example\","
          "\"aud\":\"kafka\",\"iat\":1699999000,\"exp\":1700003600}",
          "JWT claims are not a JSON object with unique names" },
    };
    char why[512];
    gr_oauth_token_t t;
    const char *status;
    gr_oauth_t *o;
    char *tok;
    o = make(&fx.s, why, sizeof why);
    ck_assert_msg(o != NULL, "%s", why);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tok = sign_jws(&fx.rsa, bad[i].claims);
        ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == -1,
                      "case %zu accepted", i);
        ck_assert_msg(strstr(why, bad[i].why) != NULL, "case %zu: %s", i, why);
        ck_assert_str_eq(status, "invalid_token");
        free(tok);
    }
    /* 30 s of clock skew (Kafka's default): expired 20 s ago is fine */
    tok = sign_jws(&fx.rsa,
                   "{\"sub\":\"s\",\"iss\":\"https://issuer.example\","
                   "\"aud\":\"other\",\"iat\":1699999000,\"exp\":1699999980}");
    ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == 0, "%s",
                  why);
    free(tok);
    /* a forged signature: same kid, another key */
    tok = sign_jws(&fx.other, GOOD_CLAIMS);
    ck_assert_int_eq(validate(o, tok, &t, &status, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "JWS signature is invalid") != NULL, "%s", why);
    free(tok);
    /* an unknown kid */
    fx.ec.kid = "e9";
    tok = sign_jws(&fx.ec, GOOD_CLAIMS);
    ck_assert_int_eq(validate(o, tok, &t, &status, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "Unable to find a suitable verification key") !=
                      NULL,
                  "%s", why);
    free(tok);
    fx.ec.kid = "e1";
    /* the claims changed after signing */
    {
        char *good = sign_jws(&fx.rsa, GOOD_CLAIMS), *d1 = strchr(good, '.');
        char *d2 = strchr(d1 + 1, '.'), *c, *forged, *hc;
        const char *evil = "{\"sub\":\"admin\",\"iss\":\"https://issuer."
                           "example\",\"aud\":\"kafka\",\"iat\":1699999000,"
                           "\"exp\":1700003600}";
        *d1 = '\0';
        c = b64url(evil, strlen(evil));
        hc = strcat3(good, ".", c);
        forged = strcat3(hc, d2, "");
        ck_assert_int_eq(validate(o, forged, &t, &status, why, sizeof why), -1);
        ck_assert_msg(strstr(why, "JWS signature is invalid") != NULL, "%s",
                      why);
        free(good);
        free(c);
        free(hc);
        free(forged);
    }
    /* alg none on the signed validator */
    tok = unsigned_jws(HDR_NONE, GOOD_CLAIMS);
    ck_assert_int_eq(validate(o, tok, &t, &status, why, sizeof why), -1);
    free(tok);
    gr_oauth_free(o);
}
END_TEST

START_TEST(test_signed_reload)
{
    char why[512];
    gr_oauth_token_t t;
    const char *status, *claims = GOOD_CLAIMS;
    char scope[64];
    gr_oauth_t *o;
    char *tok;
    signer_t e2;
    o = make(&fx.s, why, sizeof why);
    ck_assert(o != NULL);
    e2 = fx.other;
    e2.kid = "e2";
    tok = sign_jws(&e2, claims);
    ck_assert_int_eq(gr_oauth_validate(o, tok, strlen(tok), NOW, &t, &status,
                                       scope, sizeof scope, why, sizeof why),
                     -1);
    /* the key rotates in: the file is rewritten */
    {
        signer_t keys[2] = { fx.rsa, e2 };
        jwks_write(fx.path, keys, 2);
    }
    ck_assert_int_eq(
        gr_oauth_validate(o, tok, strlen(tok), NOW + GR_OAUTH_JWKS_CHECK_MS, &t,
                          &status, scope, sizeof scope, why, sizeof why),
        0);
    ck_assert_int_eq(gr_oauth_jwks_reloads(o), 1);
    /* a broken rewrite keeps the keys that were */
    {
        FILE *f = fopen(fx.path, "w");
        fputs("{\"keys\":[", f);
        fclose(f);
    }
    ck_assert_int_eq(
        gr_oauth_validate(o, tok, strlen(tok), NOW + 2 * GR_OAUTH_JWKS_CHECK_MS,
                          &t, &status, scope, sizeof scope, why, sizeof why),
        0);
    ck_assert_int_eq(gr_oauth_jwks_reloads(o), 1);
    free(tok);
    gr_oauth_free(o);
}
END_TEST

START_TEST(test_signed_config)
{
    char why[1024];
    /* the URL must be allowed (Kafka 4's allowed.urls) */
    fx.s.conf[2].v = "file:///elsewhere";
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "cannot be accessed due to restrictions") != NULL);
    fx.s.conf[2].v = fx.url;
    /* audience and issuer are required unless allowed unverified */
    fx.s.conf[3].v = NULL;
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "requires \"sasl.oauthbearer.expected.audience\"") !=
              NULL);
    fx.s.conf[5] =
        (kv_t){ "sasl.oauthbearer.allow.unverified.audience", "true" };
    fx.s.conf[4].v = NULL;
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "requires \"sasl.oauthbearer.expected.issuer\"") !=
              NULL);
    fx.s.conf[6] = (kv_t){ "sasl.oauthbearer.allow.unverified.issuer", "true" };
    {
        gr_oauth_t *o = make(&fx.s, why, sizeof why);
        gr_oauth_token_t t;
        const char *status;
        char *tok = sign_jws(&fx.ec, "{\"sub\":\"z\",\"iat\":1699999000,"
                                     "\"exp\":1700003600}");
        ck_assert_msg(o != NULL, "%s", why);
        ck_assert_msg(validate(o, tok, &t, &status, why, sizeof why) == 0, "%s",
                      why);
        free(tok);
        gr_oauth_free(o);
    }
    /* Kafka's JwtValidator classes that verify signatures; not others */
    fx.s.conf[7] = (kv_t){ "sasl.oauthbearer.jwt.validator.class",
                           "org.apache.kafka.common.security.oauthbearer."
                           "DefaultJwtValidator" };
    gr_oauth_free(make(&fx.s, why, sizeof why));
    ck_assert_msg(why[0] == '\0', "%s", why);
    fx.s.conf[7].v = " org.apache.kafka.common.security.oauthbearer."
                     "BrokerJwtValidator ";
    gr_oauth_free(make(&fx.s, why, sizeof why));
    ck_assert_msg(why[0] == '\0', "%s", why);
    fx.s.conf[7].v = "org.apache.kafka.common.security.oauthbearer."
                     "ClientJwtValidator";
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "ClientJwtValidator is not supported") != NULL);
    fx.s.conf[7].v = NULL;
    /* no JWKS URL; an HTTP one; a missing file */
    fx.s.conf[1].v = NULL;
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "requires \"sasl.oauthbearer.jwks.endpoint.url\"") !=
              NULL);
    fx.s.conf[1].v = "https://idp.example/jwks";
    fx.s.conf[2].v = "https://idp.example/jwks";
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "file:// URL only") != NULL);
    fx.s.conf[1].v = "file:///nonexistent/jwks.json";
    fx.s.conf[2].v = "file:///nonexistent/jwks.json";
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "that doesn't exist") != NULL);
    /* a duplicated audience */
    fx.s.conf[1].v = fx.url;
    fx.s.conf[2].v = fx.url;
    fx.s.conf[3].v = "a,a";
    ck_assert_ptr_null(make(&fx.s, why, sizeof why));
    ck_assert(strstr(why, "must not be duplicated") != NULL);
}
END_TEST

START_TEST(test_jwks_parse)
{
    char why[256];
    int skipped = -1;
    gr_jwks_t *k;
    k = gr_jwks_parse("{\"keys\":[]}", 11, &skipped, why, sizeof why);
    ck_assert(k != NULL && gr_jwks_count(k) == 0 && skipped == 0);
    gr_jwks_free(k);
    /* an RSA key with a zero exponent, an EC point off the curve */
    {
        const char *doc =
            "{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AA\"},"
            "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AAAAAAAAAAAAAAAAAAAAAAAA"
            "AAAAAAAAAAAAAAAAAAA\",\"y\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
            "AAAAAAAA\"},{\"kid\":1}]}";
        k = gr_jwks_parse(doc, strlen(doc), &skipped, why, sizeof why);
        ck_assert(k != NULL);
        ck_assert_int_eq(gr_jwks_count(k), 0);
        ck_assert_int_eq(skipped, 3);
        gr_jwks_free(k);
    }
    ck_assert_ptr_null(gr_jwks_parse("[]", 2, &skipped, why, sizeof why));
    ck_assert_str_eq(why, "no \"keys\" array");
    ck_assert_ptr_null(gr_jwks_parse("{", 1, &skipped, why, sizeof why));
}
END_TEST


/* --- the mechanism on a listener (net/sasl.h): where settings come from */

static gr_sasl_listener_t *
listener(const char *const *kv)
{
    gr_conf_t *conf = gr_conf_new();
    gr_sasl_listener_t *sl;
    gr_conf_set_kv(conf, "listeners=SASL_PLAINTEXT://127.0.0.1:0");
    gr_conf_set_kv(conf, "sasl.enabled.mechanisms=OAUTHBEARER");
    for (; *kv != NULL; kv++)
        ck_assert_int_eq(gr_conf_set_kv(conf, *kv), 0);
    ck_assert_int_eq(gr_conf_finish(conf), 0);
    sl = gr_sasl_listener_new(conf, "SASL_PLAINTEXT");
    gr_conf_destroy(conf);
    return sl;
}

START_TEST(test_listener_settings)
{
    char k1[256], k2[256], opts[256];
    const char *jaas = "sasl.jaas.config=org.apache.kafka.common.security."
                       "oauthbearer.OAuthBearerLoginModule required;";
    const char *handler =
        "listener.name.sasl_plaintext.oauthbearer.sasl."
        "server.callback.handler.class=" GR_OAUTH_SECURED_HANDLER;
    gr_sasl_listener_t *sl;
    gr_log_level = GR_LOG_LEVEL_ERROR;
    /* no JAAS entry: refused, as Kafka's JaasContext refuses it */
    {
        const char *kv[] = { NULL };
        ck_assert_ptr_null(listener(kv));
    }
    /* the unsecured default */
    {
        const char *kv[] = { jaas, NULL };
        sl = listener(kv);
        ck_assert_ptr_nonnull(sl);
        gr_sasl_listener_free(sl);
    }
    /* the handler at listener.name.<l>.oauthbearer.: signed, and so the
     * JWKS URL is required */
    {
        const char *kv[] = { jaas, handler, NULL };
        ck_assert_ptr_null(listener(kv));
    }
    /* the signed settings as broker keys (conf.def), the allowed URLs
     * from KAFKA_OPTS as Kafka's start scripts pass the property */
    snprintf(k1, sizeof k1, "sasl.oauthbearer.jwks.endpoint.url=%s", fx.url);
    snprintf(opts, sizeof opts, "-Xmx1G -D%s=%s -Dx=y", GR_OAUTH_ALLOWED_URLS,
             fx.url);
    {
        const char *kv[] = { jaas,
                             handler,
                             k1,
                             "sasl.oauthbearer.expected.audience=kafka",
                             "sasl.oauthbearer.expected.issuer=i",
                             NULL };
        unsetenv("KAFKA_OPTS");
        ck_assert_ptr_null(listener(kv)); /* the URL is not allowed */
        setenv("KAFKA_OPTS", opts, 1);
        sl = listener(kv);
        ck_assert_ptr_nonnull(sl);
        gr_sasl_listener_free(sl);
        unsetenv("KAFKA_OPTS");
    }
    /* the listener's oauthbearer-prefixed value wins over the broker's */
    snprintf(k2, sizeof k2, "listener.name.sasl_plaintext.oauthbearer.%s=%s",
             GR_OAUTH_ALLOWED_URLS, fx.url);
    {
        const char *kv[] = { jaas,
                             handler,
                             k1,
                             k2,
                             "sasl.oauthbearer.expected.audience=kafka",
                             "sasl.oauthbearer.expected.issuer=i",
                             "listener.name.sasl_plaintext.oauthbearer.sasl."
                             "oauthbearer.expected.audience=",
                             NULL };
        ck_assert_ptr_null(listener(kv)); /* the audience emptied there */
    }
}
END_TEST

Suite *
suite_net_sasl_oauth(void)
{
    Suite *s = suite_create("net/sasl_oauth");
    TCase *tc = tcase_create("oauth");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_initial_ok);
    tcase_add_test(tc, test_initial_bad);
    tcase_add_test(tc, test_unsecured_ok);
    tcase_add_test(tc, test_unsecured_refused);
    tcase_add_test(tc, test_unsecured_options);
    tcase_add_test(tc, test_step_error_then_ack);
    tcase_add_test(tc, test_session_lifetime);
    tcase_add_test(tc, test_jwks_parse);
    suite_add_tcase(s, tc);
    tc = tcase_create("signed");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, signed_setup, signed_teardown);
    tcase_add_test(tc, test_signed_ok);
    tcase_add_test(tc, test_signed_refused);
    tcase_add_test(tc, test_signed_reload);
    tcase_add_test(tc, test_signed_config);
    tcase_add_test(tc, test_listener_settings);
    suite_add_tcase(s, tc);
    return s;
}
