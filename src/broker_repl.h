/*
 * Replication, the leader's side in cluster mode (broker_repl.c): the
 * followers' fetches move the high watermark (partition/partition.h),
 * and the leader changes the ISR itself, as Kafka's ZooKeeper-mode
 * leader did before KIP-497: it writes the partition's state znode with
 * the version it read (ReplicationUtils.updateLeaderAndIsr, leader epoch
 * unchanged) and adopts the new ISR once the write is done. A follower
 * joins when it is at or past the high watermark and the start of the
 * leader's epoch; one not caught up within replica.lag.time.max.ms
 * leaves (checked every half of it, Kafka's isr-expiration task).
 * Loop thread only.
 */
#ifndef GR_BROKER_REPL_H
#define GR_BROKER_REPL_H

#include "broker.h"
#include "cluster/cluster.h"

struct gr_broker_meta;

/* A follower's fetch of p at fetch_offset (api/fetch.c, checked): its
 * position, the high watermark, its joining the ISR. */
void gr_repl_follower_fetched(gr_broker_t *b, gr_partition_t *p,
                              int32_t replica, int64_t broker_epoch,
                              int64_t fetch_offset);
/* p's state was read (leader, ISR, version): p->repl follows it, the
 * high watermark and the waiting produces are looked at again. */
void gr_repl_partition_changed(gr_broker_t *b, gr_partition_t *p);
/* The effective min.insync.replicas of p (Kafka's effectiveMinIsr: no
 * more than its replicas), also kept in p->repl for the rules. */
int32_t gr_repl_min_isr(gr_broker_t *b, gr_partition_t *p);
/* Cluster mode: the ISR-expiration timer, the writes in flight. */
int gr_repl_init(struct gr_broker_meta *bm);
void gr_repl_fini(struct gr_broker_meta *bm);

#endif
