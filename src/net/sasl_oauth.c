/* SASL/OAUTHBEARER: see sasl_oauth.h. Kafka's classes followed, by name:
 * OAuthBearerClientInitialResponse (the first message), OAuthBearerSasl-
 * Server (the exchange), OAuthBearerUnsecuredJws and OAuthBearer-
 * ValidationUtils (the unsecured validator), BrokerJwtValidator, jose4j's
 * JwtConsumer and JwksVerificationKeyResolver (the signed one). */
#include "net/sasl_oauth.h"
#include "core/arena.h"
#include "core/conf.h"
#include "core/json.h"
#include "core/log.h"
#include "core/str.h"
#include "core/time.h"
#include "net/sasl.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#define JWKS_MAX_KEYS 1024

static void say(char *why, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(char *why, size_t errsz, const char *fmt, ...)
{
    va_list ap;
    if (why == NULL || errsz == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, errsz, fmt, ap);
    va_end(ap);
}

/* --- the client's first message */

static bool
is_saslchar(unsigned char c)
{
    return c >= 0x01 && c <= 0x7f && c != '=' && c != ',';
}

static bool
is_valuechar(unsigned char c)
{
    return (c >= 0x21 && c <= 0x7e) || c == ' ' || c == '\t' || c == '\r' ||
           c == '\n';
}

static bool
is_tokenchar(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '_' || c == '~' || c == '+' ||
           c == '/' || c == '.';
}

int
gr_oauth_initial_parse(const uint8_t *p, size_t n, gr_oauth_initial_t *out,
                       char *why, size_t errsz)
{
    static const char bad[] = "Invalid OAUTHBEARER client first message";
    size_t i = 0;
    const char *auth = NULL;
    size_t auth_len = 0, s, sp;

    memset(out, 0, sizeof *out);
    if (n < 2 || p[0] != 'n' || p[1] != ',')
        goto malformed;
    i = 2;
    if (i + 1 < n && p[i] == 'a' && p[i + 1] == '=') {
        i += 2;
        s = i;
        while (i < n && p[i] != ',') {
            if (p[i] == '=') {
                /* "=2C" (',') or "=3D" ('='), kept encoded */
                if (i + 2 >= n || !((p[i + 1] == '2' && p[i + 2] == 'C') ||
                                    (p[i + 1] == '3' && p[i + 2] == 'D')))
                    goto malformed;
                i += 3;
                continue;
            }
            if (!is_saslchar(p[i]))
                goto malformed;
            i++;
        }
        if (i == s)
            goto malformed;
        out->authzid = (const char *)p + s;
        out->authzid_len = i - s;
    }
    if (i >= n || p[i] != ',')
        goto malformed;
    i++;
    if (i >= n || p[i] != 0x01)
        goto malformed;
    i++;
    /* kvpairs, then the final 0x01 as the last byte */
    for (;;) {
        size_t ks, ke, vs;
        if (i >= n)
            goto malformed;
        if (p[i] == 0x01) {
            if (i + 1 != n)
                goto malformed;
            break;
        }
        ks = i;
        while (i < n && isalpha(p[i]) && p[i] < 0x80)
            i++;
        ke = i;
        if (ke == ks || i >= n || p[i] != '=')
            goto malformed;
        vs = ++i;
        while (i < n && is_valuechar(p[i]))
            i++;
        if (i == vs || i >= n || p[i] != 0x01)
            goto malformed;
        if (ke - ks == 4 && memcmp(p + ks, "auth", 4) == 0) {
            auth = (const char *)p + vs; /* a later auth replaces it */
            auth_len = i - vs;
        } else {
            out->extensions++;
        }
        i++;
    }
    if (auth == NULL) {
        say(why, errsz, "%s: 'auth' not specified", bad);
        return -1;
    }
    /* "<scheme>[ ]+<token>=*", scheme \w+ */
    s = 0;
    while (s < auth_len && (isalnum((unsigned char)auth[s]) || auth[s] == '_'))
        s++;
    sp = s;
    while (sp < auth_len && auth[sp] == ' ')
        sp++;
    if (s == 0 || sp == s)
        goto bad_auth;
    {
        size_t t = sp, te;
        while (t < auth_len && is_tokenchar((unsigned char)auth[t]))
            t++;
        te = t;
        while (t < auth_len && auth[t] == '=')
            t++;
        if (te == sp || t != auth_len)
            goto bad_auth;
    }
    if (s != 6 || strncasecmp(auth, "bearer", 6) != 0) {
        say(why, errsz,
            "Invalid scheme in OAUTHBEARER client first message: %.*s",
            (int)(s < 64 ? s : 64), auth);
        return -1;
    }
    out->token = auth + sp;
    out->token_len = auth_len - sp;
    return 0;
bad_auth:
    say(why, errsz, "%s: invalid 'auth' format", bad);
    return -1;
malformed:
    say(why, errsz, "%s", bad);
    return -1;
}

/* --- JSON helpers */

/* The last member named key (Jackson: a later duplicate wins). */
static const gr_json_t *
jlast(const gr_json_t *o, const char *key)
{
    const gr_json_t *v = NULL;
    if (o == NULL || o->type != GR_JSON_OBJ)
        return NULL;
    for (int i = 0; i < o->n; i++)
        if (o->kids[i].key != NULL && strcmp(o->kids[i].key, key) == 0)
            v = &o->kids[i];
    return v;
}

static bool
has_duplicate_keys(const gr_json_t *o)
{
    if (o == NULL || o->type != GR_JSON_OBJ)
        return false;
    for (int i = 0; i < o->n; i++)
        for (int j = i + 1; j < o->n; j++)
            if (strcmp(o->kids[i].key, o->kids[j].key) == 0)
                return true;
    return false;
}

static bool
jnum(const gr_json_t *v, double *d)
{
    if (v == NULL)
        return false;
    if (v->type == GR_JSON_INT) {
        *d = (double)v->i;
        return true;
    }
    if (v->type == GR_JSON_DBL) {
        *d = v->d;
        return true;
    }
    return false;
}

/* Java's class of the value Kafka's unsecured JWS holds for v
 * (OAuthBearerUnsecuredJws.convert): numbers stay numbers, arrays are
 * lists, everything else becomes its text. */
static const char *
java_type(const gr_json_t *v)
{
    switch (v->type) {
    case GR_JSON_INT:
        return v->i >= INT32_MIN && v->i <= INT32_MAX ? "Integer" : "Long";
    case GR_JSON_DBL:
        return "Double";
    case GR_JSON_ARR:
        return "ArrayList";
    case GR_JSON_NULL:
    case GR_JSON_BOOL:
    case GR_JSON_STR:
    case GR_JSON_OBJ:
        return "String";
    }
    return "Object";
}

/* Jackson's asText() of a non-number, non-array value. */
static const char *
as_text(const gr_json_t *v, size_t *len)
{
    switch (v->type) {
    case GR_JSON_STR:
        *len = v->slen;
        return v->s;
    case GR_JSON_BOOL:
        *len = v->b ? 4 : 5;
        return v->b ? "true" : "false";
    case GR_JSON_NULL:
        *len = 4;
        return "null";
    case GR_JSON_OBJ:
    case GR_JSON_ARR:
    case GR_JSON_INT:
    case GR_JSON_DBL:
        break;
    }
    *len = 0;
    return "";
}

static bool
is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return false;
    return true;
}

/* Java's String.trim(): bytes <= 0x20 off both ends. */
static void
trim(const char **s, size_t *n)
{
    while (*n > 0 && (unsigned char)(*s)[0] <= 0x20) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && (unsigned char)(*s)[*n - 1] <= 0x20)
        (*n)--;
}

/* Java's Math.round(double): floor(x + 0.5), for |x| < 2^63. */
static int64_t
java_round(double x)
{
    double y = x + 0.5;
    int64_t t = (int64_t)y;
    if ((double)t > y)
        t--;
    return t;
}

/* |x| within what a claim time may be (seconds below 2^53 / 1000) */
static bool
time_ok(double x)
{
    return isfinite(x) && x < 9.0e15 && x > -9.0e15;
}

/* Decodes one base64url section and parses it as JSON (fractions
 * allowed). NULL with why. */
static gr_json_t *
section_json(gr_arena_t *a, const char *p, size_t n, bool *b64_bad, char *why,
             size_t errsz)
{
    uint8_t *buf = gr_arena_alloc(a, n * 3 / 4 + 4);
    char err[128] = "";
    long k;
    gr_json_t *v;
    *b64_bad = false;
    if (buf == NULL) {
        say(why, errsz, "out of memory");
        return NULL;
    }
    if ((k = gr_base64url_decode(p, n, buf)) < 0) {
        *b64_bad = true;
        say(why, errsz, "malformed Base64 URL encoded value");
        return NULL;
    }
    v = gr_json_parse_floats(a, (const char *)buf, (size_t)k, err, sizeof err);
    if (v == NULL)
        say(why, errsz, "malformed JSON (%s)", err);
    return v;
}

/* --- JWKS */

typedef enum { KTY_RSA, KTY_EC } kty_t;

typedef struct jwk {
    kty_t kty;
    char kid[128];
    bool has_kid;
    char use[16];
    char alg[16];
    char crv[8];
    int bits;
    EVP_PKEY *pkey;
} jwk_t;

struct gr_jwks {
    jwk_t *keys;
    int n;
};

static bool
copy_str(const gr_json_t *v, char *out, size_t n)
{
    if (v == NULL || v->type != GR_JSON_STR || v->slen >= n ||
        strlen(v->s) != v->slen)
        return false;
    memcpy(out, v->s, v->slen + 1);
    return true;
}

/* A base64url member of a JWK as bytes (arena). */
static uint8_t *
jwk_bytes(gr_arena_t *a, const gr_json_t *jwk, const char *name, size_t *len)
{
    const gr_json_t *v = gr_json_get(jwk, name);
    uint8_t *buf;
    long k;
    if (v == NULL || v->type != GR_JSON_STR || v->slen == 0 || v->slen > 4096)
        return NULL;
    if ((buf = gr_arena_alloc(a, v->slen * 3 / 4 + 4)) == NULL)
        return NULL;
    if ((k = gr_base64url_decode(v->s, v->slen, buf)) <= 0)
        return NULL;
    *len = (size_t)k;
    return buf;
}

static EVP_PKEY *
pkey_fromdata(const char *type, OSSL_PARAM_BLD *bld)
{
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    EVP_PKEY *pkey = NULL;
    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey;
}

static EVP_PKEY *
rsa_key(gr_arena_t *a, const gr_json_t *jwk, int *bits)
{
    size_t nl = 0, el = 0;
    uint8_t *n = jwk_bytes(a, jwk, "n", &nl), *e = jwk_bytes(a, jwk, "e", &el);
    OSSL_PARAM_BLD *bld;
    BIGNUM *bn = NULL, *be = NULL;
    EVP_PKEY *pkey = NULL;
    if (n == NULL || e == NULL || el > 8)
        return NULL;
    bn = BN_bin2bn(n, (int)nl, NULL);
    be = BN_bin2bn(e, (int)el, NULL);
    bld = OSSL_PARAM_BLD_new();
    if (bn != NULL && be != NULL && bld != NULL && !BN_is_zero(be) &&
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) &&
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be))
        pkey = pkey_fromdata("RSA", bld);
    if (pkey != NULL)
        *bits = EVP_PKEY_get_bits(pkey);
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn);
    BN_free(be);
    return pkey;
}

/* JWS ES alg <-> curve <-> OpenSSL group, coordinate size */
static const struct {
    const char *crv, *group, *alg;
    size_t size;
} curves[] = {
    { "P-256", "prime256v1", "ES256", 32 },
    { "P-384", "secp384r1", "ES384", 48 },
    { "P-521", "secp521r1", "ES512", 66 },
};

static EVP_PKEY *
ec_key(gr_arena_t *a, const gr_json_t *jwk, const char *crv)
{
    size_t xl = 0, yl = 0, sz = 0;
    const char *group = NULL;
    uint8_t *x = jwk_bytes(a, jwk, "x", &xl), *y = jwk_bytes(a, jwk, "y", &yl);
    uint8_t pt[1 + 2 * 66];
    OSSL_PARAM_BLD *bld;
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *chk;
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
        if (strcmp(crv, curves[i].crv) == 0) {
            group = curves[i].group;
            sz = curves[i].size;
        }
    if (group == NULL || x == NULL || y == NULL || xl != sz || yl != sz)
        return NULL;
    pt[0] = 0x04;
    memcpy(pt + 1, x, sz);
    memcpy(pt + 1 + sz, y, sz);
    if ((bld = OSSL_PARAM_BLD_new()) == NULL)
        return NULL;
    if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group,
                                        0) &&
        OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pt,
                                         1 + 2 * sz))
        pkey = pkey_fromdata("EC", bld);
    OSSL_PARAM_BLD_free(bld);
    if (pkey == NULL)
        return NULL;
    /* the point must lie on the curve (an invalid-curve key is refused) */
    chk = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    if (chk == NULL || EVP_PKEY_public_check(chk) != 1) {
        EVP_PKEY_free(pkey);
        pkey = NULL;
    }
    EVP_PKEY_CTX_free(chk);
    return pkey;
}

void
gr_jwks_free(gr_jwks_t *k)
{
    if (k == NULL)
        return;
    for (int i = 0; i < k->n; i++)
        EVP_PKEY_free(k->keys[i].pkey);
    free(k->keys);
    free(k);
}

int
gr_jwks_count(const gr_jwks_t *k)
{
    return k != NULL ? k->n : 0;
}

gr_jwks_t *
gr_jwks_parse(const char *p, size_t n, int *skipped, char *why, size_t errsz)
{
    gr_arena_t *a = gr_arena_new(8192);
    char err[128] = "";
    const gr_json_t *doc, *keys;
    gr_jwks_t *k = NULL;
    int skip = 0;

    if (a == NULL) {
        say(why, errsz, "out of memory");
        return NULL;
    }
    doc = gr_json_parse_floats(a, p, n, err, sizeof err);
    if (doc == NULL) {
        say(why, errsz, "not JSON: %s", err);
        goto out;
    }
    keys = gr_json_get(doc, "keys");
    if (keys == NULL || keys->type != GR_JSON_ARR) {
        say(why, errsz, "no \"keys\" array");
        goto out;
    }
    if ((k = calloc(1, sizeof *k)) == NULL ||
        (keys->n > 0 &&
         (k->keys = calloc((size_t)keys->n, sizeof *k->keys)) == NULL)) {
        say(why, errsz, "out of memory");
        gr_jwks_free(k);
        k = NULL;
        goto out;
    }
    for (int i = 0; i < keys->n; i++) {
        const gr_json_t *j = &keys->kids[i], *kty = gr_json_get(j, "kty");
        jwk_t *w = &k->keys[k->n];
        memset(w, 0, sizeof *w);
        if (k->n >= JWKS_MAX_KEYS || kty == NULL || kty->type != GR_JSON_STR)
            goto skip;
        if (gr_json_get(j, "kid") != NULL) {
            if (!copy_str(gr_json_get(j, "kid"), w->kid, sizeof w->kid))
                goto skip;
            w->has_kid = true;
        }
        if (gr_json_get(j, "use") != NULL &&
            !copy_str(gr_json_get(j, "use"), w->use, sizeof w->use))
            goto skip;
        if (gr_json_get(j, "alg") != NULL &&
            !copy_str(gr_json_get(j, "alg"), w->alg, sizeof w->alg))
            goto skip;
        if (strcmp(kty->s, "RSA") == 0) {
            w->kty = KTY_RSA;
            w->pkey = rsa_key(a, j, &w->bits);
        } else if (strcmp(kty->s, "EC") == 0) {
            w->kty = KTY_EC;
            if (!copy_str(gr_json_get(j, "crv"), w->crv, sizeof w->crv))
                goto skip;
            w->pkey = ec_key(a, j, w->crv);
        }
        if (w->pkey == NULL)
            goto skip;
        k->n++;
        continue;
    skip:
        GR_LOG_DEBUG("JWKS: key %d skipped (type not supported or key "
                     "malformed)",
                     i);
        skip++;
    }
out:
    if (skipped != NULL)
        *skipped = skip;
    gr_arena_destroy(a);
    return k;
}

/* alg -> digest, key type, padding */
typedef struct alg_info {
    const char *name;
    const char *md;
    kty_t kty;
    bool pss;
    size_t ec_size; /* ES: coordinate size */
    const char *crv;
} alg_info_t;

static const alg_info_t algs[] = {
    { "RS256", "SHA256", KTY_RSA, false, 0, NULL },
    { "RS384", "SHA384", KTY_RSA, false, 0, NULL },
    { "RS512", "SHA512", KTY_RSA, false, 0, NULL },
    { "PS256", "SHA256", KTY_RSA, true, 0, NULL },
    { "PS384", "SHA384", KTY_RSA, true, 0, NULL },
    { "PS512", "SHA512", KTY_RSA, true, 0, NULL },
    { "ES256", "SHA256", KTY_EC, false, 32, "P-256" },
    { "ES384", "SHA384", KTY_EC, false, 48, "P-384" },
    { "ES512", "SHA512", KTY_EC, false, 66, "P-521" },
};

static const alg_info_t *
alg_find(const char *name)
{
    for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
        if (strcmp(name, algs[i].name) == 0)
            return &algs[i];
    return NULL;
}

/* Verifies sig over input with key as alg says. */
static bool
verify_sig(const alg_info_t *al, EVP_PKEY *pkey, const char *input, size_t ilen,
           const uint8_t *sig, size_t slen)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    unsigned char *der = NULL;
    const unsigned char *s = sig;
    size_t sl = slen;
    bool ok = false;

    if (md == NULL)
        return false;
    if (al->kty == KTY_EC) {
        /* JWS carries R || S, OpenSSL wants DER */
        ECDSA_SIG *es;
        BIGNUM *r, *ss;
        int dl;
        if (slen != 2 * al->ec_size)
            goto out;
        es = ECDSA_SIG_new();
        r = BN_bin2bn(sig, (int)al->ec_size, NULL);
        ss = BN_bin2bn(sig + al->ec_size, (int)al->ec_size, NULL);
        if (es == NULL || r == NULL || ss == NULL ||
            !ECDSA_SIG_set0(es, r, ss)) {
            ECDSA_SIG_free(es);
            BN_free(r);
            BN_free(ss);
            goto out;
        }
        dl = i2d_ECDSA_SIG(es, &der);
        ECDSA_SIG_free(es);
        if (dl <= 0)
            goto out;
        s = der;
        sl = (size_t)dl;
    }
    if (EVP_DigestVerifyInit_ex(md, &pctx, al->md, NULL, NULL, pkey, NULL) != 1)
        goto out;
    if (al->pss &&
        (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0 ||
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) <= 0))
        goto out;
    ok = EVP_DigestVerify(md, s, sl, (const unsigned char *)input, ilen) == 1;
out:
    OPENSSL_free(der);
    EVP_MD_CTX_free(md);
    return ok;
}

/* The three sections of a compact JWS; false unless exactly two dots. */
static bool
split3(const char *t, size_t n, const char *sec[3], size_t len[3])
{
    int k = 0;
    size_t s = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || t[i] == '.') {
            if (k == 3)
                return false;
            sec[k] = t + s;
            len[k] = i - s;
            k++;
            s = i + 1;
        }
    }
    return k == 3;
}

/* Signature check of a JWS whose header is hdr: the key jose4j picks. */
static int
jwks_verify_hdr(const gr_jwks_t *k, const gr_json_t *hdr, const char *token,
                size_t len, char *why, size_t errsz)
{
    const char *sec[3];
    size_t sl[3];
    const gr_json_t *alg = gr_json_get(hdr, "alg"), *kid;
    const alg_info_t *al;
    uint8_t *sig;
    long sigl;
    int rc = -1;

    if (!split3(token, len, sec, sl)) {
        say(why, errsz,
            "Malformed JWT provided; expected three sections "
            "(header, payload, and signature)");
        return -1;
    }
    if (alg == NULL || alg->type != GR_JSON_STR) {
        say(why, errsz, "JWS header has no alg");
        return -1;
    }
    if (strcmp(alg->s, "none") == 0) {
        say(why, errsz,
            "'none' is not a permitted algorithm (AlgorithmConstraints "
            "DISALLOW_NONE)");
        return -1;
    }
    if ((al = alg_find(alg->s)) == NULL) {
        say(why, errsz, "JWS algorithm %.32s is not supported", alg->s);
        return -1;
    }
    if (gr_json_get(hdr, "crit") != NULL) {
        say(why, errsz, "Unrecognized header 'crit' value(s)");
        return -1;
    }
    kid = gr_json_get(hdr, "kid");
    if (kid != NULL && kid->type != GR_JSON_STR) {
        say(why, errsz, "JWS header kid is not a string");
        return -1;
    }
    for (int i = 0; k != NULL && i < k->n; i++) {
        const jwk_t *w = &k->keys[i];
        if (w->kty != al->kty)
            continue;
        if (kid != NULL && (!w->has_kid || strcmp(w->kid, kid->s) != 0))
            continue;
        if (w->use[0] != '\0' && strcmp(w->use, "sig") != 0)
            continue;
        if (w->alg[0] != '\0' && strcmp(w->alg, al->name) != 0)
            continue;
        if (al->kty == KTY_EC && strcmp(w->crv, al->crv) != 0)
            continue;
        /* the first key that fits, as jose4j's select() */
        if (w->kty == KTY_RSA && w->bits < 2048) {
            say(why, errsz,
                "An RSA key of size 2048 bits or larger MUST be used with "
                "the all JOSE RSA algorithms (given key was only %d bits).",
                w->bits);
            return -1;
        }
        if ((sig = malloc(sl[2] * 3 / 4 + 4)) == NULL) {
            say(why, errsz, "out of memory");
            return -1;
        }
        sigl = gr_base64url_decode(sec[2], sl[2], sig);
        if (sigl <= 0)
            say(why, errsz, "malformed Base64 URL encoded signature");
        else if (!verify_sig(al, w->pkey, token, sl[0] + 1 + sl[1], sig,
                             (size_t)sigl))
            say(why, errsz, "JWS signature is invalid (%s, key %s)", al->name,
                w->has_kid ? w->kid : "without kid");
        else
            rc = 0;
        free(sig);
        return rc;
    }
    say(why, errsz,
        "Unable to find a suitable verification key for JWS w/ header "
        "alg=%s kid=%.64s",
        al->name, kid != NULL ? kid->s : "(none)");
    return -1;
}

int
gr_jwks_verify(const gr_jwks_t *k, const char *token, size_t len, char *why,
               size_t errsz)
{
    gr_arena_t *a = gr_arena_new(4096);
    const char *sec[3];
    size_t sl[3];
    bool b64;
    gr_json_t *hdr;
    int rc = -1;
    if (a == NULL)
        return -1;
    if (!split3(token, len, sec, sl))
        say(why, errsz,
            "Malformed JWT provided; expected three sections "
            "(header, payload, and signature)");
    else if ((hdr = section_json(a, sec[0], sl[0], &b64, why, errsz)) != NULL)
        rc = jwks_verify_hdr(k, hdr, token, len, why, errsz);
    gr_arena_destroy(a);
    return rc;
}

/* --- the validator */

typedef struct file_stamp {
    int64_t mtime_ns, size, ino;
} file_stamp_t;

struct gr_oauth {
    char listener[64];
    bool secured;
    /* unsecured (JAAS options) */
    char principal_claim[128];
    char scope_claim[128];
    char **required; /* unsecuredValidatorRequiredScope, parsed */
    int nrequired;
    char required_str[400]; /* as Kafka's List.toString() */
    int64_t skew_ms;
    /* signed */
    char sub_claim[128];
    char scope_claim_s[128];
    char **audiences;
    int naudiences;
    char *issuer;
    int64_t skew_s;
    char *jwks_path;
    gr_jwks_t *jwks;
    file_stamp_t stamp;
    int64_t checked_ms;
    int reloads;
};

static void
strv_free(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void
gr_oauth_free(gr_oauth_t *o)
{
    if (o == NULL)
        return;
    strv_free(o->required, o->nrequired);
    strv_free(o->audiences, o->naudiences);
    free(o->issuer);
    free(o->jwks_path);
    gr_jwks_free(o->jwks);
    free(o);
}

bool
gr_oauth_is_signed(const gr_oauth_t *o)
{
    return o->secured;
}

int
gr_oauth_jwks_reloads(const gr_oauth_t *o)
{
    return o->reloads;
}

static const char *
cget(const gr_oauth_cfg_t *c, const char *key)
{
    return c->conf != NULL ? c->conf(c->arg, key) : NULL;
}

static const char *
jget(const gr_oauth_cfg_t *c, const char *key)
{
    return c->jaas != NULL ? c->jaas(c->arg, key) : NULL;
}

/* A trimmed copy of a not-blank value into out, else def. */
static bool
opt_str(const char *v, const char *def, char *out, size_t n)
{
    const char *s = v;
    size_t len = v != NULL ? strlen(v) : 0;
    if (v != NULL)
        trim(&s, &len);
    if (v == NULL || len == 0) {
        s = def;
        len = strlen(def);
    }
    if (len >= n)
        return false;
    memcpy(out, s, len);
    out[len] = '\0';
    return true;
}

/* Kafka's OAuthBearerScopeUtils.isValidScopeItem: [\x23-\x5B\x5D-\x7E\x21]+ */
static bool
valid_scope_item(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(c == 0x21 || (c >= 0x23 && c <= 0x5b) ||
              (c >= 0x5d && c <= 0x7e)))
            return false;
    }
    return true;
}

static int
strv_add(char ***v, int *n, const char *s, size_t len)
{
    char **nv = realloc(*v, (size_t)(*n + 1) * sizeof **v);
    if (nv == NULL)
        return -1;
    *v = nv;
    if ((nv[*n] = strndup(s, len)) == NULL)
        return -1;
    (*n)++;
    return 0;
}

/* Java's Integer.parseInt / Long.parseLong of a trimmed value. */
static bool
parse_int(const char *v, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    long long x;
    const char *s = v;
    size_t len = strlen(v);
    char buf[32];
    trim(&s, &len);
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (!(isdigit((unsigned char)buf[0]) ||
          ((buf[0] == '-' || buf[0] == '+') && isdigit((unsigned char)buf[1]))))
        return false;
    errno = 0;
    x = strtoll(buf, &end, 10);
    if (errno != 0 || *end != '\0' || x < min || x > max)
        return false;
    *out = x;
    return true;
}

static int
config_unsecured(gr_oauth_t *o, const gr_oauth_cfg_t *c, char *why,
                 size_t errsz)
{
    const char *v;
    size_t k = 0;
    if (!opt_str(jget(c, "unsecuredValidatorPrincipalClaimName"), "sub",
                 o->principal_claim, sizeof o->principal_claim) ||
        !opt_str(jget(c, "unsecuredValidatorScopeClaimName"), "scope",
                 o->scope_claim, sizeof o->scope_claim)) {
        say(why, errsz, "unsecuredValidator claim name too long");
        return -1;
    }
    v = jget(c, "unsecuredValidatorAllowableClockSkewMs");
    o->skew_ms = 0;
    if (v != NULL && !is_blank(v, strlen(v))) {
        int64_t x;
        if (!parse_int(v, INT32_MIN, INT32_MAX, &x)) {
            say(why, errsz, "For input string: \"%.64s\"", v);
            return -1;
        }
        if (x < 0) {
            say(why, errsz,
                "Allowable clock skew millis must not be negative: %.64s", v);
            return -1;
        }
        o->skew_ms = x;
    }
    v = jget(c, "unsecuredValidatorRequiredScope");
    k = (size_t)snprintf(o->required_str, sizeof o->required_str, "[");
    if (v != NULL) {
        const char *p = v;
        while (*p != '\0') {
            const char *e = strchr(p, ' ');
            size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
            const char *s = p;
            size_t sl = len;
            /* Kafka trims the whole value, then splits at single spaces */
            if (sl > 0) {
                trim(&s, &sl);
                if (sl == 0) {
                    /* blanks other than spaces: Kafka's item is invalid */
                    say(why, errsz, "Invalid scope value: %.*s", (int)len, p);
                    return -1;
                }
                if (sl != len || !valid_scope_item(s, sl)) {
                    say(why, errsz, "Invalid scope value: %.*s",
                        (int)(len < 128 ? len : 128), p);
                    return -1;
                }
                if (strv_add(&o->required, &o->nrequired, s, sl) != 0) {
                    say(why, errsz, "out of memory");
                    return -1;
                }
                k += (size_t)snprintf(
                    o->required_str + k,
                    k < sizeof o->required_str ? sizeof o->required_str - k : 0,
                    "%s%.*s", o->nrequired > 1 ? ", " : "", (int)sl, s);
            }
            p += len;
            if (*p == ' ')
                p++;
        }
    }
    if (k + 2 > sizeof o->required_str) {
        say(why, errsz,
            "unsecuredValidatorRequiredScope is too long (at most "
            "%zu characters)",
            sizeof o->required_str - 2);
        return -1;
    }
    snprintf(o->required_str + k, sizeof o->required_str - k, "]");
    GR_LOG_INFO("listener %s: OAUTHBEARER with Kafka's unsecured validator "
                "(alg none tokens, principal claim %s): for tests, not for "
                "production",
                o->listener, o->principal_claim);
    return 0;
}

static void
stamp_of(const char *path, file_stamp_t *st)
{
    struct stat s;
    memset(st, 0, sizeof *st);
    if (stat(path, &s) == 0) {
        st->mtime_ns =
            (int64_t)s.st_mtim.tv_sec * 1000000000 + s.st_mtim.tv_nsec;
        st->size = (int64_t)s.st_size;
        st->ino = (int64_t)s.st_ino;
    }
}

/* Reads and parses the JWKS file. NULL with why. */
static gr_jwks_t *
load_jwks(const char *path, char *why, size_t errsz)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n;
    int skipped = 0;
    gr_jwks_t *k;
    if (f == NULL) {
        say(why, errsz, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if ((buf = malloc(GR_OAUTH_JWKS_MAX_BYTES + 1)) == NULL) {
        fclose(f);
        say(why, errsz, "out of memory");
        return NULL;
    }
    n = fread(buf, 1, GR_OAUTH_JWKS_MAX_BYTES + 1, f);
    fclose(f);
    if (n > GR_OAUTH_JWKS_MAX_BYTES) {
        free(buf);
        say(why, errsz, "%s is larger than %d bytes", path,
            GR_OAUTH_JWKS_MAX_BYTES);
        return NULL;
    }
    k = gr_jwks_parse(buf, n, &skipped, why, errsz);
    free(buf);
    if (k != NULL && skipped > 0)
        GR_LOG_WARN("JWKS %s: %d key(s) skipped (only RSA and EC P-256/384/521 "
                    "keys are used)",
                    path, skipped);
    return k;
}

/* file:///path (or file:/path) -> /path, percent-decoded as
 * URI.getRawPath() is not: Kafka passes the raw path to File. */
static char *
file_url_path(const char *url)
{
    const char *p;
    if (strncasecmp(url, "file:", 5) != 0)
        return NULL;
    p = url + 5;
    if (strncmp(p, "//", 2) == 0) {
        p += 2;
        /* an authority: only empty or localhost names this machine */
        if (strncasecmp(p, "localhost/", 10) == 0)
            p += 9;
        else if (*p != '/')
            return NULL;
    }
    if (*p != '/')
        return NULL;
    return strdup(p);
}

/* Kafka's ConfigurationUtils.throwIfURLIsNotAllowed: the URL must be one
 * of the comma-separated (trimmed) items of the allowed list. */
static bool
url_allowed(const char *list, const char *url)
{
    const char *p = list;
    if (list == NULL)
        return false;
    while (p != NULL) {
        const char *e = strchr(p, ','), *s = p;
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        trim(&s, &len);
        if (len == strlen(url) && memcmp(s, url, len) == 0)
            return true;
        p = e != NULL ? e + 1 : NULL;
    }
    return false;
}

static bool
parse_bool(const char *v, bool *out)
{
    const char *s = v;
    size_t len = strlen(v);
    trim(&s, &len);
    if (len == 4 && strncasecmp(s, "true", 4) == 0)
        *out = true;
    else if (len == 5 && strncasecmp(s, "false", 5) == 0)
        *out = false;
    else
        return false;
    return true;
}

/* Whether s[0..len) is the string c. */
static bool
same(const char *s, size_t len, const char *c)
{
    return len == strlen(c) && memcmp(s, c, len) == 0;
}

static int
config_secured(gr_oauth_t *o, const gr_oauth_cfg_t *c, char *why, size_t errsz)
{
    const char *url = cget(c, "sasl.oauthbearer.jwks.endpoint.url");
    const char *aud = cget(c, "sasl.oauthbearer.expected.audience");
    const char *iss = cget(c, "sasl.oauthbearer.expected.issuer");
    const char *v, *jv = cget(c, "sasl.oauthbearer.jwt.validator.class");
    bool allow_aud = false, allow_iss = false;
    char ewhy[256] = "";
    const char *s;
    size_t len;

    if (jv != NULL && !is_blank(jv, strlen(jv))) {
        s = jv;
        len = strlen(jv);
        trim(&s, &len);
        if (!(same(s, len,
                   "org.apache.kafka.common.security.oauthbearer."
                   "DefaultJwtValidator") ||
              same(s, len,
                   "org.apache.kafka.common.security.oauthbearer."
                   "BrokerJwtValidator"))) {
            say(why, errsz,
                "sasl.oauthbearer.jwt.validator.class %.128s is not "
                "supported: Gregor validates with Kafka's BrokerJwtValidator "
                "(the default)",
                jv);
            return -1;
        }
    }
    if (url == NULL || is_blank(url, strlen(url))) {
        say(why, errsz,
            "The OAuth validator for the broker requires "
            "\"sasl.oauthbearer.jwks.endpoint.url\" to be configured so that "
            "JWT signatures can be verified, but it was not set. Set "
            "\"sasl.oauthbearer.jwks.endpoint.url\" to the OAuth/OIDC "
            "provider's JWKS endpoint URL for this listener, or configure a "
            "signature-verifying \"sasl.oauthbearer.jwt.validator.class\".");
        return -1;
    }
    s = url;
    len = strlen(url);
    trim(&s, &len);
    {
        char u[1024];
        if (len >= sizeof u) {
            say(why, errsz, "sasl.oauthbearer.jwks.endpoint.url is too long");
            return -1;
        }
        memcpy(u, s, len);
        u[len] = '\0';
        if (strncasecmp(u, "http://", 7) == 0 ||
            strncasecmp(u, "https://", 8) == 0) {
            say(why, errsz,
                "sasl.oauthbearer.jwks.endpoint.url %s: Gregor reads JWKS "
                "from a file:// URL only (fetching keys over HTTP(S) is not "
                "implemented)",
                u);
            return -1;
        }
        if (strncasecmp(u, "file:", 5) != 0) {
            say(why, errsz,
                "The OAuth configuration option "
                "sasl.oauthbearer.jwks.endpoint.url contains a URL (%s) that "
                "contains an invalid protocol; only \"http\", \"https\", and "
                "\"file\" protocol are supported",
                u);
            return -1;
        }
        if (!url_allowed(cget(c, GR_OAUTH_ALLOWED_URLS), u)) {
            say(why, errsz,
                "Invalid value %s for configuration "
                "sasl.oauthbearer.jwks.endpoint.url: The URL cannot be "
                "accessed due to restrictions. Update the system property "
                "'%s' to allow the URL to be accessed.",
                u, GR_OAUTH_ALLOWED_URLS);
            return -1;
        }
        if ((o->jwks_path = file_url_path(u)) == NULL) {
            say(why, errsz,
                "The OAuth configuration option "
                "sasl.oauthbearer.jwks.endpoint.url contains a URL (%s) that "
                "is malformed",
                u);
            return -1;
        }
    }
    {
        struct stat st;
        if (stat(o->jwks_path, &st) != 0) {
            say(why, errsz,
                "The OAuth configuration option "
                "sasl.oauthbearer.jwks.endpoint.url contains a file (%s) that "
                "doesn't exist",
                o->jwks_path);
            return -1;
        }
        if (S_ISDIR(st.st_mode)) {
            say(why, errsz,
                "The OAuth configuration option "
                "sasl.oauthbearer.jwks.endpoint.url references a directory "
                "(%s), not a file",
                o->jwks_path);
            return -1;
        }
        if (access(o->jwks_path, R_OK) != 0) {
            say(why, errsz,
                "The OAuth configuration option "
                "sasl.oauthbearer.jwks.endpoint.url contains a file (%s) that "
                "doesn't have read permission",
                o->jwks_path);
            return -1;
        }
    }
    if ((v = cget(c, "sasl.oauthbearer.allow.unverified.audience")) != NULL &&
        !parse_bool(v, &allow_aud)) {
        say(why, errsz,
            "Invalid value %.64s for configuration "
            "sasl.oauthbearer.allow.unverified.audience: Expected value to be "
            "either true or false",
            v);
        return -1;
    }
    if ((v = cget(c, "sasl.oauthbearer.allow.unverified.issuer")) != NULL &&
        !parse_bool(v, &allow_iss)) {
        say(why, errsz,
            "Invalid value %.64s for configuration "
            "sasl.oauthbearer.allow.unverified.issuer: Expected value to be "
            "either true or false",
            v);
        return -1;
    }
    if (aud != NULL) {
        const char *p = aud;
        while (p != NULL) {
            const char *e = strchr(p, ',');
            s = p;
            len = e != NULL ? (size_t)(e - p) : strlen(p);
            trim(&s, &len);
            if (len == 0 && (e != NULL || o->naudiences > 0)) {
                /* Kafka: ValidList.anyNonDuplicateValues(true, false) */
                say(why, errsz,
                    "Invalid value %.128s for configuration "
                    "sasl.oauthbearer.expected.audience: Configuration "
                    "'sasl.oauthbearer.expected.audience' values must not be "
                    "empty.",
                    aud);
                return -1;
            }
            if (len > 0) {
                for (int i = 0; i < o->naudiences; i++)
                    if (strlen(o->audiences[i]) == len &&
                        memcmp(o->audiences[i], s, len) == 0) {
                        say(why, errsz,
                            "Invalid value %.128s for configuration "
                            "sasl.oauthbearer.expected.audience: Configuration "
                            "'sasl.oauthbearer.expected.audience' values must "
                            "not be duplicated.",
                            aud);
                        return -1;
                    }
                if (strv_add(&o->audiences, &o->naudiences, s, len) != 0) {
                    say(why, errsz, "out of memory");
                    return -1;
                }
            }
            p = e != NULL ? e + 1 : NULL;
        }
    }
    if (o->naudiences == 0 && !allow_aud) {
        say(why, errsz,
            "The OAuth validator for the broker requires "
            "\"sasl.oauthbearer.expected.audience\" to be configured so that "
            "the token's audience (\"aud\") claim can be verified, but it was "
            "not set. Set \"sasl.oauthbearer.expected.audience\" to the "
            "audience(s) that identify this cluster, or set "
            "\"sasl.oauthbearer.allow.unverified.audience\" to true to accept "
            "tokens regardless of their audience.");
        return -1;
    }
    if (iss != NULL && !is_blank(iss, strlen(iss))) {
        s = iss;
        len = strlen(iss);
        trim(&s, &len);
        if ((o->issuer = strndup(s, len)) == NULL) {
            say(why, errsz, "out of memory");
            return -1;
        }
    } else if (!allow_iss) {
        say(why, errsz,
            "The OAuth validator for the broker requires "
            "\"sasl.oauthbearer.expected.issuer\" to be configured so that "
            "the token's issuer (\"iss\") claim can be verified, but it was "
            "not set. Set \"sasl.oauthbearer.expected.issuer\" to the issuer "
            "URL of the OAuth/OIDC provider that signs the tokens, or set "
            "\"sasl.oauthbearer.allow.unverified.issuer\" to true to accept "
            "tokens regardless of their issuer.");
        return -1;
    }
    v = cget(c, "sasl.oauthbearer.sub.claim.name");
    if (v != NULL && is_blank(v, strlen(v))) {
        say(why, errsz,
            "The OAuth configuration option "
            "sasl.oauthbearer.sub.claim.name value is required");
        return -1;
    }
    if (!opt_str(v, "sub", o->sub_claim, sizeof o->sub_claim)) {
        say(why, errsz, "sasl.oauthbearer.sub.claim.name is too long");
        return -1;
    }
    v = cget(c, "sasl.oauthbearer.scope.claim.name");
    if (v != NULL && is_blank(v, strlen(v))) {
        say(why, errsz,
            "The OAuth configuration option "
            "sasl.oauthbearer.scope.claim.name value is required");
        return -1;
    }
    if (!opt_str(v, "scope", o->scope_claim_s, sizeof o->scope_claim_s)) {
        say(why, errsz, "sasl.oauthbearer.scope.claim.name is too long");
        return -1;
    }
    o->skew_s = 30;
    if ((v = cget(c, "sasl.oauthbearer.clock.skew.seconds")) != NULL &&
        !parse_int(v, INT32_MIN, INT32_MAX, &o->skew_s)) {
        say(why, errsz,
            "Invalid value %.64s for configuration "
            "sasl.oauthbearer.clock.skew.seconds: Not a number of type INT",
            v);
        return -1;
    }
    if (o->skew_s < 0)
        o->skew_s = 0; /* jose4j: a negative leeway allows nothing extra */
    stamp_of(o->jwks_path, &o->stamp);
    if ((o->jwks = load_jwks(o->jwks_path, ewhy, sizeof ewhy)) == NULL) {
        say(why, errsz, "sasl.oauthbearer.jwks.endpoint.url %s: %s",
            o->jwks_path, ewhy);
        return -1;
    }
    if (o->naudiences == 0)
        GR_LOG_WARN("listener %s: OAUTHBEARER accepts a JWT regardless of "
                    "its \"aud\" (audience) claim "
                    "(sasl.oauthbearer.allow.unverified.audience=true)",
                    o->listener);
    if (o->issuer == NULL)
        GR_LOG_WARN("listener %s: OAUTHBEARER accepts a JWT bearing any (or "
                    "no) \"iss\" (issuer) claim "
                    "(sasl.oauthbearer.allow.unverified.issuer=true)",
                    o->listener);
    GR_LOG_INFO("listener %s: OAUTHBEARER verifies signed tokens with the %d "
                "key(s) of %s",
                o->listener, gr_jwks_count(o->jwks), o->jwks_path);
    return 0;
}

gr_oauth_t *
gr_oauth_new(const gr_oauth_cfg_t *c, char *why, size_t errsz)
{
    gr_oauth_t *o = calloc(1, sizeof *o);
    const char *h = cget(c, "sasl.server.callback.handler.class");
    const char *s = h;
    size_t len = h != NULL ? strlen(h) : 0;

    if (o == NULL) {
        say(why, errsz, "out of memory");
        return NULL;
    }
    snprintf(o->listener, sizeof o->listener, "%s",
             c->listener != NULL ? c->listener : "?");
    if (h != NULL)
        trim(&s, &len);
    if (len == 0 || (len == strlen(GR_OAUTH_UNSECURED_HANDLER) &&
                     memcmp(s, GR_OAUTH_UNSECURED_HANDLER, len) == 0)) {
        if (config_unsecured(o, c, why, errsz) != 0)
            goto fail;
    } else if (len == strlen(GR_OAUTH_SECURED_HANDLER) &&
               memcmp(s, GR_OAUTH_SECURED_HANDLER, len) == 0) {
        o->secured = true;
        if (config_secured(o, c, why, errsz) != 0)
            goto fail;
    } else {
        say(why, errsz,
            "sasl.server.callback.handler.class %.200s is not supported for "
            "OAUTHBEARER: Gregor implements Kafka's %s (the default) and %s",
            h, GR_OAUTH_UNSECURED_HANDLER, GR_OAUTH_SECURED_HANDLER);
        goto fail;
    }
    return o;
fail:
    gr_oauth_free(o);
    return NULL;
}

/* The JWKS file changed: load it again (a failure keeps the old keys and
 * the old stamp, so the next check tries again). */
static void
jwks_check(gr_oauth_t *o, int64_t now_ms)
{
    file_stamp_t st;
    gr_jwks_t *k;
    char why[256] = "";
    if (now_ms - o->checked_ms < GR_OAUTH_JWKS_CHECK_MS &&
        now_ms >= o->checked_ms)
        return;
    o->checked_ms = now_ms;
    stamp_of(o->jwks_path, &st);
    if (memcmp(&st, &o->stamp, sizeof st) == 0)
        return;
    if ((k = load_jwks(o->jwks_path, why, sizeof why)) == NULL) {
        GR_LOG_WARN("listener %s: the changed JWKS file %s could not be "
                    "loaded (%s); tokens are verified with the previous keys",
                    o->listener, o->jwks_path, why);
        return;
    }
    gr_jwks_free(o->jwks);
    o->jwks = k;
    o->stamp = st;
    o->reloads++;
    GR_LOG_INFO("listener %s: JWKS file %s changed; %d key(s) now", o->listener,
                o->jwks_path, gr_jwks_count(k));
}

/* Copies a claim's text (trimmed) as the principal. */
static bool
set_principal(gr_oauth_token_t *tok, const char *s, size_t n)
{
    trim(&s, &n);
    if (n == 0 || n >= sizeof tok->principal || memchr(s, '\0', n) != NULL)
        return false;
    memcpy(tok->principal, s, n);
    tok->principal[n] = '\0';
    return true;
}

/* OAuthBearerUnsecuredJws + OAuthBearerUnsecuredValidatorCallbackHandler */
static int
validate_unsecured(gr_oauth_t *o, gr_arena_t *a, const char *t, size_t n,
                   int64_t now_ms, gr_oauth_token_t *tok, bool *scope_fail,
                   char *why, size_t errsz)
{
    const char *sec[3];
    size_t sl[3];
    bool b64;
    gr_json_t *hdr, *claims;
    const gr_json_t *alg, *v, *sc;
    double exp, iat = 0;
    bool has_iat;
    size_t tl = 0;
    const char *tx;

    for (size_t i = 0; i + 1 < n; i++)
        if (t[i] == '.' && t[i + 1] == '.') {
            say(why, errsz, "Malformed compact serialization contains '..'");
            return -1;
        }
    if (!split3(t, n, sec, sl)) {
        say(why, errsz,
            "Unsecured JWS compact serializations must have 3 "
            "dot-separated Base64URL-encoded values");
        return -1;
    }
    if ((hdr = section_json(a, sec[0], sl[0], &b64, why, errsz)) == NULL ||
        (claims = section_json(a, sec[1], sl[1], &b64, why, errsz)) == NULL)
        return -1;
    alg = jlast(hdr, "alg");
    if (alg == NULL) {
        say(why, errsz, "JWS header must have an Algorithm value");
        return -1;
    }
    tx = alg->type == GR_JSON_INT || alg->type == GR_JSON_DBL ||
                 alg->type == GR_JSON_ARR
             ? ""
             : as_text(alg, &tl);
    if (strcmp(tx, "none") != 0 || tl != 4) {
        say(why, errsz, "Unsecured JWS must have 'none' for an algorithm");
        return -1;
    }
    if (sl[2] != 0) {
        say(why, errsz, "Unsecured JWS must not contain a digital signature");
        return -1;
    }
    /* scope: a string, else a list (a number is not) */
    sc = jlast(claims, o->scope_claim);
    if (sc != NULL && (sc->type == GR_JSON_INT || sc->type == GR_JSON_DBL)) {
        say(why, errsz, "The '%s' claim was not of type List: %s",
            o->scope_claim, java_type(sc));
        return -1;
    }
    v = jlast(claims, "exp");
    if (v == NULL) {
        say(why, errsz, "No expiration time in JWT");
        return -1;
    }
    if (!jnum(v, &exp)) {
        say(why, errsz, "The 'exp' claim was not of type Number: %s",
            java_type(v));
        return -1;
    }
    v = jlast(claims, o->principal_claim);
    if (v != NULL && (v->type == GR_JSON_INT || v->type == GR_JSON_DBL ||
                      v->type == GR_JSON_ARR)) {
        say(why, errsz, "The '%s' claim was not of type String: %s",
            o->principal_claim, java_type(v));
        return -1;
    }
    tx = v != NULL ? as_text(v, &tl) : "";
    if (v == NULL || is_blank(tx, tl)) {
        say(why, errsz, "No principal name in JWT claim: %s",
            o->principal_claim);
        return -1;
    }
    if (!set_principal(tok, tx, tl)) {
        say(why, errsz,
            "principal name in JWT claim %s is longer than %d "
            "bytes or holds a NUL",
            o->principal_claim, GR_OAUTH_PRINCIPAL_MAX - 1);
        return -1;
    }
    v = jlast(claims, "iat");
    has_iat = v != NULL;
    if (has_iat && !jnum(v, &iat)) {
        say(why, errsz, "The 'iat' claim was not of type Number: %s",
            java_type(v));
        return -1;
    }
    if (!time_ok(exp) || (has_iat && !time_ok(iat))) {
        say(why, errsz, "exp or iat out of range");
        return -1;
    }
    tok->lifetime_ms = java_round(exp * 1000.0);
    tok->start_ms = has_iat ? java_round(iat * 1000.0) : -1;
    /* OAuthBearerValidationUtils, in the handler's order */
    if (has_iat && 1000.0 * iat > (double)(now_ms + o->skew_ms)) {
        say(why, errsz,
            "The Issued At value (%f seconds) was after the indicated time "
            "(%lld ms) plus allowable clock skew (%lld ms)",
            iat, (long long)now_ms, (long long)o->skew_ms);
        return -1;
    }
    if ((double)(now_ms - o->skew_ms) >= 1000.0 * exp) {
        say(why, errsz,
            "The indicated time (%lld ms) minus allowable clock skew (%lld "
            "ms) was on or after the Expiration Time value (%f seconds)",
            (long long)now_ms, (long long)o->skew_ms, exp);
        return -1;
    }
    if (has_iat && exp <= iat) {
        say(why, errsz,
            "The Expiration Time time (%f seconds) was not after the Issued "
            "At time (%f seconds)",
            exp, iat);
        return -1;
    }
    for (int r = 0; r < o->nrequired; r++) {
        bool found = false;
        const char *req = o->required[r];
        if (sc != NULL && sc->type == GR_JSON_ARR) {
            for (int i = 0; i < sc->n && !found; i++) {
                const gr_json_t *e = &sc->kids[i];
                if (e->type == GR_JSON_INT || e->type == GR_JSON_DBL ||
                    e->type == GR_JSON_ARR)
                    continue;
                tx = as_text(e, &tl);
                trim(&tx, &tl);
                found = tl == strlen(req) && memcmp(tx, req, tl) == 0;
            }
        } else if (sc != NULL) {
            /* a string scope is one item, trimmed (not split) */
            tx = as_text(sc, &tl);
            trim(&tx, &tl);
            found = tl == strlen(req) && memcmp(tx, req, tl) == 0;
        }
        if (!found) {
            say(why, errsz,
                "The provided scope was missing a required scope (%s).  All "
                "required scope elements: %s",
                req, o->required_str);
            *scope_fail = true;
            return -1;
        }
    }
    return 0;
}

/* Kafka's ClaimValidationUtils.validateString */
static bool
claim_string_ok(const char *name, const gr_json_t *v, char *why, size_t errsz)
{
    if (v == NULL) {
        say(why, errsz, "%s value must be non-null", name);
        return false;
    }
    if (v->slen == 0) {
        say(why, errsz, "%s value must be non-empty", name);
        return false;
    }
    if (is_blank(v->s, v->slen)) {
        say(why, errsz, "%s value must not contain only whitespace", name);
        return false;
    }
    return true;
}

/* BrokerJwtValidator: jose4j's JwtConsumer (DISALLOW_NONE, exp and iat
 * required, nbf when present, aud and iss when expected), then Kafka's
 * claim checks. */
static int
validate_signed(gr_oauth_t *o, gr_arena_t *a, const char *t, size_t n,
                int64_t now_ms, gr_oauth_token_t *tok, char *why, size_t errsz)
{
    const char *sec[3];
    size_t sl[3];
    bool b64;
    gr_json_t *hdr, *claims;
    const gr_json_t *v, *sc;
    int64_t now_s = now_ms / 1000, exp, iat;
    double d;

    if (!split3(t, n, sec, sl) || sl[0] == 0 || sl[1] == 0 || sl[2] == 0) {
        say(why, errsz,
            "Malformed JWT provided; expected three sections "
            "(header, payload, and signature)");
        return -1;
    }
    if ((hdr = section_json(a, sec[0], sl[0], &b64, why, errsz)) == NULL)
        return -1;
    if (hdr->type != GR_JSON_OBJ || has_duplicate_keys(hdr)) {
        say(why, errsz, "JWS header is not a JSON object with unique names");
        return -1;
    }
    jwks_check(o, now_ms);
    if (jwks_verify_hdr(o->jwks, hdr, t, n, why, errsz) != 0)
        return -1;
    if ((claims = section_json(a, sec[1], sl[1], &b64, why, errsz)) == NULL)
        return -1;
    if (claims->type != GR_JSON_OBJ || has_duplicate_keys(claims)) {
        say(why, errsz, "JWT claims are not a JSON object with unique names");
        return -1;
    }
    /* exp, required */
    v = gr_json_get(claims, "exp");
    if (v == NULL) {
        say(why, errsz, "No Expiration Time (exp) claim present.");
        return -1;
    }
    if (!jnum(v, &d) || !time_ok(d)) {
        say(why, errsz,
            "The value of the 'exp' claim is not the expected type");
        return -1;
    }
    exp = (int64_t)d; /* NumericDate.fromSeconds(number.longValue()) */
    if (now_s >= exp + o->skew_s) {
        say(why, errsz,
            "The JWT is no longer valid - the evaluation time %lld is on or "
            "after the Expiration Time (exp=%lld) claim value (even when "
            "providing %lld seconds of leeway to account for clock skew).",
            (long long)now_s, (long long)exp, (long long)o->skew_s);
        return -1;
    }
    v = gr_json_get(claims, "iat");
    if (v == NULL) {
        say(why, errsz, "No Issued At (iat) claim present.");
        return -1;
    }
    if (!jnum(v, &d) || !time_ok(d)) {
        say(why, errsz,
            "The value of the 'iat' claim is not the expected type");
        return -1;
    }
    iat = (int64_t)d;
    v = gr_json_get(claims, "nbf");
    if (v != NULL) {
        if (!jnum(v, &d) || !time_ok(d)) {
            say(why, errsz,
                "The value of the 'nbf' claim is not the expected type");
            return -1;
        }
        if (now_s + o->skew_s < (int64_t)d) {
            say(why, errsz,
                "The JWT is not yet valid as the evaluation time %lld is "
                "before the Not Before (nbf=%lld) claim time (even when "
                "providing %lld seconds of leeway to account for clock "
                "skew).",
                (long long)now_s, (long long)(int64_t)d, (long long)o->skew_s);
            return -1;
        }
    }
    if (o->naudiences > 0) {
        bool ok = false;
        v = gr_json_get(claims, "aud");
        if (v == NULL) {
            say(why, errsz, "No Audience (aud) claim present.");
            return -1;
        }
        if (v->type == GR_JSON_STR) {
            for (int i = 0; i < o->naudiences && !ok; i++)
                ok = strcmp(v->s, o->audiences[i]) == 0 &&
                     strlen(v->s) == v->slen;
        } else if (v->type == GR_JSON_ARR) {
            for (int k = 0; k < v->n; k++) {
                if (v->kids[k].type != GR_JSON_STR) {
                    say(why, errsz,
                        "The value of the 'aud' claim is not the "
                        "expected type");
                    return -1;
                }
                for (int i = 0; i < o->naudiences && !ok; i++)
                    ok = strcmp(v->kids[k].s, o->audiences[i]) == 0 &&
                         strlen(v->kids[k].s) == v->kids[k].slen;
            }
        } else {
            say(why, errsz,
                "The value of the 'aud' claim is not the expected type");
            return -1;
        }
        if (!ok) {
            say(why, errsz,
                "Audience (aud) claim doesn't contain an acceptable "
                "identifier. Expected %s%s as an aud value.",
                o->audiences[0],
                o->naudiences > 1 ? " (or another expected)" : "");
            return -1;
        }
    }
    if (o->issuer != NULL) {
        v = gr_json_get(claims, "iss");
        if (v == NULL) {
            say(why, errsz, "No Issuer (iss) claim present.");
            return -1;
        }
        if (v->type != GR_JSON_STR) {
            say(why, errsz,
                "The value of the 'iss' claim is not the expected type");
            return -1;
        }
        if (strcmp(v->s, o->issuer) != 0 || strlen(v->s) != v->slen) {
            say(why, errsz,
                "Issuer (iss) claim value (%.128s) doesn't match expected "
                "value of %.128s",
                v->s, o->issuer);
            return -1;
        }
    }
    /* Kafka's own checks (BrokerJwtValidator.validate) */
    sc = gr_json_get(claims, o->scope_claim_s);
    if (sc != NULL && sc->type == GR_JSON_STR) {
        if (!claim_string_ok(o->scope_claim_s, sc, why, errsz))
            return -1;
    } else if (sc != NULL && sc->type == GR_JSON_ARR) {
        for (int i = 0; i < sc->n; i++) {
            const char *x, *y;
            size_t xl, yl;
            if (sc->kids[i].type != GR_JSON_STR) {
                say(why, errsz, "%s value must be a string", o->scope_claim_s);
                return -1;
            }
            if (!claim_string_ok(o->scope_claim_s, &sc->kids[i], why, errsz))
                return -1;
            x = sc->kids[i].s;
            xl = sc->kids[i].slen;
            trim(&x, &xl);
            for (int j = 0; j < i; j++) {
                y = sc->kids[j].s;
                yl = sc->kids[j].slen;
                trim(&y, &yl);
                if (xl == yl && memcmp(x, y, xl) == 0) {
                    say(why, errsz,
                        "%s value must not contain duplicates - %.*s already "
                        "present",
                        o->scope_claim_s, (int)(xl < 128 ? xl : 128), x);
                    return -1;
                }
            }
        }
    }
    if (exp < 0) {
        say(why, errsz,
            "exp value must be non-negative; value given was \"%lld\"",
            (long long)exp * 1000);
        return -1;
    }
    v = gr_json_get(claims, o->sub_claim);
    if (v != NULL && v->type != GR_JSON_STR) {
        say(why, errsz,
            "Could not extract the '%s' claim from the access "
            "token",
            o->sub_claim);
        return -1;
    }
    if (!claim_string_ok(o->sub_claim, v, why, errsz))
        return -1;
    if (iat < 0) {
        say(why, errsz,
            "iat value must be null or non-negative; value given was "
            "\"%lld\"",
            (long long)iat * 1000);
        return -1;
    }
    if (!set_principal(tok, v->s, v->slen)) {
        say(why, errsz, "%s claim is longer than %d bytes or holds a NUL",
            o->sub_claim, GR_OAUTH_PRINCIPAL_MAX - 1);
        return -1;
    }
    tok->lifetime_ms = exp * 1000;
    tok->start_ms = iat * 1000;
    return 0;
}

int
gr_oauth_validate(gr_oauth_t *o, const char *token, size_t len, int64_t now_ms,
                  gr_oauth_token_t *tok, const char **status, char *scope,
                  size_t scopesz, char *why, size_t errsz)
{
    gr_arena_t *a = gr_arena_new(4096);
    bool scope_fail = false;
    int rc;

    memset(tok, 0, sizeof *tok);
    tok->start_ms = -1;
    *status = "invalid_token";
    if (scope != NULL && scopesz > 0)
        scope[0] = '\0';
    if (a == NULL) {
        say(why, errsz, "out of memory");
        return -1;
    }
    if (len > GR_OAUTH_MAX_TOKEN_BYTES) {
        say(why, errsz, "a token of %zu bytes: Gregor takes at most %d", len,
            GR_OAUTH_MAX_TOKEN_BYTES);
        gr_arena_destroy(a);
        return -1;
    }
    if (o->secured)
        rc = validate_signed(o, a, token, len, now_ms, tok, why, errsz);
    else
        rc = validate_unsecured(o, a, token, len, now_ms, tok, &scope_fail, why,
                                errsz);
    gr_arena_destroy(a);
    if (rc != 0 && scope_fail) {
        *status = "insufficient_scope";
        if (scope != NULL)
            snprintf(scope, scopesz, "%s", o->required_str);
    }
    return rc;
}

void
gr_oauth_step(gr_oauth_t *o, gr_oauth_sess_t *s, const uint8_t *in, size_t n,
              int64_t now_ms, gr_oauth_result_t *r)
{
    static const char generic[] = "Authentication failed during "
                                  "authentication due to invalid credentials "
                                  "with SASL mechanism OAUTHBEARER";
    gr_oauth_initial_t ini;
    const char *status;
    char scope[sizeof o->required_str];

    memset(r, 0, sizeof *r);
    if (s->errored) {
        /* RFC 7628 3.2.3: after the error the client sends 0x01 and the
         * exchange fails with that error */
        s->errored = false;
        r->outcome = GR_OAUTH_FAILED;
        if (n == 1 && in[0] == 0x01) {
            snprintf(r->message, sizeof r->message, "%s", s->error_json);
            snprintf(r->why, sizeof r->why,
                     "client acknowledged the token error %.400s",
                     s->error_json);
        } else {
            snprintf(r->message, sizeof r->message, "%s", generic);
            r->generic = true;
            snprintf(r->why, sizeof r->why,
                     "a message other than 0x01 after the token error "
                     "(Gregor validates one token per exchange)");
        }
        return;
    }
    if (gr_oauth_initial_parse(in, n, &ini, r->why, sizeof r->why) != 0) {
        r->outcome = GR_OAUTH_FAILED;
        snprintf(r->message, sizeof r->message, "%s", generic);
        r->generic = true;
        return;
    }
    if (gr_oauth_validate(o, ini.token, ini.token_len, now_ms, &r->tok, &status,
                          scope, sizeof scope, r->why, sizeof r->why) != 0) {
        /* OAuthBearerSaslServer.jsonErrorResponse */
        if (scope[0] != '\0')
            snprintf(s->error_json, sizeof s->error_json,
                     "{\"status\":\"%s\", \"scope\":\"%s\"}", status, scope);
        else
            snprintf(s->error_json, sizeof s->error_json, "{\"status\":\"%s\"}",
                     status);
        s->errored = true;
        r->outcome = GR_OAUTH_CHALLENGE;
        /* Kafka logs this at warn (signed) or debug (unsecured) */
        GR_LOG_INFO("listener %s: OAUTHBEARER token refused (%s): %s",
                    o->listener, status, r->why);
        r->reply = s->error_json;
        r->reply_len = strlen(s->error_json);
        return;
    }
    if (ini.authzid != NULL &&
        (ini.authzid_len != strlen(r->tok.principal) ||
         memcmp(ini.authzid, r->tok.principal, ini.authzid_len) != 0)) {
        r->outcome = GR_OAUTH_FAILED;
        snprintf(r->message, sizeof r->message,
                 "Authentication failed: Client requested an authorization id "
                 "(%.*s) that is different from the token's principal name "
                 "(%.200s)",
                 (int)(ini.authzid_len < 128 ? ini.authzid_len : 128),
                 ini.authzid, r->tok.principal);
        snprintf(r->why, sizeof r->why, "%s", r->message);
        return;
    }
    r->outcome = GR_OAUTH_DONE;
}

int64_t
gr_oauth_session_lifetime_ms(int64_t lifetime_ms, int64_t now_ms,
                             int64_t max_reauth_ms)
{
    bool max_set = max_reauth_ms > 0;
    int64_t v;
    if (lifetime_ms < 0 && !max_set)
        return 0;
    if (lifetime_ms < 0)
        v = max_reauth_ms;
    else if (!max_set)
        v = lifetime_ms - now_ms;
    else
        v = lifetime_ms - now_ms < max_reauth_ms ? lifetime_ms - now_ms
                                                 : max_reauth_ms;
    return v < 0 ? 0 : v;
}

/* --- the mechanism (src/net/sasl.h's vtable) */

/* A JVM system property as Kafka's start scripts pass it,
 * "-D<key>=<value>" in $KAFKA_OPTS (up to the next blank), or NULL.
 * Start-up only (one static buffer). */
static const char *
kafka_opts_property(const char *key)
{
    static char buf[4096];
    const char *opts = getenv("KAFKA_OPTS"), *p;
    size_t kl = strlen(key), n;
    for (p = opts; p != NULL && (p = strstr(p, "-D")) != NULL; p += 2) {
        if ((p == opts || isspace((unsigned char)p[-1])) &&
            strncmp(p + 2, key, kl) == 0 && p[2 + kl] == '=') {
            p += 3 + kl;
            n = strcspn(p, " \t\n");
            if (n >= sizeof buf)
                return NULL;
            memcpy(buf, p, n);
            buf[n] = '\0';
            return buf;
        }
    }
    return NULL;
}

/* A setting as the listener's OAUTHBEARER sees it: the prefixed forms
 * (listener.name.<l>.oauthbearer.<key>, listener.name.<l>.<key>), then
 * the broker's value of a key conf.def implements (with Kafka's
 * default), then a bare key it does not (Kafka's system property
 * GR_OAUTH_ALLOWED_URLS among them). */
static const char *
mech_conf(void *arg, const char *key)
{
    const gr_sasl_mech_cfg_t *mc = arg;
    const char *v = gr_sasl_cfg_get(mc, key);
    int id;
    if (v != NULL)
        return v;
    id = gr_conf_lookup(key);
    v = id >= 0 ? gr_conf_str(mc->conf, (gr_conf_id_t)id) : NULL;
    if (v == NULL && strcmp(key, GR_OAUTH_ALLOWED_URLS) == 0)
        v = kafka_opts_property(key);
    return v;
}

static const char *
mech_jaas(void *arg, const char *key)
{
    const gr_sasl_mech_cfg_t *mc = arg;
    return mc->jaas != NULL ? gr_jaas_option(mc->jaas, key) : NULL;
}

static int
mech_configure(const gr_sasl_mech_cfg_t *mc, void **out)
{
    gr_oauth_cfg_t c = { mc->listener, mech_conf, mech_jaas, (void *)mc };
    char why[1024];
    gr_oauth_t *o;
    if (mc->jaas == NULL) {
        /* Kafka: JaasContext.loadServerContext fails without one */
        GR_LOG_ERROR("listener %s: SASL/OAUTHBEARER has no JAAS entry: set "
                     "%soauthbearer.sasl.jaas.config (or sasl.jaas.config) "
                     "to %s required;",
                     mc->listener, mc->prefix,
                     "org.apache.kafka.common.security.oauthbearer."
                     "OAuthBearerLoginModule");
        return -1;
    }
    if ((o = gr_oauth_new(&c, why, sizeof why)) == NULL) {
        GR_LOG_ERROR("listener %s: SASL/OAUTHBEARER: %s", mc->listener, why);
        return -1;
    }
    *out = o;
    return 0;
}

static void
mech_unconfigure(void *cfg)
{
    gr_oauth_free(cfg);
}

typedef struct mech_state {
    gr_oauth_t *o;
    gr_oauth_sess_t sess;
} mech_state_t;

static void *
mech_start(void *cfg, gr_broker_t *b)
{
    mech_state_t *s = calloc(1, sizeof *s);
    (void)b;
    if (s != NULL)
        s->o = cfg;
    return s;
}

static void
mech_end(void *s)
{
    free(s);
}

static int
mech_step(void *p, const uint8_t *in, size_t len, gr_sasl_step_t *st)
{
    mech_state_t *s = p;
    gr_oauth_result_t r;
    gr_oauth_step(s->o, &s->sess, in, len, gr_wall_ms(), &r);
    switch (r.outcome) {
    case GR_OAUTH_DONE:
        if (strlen(r.tok.principal) >= sizeof st->authorization_id) {
            snprintf(st->error, sizeof st->error,
                     "OAUTHBEARER principal of %zu bytes: Gregor takes at "
                     "most %zu",
                     strlen(r.tok.principal), sizeof st->authorization_id - 1);
            return GR_SASL_DENIED;
        }
        memcpy(st->authorization_id, r.tok.principal,
               strlen(r.tok.principal) + 1);
        st->credential_expiry_ms = r.tok.lifetime_ms;
        st->done = true;
        return GR_SASL_OK;
    case GR_OAUTH_CHALLENGE:
        gr_buf_append(&st->out, r.reply, r.reply_len);
        return st->out.oom ? GR_SASL_DENIED : GR_SASL_OK;
    case GR_OAUTH_FAILED:
        if (r.generic) {
            snprintf(st->error, sizeof st->error, "%s", r.why);
            return GR_SASL_DENIED;
        }
        snprintf(st->error, sizeof st->error, "%s", r.message);
        return GR_SASL_FAIL;
    }
    return GR_SASL_DENIED;
}

const gr_sasl_mech_t gr_sasl_oauthbearer = {
    .name = "OAUTHBEARER",
    .configure = mech_configure,
    .unconfigure = mech_unconfigure,
    .start = mech_start,
    .step = mech_step,
    .end = mech_end,
};
