/*
 * Fuzz target "acl_zk": an ACL resource znode as ZooKeeper holds it
 * (auth/acl_zk.h: Kafka's AclAuthorizer JSON, written by any broker or
 * tool with access to the ensemble). Input: one byte choosing the
 * resource type (low 3 bits) and pattern (bit 3: PREFIXED), then the
 * znode's data.
 *
 * Then: gr_acl_zk_parse() into a set; what it accepts, written back with
 * gr_acl_zk_encode() and parsed again, must give the same ACLs (count and
 * bytes of a second encoding), each valid by gr_acl_invalid; a refused
 * input leaves a set that can still be committed and freed.
 */
#include "fuzz.h"

#include "auth/acl.h"
#include "auth/acl_zk.h"
#include "core/buf.h"

#include <string.h>

typedef struct grab {
    const gr_acl_t *v[4096];
    int n;
} grab_t;

static int
grab(void *arg, const gr_acl_t *acl)
{
    grab_t *g = arg;
    char buf[256];
    GR_FUZZ_CHECK(gr_acl_invalid(acl, buf, sizeof buf) == NULL);
    if (g->n < 4096)
        g->v[g->n++] = acl;
    return 0;
}

int
gr_fuzz_acl_zk(const uint8_t *data, size_t n)
{
    static grab_t g1, g2;
    gr_acls_t *s, *t;
    gr_buf_t e1 = { 0 }, e2 = { 0 }, note = { 0 };
    char why[256];
    int type, pattern;
    const char *name;

    if (n < 1)
        return 0;
    type = GR_RES_TOPIC + (data[0] & 7) % (GR_RES__COUNT - GR_RES_TOPIC);
    pattern = data[0] & 8 ? GR_PAT_PREFIXED : GR_PAT_LITERAL;
    name = type == GR_RES_CLUSTER ? GR_ACL_CLUSTER_NAME : "fz";
    s = gr_acls_new("User:admin", false);
    GR_FUZZ_CHECK(s != NULL);
    if (gr_acl_zk_parse(s, type, pattern, name, data + 1, n - 1, why,
                        sizeof why) != 0) {
        GR_FUZZ_CHECK(why[0] != '\0');
        GR_FUZZ_CHECK(gr_acls_commit(s) == 0);
        gr_acls_destroy(s);
        return 0;
    }
    GR_FUZZ_CHECK(gr_acls_commit(s) == 0);
    g1.n = 0;
    gr_acls_each(s, grab, &g1);
    GR_FUZZ_CHECK((size_t)g1.n == gr_acls_count(s) || g1.n == 4096);
    gr_acl_zk_encode(g1.v, g1.n, &e1);
    GR_FUZZ_CHECK(!e1.oom);
    t = gr_acls_new(NULL, false);
    GR_FUZZ_CHECK(t != NULL);
    GR_FUZZ_CHECK(gr_acl_zk_parse(t, type, pattern, name,
                                  (const char *)e1.ptr, e1.len, why,
                                  sizeof why) == 0);
    GR_FUZZ_CHECK(gr_acls_commit(t) == 0);
    g2.n = 0;
    gr_acls_each(t, grab, &g2);
    GR_FUZZ_CHECK(g2.n == g1.n);
    gr_acl_zk_encode(g2.v, g2.n, &e2);
    GR_FUZZ_CHECK(e1.len == e2.len && memcmp(e1.ptr, e2.ptr, e1.len) == 0);
    gr_acl_zk_change(type, pattern, name, &note);
    GR_FUZZ_CHECK(!note.oom && note.len > 0);
    gr_buf_fini(&e1);
    gr_buf_fini(&e2);
    gr_buf_fini(&note);
    gr_acls_destroy(t);
    gr_acls_destroy(s);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_acl_zk)
