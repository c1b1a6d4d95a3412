/*
 * The authorizer's ACL set and check (acl.h has the rules). Invariants:
 * s->acls holds every binding once, in creation order; after
 * gr_acls_commit() the index (s->ix) covers exactly them: ix->sorted is
 * s->acls ordered by (type, pattern, name), ix->res one entry per
 * resource pointing at its run in sorted, ix->lit an open-addressing
 * table (power of two, at most half full) of the LITERAL resources, and
 * ix->pre[type] the PREFIXED resources of a type ordered by name;
 * s->dedup, when there, holds every record of s->acls.
 */
#include "auth/acl.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

typedef struct acl_rec {
    gr_acl_t acl;
    size_t name_len;
    /* a CIDR host ("10.0.0.0/8", "fd00::/8"): parsed once */
    bool gone; /* taken out by gr_acls_remove(), freed by the commit */
    bool cidr, cidr6;
    uint8_t net[16];
    int bits;
} acl_rec_t;

typedef struct res {
    int8_t type, pattern;
    const char *name;
    size_t name_len;
    uint32_t first, cnt; /* run in ix->sorted */
} res_t;

typedef struct index {
    acl_rec_t **sorted;
    res_t *res;
    uint32_t nres;
    uint32_t *lit; /* res index + 1; 0: empty */
    uint32_t lit_mask;
    uint32_t *pre[GR_RES__COUNT]; /* res indexes, by name */
    uint32_t npre[GR_RES__COUNT];
} index_t;

struct gr_acls {
    acl_rec_t **acls;
    size_t n, cap;
    /* every record of acls by its whole binding (open addressing, power
     * of two, at most half full), so an add finds one already present
     * without a scan; NULL until the first add after a commit (which
     * frees records) or when out of memory: the scan then */
    acl_rec_t **dedup;
    size_t dedup_cap, dedup_n;
    char **supers;
    int nsupers;
    bool allow_if_none;
    index_t ix;
};

static const char *const res_names[] = {
    "UNKNOWN",          "ANY",  "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID",
    "DELEGATION_TOKEN", "USER",
};
static const char *const op_names[] = {
    "UNKNOWN",
    "ANY",
    "ALL",
    "READ",
    "WRITE",
    "CREATE",
    "DELETE",
    "ALTER",
    "DESCRIBE",
    "CLUSTER_ACTION",
    "DESCRIBE_CONFIGS",
    "ALTER_CONFIGS",
    "IDEMPOTENT_WRITE",
    "CREATE_TOKENS",
    "DESCRIBE_TOKENS",
    "TWO_PHASE_COMMIT",
};
static const char *const pat_names[] = { "UNKNOWN", "ANY", "MATCH", "LITERAL",
                                         "PREFIXED" };
static const char *const perm_names[] = { "UNKNOWN", "ANY", "DENY", "ALLOW" };

const char *
gr_acl_res_name(int type)
{
    return type >= 0 && type < GR_RES__COUNT ? res_names[type] : "UNKNOWN";
}

const char *
gr_acl_op_name(int op)
{
    return op >= 0 && op < GR_OP__COUNT ? op_names[op] : "UNKNOWN";
}

const char *
gr_acl_pattern_name(int pattern)
{
    return pattern >= 0 && pattern <= GR_PAT_PREFIXED ? pat_names[pattern]
                                                      : "UNKNOWN";
}

const char *
gr_acl_perm_name(int perm)
{
    return perm >= 0 && perm <= GR_PERM_ALLOW ? perm_names[perm] : "UNKNOWN";
}

/* --- construction */

gr_acls_t *
gr_acls_new(const char *super_users, bool allow_if_none)
{
    gr_acls_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->allow_if_none = allow_if_none;
    for (const char *p = super_users; p != NULL && *p;) {
        const char *e = strchr(p, ';');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *b = p;
        char **v;
        while (n > 0 && isspace((unsigned char)*b))
            b++, n--;
        while (n > 0 && isspace((unsigned char)b[n - 1]))
            n--;
        if (n > 0) {
            v = realloc(s->supers, (s->nsupers + 1) * sizeof *v);
            if (v == NULL || (v[s->nsupers] = strndup(b, n)) == NULL) {
                if (v != NULL)
                    s->supers = v;
                gr_acls_destroy(s);
                return NULL;
            }
            s->supers = v;
            s->nsupers++;
        }
        p = e ? e + 1 : p + strlen(p);
    }
    return s;
}

static void
index_free(index_t *ix)
{
    free(ix->sorted);
    free(ix->res);
    free(ix->lit);
    for (int t = 0; t < GR_RES__COUNT; t++)
        free(ix->pre[t]);
    memset(ix, 0, sizeof *ix);
}

static void
rec_free(acl_rec_t *r)
{
    if (r == NULL)
        return;
    free((char *)r->acl.name);
    free((char *)r->acl.principal);
    free((char *)r->acl.host);
    free(r);
}

void
gr_acls_destroy(gr_acls_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        rec_free(s->acls[i]);
    free(s->acls);
    free(s->dedup);
    for (int i = 0; i < s->nsupers; i++)
        free(s->supers[i]);
    free(s->supers);
    index_free(&s->ix);
    free(s);
}

gr_acls_t *
gr_acls_copy(const gr_acls_t *s)
{
    gr_acls_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->allow_if_none = s->allow_if_none;
    c->supers = calloc(s->nsupers ? (size_t)s->nsupers : 1, sizeof *c->supers);
    c->acls = malloc((s->n ? s->n : 1) * sizeof *c->acls);
    if (c->supers == NULL || c->acls == NULL)
        goto oom;
    c->cap = s->n ? s->n : 1;
    for (; c->nsupers < s->nsupers; c->nsupers++)
        if ((c->supers[c->nsupers] = strdup(s->supers[c->nsupers])) == NULL)
            goto oom;
    /* record by record: gr_acls_add() would look for each among the
     * others (n^2) */
    for (size_t i = 0; i < s->n; i++) {
        const acl_rec_t *o = s->acls[i];
        acl_rec_t *r;
        if (o->gone)
            continue;
        if ((r = malloc(sizeof *r)) == NULL)
            goto oom;
        *r = *o;
        r->acl.name = strdup(o->acl.name);
        r->acl.principal = strdup(o->acl.principal);
        r->acl.host = strdup(o->acl.host);
        c->acls[c->n++] = r;
        if (r->acl.name == NULL || r->acl.principal == NULL ||
            r->acl.host == NULL)
            goto oom;
    }
    return c;
oom:
    gr_acls_destroy(c);
    return NULL;
}

size_t
gr_acls_count(const gr_acls_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += !s->acls[i]->gone;
    return n;
}

/* "a.b.c.d/n" or an IPv6 "x::/n" into net and bits; -1 when invalid. */
static int
parse_cidr(const char *host, bool *v6, uint8_t net[16], int *bits)
{
    char addr[64], *end;
    const char *slash = strchr(host, '/');
    long n;
    size_t alen;

    if (slash == NULL || (alen = (size_t)(slash - host)) >= sizeof addr)
        return -1;
    memcpy(addr, host, alen);
    addr[alen] = '\0';
    *v6 = strchr(addr, ':') != NULL;
    if (inet_pton(*v6 ? AF_INET6 : AF_INET, addr, net) != 1)
        return -1;
    if (!isdigit((unsigned char)slash[1]))
        return -1;
    n = strtol(slash + 1, &end, 10);
    if (*end != '\0' || n < 0 || n > (*v6 ? 128 : 32))
        return -1;
    *bits = (int)n;
    return 0;
}

const char *
gr_acl_invalid(const gr_acl_t *acl, char *buf, size_t n)
{
    /* AclApis.handleCreateAcls first */
    if (acl->res_type == GR_RES_CLUSTER &&
        strcmp(acl->name, GR_ACL_CLUSTER_NAME) != 0)
        return "The only valid name for the CLUSTER resource is "
               "kafka-cluster";
    if (acl->name[0] == '\0')
        return "Invalid empty resource name";
    /* then AclControlManager.validateNewAcl */
    if (acl->res_type < GR_RES_TOPIC || acl->res_type >= GR_RES__COUNT)
        return acl->res_type == GR_RES_ANY ? "Invalid resourceType ANY"
                                           : "Invalid resourceType UNKNOWN";
    if (acl->pattern != GR_PAT_LITERAL && acl->pattern != GR_PAT_PREFIXED)
        return acl->pattern == GR_PAT_MATCH ? "Invalid patternType MATCH"
               : acl->pattern == GR_PAT_ANY ? "Invalid patternType ANY"
                                            : "Invalid patternType UNKNOWN";
    if (acl->op < GR_OP_ALL || acl->op >= GR_OP__COUNT)
        return acl->op == GR_OP_ANY ? "Invalid operation ANY"
                                    : "Invalid operation UNKNOWN";
    if (acl->perm != GR_PERM_DENY && acl->perm != GR_PERM_ALLOW)
        return acl->perm == GR_PERM_ANY ? "Invalid permissionType ANY"
                                        : "Invalid permissionType UNKNOWN";
    if (strchr(acl->principal, ':') == NULL) {
        snprintf(buf, n,
                 "Could not parse principal from `%s` (no colon is present "
                 "separating the principal type from the principal name)",
                 acl->principal);
        return buf;
    }
    if (acl->host[0] == '\0')
        return "Host pattern cannot be null or empty";
    if (strcmp(acl->host, "*") != 0 && strchr(acl->host, '/') != NULL) {
        bool v6;
        uint8_t net[16];
        int bits;
        if (parse_cidr(acl->host, &v6, net, &bits) != 0) {
            snprintf(buf, n, "Invalid CIDR notation '%s': Could not parse [%s]",
                     acl->host, acl->host);
            return buf;
        }
    }
    return NULL;
}

static bool
acl_eq(const gr_acl_t *a, const gr_acl_t *b)
{
    return a->res_type == b->res_type && a->pattern == b->pattern &&
           a->op == b->op && a->perm == b->perm &&
           strcmp(a->name, b->name) == 0 &&
           strcmp(a->principal, b->principal) == 0 &&
           strcmp(a->host, b->host) == 0;
}

static uint32_t
binding_hash(const gr_acl_t *a)
{
    uint32_t h = gr_hash(a->name, strlen(a->name));
    h = h * 31u + gr_hash(a->principal, strlen(a->principal));
    h = h * 31u + gr_hash(a->host, strlen(a->host));
    return h ^ ((uint32_t)(uint8_t)a->res_type << 24 |
                (uint32_t)(uint8_t)a->pattern << 16 |
                (uint32_t)(uint8_t)a->op << 8 | (uint32_t)(uint8_t)a->perm);
}

static void
dedup_put(acl_rec_t **t, size_t cap, acl_rec_t *r)
{
    size_t i = binding_hash(&r->acl) & (cap - 1);
    while (t[i] != NULL)
        i = (i + 1) & (cap - 1);
    t[i] = r;
}

/* The table again, for s->acls and room to grow; left NULL (the scan)
 * when out of memory. */
static void
dedup_build(gr_acls_t *s)
{
    size_t cap = 16;
    while (cap < 4 * (s->n + 1))
        cap *= 2;
    free(s->dedup);
    s->dedup_n = 0;
    s->dedup_cap = 0;
    if ((s->dedup = calloc(cap, sizeof *s->dedup)) == NULL)
        return;
    s->dedup_cap = cap;
    for (size_t i = 0; i < s->n; i++)
        dedup_put(s->dedup, cap, s->acls[i]);
    s->dedup_n = s->n;
}

/* The live record of binding acl, or NULL. */
static const acl_rec_t *
find_binding(const gr_acls_t *s, const gr_acl_t *acl)
{
    if (s->dedup == NULL) {
        for (size_t i = 0; i < s->n; i++)
            if (!s->acls[i]->gone && acl_eq(&s->acls[i]->acl, acl))
                return s->acls[i];
        return NULL;
    }
    for (size_t i = binding_hash(acl) & (s->dedup_cap - 1);
         s->dedup[i] != NULL; i = (i + 1) & (s->dedup_cap - 1))
        if (!s->dedup[i]->gone && acl_eq(&s->dedup[i]->acl, acl))
            return s->dedup[i];
    return NULL;
}

int
gr_acls_add(gr_acls_t *s, const gr_acl_t *acl)
{
    acl_rec_t *r;

    if (find_binding(s, acl) != NULL)
        return 0; /* Kafka: "Not creating ACL since it already exists" */
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        acl_rec_t **v = realloc(s->acls, cap * sizeof *v);
        if (v == NULL)
            return -1;
        s->acls = v;
        s->cap = cap;
    }
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return -1;
    r->acl = *acl;
    r->acl.name = strdup(acl->name);
    r->acl.principal = strdup(acl->principal);
    r->acl.host = strdup(acl->host);
    if (r->acl.name == NULL || r->acl.principal == NULL ||
        r->acl.host == NULL) {
        rec_free(r);
        return -1;
    }
    r->name_len = strlen(r->acl.name);
    if (strcmp(r->acl.host, "*") != 0 && strchr(r->acl.host, '/') != NULL &&
        parse_cidr(r->acl.host, &r->cidr6, r->net, &r->bits) == 0)
        r->cidr = true;
    s->acls[s->n++] = r;
    if (s->dedup == NULL || 2 * (s->dedup_n + 1) > s->dedup_cap) {
        dedup_build(s);
    } else {
        dedup_put(s->dedup, s->dedup_cap, r);
        s->dedup_n++;
    }
    return 0;
}

/* --- filters (AclBindingFilter.matches) */

static bool
str_any(const gr_str_t *f)
{
    return f == NULL || f->len < 0;
}

bool
gr_acl_filter_matches(const gr_acl_filter_t *f, const gr_acl_t *acl)
{
    /* ResourcePatternFilter.matches */
    if (f->res_type != GR_RES_ANY && f->res_type != acl->res_type)
        return false;
    if (f->pattern != GR_PAT_ANY && f->pattern != GR_PAT_MATCH &&
        f->pattern != acl->pattern)
        return false;
    if (!str_any(f->name)) {
        if (f->pattern == GR_PAT_ANY || f->pattern == acl->pattern) {
            if (!gr_str_eq_cstr(f->name, acl->name))
                return false;
        } else if (acl->pattern == GR_PAT_LITERAL) { /* MATCH */
            if (!gr_str_eq_cstr(f->name, acl->name) &&
                strcmp(acl->name, "*") != 0)
                return false;
        } else if (acl->pattern == GR_PAT_PREFIXED) {
            size_t n = strlen(acl->name);
            if ((size_t)f->name->len < n ||
                memcmp(f->name->ptr, acl->name, n) != 0)
                return false;
        } else {
            return false;
        }
    }
    /* AccessControlEntryFilter.matches */
    if (!str_any(f->principal) && !gr_str_eq_cstr(f->principal, acl->principal))
        return false;
    if (!str_any(f->host) && !gr_str_eq_cstr(f->host, acl->host))
        return false;
    if (f->op != GR_OP_ANY && f->op != acl->op)
        return false;
    if (f->perm != GR_PERM_ANY && f->perm != acl->perm)
        return false;
    return true;
}

void
gr_acls_each(const gr_acls_t *s, gr_acl_visit_cb cb, void *arg)
{
    for (size_t i = 0; i < s->n; i++)
        if (!s->acls[i]->gone && cb(arg, &s->acls[i]->acl) != 0)
            return;
}

void
gr_acls_each_by_resource(const gr_acls_t *s, gr_acl_visit_cb cb, void *arg)
{
    for (uint32_t i = 0; i < s->ix.nres; i++) {
        const res_t *rs = &s->ix.res[i];
        for (uint32_t k = 0; k < rs->cnt; k++) {
            const acl_rec_t *r = s->ix.sorted[rs->first + k];
            if (!r->gone && cb(arg, &r->acl) != 0)
                return;
        }
    }
}

size_t
gr_acls_remove(gr_acls_t *s, const gr_acl_filter_t *f, gr_acl_visit_cb cb,
               void *arg)
{
    size_t gone = 0;
    for (size_t i = 0; i < s->n; i++) {
        acl_rec_t *r = s->acls[i];
        /* as Kafka's, each filter sees the ACLs of before the request:
         * one matched by two filters is listed by both */
        if (!gr_acl_filter_matches(f, &r->acl))
            continue;
        if (cb != NULL)
            cb(arg, &r->acl);
        /* the index may point at r: freed by the commit */
        r->gone = true;
        gone++;
    }
    return gone;
}

/* --- the index */

static int
name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c != 0)
        return c;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

static int
rec_cmp(const void *pa, const void *pb)
{
    const acl_rec_t *a = *(acl_rec_t *const *)pa, *b = *(acl_rec_t *const *)pb;
    if (a->acl.res_type != b->acl.res_type)
        return a->acl.res_type - b->acl.res_type;
    if (a->acl.pattern != b->acl.pattern)
        return a->acl.pattern - b->acl.pattern;
    return name_cmp(a->acl.name, a->name_len, b->acl.name, b->name_len);
}

/* Frees the records gr_acls_remove() marked (no index points at them;
 * the dedup table goes with them, built again at the next add). */
static void
drop_gone(gr_acls_t *s)
{
    size_t out = 0;
    free(s->dedup);
    s->dedup = NULL;
    s->dedup_cap = s->dedup_n = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->acls[i]->gone)
            rec_free(s->acls[i]);
        else
            s->acls[out++] = s->acls[i];
    }
    s->n = out;
}

static uint32_t
res_hash(int type, const char *name, size_t n)
{
    return gr_hash(name, n) ^ (uint32_t)type * 0x9e3779b1u;
}

int
gr_acls_commit(gr_acls_t *s)
{
    index_t ix = { 0 };
    uint32_t lit_size = 16, out;
    size_t n;

    for (size_t i = n = 0; i < s->n; i++)
        n += !s->acls[i]->gone;
    if (n == 0) {
        index_free(&s->ix);
        drop_gone(s);
        return 0;
    }
    while (lit_size < 2 * n)
        lit_size *= 2;
    ix.sorted = malloc(n * sizeof *ix.sorted);
    ix.res = malloc(n * sizeof *ix.res);
    ix.lit = calloc(lit_size, sizeof *ix.lit);
    if (ix.sorted == NULL || ix.res == NULL || ix.lit == NULL)
        goto oom;
    ix.lit_mask = lit_size - 1;
    for (size_t i = out = 0; i < s->n; i++)
        if (!s->acls[i]->gone)
            ix.sorted[out++] = s->acls[i];
    qsort(ix.sorted, n, sizeof *ix.sorted, rec_cmp);
    for (uint32_t i = 0; i < n; i++) {
        const acl_rec_t *r = ix.sorted[i];
        res_t *last = ix.nres ? &ix.res[ix.nres - 1] : NULL;
        if (last != NULL && last->type == r->acl.res_type &&
            last->pattern == r->acl.pattern &&
            name_cmp(last->name, last->name_len, r->acl.name, r->name_len) ==
                0) {
            last->cnt++;
            continue;
        }
        ix.res[ix.nres++] = (res_t){ .type = r->acl.res_type,
                                     .pattern = r->acl.pattern,
                                     .name = r->acl.name,
                                     .name_len = r->name_len,
                                     .first = i,
                                     .cnt = 1 };
    }
    for (uint32_t i = 0; i < ix.nres; i++) {
        const res_t *rs = &ix.res[i];
        if (rs->pattern == GR_PAT_LITERAL) {
            uint32_t h = res_hash(rs->type, rs->name, rs->name_len);
            while (ix.lit[h & ix.lit_mask] != 0)
                h++;
            ix.lit[h & ix.lit_mask] = i + 1;
        } else {
            ix.npre[rs->type]++;
        }
    }
    for (int t = 0; t < GR_RES__COUNT; t++) {
        if (ix.npre[t] == 0)
            continue;
        ix.pre[t] = malloc(ix.npre[t] * sizeof *ix.pre[t]);
        if (ix.pre[t] == NULL)
            goto oom;
        ix.npre[t] = 0;
    }
    /* sorted by (type, pattern, name): each type's prefixes come in name
     * order */
    for (uint32_t i = 0; i < ix.nres; i++)
        if (ix.res[i].pattern == GR_PAT_PREFIXED)
            ix.pre[ix.res[i].type][ix.npre[ix.res[i].type]++] = i;
    index_free(&s->ix);
    s->ix = ix;
    drop_gone(s);
    return 0;
oom:
    GR_LOG_ERROR("authorizer: out of memory indexing %zu ACLs", n);
    index_free(&ix);
    return -1;
}

static const res_t *
lit_find(const index_t *ix, int type, const char *name, size_t n)
{
    uint32_t h;
    if (ix->lit == NULL)
        return NULL;
    for (h = res_hash(type, name, n);; h++) {
        uint32_t v = ix->lit[h & ix->lit_mask];
        const res_t *rs;
        if (v == 0)
            return NULL;
        rs = &ix->res[v - 1];
        if (rs->type == type && rs->name_len == n &&
            memcmp(rs->name, name, n) == 0)
            return rs;
    }
}

/* --- the check */

typedef struct check {
    const char *principal;
    const char *host;
    int op;
    bool have_addr, addr6;
    uint8_t addr[16];
    bool any, allow;
} check_t;

static bool
host_matches(check_t *c, const acl_rec_t *r)
{
    const char *h = r->acl.host;
    if (h[0] == '*' && h[1] == '\0')
        return true;
    if (!r->cidr)
        return strcmp(h, c->host) == 0;
    if (!c->have_addr) {
        c->addr6 = strchr(c->host, ':') != NULL;
        if (inet_pton(c->addr6 ? AF_INET6 : AF_INET, c->host, c->addr) != 1)
            return false;
        c->have_addr = true;
    }
    if (c->addr6 != r->cidr6)
        return false;
    for (int b = 0; b < r->bits; b += 8) {
        int left = r->bits - b;
        uint8_t mask = left >= 8 ? 0xff : (uint8_t)(0xff << (8 - left));
        if ((c->addr[b / 8] & mask) != (r->net[b / 8] & mask))
            return false;
    }
    return true;
}

static bool
principal_matches(const check_t *c, const char *p)
{
    return strcmp(p, c->principal) == 0 || strcmp(p, "User:*") == 0;
}

/* StandardAuthorizerData.findResult's operation rule */
static bool
op_matches(int want, const acl_rec_t *r)
{
    int have = r->acl.op;
    if (have == GR_OP_ALL || have == want)
        return true;
    if (r->acl.perm != GR_PERM_ALLOW)
        return false;
    if (want == GR_OP_DESCRIBE)
        return have == GR_OP_READ || have == GR_OP_WRITE ||
               have == GR_OP_DELETE || have == GR_OP_ALTER;
    if (want == GR_OP_DESCRIBE_CONFIGS)
        return have == GR_OP_ALTER_CONFIGS;
    return false;
}

/* The ACLs of one resource: true when one denies. */
static bool
scan(const index_t *ix, const res_t *rs, check_t *c)
{
    c->any = true; /* hasResourceAcls: anyone's ACL on it counts */
    for (uint32_t i = 0; i < rs->cnt; i++) {
        const acl_rec_t *r = ix->sorted[rs->first + i];
        if (!principal_matches(c, r->acl.principal) || !host_matches(c, r) ||
            !op_matches(c->op, r))
            continue;
        if (r->acl.perm == GR_PERM_DENY)
            return true;
        c->allow = true;
    }
    return false;
}

/* The PREFIXED resources of type covering name: the largest prefix entry
 * <= name[0..hi) is either a prefix of name (scanned; go on below its
 * length) or shares m bytes with it, and every shorter prefix of name
 * lies at or below name[0..m) (a prefix q of name[0..hi) sorts between q
 * and name[0..hi), so the largest entry <= name[0..hi) starts with q). */
static bool
scan_prefixes(const index_t *ix, int type, const char *name, size_t n,
              check_t *c)
{
    const uint32_t *pre = ix->pre[type];
    size_t hi = n;
    if (pre == NULL)
        return false;
    while (hi > 0) {
        uint32_t lo = 0, up = ix->npre[type];
        const res_t *rs;
        size_t m;
        /* the last entry <= name[0..hi) */
        while (lo < up) {
            uint32_t mid = lo + (up - lo) / 2;
            const res_t *x = &ix->res[pre[mid]];
            if (name_cmp(x->name, x->name_len, name, hi) <= 0)
                lo = mid + 1;
            else
                up = mid;
        }
        if (lo == 0)
            return false;
        rs = &ix->res[pre[lo - 1]];
        for (m = 0; m < rs->name_len && m < hi && rs->name[m] == name[m]; m++)
            ;
        if (m == rs->name_len) {
            if (scan(ix, rs, c))
                return true;
            hi = m - 1; /* names are never empty: m >= 1 */
        } else {
            hi = m;
        }
    }
    return false;
}

bool
gr_acls_is_super(const gr_acls_t *s, const char *principal)
{
    for (int i = 0; i < s->nsupers; i++)
        if (strcmp(s->supers[i], principal) == 0)
            return true;
    return false;
}

bool
gr_acls_authorize(const gr_acls_t *s, const char *principal, const char *host,
                  int type, const char *name, size_t name_len, int op)
{
    const index_t *ix = &s->ix;
    check_t c = { .principal = principal, .host = host, .op = op };
    const res_t *rs;

    if (gr_acls_is_super(s, principal))
        return true;
    if (ix->nres > 0 && type > 0 && type < GR_RES__COUNT) {
        rs = lit_find(ix, type, name, name_len);
        if (rs != NULL && scan(ix, rs, &c))
            return false;
        if (scan_prefixes(ix, type, name, name_len, &c))
            return false;
        rs = lit_find(ix, type, "*", 1);
        if (rs != NULL && scan(ix, rs, &c))
            return false;
    }
    if (c.allow)
        return true;
    return c.any ? false : s->allow_if_none;
}

bool
gr_acls_authorize_by_type(const gr_acls_t *s, const char *principal,
                          const char *host, int type, int op)
{
    check_t c = { .principal = principal, .host = host, .op = op };

    if (gr_acls_authorize(s, principal, host, type, "hardcode", 8, op))
        return true;
    /* Authorizer.authorizeByResourceType: a matching (principal, host,
     * operation or ALL) ALLOW no matching DENY dominates */
    for (size_t i = 0; i < s->n; i++) {
        const acl_rec_t *a = s->acls[i];
        if (a->acl.res_type != type || !principal_matches(&c, a->acl.principal))
            continue;
        if (!host_matches(&c, a) || (a->acl.op != op && a->acl.op != GR_OP_ALL))
            continue;
        if (a->acl.perm == GR_PERM_DENY && a->acl.pattern == GR_PAT_LITERAL &&
            strcmp(a->acl.name, "*") == 0)
            return false;
    }
    for (size_t i = 0; i < s->n; i++) {
        const acl_rec_t *a = s->acls[i];
        bool dominated = false;
        if (a->acl.res_type != type || a->acl.perm != GR_PERM_ALLOW ||
            !principal_matches(&c, a->acl.principal) || !host_matches(&c, a) ||
            (a->acl.op != op && a->acl.op != GR_OP_ALL))
            continue;
        if (a->acl.pattern == GR_PAT_LITERAL && strcmp(a->acl.name, "*") == 0)
            return true;
        for (size_t j = 0; j < s->n && !dominated; j++) {
            const acl_rec_t *d = s->acls[j];
            if (d->acl.res_type != type || d->acl.perm != GR_PERM_DENY ||
                !principal_matches(&c, d->acl.principal) ||
                !host_matches(&c, d) ||
                (d->acl.op != op && d->acl.op != GR_OP_ALL))
                continue;
            if (d->acl.pattern == GR_PAT_LITERAL)
                dominated = a->acl.pattern == GR_PAT_LITERAL &&
                            strcmp(a->acl.name, d->acl.name) == 0;
            else
                dominated = d->name_len <= a->name_len &&
                            memcmp(a->acl.name, d->acl.name, d->name_len) == 0;
        }
        if (!dominated)
            return true;
    }
    return false;
}

/* --- the file: "type pattern op perm name principal host" per line,
 * codes as numbers, strings %-escaped (bytes <= ' ', '%', 0x7f) */

static void
put_esc(FILE *f, const char *v)
{
    for (; *v; v++) {
        unsigned char ch = (unsigned char)*v;
        if (ch <= ' ' || ch == '%' || ch == 0x7f)
            fprintf(f, "%%%02x", ch);
        else
            fputc(ch, f);
    }
}

int
gr_acls_serialize(const gr_acls_t *s, char **out, size_t *len)
{
    FILE *f = open_memstream(out, len);
    if (f == NULL)
        return -1;
    fprintf(f, "# Gregor ACLs: resource-type pattern-type operation "
               "permission name principal host; written by the broker.\n");
    for (size_t i = 0; i < s->n; i++) {
        const gr_acl_t *a = &s->acls[i]->acl;
        if (s->acls[i]->gone)
            continue;
        fprintf(f, "%d %d %d %d ", a->res_type, a->pattern, a->op, a->perm);
        put_esc(f, a->name);
        fputc(' ', f);
        put_esc(f, a->principal);
        fputc(' ', f);
        put_esc(f, a->host);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* Unescapes the next space-separated field of *p into a malloc'd string. */
static char *
take_field(const char **p, const char *end)
{
    const char *b = *p;
    char *o, *s;
    while (*p < end && **p != ' ' && **p != '\n')
        (*p)++;
    s = o = malloc((size_t)(*p - b) + 1);
    if (s == NULL)
        return NULL;
    for (const char *q = b; q < *p; q++) {
        unsigned v;
        if (*q == '%' && *p - q >= 3 && sscanf(q + 1, "%2x", &v) == 1) {
            *o++ = (char)v;
            q += 2;
        } else {
            *o++ = *q;
        }
    }
    *o = '\0';
    if (*p < end && **p == ' ')
        (*p)++;
    return s;
}

int
gr_acls_parse(gr_acls_t *s, const char *data, size_t len, char *why,
              size_t why_len)
{
    const char *p = data, *end = data + len;
    int line = 0;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        int t, pt, op, perm, used = 0;
        char *name, *principal, *host;
        gr_acl_t acl;
        const char *bad;
        char msg[512];
        int rc;

        if (eol == NULL)
            eol = end;
        line++;
        if (*p == '#' || p == eol) {
            p = eol + 1;
            continue;
        }
        /* the numbers from a terminated copy: data has no NUL of its own */
        {
            char head[64];
            size_t hl = (size_t)(eol - p) < sizeof head - 1
                            ? (size_t)(eol - p)
                            : sizeof head - 1;
            memcpy(head, p, hl);
            head[hl] = '\0';
            rc = sscanf(head, "%d %d %d %d %n", &t, &pt, &op, &perm, &used);
        }
        if (rc != 4 || used == 0 || p + used > eol) {
            snprintf(why, why_len, "line %d: not an ACL", line);
            return -1;
        }
        p += used;
        name = take_field(&p, eol);
        principal = take_field(&p, eol);
        host = take_field(&p, eol);
        acl = (gr_acl_t){ .res_type = (int8_t)t,
                          .pattern = (int8_t)pt,
                          .op = (int8_t)op,
                          .perm = (int8_t)perm,
                          .name = name,
                          .principal = principal,
                          .host = host };
        if (name == NULL || principal == NULL || host == NULL) {
            rc = -1;
            snprintf(why, why_len, "out of memory");
        } else if ((bad = gr_acl_invalid(&acl, msg, sizeof msg)) != NULL) {
            rc = -1;
            snprintf(why, why_len, "line %d: %s", line, bad);
        } else if ((rc = gr_acls_add(s, &acl)) != 0) {
            snprintf(why, why_len, "out of memory");
        }
        free(name);
        free(principal);
        free(host);
        if (rc != 0)
            return -1;
        p = eol + 1;
    }
    return gr_acls_commit(s);
}
