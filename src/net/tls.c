/* TLS: see tls.h. */
#include "net/tls.h"
#include "core/conf.h"
#include "core/log.h"
#include "core/regex.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/* the largest plaintext of one TLS record: file ranges without kTLS are
 * read and written this much at a time */
#define FILE_CHUNK 16384

typedef struct lcfg {
    const gr_conf_t *conf;
    char prefix[96]; /* listener.name.<name>. */
} lcfg_t;

struct file_stamp {
    int64_t mtime_ns, size, ino;
};

struct gr_tls_ctx {
    SSL_CTX *ssl; /* new sessions' (replaced when the store files change) */
    char name[64];
    char *rules; /* ssl.principal.mapping.rules */
    lcfg_t cfg;
    struct file_stamp stamp[2]; /* keystore, truststore files */
    int64_t checked_us;
    int reloads;
};

struct gr_tls {
    SSL *ssl;
    gr_tls_ctx_t *ctx;
    int wants[2]; /* of the last read (0) and write (1) */
    bool done;     /* handshake finished */
    bool shutdown; /* no close_notify: the session failed */
    bool ktls_send;
    char peer[64];
    char principal[512];
    char err[256];
};

/* --- configuration */


static const char *
extra(const lcfg_t *c, const char *key)
{
    char k[256];
    const char *v;
    snprintf(k, sizeof k, "%s%s", c->prefix, key);
    if ((v = gr_conf_extra_get(c->conf, k)) != NULL)
        return v;
    return gr_conf_extra_get(c->conf, key);
}

/* The listener's value of id: listener.name.<l>.<key>, else the broker's. */
static const char *
val(const lcfg_t *c, gr_conf_id_t id)
{
    char k[256];
    const char *v;
    snprintf(k, sizeof k, "%s%s", c->prefix, gr_conf_name(id));
    if ((v = gr_conf_extra_get(c->conf, k)) != NULL)
        return v;
    return gr_conf_str(c->conf, id);
}

static void
log_ssl_errors(const char *what, const char *name)
{
    unsigned long e;
    char buf[256];
    int any = 0;
    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof buf);
        GR_LOG_ERROR("listener %s: %s: %s", name, what, buf);
        any = 1;
    }
    if (!any)
        GR_LOG_ERROR("listener %s: %s", name, what);
}

char *
gr_tls_pem_normalize(const char *in)
{
    size_t cap = strlen(in) * 2 + 64, k = 0;
    char *out = malloc(cap);
    const char *p = in;
    if (out == NULL)
        return NULL;
    for (;;) {
        const char *b = strstr(p, "-----BEGIN "), *lab, *le, *e;
        size_t ll, col = 0;
        char end[128];
        if (b == NULL)
            break;
        lab = b + 11;
        le = strstr(lab, "-----");
        if (le == NULL || (ll = (size_t)(le - lab)) == 0 || ll > 80)
            goto bad;
        snprintf(end, sizeof end, "-----END %.*s-----", (int)ll, lab);
        e = strstr(le + 5, end);
        if (e == NULL)
            goto bad;
        k += (size_t)snprintf(out + k, cap - k, "-----BEGIN %.*s-----\n",
                              (int)ll, lab);
        for (const char *q = le + 5; q < e; q++) {
            if (isspace((unsigned char)*q))
                continue;
            if (!isalnum((unsigned char)*q) && *q != '+' && *q != '/' &&
                *q != '=')
                goto bad;
            out[k++] = *q;
            if (++col == 64) {
                out[k++] = '\n';
                col = 0;
            }
        }
        if (col)
            out[k++] = '\n';
        k += (size_t)snprintf(out + k, cap - k, "%s\n", end);
        p = e + strlen(end);
    }
    if (k == 0)
        goto bad;
    out[k] = '\0';
    return out;
bad:
    free(out);
    return NULL;
}

/* A file, or an inline PEM value (Kafka's: newlines optional, as a
 * properties file's continued lines lose them). */
static BIO *
file_or_inline(const char *location, const char *inline_pem)
{
    if (inline_pem != NULL) {
        char *pem = gr_tls_pem_normalize(inline_pem);
        BIO *b = pem ? BIO_new(BIO_s_mem()) : NULL;
        if (b != NULL)
            BIO_write(b, pem, (int)strlen(pem));
        free(pem);
        return b;
    }
    return BIO_new_file(location, "rb");
}

/* What a store file holds: 'P' PEM, '1' PKCS12 (DER), 'J' JKS, 0 unknown,
 * -1 unreadable. */
static int
sniff(const char *path)
{
    unsigned char b[4];
    FILE *f = fopen(path, "rb");
    size_t n;
    if (f == NULL)
        return -1;
    n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n == 4 && b[0] == 0xfe && b[1] == 0xed && b[2] == 0xfe &&
        b[3] == 0xed)
        return 'J';
    if (n >= 1 && b[0] == 0x30)
        return '1';
    if (n >= 1 && (b[0] == '-' || isspace(b[0])))
        return 'P';
    return 0;
}

/* The effective type of a store: PEM, PKCS12, or -1 (logged). JKS, Kafka's
 * default, is refused unless the file is really PKCS12 (which Java's JKS
 * keystore reads too). */
static int
store_type(const char *name, const char *kind, const char *type,
           const char *location, const char *inline_key, const char *jks_alias)
{
    int s;
    if (inline_key != NULL) {
        if (strcasecmp(type, "PEM") != 0 && location == NULL &&
            strcasecmp(type, "JKS") != 0) {
            GR_LOG_ERROR("listener %s: ssl.%s.type=%s: inline PEM (%s) "
                         "needs ssl.%s.type=PEM",
                         name, kind, type, inline_key, kind);
            return -1;
        }
        return 'P';
    }
    if (location == NULL)
        return 0;
    s = sniff(location);
    if (s < 0) {
        GR_LOG_ERROR("listener %s: ssl.%s.location=%s: %s", name, kind,
                     location, strerror(errno));
        return -1;
    }
    if (strcasecmp(type, "PEM") == 0)
        return 'P';
    if (strcasecmp(type, "PKCS12") == 0)
        return '1';
    if (strcasecmp(type, "JKS") == 0 && s == '1')
        return '1';
    if (strcasecmp(type, "JKS") == 0) {
        GR_LOG_ERROR("listener %s: ssl.%s.location=%s is a JKS %s (ssl.%s."
                     "type=JKS), which Gregor cannot read: convert it to "
                     "PKCS12 with `keytool -importkeystore -srckeystore %s "
                     "-srcstoretype JKS -destkeystore %s.p12 -deststoretype "
                     "PKCS12` and set ssl.%s.type=PKCS12 (or use PEM)",
                     name, kind, location, jks_alias, kind, location,
                     location, kind);
        return -1;
    }
    GR_LOG_ERROR("listener %s: ssl.%s.type=%s is not supported: PKCS12 or "
                 "PEM (JKS converted with keytool)",
                 name, kind, type);
    return -1;
}

static int
pem_pass_cb(char *buf, int size, int rwflag, void *u)
{
    const char *p = u;
    int n;
    (void)rwflag;
    if (p == NULL)
        return 0;
    n = (int)strlen(p);
    if (n > size)
        n = size;
    memcpy(buf, p, (size_t)n);
    return n;
}

static int
load_keystore(SSL_CTX *ssl, const lcfg_t *c, const char *name)
{
    const char *type = val(c, GR_CONF_SSL_KEYSTORE_TYPE);
    const char *loc = val(c, GR_CONF_SSL_KEYSTORE_LOCATION);
    const char *pass = val(c, GR_CONF_SSL_KEYSTORE_PASSWORD);
    const char *keypass = val(c, GR_CONF_SSL_KEY_PASSWORD);
    const char *chain = val(c, GR_CONF_SSL_KEYSTORE_CERTIFICATE_CHAIN);
    const char *key = val(c, GR_CONF_SSL_KEYSTORE_KEY);
    int t;

    if ((chain != NULL) != (key != NULL)) {
        GR_LOG_ERROR("listener %s: ssl.keystore.certificate.chain and "
                     "ssl.keystore.key are given together",
                     name);
        return -1;
    }
    if (chain != NULL && loc != NULL) {
        GR_LOG_ERROR("listener %s: ssl.keystore.location and the inline "
                     "ssl.keystore.key are exclusive",
                     name);
        return -1;
    }
    t = store_type(name, "keystore", type, loc,
                   chain ? "ssl.keystore.certificate.chain" : NULL, "keystore");
    if (t < 0)
        return -1;
    if (t == 0) {
        GR_LOG_ERROR("listener %s: an SSL listener needs a keystore "
                     "(ssl.keystore.location, or ssl.keystore.certificate."
                     "chain and ssl.keystore.key)",
                     name);
        return -1;
    }
    if (t == '1') {
        FILE *f = fopen(loc, "rb");
        PKCS12 *p12 = f ? d2i_PKCS12_fp(f, NULL) : NULL;
        EVP_PKEY *pkey = NULL;
        X509 *cert = NULL;
        STACK_OF(X509) *ca = NULL;
        int ok;
        if (f)
            fclose(f);
        if (p12 == NULL) {
            log_ssl_errors("ssl.keystore.location is not a PKCS12 file", name);
            return -1;
        }
        ok = PKCS12_parse(p12, pass ? pass : "", &pkey, &cert, &ca);
        PKCS12_free(p12);
        if (!ok || pkey == NULL || cert == NULL) {
            log_ssl_errors("cannot read the PKCS12 keystore (wrong "
                           "ssl.keystore.password, or no key and certificate)",
                           name);
            EVP_PKEY_free(pkey);
            X509_free(cert);
            sk_X509_pop_free(ca, X509_free);
            return -1;
        }
        ok = SSL_CTX_use_certificate(ssl, cert) == 1 &&
             SSL_CTX_use_PrivateKey(ssl, pkey) == 1;
        for (int i = 0; ok && ca && i < sk_X509_num(ca); i++) {
            X509 *x = sk_X509_value(ca, i);
            ok = SSL_CTX_add1_chain_cert(ssl, x) == 1;
        }
        EVP_PKEY_free(pkey);
        X509_free(cert);
        sk_X509_pop_free(ca, X509_free);
        if (!ok) {
            log_ssl_errors("cannot use the PKCS12 keystore", name);
            return -1;
        }
    } else {
        BIO *b = file_or_inline(loc, chain);
        X509 *x;
        EVP_PKEY *pkey;
        int n = 0, ok = 1;
        if (b == NULL) {
            log_ssl_errors("cannot read the keystore", name);
            return -1;
        }
        while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL) {
            ok = ok && (n == 0 ? SSL_CTX_use_certificate(ssl, x)
                               : SSL_CTX_add0_chain_cert(ssl, x)) == 1;
            if (n == 0 || !ok)
                X509_free(x);
            n++;
        }
        ERR_clear_error();
        BIO_free(b);
        if (n == 0 || !ok) {
            log_ssl_errors("the PEM keystore has no usable certificate", name);
            return -1;
        }
        b = file_or_inline(loc, key);
        pkey = b ? PEM_read_bio_PrivateKey(b, NULL, pem_pass_cb,
                                           (void *)keypass)
                 : NULL;
        BIO_free(b);
        if (pkey == NULL) {
            log_ssl_errors("cannot read the PEM keystore's private key "
                           "(missing, or wrong ssl.key.password)",
                           name);
            return -1;
        }
        ok = SSL_CTX_use_PrivateKey(ssl, pkey) == 1;
        EVP_PKEY_free(pkey);
        if (!ok) {
            log_ssl_errors("cannot use the keystore's private key", name);
            return -1;
        }
    }
    if (SSL_CTX_check_private_key(ssl) != 1) {
        log_ssl_errors("the keystore's private key does not match its "
                       "certificate",
                       name);
        return -1;
    }
    return 0;
}

static int
load_truststore(SSL_CTX *ssl, const lcfg_t *c, const char *name)
{
    const char *type = val(c, GR_CONF_SSL_TRUSTSTORE_TYPE);
    const char *loc = val(c, GR_CONF_SSL_TRUSTSTORE_LOCATION);
    const char *pass = val(c, GR_CONF_SSL_TRUSTSTORE_PASSWORD);
    const char *certs = val(c, GR_CONF_SSL_TRUSTSTORE_CERTIFICATES);
    X509_STORE *store = SSL_CTX_get_cert_store(ssl);
    int t, n = 0;

    if (certs != NULL && loc != NULL) {
        GR_LOG_ERROR("listener %s: ssl.truststore.location and the inline "
                     "ssl.truststore.certificates are exclusive",
                     name);
        return -1;
    }
    t = store_type(name, "truststore", type, loc,
                   certs ? "ssl.truststore.certificates" : NULL, "truststore");
    if (t < 0)
        return -1;
    if (t == 0) {
        /* as Java's default trust store: the system's */
        SSL_CTX_set_default_verify_paths(ssl);
        return 0;
    }
    if (t == '1') {
        FILE *f = fopen(loc, "rb");
        PKCS12 *p12 = f ? d2i_PKCS12_fp(f, NULL) : NULL;
        EVP_PKEY *pkey = NULL;
        X509 *cert = NULL;
        STACK_OF(X509) *ca = NULL;
        if (f)
            fclose(f);
        if (p12 == NULL ||
            !PKCS12_parse(p12, pass ? pass : "", &pkey, &cert, &ca)) {
            PKCS12_free(p12);
            log_ssl_errors("cannot read the PKCS12 truststore (wrong "
                           "ssl.truststore.password?)",
                           name);
            return -1;
        }
        PKCS12_free(p12);
        if (cert != NULL && X509_STORE_add_cert(store, cert) == 1)
            n++;
        for (int i = 0; ca && i < sk_X509_num(ca); i++)
            if (X509_STORE_add_cert(store, sk_X509_value(ca, i)) == 1)
                n++;
        EVP_PKEY_free(pkey);
        X509_free(cert);
        sk_X509_pop_free(ca, X509_free);
    } else {
        BIO *b = file_or_inline(loc, certs);
        X509 *x;
        if (b == NULL) {
            log_ssl_errors("cannot read the truststore", name);
            return -1;
        }
        while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL) {
            if (X509_STORE_add_cert(store, x) == 1)
                n++;
            X509_free(x);
        }
        BIO_free(b);
    }
    ERR_clear_error();
    if (n == 0) {
        GR_LOG_ERROR("listener %s: the truststore holds no certificate", name);
        return -1;
    }
    return 0;
}

static int
proto_version(const char *s)
{
    if (!strcmp(s, "TLSv1.3"))
        return TLS1_3_VERSION;
    if (!strcmp(s, "TLSv1.2"))
        return TLS1_2_VERSION;
    if (!strcmp(s, "TLSv1.1"))
        return TLS1_1_VERSION;
    if (!strcmp(s, "TLSv1"))
        return TLS1_VERSION;
    return -1;
}

static int
set_protocols(SSL_CTX *ssl, const lcfg_t *c, const char *name, bool *has13,
              bool *has12)
{
    const char *p = val(c, GR_CONF_SSL_PROTOCOL);
    const char *list = val(c, GR_CONF_SSL_ENABLED_PROTOCOLS);
    char buf[512];
    const char *items[16];
    int n, lo = 0, hi = 0;
    long no = 0;

    /* ssl.protocol names Java's SSLContext; enabled.protocols decides */
    if (p != NULL && strcmp(p, "TLS") != 0 && proto_version(p) < 0) {
        GR_LOG_ERROR("listener %s: ssl.protocol=%s is not supported: TLS, "
                     "TLSv1.2 or TLSv1.3",
                     name, p);
        return -1;
    }
    n = gr_conf_list_split(list ? list : "", buf, sizeof buf, items, 16);
    if (n == 0) {
        GR_LOG_ERROR("listener %s: ssl.enabled.protocols is empty", name);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int v = proto_version(items[i]);
        if (v < 0) {
            GR_LOG_ERROR("listener %s: ssl.enabled.protocols: %s is not a "
                         "protocol Gregor supports (TLSv1.2, TLSv1.3; "
                         "TLSv1, TLSv1.1)",
                         name, items[i]);
            return -1;
        }
        if (lo == 0 || v < lo)
            lo = v;
        if (v > hi)
            hi = v;
    }
    /* versions inside [lo, hi] not listed are switched off */
    if (!strstr(list, "TLSv1.2"))
        no |= SSL_OP_NO_TLSv1_2;
    if (!strstr(list, "TLSv1.1"))
        no |= SSL_OP_NO_TLSv1_1;
    SSL_CTX_set_options(ssl, no);
    if (SSL_CTX_set_min_proto_version(ssl, lo) != 1 ||
        SSL_CTX_set_max_proto_version(ssl, hi) != 1) {
        log_ssl_errors("ssl.enabled.protocols cannot be set", name);
        return -1;
    }
    *has13 = hi >= TLS1_3_VERSION;
    *has12 = lo <= TLS1_2_VERSION && !(no & SSL_OP_NO_TLSv1_2);
    return 0;
}

int
gr_tls_cipher_name(const char *java, char *out, size_t n)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_method());
    SSL *s;
    STACK_OF(SSL_CIPHER) *all;
    int rc = -1;
    if (ctx == NULL)
        return -1;
    SSL_CTX_set_security_level(ctx, 0);
    SSL_CTX_set_cipher_list(ctx, "ALL:COMPLEMENTOFALL");
    s = SSL_new(ctx);
    all = s ? SSL_get_ciphers(s) : NULL;
    for (int i = 0; all && i < sk_SSL_CIPHER_num(all); i++) {
        const SSL_CIPHER *ci = sk_SSL_CIPHER_value(all, i);
        const char *std = SSL_CIPHER_standard_name(ci);
        const char *own = SSL_CIPHER_get_name(ci);
        if ((std && strcmp(std, java) == 0) || strcmp(own, java) == 0) {
            snprintf(out, n, "%s", own);
            rc = strcmp(SSL_CIPHER_get_version(ci), "TLSv1.3") == 0;
            break;
        }
    }
    SSL_free(s);
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}

static int
set_ciphers(SSL_CTX *ssl, const lcfg_t *c, const char *name, bool has13,
            bool has12)
{
    const char *list = val(c, GR_CONF_SSL_CIPHER_SUITES);
    char buf[4096], l12[4096] = "", l13[1024] = "";
    const char *items[128];
    int n;
    if (list == NULL || *list == '\0')
        return 0; /* OpenSSL's defaults, as Java's */
    n = gr_conf_list_split(list, buf, sizeof buf, items, 128);
    for (int i = 0; i < n; i++) {
        char o[128];
        int v = gr_tls_cipher_name(items[i], o, sizeof o);
        char *dst = v == 1 ? l13 : l12;
        size_t dsz = v == 1 ? sizeof l13 : sizeof l12;
        if (v < 0) {
            GR_LOG_ERROR("listener %s: ssl.cipher.suites: %s is not a cipher "
                         "suite this OpenSSL (%s) knows",
                         name, items[i], OpenSSL_version(OPENSSL_VERSION));
            return -1;
        }
        snprintf(dst + strlen(dst), dsz - strlen(dst), "%s%s",
                 *dst ? ":" : "", o);
    }
    if (SSL_CTX_set_ciphersuites(ssl, l13) != 1) {
        log_ssl_errors("ssl.cipher.suites (TLS 1.3) cannot be set", name);
        return -1;
    }
    if (*l12 == '\0') {
        if (!has13) {
            GR_LOG_ERROR("listener %s: ssl.cipher.suites has only TLS 1.3 "
                         "suites but ssl.enabled.protocols has no TLSv1.3",
                         name);
            return -1;
        }
        /* no suite for older versions: TLS 1.3 only */
        SSL_CTX_set_min_proto_version(ssl, TLS1_3_VERSION);
    } else if (SSL_CTX_set_cipher_list(ssl, l12) != 1) {
        log_ssl_errors("ssl.cipher.suites cannot be set", name);
        return -1;
    } else if (*l13 == '\0') {
        if (!has12) {
            GR_LOG_ERROR("listener %s: ssl.cipher.suites has no TLS 1.3 "
                         "suite but ssl.enabled.protocols has only TLSv1.3",
                         name);
            return -1;
        }
        SSL_CTX_set_max_proto_version(ssl, TLS1_2_VERSION);
    }
    return 0;
}

/* Settings of Java's SSL engine that have no OpenSSL counterpart: their
 * defaults are accepted, anything else stops start-up. */
static int
check_java_only(const lcfg_t *c, const char *name)
{
    static const char *refused[] = { "ssl.provider",
                                     "ssl.engine.factory.class" };
    const char *km = val(c, GR_CONF_SSL_KEYMANAGER_ALGORITHM);
    const char *tm = val(c, GR_CONF_SSL_TRUSTMANAGER_ALGORITHM);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *v = extra(c, refused[i]);
        if (v != NULL && *v != '\0') {
            GR_LOG_ERROR("listener %s: %s=%s: Gregor's TLS is OpenSSL's; a "
                         "Java security provider or engine factory cannot "
                         "be used (remove the setting)",
                         name, refused[i], v);
            return -1;
        }
    }
    if (km && strcmp(km, "SunX509") && strcmp(km, "PKIX") &&
        strcmp(km, "NewSunX509")) {
        GR_LOG_ERROR("listener %s: ssl.keymanager.algorithm=%s is not "
                     "supported (SunX509 or PKIX)",
                     name, km);
        return -1;
    }
    if (tm && strcmp(tm, "PKIX") && strcmp(tm, "SunX509")) {
        GR_LOG_ERROR("listener %s: ssl.trustmanager.algorithm=%s is not "
                     "supported (PKIX)",
                     name, tm);
        return -1;
    }
    return 0;
}

/* A server context from the listener's settings; NULL (logged). */
static SSL_CTX *
build(const lcfg_t *c, const char *name)
{
    SSL_CTX *ssl = SSL_CTX_new(TLS_server_method());
    const char *auth;
    bool has13 = false, has12 = false;

    if (ssl == NULL) {
        log_ssl_errors("cannot make a TLS context", name);
        return NULL;
    }
    SSL_CTX_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE |
                              SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* an EOF without close_notify is a peer's end, as Java takes it; kTLS
     * where the kernel provides it (file ranges then use sendfile) */
    SSL_CTX_set_options(ssl, SSL_OP_IGNORE_UNEXPECTED_EOF |
                                 SSL_OP_ENABLE_KTLS | SSL_OP_NO_RENEGOTIATION);
    if (check_java_only(c, name) != 0 ||
        set_protocols(ssl, c, name, &has13, &has12) != 0 ||
        set_ciphers(ssl, c, name, has13, has12) != 0 ||
        load_keystore(ssl, c, name) != 0)
        goto fail;
    auth = val(c, GR_CONF_SSL_CLIENT_AUTH);
    if (auth == NULL || strcmp(auth, "none") == 0) {
        SSL_CTX_set_verify(ssl, SSL_VERIFY_NONE, NULL);
    } else if (strcmp(auth, "requested") == 0 ||
               strcmp(auth, "required") == 0) {
        int mode = SSL_VERIFY_PEER;
        if (load_truststore(ssl, c, name) != 0)
            goto fail;
        if (strcmp(auth, "required") == 0)
            mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
        SSL_CTX_set_verify(ssl, mode, NULL);
        SSL_CTX_set_verify_depth(ssl, 10);
    } else {
        GR_LOG_ERROR("listener %s: invalid value %s for configuration "
                     "ssl.client.auth: expected none, requested or required",
                     name, auth);
        goto fail;
    }
    /* TLS 1.3 tickets would resume without the client certificate check
     * being logged again; sessions are not cached, as Kafka's broker */
    SSL_CTX_set_session_cache_mode(ssl, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(ssl, 0);
    return ssl;
fail:
    SSL_CTX_free(ssl);
    return NULL;
}

/* The identity of the store files (0 when unreadable): a change of any
 * makes the next connection's context a new one. */
static void
stamp_files(gr_tls_ctx_t *ctx)
{
    const lcfg_t *c = &ctx->cfg;
    const char *paths[2] = { val(c, GR_CONF_SSL_KEYSTORE_LOCATION),
                             val(c, GR_CONF_SSL_TRUSTSTORE_LOCATION) };
    for (int i = 0; i < 2; i++) {
        struct stat st;
        memset(&ctx->stamp[i], 0, sizeof ctx->stamp[i]);
        if (paths[i] != NULL && stat(paths[i], &st) == 0) {
            ctx->stamp[i].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
                                     st.st_mtim.tv_nsec;
            ctx->stamp[i].size = (int64_t)st.st_size;
            ctx->stamp[i].ino = (int64_t)st.st_ino;
        }
    }
}

void
gr_tls_ctx_check_reload(gr_tls_ctx_t *ctx, int64_t now_us)
{
    struct file_stamp old[2];
    SSL_CTX *fresh;
    if (now_us - ctx->checked_us < GR_TLS_RELOAD_CHECK_US)
        return;
    ctx->checked_us = now_us;
    memcpy(old, ctx->stamp, sizeof old);
    stamp_files(ctx);
    if (memcmp(old, ctx->stamp, sizeof old) == 0)
        return;
    /* a file being rewritten may be caught halfway: a failed load keeps
     * the old context and the stamps that failed, so the next change (or
     * the end of the write) is tried again */
    fresh = build(&ctx->cfg, ctx->name);
    if (fresh == NULL) {
        GR_LOG_WARN("listener %s: the changed keystore or truststore could "
                    "not be loaded (above); connections keep the previous "
                    "certificates",
                    ctx->name);
        return;
    }
    SSL_CTX_free(ctx->ssl); /* sessions hold their own reference */
    ctx->ssl = fresh;
    ctx->reloads++;
    GR_LOG_INFO("listener %s: keystore or truststore changed; new "
                "connections use it",
                ctx->name);
}

gr_tls_ctx_t *
gr_tls_ctx_new(const gr_conf_t *conf, const char *name)
{
    gr_tls_ctx_t *ctx = calloc(1, sizeof(*ctx));
    const char *auth, *rules;
    char why[256];
    size_t k;

    if (ctx == NULL)
        return NULL;
    ctx->cfg.conf = conf;
    snprintf(ctx->name, sizeof ctx->name, "%s", name);
    k = (size_t)snprintf(ctx->cfg.prefix, sizeof ctx->cfg.prefix,
                         "listener.name.");
    for (const char *p = name; *p && k + 2 < sizeof ctx->cfg.prefix; p++)
        ctx->cfg.prefix[k++] = (char)tolower((unsigned char)*p);
    ctx->cfg.prefix[k++] = '.';
    ctx->cfg.prefix[k] = '\0';

    rules = val(&ctx->cfg, GR_CONF_SSL_PRINCIPAL_MAPPING_RULES);
    if (gr_tls_map_principal(rules, NULL, NULL, 0, why, sizeof why) != 0) {
        GR_LOG_ERROR("listener %s: invalid ssl.principal.mapping.rules: %s",
                     name, why);
        goto fail;
    }
    if ((ctx->rules = strdup(rules ? rules : "DEFAULT")) == NULL)
        goto fail;
    stamp_files(ctx);
    if ((ctx->ssl = build(&ctx->cfg, name)) == NULL)
        goto fail;
    auth = val(&ctx->cfg, GR_CONF_SSL_CLIENT_AUTH);
    GR_LOG_INFO("listener %s: TLS with %s, ssl.client.auth=%s", name,
                OpenSSL_version(OPENSSL_VERSION), auth ? auth : "none");
    return ctx;
fail:
    gr_tls_ctx_free(ctx);
    return NULL;
}

int
gr_tls_ctx_reloads(const gr_tls_ctx_t *ctx)
{
    return ctx->reloads;
}

void
gr_tls_ctx_free(gr_tls_ctx_t *ctx)
{
    if (ctx == NULL)
        return;
    SSL_CTX_free(ctx->ssl);
    free(ctx->rules);
    free(ctx);
}

/* --- principal mapping (Kafka's SslPrincipalMapper) */

/* One rule from s: DEFAULT, or RULE:pattern/replacement/[LU]; *end past
 * it and its comma. 0 DEFAULT, 1 RULE (pattern and replacement unescaped
 * only of "\/"), -1 invalid. */
static int
next_rule(const char *s, const char **end, char *pat, size_t psz, char *rep,
          size_t rsz, char *flag)
{
    while (*s == ' ' || *s == ',')
        s++;
    if (strncmp(s, "DEFAULT", 7) == 0) {
        s += 7;
        while (*s == ' ')
            s++;
        if (*s != ',' && *s != '\0')
            return -1;
        *end = *s ? s + 1 : s;
        return 0;
    }
    if (strncmp(s, "RULE:", 5) != 0)
        return -1;
    s += 5;
    for (int part = 0; part < 2; part++) {
        char *o = part ? rep : pat;
        size_t cap = part ? rsz : psz, k = 0;
        while (*s && *s != '/') {
            if (*s == '\\' && s[1] != '\0') {
                if (s[1] != '/' && k + 1 < cap)
                    o[k++] = '\\';
                s++;
            }
            if (k + 1 >= cap)
                return -1;
            o[k++] = *s++;
        }
        if (*s != '/')
            return -1;
        s++;
        o[k] = '\0';
    }
    *flag = 0;
    if (*s == 'L' || *s == 'U')
        *flag = *s++;
    while (*s == ' ')
        s++;
    if (*s != ',' && *s != '\0')
        return -1;
    *end = *s ? s + 1 : s;
    return 1;
}

int
gr_tls_map_principal(const char *rules, const char *dn, char *out, size_t n,
                     char *why, size_t why_len)
{
    const char *s = rules && *rules ? rules : "DEFAULT";
    char pat[512], rep[512], flag;
    while (*s) {
        const char *end;
        int r = next_rule(s, &end, pat, sizeof pat, rep, sizeof rep, &flag);
        gr_regex_t re;
        gr_str_t ps;
        regmatch_t m[10];
        if (r < 0) {
            snprintf(why, why_len, "'%s': expected DEFAULT or "
                     "RULE:pattern/replacement/[LU]", s);
            return -1;
        }
        s = end;
        if (r == 0) {
            if (dn != NULL) {
                snprintf(out, n, "%s", dn);
                return 0;
            }
            continue;
        }
        ps.ptr = pat;
        ps.len = (int32_t)strlen(pat);
        if (gr_regex_compile(&re, &ps, why, why_len) != 0)
            return -1;
        gr_regex_free(&re);
        if (dn != NULL &&
            gr_regex_match_groups(&ps, dn, m, 10, why, why_len) == 1) {
            size_t k = 0;
            for (const char *p = rep; *p && k + 1 < n; p++) {
                if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
                    int g = p[1] - '0';
                    p++;
                    if (m[g].rm_so < 0)
                        continue;
                    for (regoff_t i = m[g].rm_so; i < m[g].rm_eo && k + 1 < n;
                         i++)
                        out[k++] = dn[i];
                    continue;
                }
                if (*p == '\\' && p[1] != '\0')
                    p++;
                out[k++] = *p;
            }
            out[k] = '\0';
            for (size_t i = 0; i < k; i++)
                out[i] = (char)(flag == 'L' ? tolower((unsigned char)out[i])
                                : flag == 'U'
                                    ? toupper((unsigned char)out[i])
                                    : out[i]);
            return 0;
        }
    }
    if (dn != NULL)
        snprintf(out, n, "%s", dn);
    return 0;
}

/* --- sessions */

gr_tls_t *
gr_tls_new(gr_tls_ctx_t *ctx, int fd, const char *peer)
{
    gr_tls_t *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->ssl = SSL_new(ctx->ssl);
    if (t->ssl == NULL || SSL_set_fd(t->ssl, fd) != 1) {
        SSL_free(t->ssl);
        free(t);
        ERR_clear_error();
        return NULL;
    }
    t->ctx = ctx;
    SSL_set_accept_state(t->ssl);
    snprintf(t->peer, sizeof t->peer, "%s", peer);
    return t;
}

void
gr_tls_free(gr_tls_t *t)
{
    if (t == NULL)
        return;
    if (t->done && !t->shutdown)
        SSL_shutdown(t->ssl); /* one close_notify, not waiting */
    SSL_free(t->ssl);
    ERR_clear_error();
    free(t);
}

static void
handshake_done(gr_tls_t *t)
{
    X509 *x = SSL_get1_peer_certificate(t->ssl);
    char dn[400] = "", mapped[400];
    char why[128];
    t->done = true;
    if (x != NULL) {
        BIO *b = BIO_new(BIO_s_mem());
        if (b != NULL) {
            int len;
            X509_NAME_print_ex(b, X509_get_subject_name(x), 0,
                               XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
            len = BIO_read(b, dn, sizeof dn - 1);
            dn[len > 0 ? len : 0] = '\0';
            BIO_free(b);
        }
        X509_free(x);
        if (gr_tls_map_principal(t->ctx->rules, dn, mapped, sizeof mapped,
                                 why, sizeof why) != 0)
            snprintf(mapped, sizeof mapped, "%s", dn);
        snprintf(t->principal, sizeof t->principal, "User:%s", mapped);
    } else {
        snprintf(t->principal, sizeof t->principal, "User:ANONYMOUS");
    }
    t->ktls_send = BIO_get_ktls_send(SSL_get_wbio(t->ssl)) > 0;
    GR_LOG_DEBUG("TLS from %s on %s: %s %s, principal %s%s", t->peer,
                 t->ctx->name, SSL_get_version(t->ssl),
                 SSL_get_cipher_name(t->ssl), t->principal,
                 t->ktls_send ? ", kTLS send" : "");
}

/* Maps SSL_get_error after a call that returned r <= 0. */
static ssize_t
fail(gr_tls_t *t, int r, int w)
{
    int e = SSL_get_error(t->ssl, r);
    unsigned long q;
    switch (e) {
    case SSL_ERROR_WANT_READ:
        t->wants[w] = GR_TLS_WANT_READ;
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_WANT_WRITE:
        t->wants[w] = GR_TLS_WANT_WRITE;
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        t->shutdown = true;
        if (errno == 0)
            return 0;
        snprintf(t->err, sizeof t->err, "%s", strerror(errno));
        ERR_clear_error();
        return -1;
    default:
        t->shutdown = true;
        q = ERR_get_error();
        if (q != 0)
            ERR_error_string_n(q, t->err, sizeof t->err);
        else
            snprintf(t->err, sizeof t->err, "TLS error %d", e);
        ERR_clear_error();
        if (!t->done) {
            /* as Kafka's "Failed authentication with ... (SSL handshake
             * failed)" */
            GR_LOG_INFO("failed authentication with %s on %s (SSL handshake "
                        "failed): %s",
                        t->peer, t->ctx->name, t->err);
        }
        errno = EPROTO;
        return -1;
    }
}

ssize_t
gr_tls_read(gr_tls_t *t, void *buf, size_t n)
{
    int r;
    t->wants[0] = 0;
    ERR_clear_error();
    if (!t->done) {
        r = SSL_do_handshake(t->ssl);
        if (r != 1)
            return fail(t, r, 0);
        handshake_done(t);
    }
    r = SSL_read(t->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (r > 0)
        return r;
    return fail(t, r, 0);
}

ssize_t
gr_tls_write(gr_tls_t *t, const void *buf, size_t n)
{
    int r;
    t->wants[1] = 0;
    ERR_clear_error();
    if (n == 0)
        return 0;
    r = SSL_write(t->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (r > 0)
        return r;
    return fail(t, r, 1);
}

ssize_t
gr_tls_sendfile(gr_tls_t *t, int fd, int64_t off, size_t n)
{
    uint8_t buf[FILE_CHUNK];
    ssize_t got;
    if (t->ktls_send) {
        ossl_ssize_t r;
        t->wants[1] = 0;
        ERR_clear_error();
        r = SSL_sendfile(t->ssl, fd, (off_t)off, n, 0);
        if (r > 0)
            return r;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            t->wants[1] = GR_TLS_WANT_WRITE;
            return -1;
        }
        return fail(t, (int)r, 1);
    }
    if (n > sizeof buf)
        n = sizeof buf;
    do {
        got = pread(fd, buf, n, (off_t)off);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {
        snprintf(t->err, sizeof t->err, "file read: %s",
                 got == 0 ? "short file" : strerror(errno));
        errno = EIO;
        return -1;
    }
    return gr_tls_write(t, buf, (size_t)got);
}

int
gr_tls_wants(const gr_tls_t *t, bool writing)
{
    return t->wants[writing];
}

size_t
gr_tls_pending(const gr_tls_t *t)
{
    int p = SSL_pending(t->ssl);
    return p > 0 ? (size_t)p : 0;
}

bool
gr_tls_handshake_done(const gr_tls_t *t)
{
    return t->done;
}

bool
gr_tls_ktls_send(const gr_tls_t *t)
{
    return t->ktls_send;
}

const char *
gr_tls_principal(const gr_tls_t *t)
{
    return t->principal;
}

const char *
gr_tls_error(const gr_tls_t *t)
{
    return t->err[0] ? t->err : "TLS error";
}
