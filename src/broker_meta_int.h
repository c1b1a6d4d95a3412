/*
 * The broker's coordination-store state, shared by broker_meta.c
 * (registration, controller election) and broker_topics.c (topics in
 * the store, cluster mode). Loop thread only.
 */
#ifndef GR_BROKER_META_INT_H
#define GR_BROKER_META_INT_H

#include "broker.h"
#include "cluster/cluster.h"
#include "meta/meta.h"

struct gr_topics_zk;
struct gr_failover;

struct gr_broker_meta {
    gr_broker_t *b;
    gr_meta_t *m;
    bool zk;
    int64_t session;          /* the session's id, 0 before */
    int64_t session_us;       /* when it came (mono), for the log */
    int64_t broker_epoch;     /* czxid of /brokers/ids/<id>; -1 before */
    int32_t controller_epoch; /* -1 unless this node is controller */
    int32_t pending_epoch;    /* the one its election multi asks for */
    int32_t epoch_zkversion;  /* /controller_epoch's version it set */
    int32_t controller_id;    /* the controller last read, -1 none */
    char reg_path[32];
    struct gr_topics_zk *topics; /* cluster mode only (broker_topics.c) */
    struct gr_replicas *replicas; /* cluster mode: the replica fetchers
                                   * (broker_replica.c) */
    struct gr_failover *failover; /* cluster mode only (broker_failover.c) */
    struct gr_acls_zk *acls; /* cluster mode with an authorizer
                              * (broker_acls.c) */
    struct gr_repl *repl;        /* cluster mode only (broker_repl.c) */
};

/* broker_topics.c, cluster mode: sets up the cluster's remote ops (topic
 * creation in the store). -1 when out of memory. */
int gr_topics_zk_init(struct gr_broker_meta *bm);
/* A new session (or the same one back): lists /brokers/ids and
 * /brokers/topics again and re-arms their watches. */
void gr_topics_zk_session(struct gr_broker_meta *bm);
/* This node became controller: the partitions with no state get one. */
void gr_topics_zk_controller(struct gr_broker_meta *bm);
/* Reads p's state again (an ISR change refused on its version). */
void gr_topics_zk_reread(struct gr_broker_meta *bm, const char *topic,
                         int32_t part);
/* Before gr_meta_close: no more callbacks; waiting syncs are cancelled. */
void gr_topics_zk_fini(struct gr_broker_meta *bm);

/* broker_failover.c, cluster mode: the controller's leader elections
 * when brokers come and go. init: -1 when out of memory. */
int gr_failover_init(struct gr_broker_meta *bm);
void gr_failover_fini(struct gr_broker_meta *bm);
/* /brokers/ids listed: the live set; the controller decides on it. */
void gr_failover_live(struct gr_broker_meta *bm, const char *const *names,
                      int n);
/* /brokers/ids/<id> read: its czxid (broker epoch); a changed one is a
 * broker that bounced. */
void gr_failover_broker_epoch(struct gr_broker_meta *bm, int32_t id,
                              int64_t czxid);
/* This node became controller (after gr_topics_zk_controller's new
 * partitions): every partition decided on. */
void gr_failover_controller(struct gr_broker_meta *bm);
/* A state read into p: decided on when this node is controller. */
void gr_failover_partition(struct gr_broker_meta *bm, gr_partition_t *p);
/* A state applied to p on this broker (leader and epoch were old_*,
 * had_log: its log was open before): leading at a new epoch records its start in the leader-epoch cache;
 * leading again loads a __consumer_offsets partition's groups; no longer
 * leading answers its long polls and drops its groups. */
void gr_failover_applied(struct gr_broker_meta *bm, gr_partition_t *p,
                         int32_t old_leader, int32_t old_epoch,
                         bool had_log);
/* SIGTERM in cluster mode (Kafka's controlled shutdown, written by this
 * broker itself): the states of the partitions it leads with another
 * live ISR member move to that member, those whose ISR it is in drop it,
 * each as the controller writes them (the version read, fenced by
 * /controller_epoch's). Returns how long the loop may run for it (ms),
 * stopping it when done; 0: nothing to move. */
int64_t gr_failover_controlled_shutdown(struct gr_broker_meta *bm);

#endif
