/*
 * The handlers' authorization checks: one call per check site, as Kafka's
 * AuthHelper. Each asks the broker's authorizer (src/auth/acl.h) with the
 * request's principal and peer address, and allows everything when no
 * authorizer is configured (authorizer.class.name empty). Loop thread
 * only; nothing allocated.
 *
 * What each API checks (Kafka's KafkaApis, ControllerApis and AclApis):
 * docs/authorization.md.
 */
#ifndef GR_API_AUTHZ_H
#define GR_API_AUTHZ_H

#include <stdbool.h>
#include <stdint.h>

#include "auth/acl.h"
#include "core/str.h"
#include "net/conn.h"
#include "proto/kerr.h"

/* Whether req may do op on the resource (type, name). A null name (len <
 * 0) is checked as the empty name (Kafka's null transactional id never
 * reaches a check). */
bool gr_authz(gr_req_t *req, int type, const gr_str_t *name, int op);
bool gr_authz_cstr(gr_req_t *req, int type, const char *name, int op);
/* op on CLUSTER "kafka-cluster" */
bool gr_authz_cluster(gr_req_t *req, int op);
/* authorizeByResourceType */
bool gr_authz_by_type(gr_req_t *req, int type, int op);
/* Kafka's authorizedOperations bitfield: bit op set for each operation
 * the resource type supports (AclEntry.supportedOperations) that req may
 * do. */
int32_t gr_authz_ops(gr_req_t *req, int type, const gr_str_t *name);
struct gr_broker;
/* The halves CreateAcls and DeleteAcls share of their gr_change_ops_t
 * (api/change.h), state being the changed copy of the broker's ACLs
 * (gr_acls_copy, committed): store writes its text (gregor-configs/acls,
 * as Kafka answers once the metadata log has the records); install
 * makes it the broker's when err is 0, else frees it (the broker's ACLs
 * stay as they were). */
void gr_authz_acls_store(struct gr_broker *b, void *state,
                         void (*cb)(void *arg, int err), void *arg);
void gr_authz_acls_install(struct gr_broker *b, gr_acls_t *next, int err);
/* The message a change that could not be stored answers (in req's
 * arena; NULL when out of memory): UNKNOWN_SERVER_ERROR, as Kafka's
 * controller answers a failed metadata write (EventHandlerExceptionInfo:
 * anything not an ApiException). */
const char *gr_authz_store_failed_msg(gr_req_t *req, const char *what,
                                      int err);
/* A config resource's check (Kafka's ConfigHelper and ControllerApis.
 * authorizeAlterResource): op (DESCRIBE_CONFIGS or ALTER_CONFIGS) on the
 * cluster for a BROKER, BROKER_LOGGER or CLIENT_METRICS resource, on the
 * topic or the group for theirs. NONE, or CLUSTER_, TOPIC_ or
 * GROUP_AUTHORIZATION_FAILED; a type Kafka does not know is NONE (the
 * handler refuses it). */
gr_kerr_t gr_authz_config(gr_req_t *req, int8_t config_type,
                          const gr_str_t *name, int op);
/* Whether an authorizer is configured. */
bool gr_authz_on(const gr_req_t *req);

#endif
