/* ACLs in ZooKeeper's layout (acl_zk.h). */
#include "auth/acl_zk.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "core/json.h"
#include "core/str.h"

static const char *const type_names[GR_RES__COUNT] = {
    [GR_RES_TOPIC] = "Topic",
    [GR_RES_GROUP] = "Group",
    [GR_RES_CLUSTER] = "Cluster",
    [GR_RES_TRANSACTIONAL_ID] = "TransactionalId",
    [GR_RES_DELEGATION_TOKEN] = "DelegationToken",
    [GR_RES_USER] = "User",
};

static const char *const op_names[GR_OP__COUNT] = {
    [GR_OP_ALL] = "All",
    [GR_OP_READ] = "Read",
    [GR_OP_WRITE] = "Write",
    [GR_OP_CREATE] = "Create",
    [GR_OP_DELETE] = "Delete",
    [GR_OP_ALTER] = "Alter",
    [GR_OP_DESCRIBE] = "Describe",
    [GR_OP_CLUSTER_ACTION] = "ClusterAction",
    [GR_OP_DESCRIBE_CONFIGS] = "DescribeConfigs",
    [GR_OP_ALTER_CONFIGS] = "AlterConfigs",
    [GR_OP_IDEMPOTENT_WRITE] = "IdempotentWrite",
    [GR_OP_CREATE_TOKENS] = "CreateTokens",
    [GR_OP_DESCRIBE_TOKENS] = "DescribeTokens",
    [GR_OP_TWO_PHASE_COMMIT] = "TwoPhaseCommit",
};

/* SecurityUtils.valueFromMap: the PascalCase name, else the name upper
 * case with no underscores (its second map) */
static int
lookup(const char *const *names, int count, const char *s)
{
    for (int i = 0; i < count; i++)
        if (names[i] != NULL && strcmp(names[i], s) == 0)
            return i;
    for (int i = 0; i < count; i++) {
        const char *a = names[i], *b = s;
        if (a == NULL)
            continue;
        while (*a != '\0' && *b != '\0' &&
               toupper((unsigned char)*a) == (unsigned char)*b) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0')
            return i;
    }
    return -1;
}

const char *
gr_acl_zk_type_name(int type)
{
    return type >= 0 && type < GR_RES__COUNT ? type_names[type] : NULL;
}

int
gr_acl_zk_type(const char *name)
{
    int t = lookup(type_names, GR_RES__COUNT, name);
    return t < 0 ? GR_RES_UNKNOWN : t;
}

int
gr_acl_zk_path(int type, int pattern, const char *name, char *out, size_t n)
{
    const char *tn = gr_acl_zk_type_name(type);
    int w;
    if (tn == NULL || (pattern != GR_PAT_LITERAL && pattern != GR_PAT_PREFIXED))
        return -1;
    w = snprintf(out, n, "%s/%s/%s",
                 pattern == GR_PAT_LITERAL ? GR_ACL_ZK_LITERAL
                                           : GR_ACL_ZK_PREFIXED,
                 tn, name);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

void
gr_acl_zk_encode(const gr_acl_t *const *acls, int n, gr_buf_t *out)
{
    gr_buf_puts(out, "{\"version\":1,\"acls\":[");
    for (int i = 0; i < n; i++) {
        const gr_acl_t *a = acls[i];
        gr_buf_puts(out, i ? ",{\"principal\":" : "{\"principal\":");
        gr_json_put_str(out, a->principal, strlen(a->principal));
        gr_buf_printf(out, ",\"permissionType\":\"%s\",\"operation\":\"%s\","
                           "\"host\":",
                      a->perm == GR_PERM_DENY ? "Deny" : "Allow",
                      a->op > 0 && a->op < GR_OP__COUNT && op_names[a->op]
                          ? op_names[a->op]
                          : "Unknown");
        gr_json_put_str(out, a->host, strlen(a->host));
        gr_buf_putc(out, '}');
    }
    gr_buf_puts(out, "]}");
}

void
gr_acl_zk_change(int type, int pattern, const char *name, gr_buf_t *out)
{
    const char *tn = gr_acl_zk_type_name(type);
    if (tn == NULL)
        tn = "Unknown";
    if (pattern == GR_PAT_LITERAL) { /* LiteralAclChangeStore: Type:name */
        gr_buf_printf(out, "%s:%s", tn, name);
        return;
    }
    gr_buf_printf(out, "{\"version\":1,\"resourceType\":\"%s\",\"name\":",
                  tn);
    gr_json_put_str(out, name, strlen(name));
    gr_buf_printf(out, ",\"patternType\":\"%s\"}",
                  gr_acl_pattern_name(pattern));
}

static const char *
str_of(const gr_json_t *o, const char *key)
{
    const gr_json_t *v = gr_json_get(o, key);
    /* no NUL inside, UTF-8 (what is written back is the same) */
    return v != NULL && v->type == GR_JSON_STR && strlen(v->s) == v->slen &&
                   gr_utf8_valid(v->s, v->slen)
               ? v->s
               : NULL;
}

int
gr_acl_zk_parse(gr_acls_t *s, int type, int pattern, const char *name,
                const void *data, size_t len, char *why, size_t n)
{
    gr_arena_t *a;
    const gr_json_t *o, *ver, *acls;
    char err[96], buf[256];
    int rc = -1;

    if (len == 0)
        return 0;
    if ((a = gr_arena_new(4096 + len * 2)) == NULL) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    o = gr_json_parse(a, data, len, err, sizeof err);
    if (o == NULL || o->type != GR_JSON_OBJ) {
        snprintf(why, n, "not JSON: %s", o == NULL ? err : "not an object");
        goto out;
    }
    ver = gr_json_get(o, "version");
    if (ver == NULL || ver->type != GR_JSON_INT || ver->i != 1) {
        snprintf(why, n, "version not 1");
        goto out;
    }
    acls = gr_json_get(o, "acls");
    if (acls == NULL || acls->type != GR_JSON_ARR) {
        snprintf(why, n, "no \"acls\" array");
        goto out;
    }
    for (int i = 0; i < acls->n; i++) {
        const gr_json_t *e = &acls->kids[i];
        const char *pr = str_of(e, "principal"), *pt = str_of(e,
                                                              "permissionType"),
                   *op = str_of(e, "operation"), *host = str_of(e, "host"),
                   *bad;
        gr_acl_t acl = { .res_type = (int8_t)type,
                         .pattern = (int8_t)pattern,
                         .name = name,
                         .principal = pr,
                         .host = host };
        int o2;
        if (e->type != GR_JSON_OBJ || pr == NULL || pt == NULL ||
            op == NULL || host == NULL) {
            snprintf(why, n, "ACL %d: principal, permissionType, operation "
                             "and host are strings",
                     i);
            goto out;
        }
        if (strcmp(pt, "Allow") == 0 || strcmp(pt, "ALLOW") == 0)
            acl.perm = GR_PERM_ALLOW;
        else if (strcmp(pt, "Deny") == 0 || strcmp(pt, "DENY") == 0)
            acl.perm = GR_PERM_DENY;
        else {
            snprintf(why, n, "ACL %d: permissionType \"%.40s\"", i, pt);
            goto out;
        }
        if ((o2 = lookup(op_names, GR_OP__COUNT, op)) < 0) {
            snprintf(why, n, "ACL %d: operation \"%.40s\"", i, op);
            goto out;
        }
        acl.op = (int8_t)o2;
        if ((bad = gr_acl_invalid(&acl, buf, sizeof buf)) != NULL) {
            snprintf(why, n, "ACL %d: %.160s", i, bad);
            goto out;
        }
        if (gr_acls_add(s, &acl) != 0) {
            snprintf(why, n, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    gr_arena_destroy(a);
    return rc;
}
