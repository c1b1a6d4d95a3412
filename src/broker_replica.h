/*
 * The follower side of replication (cluster mode): Kafka's
 * ReplicaFetcherManager and ReplicaFetcherThread. See broker_replica.c.
 * Loop thread only.
 */
#ifndef GR_BROKER_REPLICA_H
#define GR_BROKER_REPLICA_H

#include <stddef.h>
#include <stdint.h>

#include "broker.h"
#include "cluster/cluster.h"
#include "core/arena.h"

typedef struct gr_replicas gr_replicas_t;

/* The fetchers of broker b (none yet). NULL, with a log line, when the
 * inter-broker listener is one they cannot use (only PLAINTEXT now) or
 * out of memory: the broker refuses to start. */
gr_replicas_t *gr_replicas_new(gr_broker_t *b);
/* Stops every fetcher; the logs stay open (the broker closes them). */
void gr_replicas_destroy(gr_replicas_t *r);
/* p's state changed (leader, leader epoch, replicas): a follower of a
 * live leader opens its log and fetches from that leader (with
 * truncation first); a leader or a non-replica stops fetching it. */
void gr_replicas_partition(gr_replicas_t *r, gr_partition_t *p);
/* p is going (its topic deleted): forget it. */
void gr_replicas_partition_gone(gr_replicas_t *r, gr_partition_t *p);
/* The brokers changed: fetchers whose leader's endpoint moved reconnect. */
void gr_replicas_nodes_changed(gr_replicas_t *r);

/* For the fuzz target and tests: the response to a request of api key
 * and version in frame (after its size): its correlation id in *corr and
 * its body decoded into out (a gr_fetch_response_t, a
 * gr_offset_for_leader_epoch_response_t or a gr_list_offsets_response_t)
 * in a. 0, or -1 when it is not a
 * well-formed answer. */
int gr_replica_decode_response(int16_t key, int16_t ver, const uint8_t *frame,
                               size_t n, gr_arena_t *a, int32_t *corr,
                               void *out);

#endif
