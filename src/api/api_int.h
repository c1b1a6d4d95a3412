/* Shared by the handler files (one per ApiKey). */
#ifndef GR_API_API_INT_H
#define GR_API_API_INT_H

#include "api/dispatch.h"
#include "broker.h"
#include "cluster/cluster.h"
#include "core/log.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

/* AclOperation bits of a topic (READ 3 ... ALTER_CONFIGS 11): without an
 * authorizer every operation a topic supports is allowed, as Kafka's
 * AuthHelper.authorizedOperations answers without one. */
#define GR_TOPIC_OPS                                                        \
    ((1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) |      \
     (1 << 10) | (1 << 11))

/* Answers that grow with what their request repeats (DescribeConfigs,
 * DescribeGroups, OffsetFetch, DescribeProducers, DescribeTransactions:
 * Kafka answers every entry listed, twice listed or not) count their
 * encoded bytes as they are built, one entry at a time (the generated
 * gr_<msg>_<struct>_size), and an answer that would pass
 * gr_api_answer_max() is not built: gr_api_answer_refuse() logs it and
 * closes the connection, as a request above socket.request.max.bytes
 * closes it. Kafka has no such bound (it builds what its heap holds, and
 * answers a request whose answer it cannot build with the request's
 * error response); Gregor's is socket.request.max.bytes, so an answer
 * takes at most what its request could. */
uint64_t gr_api_answer_max(const gr_req_t *req);
/* Refuses req's answer of at least bytes (above gr_api_answer_max):
 * logged, the connection closed. Returns what a handler returns. */
int gr_api_answer_refuse(gr_req_t *req, uint64_t bytes);

int gr_api_api_versions(gr_req_t *req);
int gr_api_metadata(gr_req_t *req);
int gr_api_produce(gr_req_t *req);
int gr_api_fetch(gr_req_t *req);
int gr_api_list_offsets(gr_req_t *req);
int gr_api_init_producer_id(gr_req_t *req);
int gr_api_offset_for_leader_epoch(gr_req_t *req);
/* transactions (src/txn/) */
int gr_api_add_partitions_to_txn(gr_req_t *req);
int gr_api_add_offsets_to_txn(gr_req_t *req);
int gr_api_end_txn(gr_req_t *req);
int gr_api_write_txn_markers(gr_req_t *req);
int gr_api_describe_producers(gr_req_t *req);
int gr_api_describe_transactions(gr_req_t *req);
int gr_api_list_transactions(gr_req_t *req);
int gr_api_txn_offset_commit(gr_req_t *req); /* to the group coordinator */
/* admin (issue 6) */
int gr_api_create_topics(gr_req_t *req);
int gr_api_delete_topics(gr_req_t *req);
int gr_api_delete_records(gr_req_t *req);
int gr_api_describe_configs(gr_req_t *req);
int gr_api_alter_configs(gr_req_t *req);
int gr_api_describe_client_quotas(gr_req_t *req);
int gr_api_alter_client_quotas(gr_req_t *req);
int gr_api_describe_log_dirs(gr_req_t *req);
int gr_api_create_partitions(gr_req_t *req);
int gr_api_elect_leaders(gr_req_t *req);
int gr_api_incremental_alter_configs(gr_req_t *req);
int gr_api_describe_cluster(gr_req_t *req);
/* the authorizer's ACLs (src/auth/) */
int gr_api_create_acls(gr_req_t *req);
int gr_api_describe_acls(gr_req_t *req);
int gr_api_delete_acls(gr_req_t *req);
int gr_api_describe_topic_partitions(gr_req_t *req);
int gr_api_list_config_resources(gr_req_t *req);
int gr_api_get_telemetry_subscriptions(gr_req_t *req);
int gr_api_push_telemetry(gr_req_t *req);
struct gr_telemetry_client;
/* What telemetry knows of req's client (get_telemetry_subscriptions.c):
 * strings in req->a or the connection's. 0, or -1 on ENOMEM. */
int gr_api_telemetry_client(gr_req_t *req, struct gr_telemetry_client *cl);
/* security (src/net/sasl.c, src/net/scram.c) */
int gr_api_sasl_handshake(gr_req_t *req);
int gr_api_sasl_authenticate(gr_req_t *req);
int gr_api_describe_user_scram_credentials(gr_req_t *req);
int gr_api_alter_user_scram_credentials(gr_req_t *req);
/* consumer groups (src/group/) */
int gr_api_offset_commit(gr_req_t *req);
int gr_api_offset_fetch(gr_req_t *req);
int gr_api_find_coordinator(gr_req_t *req);
int gr_api_join_group(gr_req_t *req);
int gr_api_heartbeat(gr_req_t *req);
int gr_api_leave_group(gr_req_t *req);
int gr_api_sync_group(gr_req_t *req);
int gr_api_describe_groups(gr_req_t *req);
int gr_api_list_groups(gr_req_t *req);
int gr_api_delete_groups(gr_req_t *req);
int gr_api_offset_delete(gr_req_t *req);
int gr_api_consumer_group_heartbeat(gr_req_t *req);
int gr_api_consumer_group_describe(gr_req_t *req);

/* A partition going away (api/fetch.c): the fetches waiting on it are
 * answered. (Appends wake them through the partition layer.) */
void gr_partition_gone(gr_broker_t *b, gr_partition_t *p);
/* The last stable offset: the first offset of the oldest open transaction,
 * or the high watermark while none is open. */
int64_t gr_partition_lso(const gr_partition_t *p);
/* Completes the fetches marked ready (before the loop sleeps). */
void gr_fetch_run_dirty(gr_broker_t *b);

#endif
