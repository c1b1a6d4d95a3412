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
};

/* broker_topics.c, cluster mode: sets up the cluster's remote ops (topic
 * creation in the store). -1 when out of memory. */
int gr_topics_zk_init(struct gr_broker_meta *bm);
/* A new session (or the same one back): lists /brokers/ids and
 * /brokers/topics again and re-arms their watches. */
void gr_topics_zk_session(struct gr_broker_meta *bm);
/* This node became controller: the partitions with no state get one. */
void gr_topics_zk_controller(struct gr_broker_meta *bm);
/* Before gr_meta_close: no more callbacks; waiting syncs are cancelled. */
void gr_topics_zk_fini(struct gr_broker_meta *bm);

#endif
