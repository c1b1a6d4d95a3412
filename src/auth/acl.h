/*
 * The authorizer: ACL bindings and the check Kafka's StandardAuthorizer
 * makes (StandardAuthorizerData.authorize). A check is a principal
 * ("User:CN=app"), the client's host as Java writes it, a resource (type
 * and literal name) and an operation; the answer:
 *   - a super user (super.users) is allowed everything;
 *   - among the ACLs whose pattern covers the resource (LITERAL of the
 *     same name, PREFIXED of a prefix of it, LITERAL "*") and whose
 *     principal (or User:*) and host ("*", the same address, or a CIDR
 *     range holding it) are the client's: a DENY for the operation (or
 *     ALL) wins; else an ALLOW for it, or for one implying it (READ,
 *     WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies
 *     DESCRIBE_CONFIGS; ALL implies everything) allows;
 *   - else denied when the resource has any ACL at all (anyone's), else
 *     allow.everyone.if.no.acl.found decides (default: denied).
 *
 * The set is indexed for the check, rebuilt after each change (a change
 * is an admin request; a check runs per request per resource): the ACLs
 * sorted by (type, pattern, name) so each resource's lie together, the
 * LITERAL resources in an open-addressing hash by (type, name), and the
 * PREFIXED ones of each type sorted by name, searched by bisection
 * (Kafka's tailSet walk over its sorted set). A check allocates nothing;
 * it costs two hash probes and, per prefix length that could match, a
 * bisection of the type's prefixes, then a compare per ACL of the
 * resources found (tests/bench/acl_bench measures it).
 *
 * Nothing here knows requests or connections (api/authz.c asks this with
 * a request's principal and peer). Loop thread only.
 */
#ifndef GR_AUTH_ACL_H
#define GR_AUTH_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/str.h"

/* Kafka's codes (ResourceType, PatternType, AclOperation,
 * AclPermissionType), as on the wire. */
enum {
    GR_RES_UNKNOWN = 0,
    GR_RES_ANY = 1,
    GR_RES_TOPIC = 2,
    GR_RES_GROUP = 3,
    GR_RES_CLUSTER = 4,
    GR_RES_TRANSACTIONAL_ID = 5,
    GR_RES_DELEGATION_TOKEN = 6,
    GR_RES_USER = 7,
    GR_RES__COUNT = 8,
};
enum {
    GR_PAT_UNKNOWN = 0,
    GR_PAT_ANY = 1,
    GR_PAT_MATCH = 2,
    GR_PAT_LITERAL = 3,
    GR_PAT_PREFIXED = 4,
};
enum {
    GR_OP_UNKNOWN = 0,
    GR_OP_ANY = 1,
    GR_OP_ALL = 2,
    GR_OP_READ = 3,
    GR_OP_WRITE = 4,
    GR_OP_CREATE = 5,
    GR_OP_DELETE = 6,
    GR_OP_ALTER = 7,
    GR_OP_DESCRIBE = 8,
    GR_OP_CLUSTER_ACTION = 9,
    GR_OP_DESCRIBE_CONFIGS = 10,
    GR_OP_ALTER_CONFIGS = 11,
    GR_OP_IDEMPOTENT_WRITE = 12,
    GR_OP_CREATE_TOKENS = 13,
    GR_OP_DESCRIBE_TOKENS = 14,
    GR_OP_TWO_PHASE_COMMIT = 15,
    GR_OP__COUNT = 16,
};
enum {
    GR_PERM_UNKNOWN = 0,
    GR_PERM_ANY = 1,
    GR_PERM_DENY = 2,
    GR_PERM_ALLOW = 3,
};

/* The name of the one CLUSTER resource. */
#define GR_ACL_CLUSTER_NAME "kafka-cluster"

/* A binding (Kafka's AclBinding); strings NUL-terminated. */
typedef struct gr_acl {
    int8_t res_type, pattern, op, perm;
    const char *name;
    const char *principal;
    const char *host;
} gr_acl_t;

/* A filter (AclBindingFilter): NULL strings match anything; codes ANY
 * (and MATCH for the pattern) as Kafka's. */
typedef struct gr_acl_filter {
    int8_t res_type, pattern, op, perm;
    const gr_str_t *name, *principal, *host; /* NULL or len < 0: any */
} gr_acl_filter_t;

typedef struct gr_acls gr_acls_t;

/* An empty set. super_users: Kafka's super.users (";"-separated
 * principals, trimmed, empty entries skipped; NULL: none); allow_if_none:
 * allow.everyone.if.no.acl.found. NULL when out of memory. */
gr_acls_t *gr_acls_new(const char *super_users, bool allow_if_none);
void gr_acls_destroy(gr_acls_t *s);
/* A copy of s (its bindings in the same order, its settings) without
 * an index: a change is made on a copy, which gr_acls_commit() indexes
 * before it replaces s. Only the copy's owner touches it, so that
 * commit (and gr_acls_serialize) may run on another thread. NULL when
 * out of memory. O(n). */
gr_acls_t *gr_acls_copy(const gr_acls_t *s);

/* Whether principal from host may do op on the resource (type, name).
 * host: the client's address as text ("" when unknown). Allocates
 * nothing. */
bool gr_acls_authorize(const gr_acls_t *s, const char *principal,
                       const char *host, int type, const char *name,
                       size_t name_len, int op);
/* Kafka's authorizeByResourceType (Authorizer's default method): whether
 * some resource of type could allow op to principal: an ALLOW for it on a
 * LITERAL or PREFIXED pattern that no DENY of the same principal and host
 * covers (a LITERAL "*" deny or a PREFIXED deny of a prefix of it), or
 * the default when the type has no ACLs... exactly as Kafka's. */
bool gr_acls_authorize_by_type(const gr_acls_t *s, const char *principal,
                               const char *host, int type, int op);
bool gr_acls_is_super(const gr_acls_t *s, const char *principal);

/* Checks a binding as Kafka's CreateAcls path does (AclApis, then
 * AclControlManager.validateNewAcl): NULL when it may be added, else
 * INVALID_REQUEST's message (static, or written in buf). */
const char *gr_acl_invalid(const gr_acl_t *acl, char *buf, size_t n);
/* Adds a copy of acl (valid by gr_acl_invalid); one already present is
 * not added twice. 0, or -1 when out of memory (the set unchanged). The
 * index is rebuilt by gr_acls_commit(). */
int gr_acls_add(gr_acls_t *s, const gr_acl_t *acl);
/* Whether acl matches f (AclBindingFilter.matches). */
bool gr_acl_filter_matches(const gr_acl_filter_t *f, const gr_acl_t *acl);
/* The bindings in order of creation: cb for each (stop: non-zero). */
typedef int (*gr_acl_visit_cb)(void *arg, const gr_acl_t *acl);
void gr_acls_each(const gr_acls_t *s, gr_acl_visit_cb cb, void *arg);
/* The same grouped by resource (type, pattern, name ascending), as of the
 * last commit. */
void gr_acls_each_by_resource(const gr_acls_t *s, gr_acl_visit_cb cb,
                              void *arg);
size_t gr_acls_count(const gr_acls_t *s);
/* Removes the bindings f matches; cb (may be NULL) sees each before it
 * goes. Returns how many went. */
size_t gr_acls_remove(gr_acls_t *s, const gr_acl_filter_t *f,
                      gr_acl_visit_cb cb, void *arg);
/* Rebuilds the index after adds and removes (checks before it see the
 * old index: call it before answering). 0, or -1 when out of memory (the
 * old index stays, logged). */
int gr_acls_commit(gr_acls_t *s);

/* The set as text, one binding a line (the file Gregor keeps), malloc'd
 * into *out; 0 or -1. */
int gr_acls_serialize(const gr_acls_t *s, char **out, size_t *len);
/* Adds the bindings of such a text (then commits). 0, or -1 on a line
 * that does not parse (why says which) or out of memory. */
int gr_acls_parse(gr_acls_t *s, const char *data, size_t len, char *why,
                  size_t why_len);

/* Kafka's names, for logs and messages ("TOPIC", "READ", ...). */
const char *gr_acl_res_name(int type);
const char *gr_acl_op_name(int op);
const char *gr_acl_pattern_name(int pattern);
const char *gr_acl_perm_name(int perm);

#endif
