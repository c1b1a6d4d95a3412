/*
 * gr_meta: the coordination store the cluster code talks to, shaped like
 * ZooKeeper and neutral about the engine behind it
 * (../shared/reference/cluster-zookeeper.md section 4.2). A tree of
 * znodes, each with data and a stat; writes are conditional on versions;
 * ephemeral nodes belong to the session that made them; watches fire
 * once. meta_local (local.c) is the engine built in: an in-memory tree
 * kept on disk as a snapshot plus a journal; meta_zk (zk.c) is a
 * ZooKeeper ensemble behind the same calls (cluster mode).
 *
 * Every call is loop thread only and every callback runs on the loop
 * thread, never inside the call that asked for it (ZooKeeper's
 * completions come later too). Callbacks come in the order the calls were
 * made, watch events included: a watch event comes before the answer to
 * the write that fired it, and no answer is given before every write
 * made before it is durable, so nobody sees data that could be lost.
 * Strings and data handed to a callback are valid during the callback;
 * copy them to keep them. Calls copy what they are given.
 */
#ifndef GR_META_META_H
#define GR_META_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/loop.h"
#include "core/worker.h"

/* Results, with ZooKeeper's values (zookeeper.h ZOO_ERRORS) so logs read
 * the same against either engine. */
typedef enum {
    GR_META_OK = 0,
    GR_META_SYSTEMERROR = -1,           /* local: I/O failed, the store is
                                         * closed; zk: an error of
                                         * ZooKeeper's not listed here */
    GR_META_RUNTIMEINCONSISTENCY = -2,  /* a multi's op after the failed one */
    GR_META_CONNECTIONLOSS = -4,        /* zk: the answer was lost with the
                                         * connection; a write may or may
                                         * not have happened: read back */
    GR_META_BADARGUMENTS = -8,          /* bad path, too large, bad op */
    GR_META_NONODE = -101,
    GR_META_NOAUTH = -102,              /* zk: an ACL refused it */
    GR_META_BADVERSION = -103,
    GR_META_NOCHILDRENFOREPHEMERALS = -108,
    GR_META_NODEEXISTS = -110,
    GR_META_NOTEMPTY = -111,
    GR_META_SESSIONEXPIRED = -112,
} gr_meta_rc_t;

const char *gr_meta_rc_name(int rc);

/* create flags, as ZooKeeper's */
#define GR_META_EPHEMERAL  0x1
#define GR_META_SEQUENTIAL 0x2

#define GR_META_MAX_PATH 1024
#define GR_META_MAX_DATA (1024 * 1024) /* ZooKeeper's jute.maxbuffer */

typedef struct gr_meta_stat {
    int64_t czxid;           /* zxid of the create: Kafka's broker epoch */
    int64_t mzxid;           /* zxid of the last set */
    int64_t pzxid;           /* zxid of the last child create or delete */
    int32_t version;         /* sets since create: Kafka's zkVersion */
    int32_t cversion;        /* child creates and deletes since create */
    int64_t ephemeral_owner; /* session id, 0 for a persistent node */
    int32_t data_length;
    int32_t num_children;
} gr_meta_stat_t;

typedef enum {
    GR_META_EV_CREATED = 1, /* an exists() watch: the node was created */
    GR_META_EV_DELETED = 2,
    GR_META_EV_CHANGED = 3,  /* its data was set */
    GR_META_EV_CHILDREN = 4, /* a child was created or deleted */
} gr_meta_event_t;

typedef enum {
    GR_META_SESSION_CONNECTED = 1,
    GR_META_SESSION_SUSPENDED = 2, /* disconnected; may come back */
    GR_META_SESSION_EXPIRED = 3,   /* ephemerals gone: re-register */
} gr_meta_session_t;

typedef struct gr_meta gr_meta_t;

typedef void (*gr_meta_session_cb)(void *arg, gr_meta_session_t state,
                                   int64_t session_id);
/* A watch fires once, then it is gone. */
typedef void (*gr_meta_watch_cb)(void *arg, gr_meta_event_t ev,
                                 const char *path);
/* path: the node made (with its sequence number); NULL unless rc == 0 */
typedef void (*gr_meta_create_cb)(void *arg, int rc, const char *path,
                                  const gr_meta_stat_t *st);
/* data, len, st: NULL/0/NULL unless rc == 0 */
typedef void (*gr_meta_data_cb)(void *arg, int rc, const void *data,
                                size_t len, const gr_meta_stat_t *st);
/* st NULL unless rc == 0 */
typedef void (*gr_meta_stat_cb)(void *arg, int rc, const gr_meta_stat_t *st);
/* names sorted by byte order, n of them; NULL/0 unless rc == 0 */
typedef void (*gr_meta_children_cb)(void *arg, int rc, const char *const *names,
                                    int n, const gr_meta_stat_t *st);

typedef enum {
    GR_META_OP_CREATE = 1,
    GR_META_OP_SET = 2,
    GR_META_OP_DELETE = 3,
    GR_META_OP_CHECK = 4,
} gr_meta_op_type_t;

/* One step of a multi. version -1 matches any (set, delete, check). */
typedef struct gr_meta_op {
    gr_meta_op_type_t type;
    const char *path;
    const void *data; /* create, set */
    size_t len;
    int flags;       /* create */
    int32_t version; /* set, delete, check */
} gr_meta_op_t;

/* A multi's per-op answer: for a failed multi the ops before the failed
 * one say OK, the failed one its error, the later ones
 * RUNTIMEINCONSISTENCY (ZooKeeper's). path: create's node; st: set's
 * stat, and create's on meta_local only (ZooKeeper 3.8's C client has
 * no create2 op in a multi: zeros there). */
typedef struct gr_meta_result {
    int rc;
    const char *path;
    gr_meta_stat_t st;
} gr_meta_result_t;

/* rc: 0 or the failed op's error; results: n of them */
typedef void (*gr_meta_multi_cb)(void *arg, int rc,
                                 const gr_meta_result_t *results, int n);

typedef struct gr_meta_cfg {
    gr_loop_t *loop;
    gr_workers_t *workers; /* file writes and fsyncs run there */
    const char *dir;       /* meta_local: its directory (made if missing) */
    /* meta_zk: zookeeper.connect ("host:port,host:port[/chroot]") and
     * Kafka's two timeouts */
    const char *connect;
    int session_timeout_ms;
    int connection_timeout_ms;
} gr_meta_cfg_t;

/* The engine behind a gr_meta_t; each call has the gr_meta_x() contract
 * below. */
typedef struct gr_meta_ops {
    const char *name;
    int (*create)(gr_meta_t *m, const char *path, const void *data,
                  size_t len, int flags, gr_meta_create_cb cb, void *arg);
    int (*get)(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
               void *warg, gr_meta_data_cb cb, void *arg);
    int (*exists)(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
                  void *warg, gr_meta_stat_cb cb, void *arg);
    int (*children)(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
                    void *warg, gr_meta_children_cb cb, void *arg);
    int (*multi)(gr_meta_t *m, const gr_meta_op_t *ops, int n,
                 gr_meta_multi_cb cb, void *arg);
    void (*close)(gr_meta_t *m);
} gr_meta_ops_t;

struct gr_meta {
    const gr_meta_ops_t *ops;
    gr_meta_session_cb session_cb;
    void *session_arg;
    /* gr_meta_fenced_multi()'s wrappers not yet answered (meta.c): close
     * answers nothing, so it frees them. Zero in a new engine. */
    struct gr_meta_fenced *fenced;
};

/* Opens meta_local in cfg->dir: reads the snapshot and the journal (a
 * torn last record is dropped, with a log line), expires the previous
 * process's session (its ephemeral nodes go) and starts a new one,
 * reported to session_cb as CONNECTED from the loop. NULL on failure
 * (logged). Reading happens here, at start-up; writes go to workers. */
gr_meta_t *gr_meta_local_open(const gr_meta_cfg_t *cfg,
                              gr_meta_session_cb session_cb, void *arg);

/* Opens meta_zk: loads ZooKeeper's C client (libzookeeper_mt, only
 * now: a single broker never maps it), starts a session with the servers
 * of cfg->connect and waits for it, at most cfg->connection_timeout_ms
 * (start-up, as Kafka's broker waits), then makes the chroot if missing
 * (Kafka's createChrootIfNecessary). Paths are the chroot's. Sessions:
 * CONNECTED (again after SUSPENDED with the same id: ephemerals and
 * watches kept), SUSPENDED (disconnected: the servers decide expiry, and
 * the client hears of it only once it reaches one again), EXPIRED (its
 * ephemerals and armed watches are gone; meta_zk opens a new session at
 * once, reported CONNECTED with its new id). NULL on failure (logged). */
gr_meta_t *gr_meta_zk_open(const gr_meta_cfg_t *cfg,
                           gr_meta_session_cb session_cb, void *arg);

/* ZooKeeper's PathUtils.validatePath: absolute, no empty, "." or ".."
 * component, no trailing slash but on the root, at most
 * GR_META_MAX_PATH bytes. */
bool gr_meta_path_ok(const char *path);

/* Each returns 0 when cb will be called once (with the result), or -1
 * (out of memory) when nothing will be called. A watch w, when given, is
 * set only if the call succeeds, except exists(), which sets it on a
 * missing node too (to hear of its creation), as ZooKeeper does. The
 * same (w, warg) set twice on one node and kind fires once. */
int gr_meta_create(gr_meta_t *m, const char *path, const void *data,
                   size_t len, int flags, gr_meta_create_cb cb, void *arg);
int gr_meta_get(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
                void *warg, gr_meta_data_cb cb, void *arg);
int gr_meta_exists(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
                   void *warg, gr_meta_stat_cb cb, void *arg);
int gr_meta_children(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
                     void *warg, gr_meta_children_cb cb, void *arg);
/* All or nothing: either every op applies, as one durable step, or none.
 * 1 <= n <= 1000. */
int gr_meta_multi(gr_meta_t *m, const gr_meta_op_t *ops, int n,
                  gr_meta_multi_cb cb, void *arg);
/* A multi fenced by a version, Kafka's wrapRequestWithControllerEpochCheck:
 * ops run behind check(fence_path, fence_version), all or nothing. cb
 * sees ops' own results (n of them, the check's taken off); rc is
 * GR_META_BADVERSION with *every* result RUNTIMEINCONSISTENCY when the
 * fence moved (the writer was deposed), else as gr_meta_multi's.
 * 1 <= n <= 999. */
int gr_meta_fenced_multi(gr_meta_t *m, const char *fence_path,
                         int32_t fence_version, const gr_meta_op_t *ops,
                         int n, gr_meta_multi_cb cb, void *arg);
/* Closes; no callback runs after this, answered or not. Every write
 * made so far is kept: one a worker holds finishes there, the others are
 * written (and fsynced) by close itself or, after that job, by its
 * completion, with no new job (the workers may be stopping). NULL does
 * nothing. */
void gr_meta_close(gr_meta_t *m);

/* meta_local's files, for tests and the fuzz target: parses a snapshot
 * (then a journal) image into a fresh tree and drops it. 0, or -1 if
 * the snapshot is bad; *journal_ok gets the journal's bytes that hold
 * whole, valid records. */
int gr_meta_local_parse(const uint8_t *snap, size_t snap_len,
                        const uint8_t *journal, size_t journal_len,
                        size_t *journal_ok);

#endif
