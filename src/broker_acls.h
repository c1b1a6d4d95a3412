/*
 * broker_acls.c: the authorizer's ACLs in ZooKeeper, cluster mode (Kafka's
 * AclAuthorizer's ZkAclStore). Loop thread only.
 */
#ifndef GR_BROKER_ACLS_H
#define GR_BROKER_ACLS_H

#include <stdbool.h>

#include "auth/acl.h"
#include "cluster/cluster.h"

struct gr_broker;
struct gr_broker_meta;

/* With an authorizer: the ZooKeeper state (nothing without one). -1 out
 * of memory. */
int gr_acls_zk_init(struct gr_broker_meta *bm);
/* A new session (or the same back): the ACL paths made, the set read
 * again and installed, the change paths watched. */
void gr_acls_zk_session(struct gr_broker_meta *bm);
/* Before gr_meta_close's end: a store waiting is ended with ECANCELED. */
void gr_acls_zk_fini(struct gr_broker_meta *bm);
/* Cluster mode: writes the resources whose ACLs differ between old (the
 * set installed) and next (committed), calls cb once, and returns true;
 * false (cb not called) when the ACLs are not kept in ZooKeeper. */
bool gr_acls_zk_store(struct gr_broker *b, const gr_acls_t *old,
                      const gr_acls_t *next, gr_cluster_stored_cb cb,
                      void *arg);

#endif
