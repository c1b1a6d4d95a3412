/*
 * ACLs as Kafka's AclAuthorizer keeps them in ZooKeeper (ZkData.scala's
 * ZkAclStore, ResourceZNode, AclEntry): one znode per resource and
 * pattern type, /kafka-acl/<Type>/<name> (LITERAL) or
 * /kafka-acl-extended/prefixed/<Type>/<name> (PREFIXED), holding
 *   {"version":1,"acls":[{"principal":"User:a","permissionType":"Allow",
 *    "operation":"Read","host":"*"},...]}
 * with the names in SecurityUtils' PascalCase ("Topic", "TransactionalId",
 * "IdempotentWrite"); a change is told by a sequential znode,
 * /kafka-acl-changes/acl_changes_N holding "Topic:name" (LITERAL), or
 * /kafka-acl-extended-changes/acl_changes_N holding
 *   {"version":1,"resourceType":"Topic","name":"x","patternType":"PREFIXED"}
 * Here: the names, the paths, the JSON both ways. The data read is peer
 * input: tests/fuzz/fuzz_acl_zk.c. Pure functions, any thread.
 */
#ifndef GR_AUTH_ACL_ZK_H
#define GR_AUTH_ACL_ZK_H

#include <stddef.h>

#include "auth/acl.h"
#include "core/buf.h"

#define GR_ACL_ZK_LITERAL "/kafka-acl"
#define GR_ACL_ZK_PREFIXED "/kafka-acl-extended/prefixed"
#define GR_ACL_ZK_CHANGES "/kafka-acl-changes"
#define GR_ACL_ZK_EXT_CHANGES "/kafka-acl-extended-changes"
#define GR_ACL_ZK_CHANGE_PREFIX "acl_changes_"

/* "Topic", "Group", "Cluster", "TransactionalId", "DelegationToken",
 * "User" for those types, else NULL. */
const char *gr_acl_zk_type_name(int type);
/* The type of such a name (also Kafka's upper-case forms, "TOPIC",
 * "TRANSACTIONALID", as SecurityUtils.valueFromMap), else GR_RES_UNKNOWN. */
int gr_acl_zk_type(const char *name);
/* The resource's znode path into out: 0, or -1 (a pattern other than
 * LITERAL and PREFIXED, a type without a name, or too long). */
int gr_acl_zk_path(int type, int pattern, const char *name, char *out,
                   size_t n);
/* The znode's JSON for acls[0..n), all of one resource. */
void gr_acl_zk_encode(const gr_acl_t *const *acls, int n, gr_buf_t *out);
/* The change notification's data for the resource. */
void gr_acl_zk_change(int type, int pattern, const char *name, gr_buf_t *out);
/* Adds to s the ACLs of a resource znode's data (type, pattern, name: the
 * znode's resource). Empty data holds none, as Kafka's AclEntry.fromBytes.
 * 0, or -1 with why (JSON that is not Kafka's, a version other than 1, a
 * principal, operation or permission Kafka would not read, an ACL that
 * gr_acl_invalid refuses, out of memory); s keeps what was added before
 * the bad entry. */
int gr_acl_zk_parse(gr_acls_t *s, int type, int pattern, const char *name,
                    const void *data, size_t len, char *why, size_t n);

#endif
