/*
 * The broker: the root object owned by the loop thread. It holds the
 * configuration, the loop, the listeners and connections, the cluster
 * metadata, and (as they land) the partition logs and the coordinators.
 * Modules reach each other through it; nothing here does I/O itself.
 */
#ifndef GR_BROKER_H
#define GR_BROKER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/loop.h"
#include "net/listener.h"

#include "core/buf.h"
#include "core/str.h"
#include "core/worker.h"

typedef struct gr_conn gr_conn_t;
typedef struct gr_cluster gr_cluster_t;
typedef struct gr_logs gr_logs_t;
typedef struct gr_fsessions gr_fsessions_t;
typedef struct gr_groups gr_groups_t;
struct gr_req;

#define GR_MAX_LISTENERS 16

struct gr_broker {
    gr_conf_t *conf;
    gr_loop_t *loop;
    int32_t node_id;
    char *log_dir;            /* absolute path */
    char *temp_dir;           /* gregor.temp.data: removed at exit */
    char *listeners_file;     /* --listeners-file, or NULL */
    char *dump_frames_dir;    /* --dump-frames, or NULL */

    gr_listener_t listeners[GR_MAX_LISTENERS];
    int nlisteners;

    gr_conn_t *conns;         /* open connections (doubly linked) */
    gr_conn_t *ready;         /* with buffered frames to process */
    gr_conn_t *closing;       /* closed, to be freed before sleep */
    int nconns;
    void *conn_pool;          /* idle buffers (net/conn.c) */
    /* where connections send frames: &gr_api_dispatch (api/dispatch.h) */
    const struct gr_conn_dispatch *dispatch;
    int64_t max_request_bytes;
    /* connection limits (net/conn.c) */
    int64_t max_idle_ms;      /* connections.max.idle.ms; <= 0: never */
    int64_t queued_max_bytes; /* queued.max.request.bytes; <= 0: no bound */
    int64_t queued_bytes;     /* read buffers beyond their first 16 KiB */
    gr_conn_t *mem_waiting;   /* reading paused until queued_bytes drop */
    int mem_holders;          /* connections with counted buffer bytes */
    int mem_holders_waiting;  /* of them, in mem_waiting */
    gr_conn_t *mem_forced;    /* may pass the bound to finish its frame */
    gr_timer_t idle_timer;
    int64_t stat_idle_closed, stat_mem_waits;
    struct gr_quotas *quotas; /* connection quotas (net/quota.h) */
    struct gr_client_quotas *client_quotas; /* cluster/client_quotas.h */

    gr_cluster_t *cluster;    /* metadata: brokers, topics, partitions */
    gr_logs_t *logs;          /* partition logs under log_dir */
    gr_workers_t *workers;    /* fsync and other slow work */
    gr_timer_t maintain_timer; /* retention, flush.ms, checkpoints */
    gr_timer_t cleaner_timer;  /* log compaction (log.cleaner.backoff.ms) */
    gr_timer_t start_sync_timer; /* what loading the metadata queued */
    gr_fsessions_t *fetch_sessions;
    struct gr_pids *pids;     /* producer id blocks (txn/pid.h) */
    struct gr_txn_coord *txn; /* transaction coordinator (txn/txn.h) */
    gr_groups_t *groups;      /* the group coordinator (src/group/) */
    struct gr_telemetry *telemetry; /* client telemetry (src/telemetry/) */
    struct gr_acls *acls;     /* the authorizer (src/auth/); NULL: off */
    struct gr_scram_store *scram; /* SCRAM credentials (net/scram.h) */
    struct gr_broker_meta *meta;  /* the coordination store (broker_meta.c) */
    struct gr_changes *changes;   /* ACL and quota changes being stored
                                   * (api/change.h); NULL: none yet */
    void *fetch_dirty;        /* fetches ready to complete (api/fetch.c) */
    /* Fetch reads for a worker (api/fetch.c): the job whose slice runs,
     * the admitted ones in turn, those waiting for room in order, and the
     * bytes the admitted ones' answers may take */
    struct gr_fetch_job *fetch_running;
    struct gr_fetch_job *fetch_active, *fetch_active_tail;
    struct gr_fetch_job *fetch_pending, *fetch_pending_tail;
    size_t fetch_active_bytes;
    gr_buf_t scratch;         /* decompression scratch, loop thread only */
    struct gr_open_batch *open_batch; /* partitions to make off the loop */
    /* the control interface for tests (src/control/), when on: dispatch
     * calls request_hook with each decoded request (non-zero: it took
     * the request); api_caps, when set, caps the versions served
     * ([key][0] min, [key][1] max, -2: not capped; gr_api_served()) */
    struct gr_control *control;
    int (*request_hook)(struct gr_req *req);
    const int16_t (*api_caps)[2];
    /* the Kafka release emulated (gregor.emulate.version, --emulate, or
     * the control interface), or NULL: Gregor's own ranges (emulate.h) */
    const struct gr_api_release *emulate;
    bool stopping;            /* gr_broker_destroy: late work is dropped */
    bool embedded;            /* libgregor: nothing printed on stdout */
    /* deleted partitions' directories wait until the deletion is stored */
    bool deletions_unsynced, deleted_since_sync;
    /* what one Produce request's records may take once inflated or
     * converted (socket.request.max.bytes: Kafka has no such bound); the
     * bound down-conversion inflates stored batches to, so that whatever
     * Produce took converts */
    size_t max_decompressed;
    gr_workers_t *inflate_workers; /* one thread: Produce's large batches,
                                      ListOffsets' searches of records */
    int max_held_files;       /* segment files one response may hold */
    int64_t start_us;
};

/* Builds a broker from a finished configuration. NULL on error (logged). */
gr_broker_t *gr_broker_new(gr_conf_t *conf, const char *listeners_file,
                           const char *dump_frames_dir);
/* Sets b->emulate from gregor.emulate.version (NULL when unset): 0, or
 * -1 (logged) when the table has no such release. */
int gr_broker_emulate_conf(gr_broker_t *b);
/* Binds listeners, loads state and serves until gr_broker_stop(). 0 on a
 * clean shutdown. */
int gr_broker_run(gr_broker_t *broker);
/* Async-signal-safe. */
void gr_broker_stop(gr_broker_t *broker);

struct gr_topic;
/* After a change of t's config overrides: every partition log of t takes
 * the new settings at once. Loop thread only. */
void gr_broker_topic_config_changed(gr_broker_t *broker, struct gr_topic *t);
struct gr_log_config;
/* The log settings of a partition of t: its overrides over the broker's
 * defaults (for the replica fetcher's logs, broker_replica.c). */
void gr_broker_log_config(gr_broker_t *broker, struct gr_topic *t,
                          struct gr_log_config *cfg);
struct gr_req;
/*
 * Partitions the cluster creates between gr_broker_open_async_begin() and
 * gr_broker_open_async_end() get their directories and files made on a
 * worker (creating inodes is slow: 0.1-2 ms a partition) instead of on the
 * loop. Until that is done they have no leader (Metadata says
 * LEADER_NOT_AVAILABLE, Produce and Fetch NOT_LEADER_OR_FOLLOWER, as for a
 * new partition in Kafka before its leader is elected); then their logs
 * open and this broker leads them. With req, _end() answers the request
 * when the work is done (the handler must not reply itself): if a
 * partition of a topic in w could not be made, its error and message say
 * KAFKA_STORAGE_ERROR (its partitions stay offline, as after a failed log
 * directory). The directories are made once the cluster has persisted the
 * topics (gr_cluster_sync); a topic it could not persist is gone again and
 * its error says KAFKA_STORAGE_ERROR too. Returns what gr_req_reply()
 * returns, or 0. Loop thread only.
 */
/* The topics of a request whose answer waits (below): where each one's
 * error code and message go. */
typedef struct gr_topic_waits {
    gr_uuid_t *ids;
    int16_t **errs;
    gr_str_t **msgs;
    int n, cap;
} gr_topic_waits_t;
/* Room for cap topics in req's arena: 0, or -1 when out of memory. */
int gr_topic_waits_init(struct gr_req *req, gr_topic_waits_t *w, int cap);
/* Adds a topic (ignored when the room is full). */
void gr_topic_waits_add(gr_topic_waits_t *w, const gr_uuid_t *id,
                        int16_t *err, gr_str_t *msg);

void gr_broker_open_async_begin(gr_broker_t *broker);
/* w: the request's topics (NULL: none). */
int gr_broker_open_async_end(gr_broker_t *broker, struct gr_req *req,
                             const gr_topic_waits_t *w);
/* As _end() with req, for an answer that depends on how the creation went:
 * refill(req) builds it just before it is sent (also when the batch could
 * not be allocated and the partitions were made at once). */
int gr_broker_open_async_end_then(gr_broker_t *broker, struct gr_req *req,
                                  void (*refill)(struct gr_req *req));
/* Answers req once the cluster has persisted the topic changes made so far
 * (gr_cluster_sync); the error of a topic in w whose change could not be
 * says KAFKA_STORAGE_ERROR. Returns 0. Loop thread only. */
int gr_broker_reply_when_stored(gr_broker_t *broker, struct gr_req *req,
                                const gr_topic_waits_t *w);
/* DeleteTopics in cluster mode (broker_topics.c): answers req once the
 * topics of w are marked for deletion and gone from this broker's model
 * (the controller deleted them from the store), or after timeout_ms
 * (REQUEST_TIMED_OUT for those still there, Kafka's DelayedDeleteTopics;
 * at once when timeout_ms <= 0, as Kafka's ZkAdminManager answers). On a
 * single broker as gr_broker_reply_when_stored.
 * Returns 0. Loop thread only. */
int gr_broker_reply_when_deleted(gr_broker_t *broker, struct gr_req *req,
                                 const gr_topic_waits_t *w,
                                 int32_t timeout_ms);

/* After a change of the dynamic broker configs (the cluster's lists): the
 * configuration's dynamic layers are rebuilt from them and every log and
 * the cleaner take the new settings. Loop thread only. */
void gr_broker_config_changed(gr_broker_t *broker);
void gr_broker_destroy(gr_broker_t *broker);
/* broker_meta.c: opens the coordination store (ZooKeeper with
 * zookeeper.connect and no process.roles, else meta_local), registers
 * the broker and runs the controller election (logged); 0, or -1 when
 * cluster mode has no ZooKeeper session (start-up fails; a local store
 * that does not open is logged and served without). stop() closes it,
 * before the workers stop (its last write then finishes). */
int gr_broker_meta_start(gr_broker_t *broker);
void gr_broker_meta_stop(gr_broker_t *broker);
/* After the loop stopped (SIGTERM), cluster mode: Kafka's controlled
 * shutdown, the loop running until this broker's partitions have moved
 * (broker_failover.c) or its bound passed. */
void gr_broker_meta_leave(gr_broker_t *broker);
/* Kafka's /controller_epoch (decimal) and /controller ({"brokerid":N,...})
 * as read from the store (peer data in cluster mode): 0, or -1 if bad. */
int gr_broker_meta_parse_epoch(const void *data, size_t len, int32_t *epoch);
int gr_broker_meta_parse_controller(const void *data, size_t len,
                                    int32_t *id);

#endif
