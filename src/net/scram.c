/* SCRAM: see scram.h. */
#include "net/scram.h"
#include "broker.h"
#include "core/fault.h"
#include "core/file.h"
#include "core/log.h"
#include "core/str.h"
#include "core/worker.h"
#include "net/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

const char *
gr_scram_mech_name(int type)
{
    return type == GR_SCRAM_SHA_256   ? "SCRAM-SHA-256"
           : type == GR_SCRAM_SHA_512 ? "SCRAM-SHA-512"
                                      : NULL;
}

size_t
gr_scram_hash_len(int type)
{
    return type == GR_SCRAM_SHA_256 ? 32 : type == GR_SCRAM_SHA_512 ? 64 : 0;
}

static const EVP_MD *
md_of(int type)
{
    return type == GR_SCRAM_SHA_256   ? EVP_sha256()
           : type == GR_SCRAM_SHA_512 ? EVP_sha512()
                                      : NULL;
}

int
gr_scram_salted_password(int type, const char *password, size_t plen,
                         const uint8_t *salt, size_t slen, int iterations,
                         uint8_t *out)
{
    const EVP_MD *md = md_of(type);
    if (md == NULL || plen > INT_MAX || slen > INT_MAX)
        return -1;
    return PKCS5_PBKDF2_HMAC(password, (int)plen, salt, (int)slen, iterations,
                             md, (int)gr_scram_hash_len(type), out) == 1
               ? 0
               : -1;
}

int
gr_scram_hmac(int type, const uint8_t *key, size_t klen, const void *data,
              size_t dlen, uint8_t *out)
{
    const EVP_MD *md = md_of(type);
    unsigned int n = 0;
    if (md == NULL || klen > INT_MAX)
        return -1;
    return HMAC(md, key, (int)klen, data, dlen, out, &n) != NULL ? 0 : -1;
}

int
gr_scram_hash(int type, const void *data, size_t dlen, uint8_t *out)
{
    const EVP_MD *md = md_of(type);
    unsigned int n = 0;
    if (md == NULL)
        return -1;
    return EVP_Digest(data, dlen, out, &n, md, NULL) == 1 ? 0 : -1;
}

int
gr_scram_keys(int type, const uint8_t *salted, uint8_t *stored_key,
              uint8_t *server_key)
{
    size_t h = gr_scram_hash_len(type);
    uint8_t client_key[GR_SCRAM_MAX_HASH];
    int rc = 0;
    if (h == 0)
        return -1;
    if (gr_scram_hmac(type, salted, h, "Client Key", 10, client_key) != 0 ||
        gr_scram_hash(type, client_key, h, stored_key) != 0 ||
        gr_scram_hmac(type, salted, h, "Server Key", 10, server_key) != 0)
        rc = -1;
    OPENSSL_cleanse(client_key, sizeof client_key);
    return rc;
}

/* --- messages (Kafka's ScramMessages regular expressions) */

/* saslname: ([\x01-\x7F] but '=' and ',' | "=2C" | "=3D")+, decoded
 * into out. The length taken, or 0 when none or out is too small. */
static size_t
take_saslname(const char *p, const char *end, char *out, size_t n)
{
    const char *s = p;
    size_t k = 0;
    while (p < end && *p != ',') {
        unsigned char c = (unsigned char)*p;
        if (c == '=') {
            if (end - p >= 3 && p[1] == '2' && p[2] == 'C')
                c = ',';
            else if (end - p >= 3 && p[1] == '3' && p[2] == 'D')
                c = '=';
            else
                return 0;
            p += 3;
        } else if (c >= 0x01 && c <= 0x7f) {
            p++;
        } else {
            return 0;
        }
        if (k + 1 >= n)
            return 0;
        out[k++] = (char)c;
    }
    out[k] = '\0';
    return (size_t)(p - s);
}

/* printable: [\x21-\x7E] but ','; the length taken */
static size_t
take_printable(const char *p, const char *end)
{
    const char *s = p;
    while (p < end && *p >= 0x21 && *p <= 0x7e && *p != ',')
        p++;
    return (size_t)(p - s);
}

/* value: [\x01-\x7F] but ','; the length taken */
static size_t
take_value(const char *p, const char *end)
{
    const char *s = p;
    while (p < end && *(const unsigned char *)p >= 0x01 &&
           *(const unsigned char *)p <= 0x7f && *p != ',')
        p++;
    return (size_t)(p - s);
}

/* nonce: ",r=" and printable text, into *nonce and *len; the length
 * taken, or 0 */
static size_t
take_nonce(const char *p, const char *end, const char **nonce, size_t *len)
{
    size_t k;
    if (end - p < 3 || p[0] != ',' || p[1] != 'r' || p[2] != '=' ||
        (k = take_printable(p + 3, end)) == 0)
        return 0;
    *nonce = p + 3;
    *len = k;
    return 3 + k;
}

/* extensions: (",alpha=value")* up to end or stop (",p=" for the final
 * message); tokenauth=true noted. The length taken, or -1. */
static long
take_extensions(const char *p, const char *end, bool final, bool *tokenauth)
{
    const char *s = p;
    while (p < end) {
        const char *k, *eq;
        size_t vl;
        if (*p != ',')
            return -1;
        if (final && end - p >= 3 && p[1] == 'p' && p[2] == '=')
            break;
        k = ++p;
        while (p < end &&
               ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            p++;
        if (p == k || p >= end || *p != '=')
            return -1;
        eq = p++;
        vl = take_value(p, end);
        if (vl == 0)
            return -1;
        if (tokenauth != NULL && eq - k == 9 && !memcmp(k, "tokenauth", 9) &&
            vl == 4 && !strncasecmp(p, "true", 4))
            *tokenauth = true;
        p += vl;
    }
    return (long)(p - s);
}

int
gr_scram_parse_client_first(const uint8_t *in, size_t len,
                            gr_scram_client_first_t *m, char *err, size_t n)
{
    const char *p = (const char *)in, *end = p + len;
    size_t k;
    long e;

    memset(m, 0, sizeof *m);
    if (len < 2 || p[0] != 'n' || p[1] != ',')
        goto bad;
    p += 2;
    if (p < end && *p == 'a') {
        if (end - p < 2 || p[1] != '=')
            goto bad;
        p += 2;
        if ((k = take_saslname(p, end, m->authzid, sizeof m->authzid)) == 0)
            goto bad;
        p += k;
    }
    if (p >= end || *p != ',')
        goto bad;
    p++;
    m->bare = p;
    m->bare_len = (size_t)(end - p);
    if (end - p >= 2 && p[0] == 'm' && p[1] == '=') {
        p += 2;
        if ((k = take_value(p, end)) == 0 || p + k >= end || p[k] != ',')
            goto bad;
        p += k + 1;
        m->bare = p; /* Kafka's bare message starts at n= */
        m->bare_len = (size_t)(end - p);
    }
    if (end - p < 2 || p[0] != 'n' || p[1] != '=')
        goto bad;
    p += 2;
    if ((k = take_saslname(p, end, m->user, sizeof m->user)) == 0)
        goto bad;
    p += k;
    if ((k = take_nonce(p, end, &m->nonce, &m->nonce_len)) == 0)
        goto bad;
    p += k;
    if ((e = take_extensions(p, end, false, &m->tokenauth)) < 0 || p + e != end)
        goto bad;
    return 0;
bad:
    snprintf(err, n, "Invalid SCRAM client first message format: %.*s",
             (int)(len > 200 ? 200 : len), (const char *)in);
    return -1;
}

/* base64 text: the length taken (a multiple of 4 that decodes) */
static size_t
take_base64(const char *p, const char *end)
{
    const char *s = p;
    while (p < end &&
           (gr_base64_value((unsigned char)*p, 0) >= 0 || *p == '='))
        p++;
    return (size_t)(p - s);
}

int
gr_scram_parse_client_final(const uint8_t *in, size_t len,
                            gr_scram_client_final_t *m, char *err, size_t n)
{
    const char *p = (const char *)in, *end = p + len;
    uint8_t cb[256];
    size_t k;
    long e;

    memset(m, 0, sizeof *m);
    if (len < 2 || p[0] != 'c' || p[1] != '=')
        goto bad;
    p += 2;
    k = take_base64(p, end);
    if (k > 4 * (sizeof cb / 3) || gr_base64_decode(p, k, cb) < 0)
        goto bad;
    p += k;
    if ((k = take_nonce(p, end, &m->nonce, &m->nonce_len)) == 0)
        goto bad;
    p += k;
    if ((e = take_extensions(p, end, true, NULL)) < 0)
        goto bad;
    p += e;
    m->without_proof = (const char *)in;
    m->without_proof_len = (size_t)(p - (const char *)in);
    if (end - p < 3 || p[0] != ',' || p[1] != 'p' || p[2] != '=')
        goto bad;
    p += 3;
    k = (size_t)(end - p);
    if (take_base64(p, end) != k || k > 4 * ((GR_SCRAM_MAX_HASH + 2) / 3))
        goto bad;
    {
        long got = gr_base64_decode(p, k, m->proof);
        if (got < 0)
            goto bad;
        m->proof_len = (size_t)got;
    }
    return 0;
bad:
    snprintf(err, n, "Invalid SCRAM client final message format: %.*s",
             (int)(len > 200 ? 200 : len), (const char *)in);
    return -1;
}

/* --- the store */

typedef struct write_job {
    char *dir, *path;
    char *data;
    size_t len;
    int err; /* errno, on the worker */
    void (*cb)(void *arg, int err);
    void *arg;
} write_job_t;

struct gr_scram_store {
    char *dir;  /* <log dir>/gregor-configs (NULL in a copy) */
    char *path; /* .../scram-credentials */
    gr_scram_cred_t *creds;
    int ncreds, cap;
};

static void
cred_fini(gr_scram_cred_t *c)
{
    free(c->user);
    OPENSSL_clear_free(c->salt, c->salt_len);
    OPENSSL_cleanse(c->stored_key, sizeof c->stored_key);
    OPENSSL_cleanse(c->server_key, sizeof c->server_key);
}

const gr_scram_cred_t *
gr_scram_store_get(const gr_scram_store_t *s, const char *user, int type)
{
    if (s == NULL)
        return NULL;
    for (int i = 0; i < s->ncreds; i++)
        if (s->creds[i].type == type && strcmp(s->creds[i].user, user) == 0)
            return &s->creds[i];
    return NULL;
}

const gr_scram_cred_t *
gr_scram_store_at(const gr_scram_store_t *s, int i)
{
    return s != NULL && i >= 0 && i < s->ncreds ? &s->creds[i] : NULL;
}

int
gr_scram_store_set(gr_scram_store_t *s, const char *user, int type,
                   int32_t iterations, const uint8_t *salt, size_t salt_len,
                   const uint8_t *stored_key, const uint8_t *server_key)
{
    size_t h = gr_scram_hash_len(type);
    gr_scram_cred_t *c = NULL;
    for (int i = 0; i < s->ncreds; i++)
        if (s->creds[i].type == type && strcmp(s->creds[i].user, user) == 0)
            c = &s->creds[i];
    if (salt == NULL) {
        if (c != NULL) {
            cred_fini(c);
            *c = s->creds[--s->ncreds];
        }
        return 0;
    }
    if (h == 0)
        return -1;
    if (c == NULL) {
        if (s->ncreds == s->cap) {
            int cap = s->cap ? s->cap * 2 : 16;
            gr_scram_cred_t *n = realloc(s->creds, sizeof(*n) * (size_t)cap);
            if (n == NULL)
                return -1;
            s->creds = n;
            s->cap = cap;
        }
        c = &s->creds[s->ncreds];
        memset(c, 0, sizeof *c);
        if ((c->user = strdup(user)) == NULL)
            return -1;
        c->type = type;
        s->ncreds++;
    }
    {
        uint8_t *ns = malloc(salt_len ? salt_len : 1);
        if (ns == NULL)
            return -1;
        memcpy(ns, salt, salt_len);
        OPENSSL_clear_free(c->salt, c->salt_len);
        c->salt = ns;
        c->salt_len = salt_len;
    }
    c->iterations = iterations;
    memcpy(c->stored_key, stored_key, h);
    memcpy(c->server_key, server_key, h);
    return 0;
}

/* One line of the file into s. 0 or -1. */
static int
load_line(gr_scram_store_t *s, char *line)
{
    char *f[6], *save = NULL;
    uint8_t salt[1024], sk[GR_SCRAM_MAX_HASH + 3], vk[GR_SCRAM_MAX_HASH + 3];
    char user[1024];
    long sl, kl, vl, ul;
    int type, n = 0;
    long it;
    for (char *t = strtok_r(line, " ", &save); t && n < 6;
         t = strtok_r(NULL, " ", &save))
        f[n++] = t;
    if (n != 6)
        return -1;
    type = !strcmp(f[0], "SCRAM-SHA-256")   ? GR_SCRAM_SHA_256
           : !strcmp(f[0], "SCRAM-SHA-512") ? GR_SCRAM_SHA_512
                                            : 0;
    it = strtol(f[1], NULL, 10);
    if (type == 0 || it <= 0 || strlen(f[2]) > 4 * sizeof salt / 3 ||
        strlen(f[3]) > 4 * sizeof sk / 3 || strlen(f[4]) > 4 * sizeof vk / 3 ||
        strlen(f[5]) >= 4 * (sizeof user - 1) / 3)
        return -1;
    sl = gr_base64_decode(f[2], strlen(f[2]), salt);
    kl = gr_base64_decode(f[3], strlen(f[3]), sk);
    vl = gr_base64_decode(f[4], strlen(f[4]), vk);
    ul = gr_base64_decode(f[5], strlen(f[5]), (uint8_t *)user);
    if (sl < 0 || ul <= 0 || kl != (long)gr_scram_hash_len(type) ||
        vl != (long)gr_scram_hash_len(type))
        return -1;
    user[ul] = '\0';
    return gr_scram_store_set(s, user, type, (int32_t)it, salt, (size_t)sl, sk,
                              vk);
}

gr_scram_store_t *
gr_scram_store_open(const char *dir)
{
    gr_scram_store_t *s = calloc(1, sizeof(*s));
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    FILE *f;

    if (s == NULL || asprintf(&s->dir, "%s/gregor-configs", dir) < 0 ||
        asprintf(&s->path, "%s/scram-credentials", s->dir) < 0) {
        if (s)
            free(s->dir);
        free(s);
        return NULL;
    }
    f = fopen(s->path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return s;
        GR_LOG_ERROR("cannot read %s: %s", s->path, strerror(errno));
        gr_scram_store_close(s);
        return NULL;
    }
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (load_line(s, line) != 0) {
            GR_LOG_ERROR("%s:%d: not a SCRAM credential line", s->path, lineno);
            OPENSSL_clear_free(line, cap);
            fclose(f);
            gr_scram_store_close(s);
            return NULL;
        }
    }
    OPENSSL_clear_free(line, cap);
    fclose(f);
    GR_LOG_INFO("loaded %d SCRAM credentials from %s", s->ncreds, s->path);
    return s;
}

void
gr_scram_store_close(gr_scram_store_t *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->ncreds; i++)
        cred_fini(&s->creds[i]);
    free(s->creds);
    free(s->dir);
    free(s->path);
    free(s);
}

gr_scram_store_t *
gr_scram_store_copy(const gr_scram_store_t *s)
{
    gr_scram_store_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    for (int i = 0; i < s->ncreds; i++) {
        const gr_scram_cred_t *x = &s->creds[i];
        if (gr_scram_store_set(c, x->user, x->type, x->iterations, x->salt,
                               x->salt_len, x->stored_key,
                               x->server_key) != 0) {
            gr_scram_store_close(c);
            return NULL;
        }
    }
    return c;
}

void
gr_scram_store_install(gr_scram_store_t *s, gr_scram_store_t *copy)
{
    for (int i = 0; i < s->ncreds; i++)
        cred_fini(&s->creds[i]);
    free(s->creds);
    s->creds = copy->creds;
    s->ncreds = copy->ncreds;
    s->cap = copy->cap;
    copy->creds = NULL;
    copy->ncreds = copy->cap = 0;
    gr_scram_store_close(copy);
}

static char *
serialize(const gr_scram_store_t *s, size_t *len)
{
    char *data = NULL;
    FILE *f = open_memstream(&data, len);
    if (f == NULL)
        return NULL;
    fputs("# Gregor SCRAM credentials (AlterUserScramCredentials); written "
          "by the broker.\n# mechanism iterations salt stored-key "
          "server-key user (base64)\n",
          f);
    for (int i = 0; i < s->ncreds; i++) {
        const gr_scram_cred_t *c = &s->creds[i];
        size_t h = gr_scram_hash_len(c->type), ul = strlen(c->user);
        char *sb = malloc(4 * (c->salt_len / 3 + 1) + 1);
        char *ub = malloc(4 * (ul / 3 + 1) + 1);
        char kb[4 * (GR_SCRAM_MAX_HASH / 3 + 1) + 1];
        char vb[sizeof kb];
        if (sb == NULL || ub == NULL) {
            free(sb);
            free(ub);
            fclose(f);
            free(data);
            return NULL;
        }
        gr_base64_encode(c->salt, c->salt_len, sb);
        gr_base64_encode((const uint8_t *)c->user, ul, ub);
        gr_base64_encode(c->stored_key, h, kb);
        gr_base64_encode(c->server_key, h, vb);
        fprintf(f, "%s %d %s %s %s %s\n", gr_scram_mech_name(c->type),
                (int)c->iterations, sb, kb, vb, ub);
        free(sb);
        free(ub);
    }
    if (fclose(f) != 0) {
        free(data);
        return NULL;
    }
    return data;
}

/* On a worker: the file written whole, durably. */
static void
write_work(void *arg)
{
    write_job_t *j = arg;
    char tmp[PATH_MAX];
    j->err = 0;
    if (GR_FAULT("scram.store", j->path)) {
        j->err = EIO;
        return;
    }
    if (mkdir(j->dir, 0755) != 0 && errno != EEXIST) {
        j->err = errno;
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", j->path);
    j->err = gr_file_replace(j->path, tmp, j->data, j->len, 0600, true);
    if (j->err == 0)
        j->err = gr_fsync_dir(j->dir);
}

static void
job_free(write_job_t *j)
{
    if (j == NULL)
        return;
    if (j->data != NULL)
        OPENSSL_clear_free(j->data, j->len);
    free(j->dir);
    free(j->path);
    free(j);
}

static void
write_done(gr_loop_t *loop, void *arg)
{
    write_job_t *j = arg;
    (void)loop;
    if (j->err != 0)
        GR_LOG_ERROR("cannot persist %s: %s", j->path, strerror(j->err));
    j->cb(j->arg, j->err);
    job_free(j);
}

void
gr_scram_store_write(gr_broker_t *b, const gr_scram_store_t *s,
                     const gr_scram_store_t *what,
                     void (*cb)(void *arg, int err), void *arg)
{
    write_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL || (j->dir = strdup(s->dir)) == NULL ||
        (j->path = strdup(s->path)) == NULL ||
        (j->data = serialize(what, &j->len)) == NULL) {
        job_free(j);
        cb(arg, ENOMEM);
        return;
    }
    j->cb = cb;
    j->arg = arg;
    if (gr_workers_submit(b->workers, write_work, write_done, j) != 0) {
        j->err = ENOMEM;
        write_done(b->loop, j);
    }
}
