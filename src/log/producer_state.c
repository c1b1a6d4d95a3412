/*
 * Producer state of a partition: see producer_state.h. Producers are in a
 * chained hash by id; each keeps a ring of its last five batches. Open
 * transactions are an array in order of their first offset, so the last
 * stable offset is its first element.
 */
#include "log/producer_state.h"
#include "core/crc32c.h"
#include "log/txn_index.h"
#include "core/log.h"
#include "proto/gen/producer_snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNAPSHOT_VERSION 1
#define SNAPSHOT_ENTRIES_OFFSET 6 /* version int16 + crc uint32 */

typedef struct pbatch {
    int32_t first_seq;
    int32_t last_seq;
    int64_t first_offset;
    int64_t last_offset;
    int64_t max_ts; /* the batch's maxTimestamp (Kafka's BatchMetadata) */
} pbatch_t;

typedef struct producer {
    struct producer *hnext;
    int64_t pid;
    int16_t epoch; /* -1: unknown */
    int32_t coordinator_epoch;
    pbatch_t b[GR_PSTATE_BATCHES]; /* ring, oldest at head */
    int nb;
    int head;
    int64_t last_ts;
    int64_t txn_first; /* -1: no open transaction */
} producer_t;

struct gr_pstate {
    char *name; /* topic-partition, for log lines */
    producer_t **tab;
    uint32_t tab_size;
    int count;
    gr_ptxn_t *txns; /* open, by first offset */
    int ntxns, txns_cap;
    gr_log_t *log;        /* set by gr_pstate_load */
    gr_txnidx_t *txnidx;  /* aborted transactions, likewise */
    int64_t snap_offset;  /* the state at this offset is in a snapshot file:
                             the one loaded or the last written; -1 none */
};

static uint32_t
hash_pid(int64_t pid)
{
    uint64_t x = (uint64_t)pid * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(x >> 32);
}

gr_pstate_t *
gr_pstate_new(const char *topic, int32_t partition)
{
    gr_pstate_t *ps = calloc(1, sizeof(*ps));
    char buf[300];
    if (ps == NULL)
        return NULL;
    snprintf(buf, sizeof buf, "%s-%d", topic, partition);
    ps->name = strdup(buf);
    ps->tab_size = 16;
    ps->tab = calloc(ps->tab_size, sizeof(*ps->tab));
    ps->snap_offset = -1;
    if (ps->name == NULL || ps->tab == NULL) {
        gr_pstate_destroy(ps);
        return NULL;
    }
    return ps;
}

static void
clear(gr_pstate_t *ps)
{
    for (uint32_t i = 0; i < ps->tab_size; i++) {
        producer_t *p = ps->tab[i], *next;
        for (; p; p = next) {
            next = p->hnext;
            free(p);
        }
        ps->tab[i] = NULL;
    }
    ps->count = 0;
    ps->ntxns = 0;
}

void
gr_pstate_destroy(gr_pstate_t *ps)
{
    if (ps == NULL)
        return;
    if (ps->log)
        gr_log_set_txns(ps->log, NULL);
    if (ps->tab)
        clear(ps);
    free(ps->tab);
    free(ps->txns);
    gr_txnidx_destroy(ps->txnidx);
    free(ps->name);
    free(ps);
}

static producer_t *
find(const gr_pstate_t *ps, int64_t pid)
{
    for (producer_t *p = ps->tab[hash_pid(pid) & (ps->tab_size - 1)]; p;
         p = p->hnext)
        if (p->pid == pid)
            return p;
    return NULL;
}

static producer_t *
get(gr_pstate_t *ps, int64_t pid)
{
    producer_t *p = find(ps, pid);
    uint32_t h;
    if (p != NULL)
        return p;
    if ((uint32_t)ps->count + 1 > ps->tab_size) {
        uint32_t n = ps->tab_size * 2;
        producer_t **t = calloc(n, sizeof(*t));
        if (t == NULL)
            return NULL;
        for (uint32_t i = 0; i < ps->tab_size; i++) {
            producer_t *q = ps->tab[i], *next;
            for (; q; q = next) {
                next = q->hnext;
                h = hash_pid(q->pid) & (n - 1);
                q->hnext = t[h];
                t[h] = q;
            }
        }
        free(ps->tab);
        ps->tab = t;
        ps->tab_size = n;
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->pid = pid;
    p->epoch = -1;
    p->coordinator_epoch = -1;
    p->txn_first = -1;
    h = hash_pid(pid) & (ps->tab_size - 1);
    p->hnext = ps->tab[h];
    ps->tab[h] = p;
    ps->count++;
    return p;
}

static void
remove_producer(gr_pstate_t *ps, producer_t *p)
{
    producer_t **pp = &ps->tab[hash_pid(p->pid) & (ps->tab_size - 1)];
    while (*pp && *pp != p)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = p->hnext;
    ps->count--;
    free(p);
}

static const pbatch_t *
last_batch(const producer_t *p)
{
    if (p->nb == 0)
        return NULL;
    return &p->b[(p->head + p->nb - 1) % GR_PSTATE_BATCHES];
}

static void
push_batch(producer_t *p, const pbatch_t *b)
{
    if (p->nb == GR_PSTATE_BATCHES) {
        p->b[p->head] = *b;
        p->head = (p->head + 1) % GR_PSTATE_BATCHES;
    } else {
        p->b[(p->head + p->nb) % GR_PSTATE_BATCHES] = *b;
        p->nb++;
    }
}

static bool
in_sequence(int32_t last, int32_t next)
{
    return (int64_t)next == (int64_t)last + 1 ||
           (next == 0 && last == INT32_MAX);
}

static int32_t
batch_last_seq(const gr_batch_hdr_t *h)
{
    return (int32_t)(((int64_t)h->base_sequence + h->last_offset_delta) &
                     0x7fffffff);
}

bool
gr_pstate_producer(const gr_pstate_t *ps, int64_t pid, int16_t *epoch,
                   bool *txn_open)
{
    const producer_t *p = find(ps, pid);
    *epoch = -1;
    *txn_open = false;
    if (p == NULL)
        return false;
    *epoch = p->epoch;
    *txn_open = p->txn_first >= 0;
    return true;
}

gr_kerr_t
gr_pstate_check(gr_pstate_t *ps, const gr_batch_hdr_t *h, gr_pcheck_t *out)
{
    producer_t *p = find(ps, h->producer_id);
    bool txn = (h->attributes & GR_ATTR_TRANSACTIONAL) != 0;
    int32_t last_seq = batch_last_seq(h);

    memset(out, 0, sizeof *out);
    if (p == NULL)
        return GR_KERR_NONE; /* unknown producer: any sequence */
    if (p->epoch >= 0 && h->producer_epoch < p->epoch) {
        out->message = "The producer's epoch is older than the last one "
                       "seen on this partition.";
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    }
    if (h->producer_epoch == p->epoch) {
        for (int i = 0; i < p->nb; i++) {
            const pbatch_t *b = &p->b[(p->head + i) % GR_PSTATE_BATCHES];
            if (b->first_seq == h->base_sequence && b->last_seq == last_seq) {
                out->duplicate = true;
                out->dup_first_offset = b->first_offset;
                out->dup_last_offset = b->last_offset;
                out->dup_timestamp = b->max_ts;
                return GR_KERR_NONE;
            }
        }
    }
    if (h->producer_epoch != p->epoch) {
        if (h->base_sequence != 0 && p->epoch >= 0) {
            out->message = "Invalid sequence number for the new epoch of the "
                           "producer: it must start at 0.";
            return GR_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
        }
    } else {
        const pbatch_t *b = last_batch(p);
        int32_t cur = b ? b->last_seq : -1;
        if (!(p->epoch < 0 || in_sequence(cur, h->base_sequence))) {
            out->message = "Out of order sequence number: the batch does not "
                           "follow the producer's last sequence.";
            return GR_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER;
        }
    }
    if (!txn && p->txn_first >= 0 && h->producer_epoch == p->epoch) {
        out->message = "Expected a transactional write from a producer with "
                       "an open transaction.";
        return GR_KERR_INVALID_TXN_STATE;
    }
    return GR_KERR_NONE;
}

static void
txn_begin(gr_pstate_t *ps, int64_t pid, int64_t first)
{
    int i;
    if (ps->ntxns == ps->txns_cap) {
        int cap = ps->txns_cap ? ps->txns_cap * 2 : 8;
        gr_ptxn_t *t = realloc(ps->txns, (size_t)cap * sizeof(*t));
        GR_ASSERT(t != NULL);
        ps->txns = t;
        ps->txns_cap = cap;
    }
    /* appends come in offset order; replay may not: keep it sorted */
    for (i = ps->ntxns; i > 0 && ps->txns[i - 1].first_offset > first; i--)
        ps->txns[i] = ps->txns[i - 1];
    ps->txns[i].producer_id = pid;
    ps->txns[i].first_offset = first;
    ps->ntxns++;
}

static void
txn_end(gr_pstate_t *ps, int64_t pid)
{
    for (int i = 0; i < ps->ntxns; i++) {
        if (ps->txns[i].producer_id == pid) {
            memmove(&ps->txns[i], &ps->txns[i + 1],
                    (size_t)(ps->ntxns - i - 1) * sizeof(ps->txns[0]));
            ps->ntxns--;
            return;
        }
    }
}

void
gr_pstate_append(gr_pstate_t *ps, const gr_batch_hdr_t *h, int64_t now_ms)
{
    producer_t *p = get(ps, h->producer_id);
    pbatch_t b;
    if (p == NULL) {
        GR_LOG_ERROR("%s: out of memory for producer state", ps->name);
        return;
    }
    if (h->producer_epoch != p->epoch) {
        p->nb = 0;
        p->head = 0;
        p->epoch = h->producer_epoch;
    }
    b.first_seq = h->base_sequence;
    b.last_seq = batch_last_seq(h);
    b.first_offset = h->base_offset;
    b.last_offset = gr_batch_last_offset(h);
    b.max_ts = h->max_timestamp;
    push_batch(p, &b);
    /* the batch's max timestamp, as Kafka's ProducerAppendInfo keeps it
     * (DescribeProducers' LastTimestamp, .snapshot files, expiry); the
     * clock only for a batch without one */
    p->last_ts = h->max_timestamp >= 0 ? h->max_timestamp : now_ms;
    if ((h->attributes & GR_ATTR_TRANSACTIONAL) && p->txn_first < 0) {
        p->txn_first = h->base_offset;
        txn_begin(ps, p->pid, p->txn_first);
    }
}

gr_kerr_t
gr_pstate_check_marker(gr_pstate_t *ps, int64_t pid, int16_t epoch,
                       int32_t coordinator_epoch)
{
    producer_t *p = find(ps, pid);
    if (p == NULL)
        return GR_KERR_NONE;
    if (p->epoch >= 0 && epoch < p->epoch)
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    if (coordinator_epoch < p->coordinator_epoch)
        return GR_KERR_TRANSACTION_COORDINATOR_FENCED;
    return GR_KERR_NONE;
}

void
gr_pstate_marker(gr_pstate_t *ps, int64_t pid, int16_t epoch,
                 int32_t coordinator_epoch, int64_t offset, int64_t now_ms,
                 int64_t *txn_first)
{
    producer_t *p = get(ps, pid);
    (void)offset;
    *txn_first = -1;
    if (p == NULL)
        return;
    *txn_first = p->txn_first;
    if (p->txn_first >= 0)
        txn_end(ps, pid);
    p->txn_first = -1;
    if (epoch != p->epoch) {
        p->nb = 0;
        p->head = 0;
    }
    p->epoch = epoch;
    p->coordinator_epoch = coordinator_epoch;
    p->last_ts = now_ms;
}

void
gr_pstate_end_txn(gr_pstate_t *ps, int64_t pid, int16_t epoch,
                  int32_t coordinator_epoch, bool commit, int64_t offset,
                  int64_t now_ms)
{
    int64_t first;
    gr_aborted_txn_t t;
    gr_pstate_marker(ps, pid, epoch, coordinator_epoch, offset, now_ms,
                     &first);
    if (commit || first < 0 || ps->txnidx == NULL || ps->log == NULL)
        return;
    t.producer_id = pid;
    t.first_offset = first;
    t.last_offset = offset;
    t.last_stable_offset = gr_pstate_first_unstable(ps);
    if (t.last_stable_offset < 0)
        t.last_stable_offset = offset + 1;
    gr_txnidx_append(ps->txnidx, gr_log_segment_base(ps->log, offset), &t);
}

const gr_txnidx_t *
gr_pstate_txnidx(const gr_pstate_t *ps)
{
    return ps->txnidx;
}

int64_t
gr_pstate_first_unstable(const gr_pstate_t *ps)
{
    return ps->ntxns ? ps->txns[0].first_offset : -1;
}

int
gr_pstate_count(const gr_pstate_t *ps)
{
    return ps->count;
}

void
gr_pstate_foreach(const gr_pstate_t *ps,
                  void (*cb)(void *arg, const gr_pinfo_t *p), void *arg)
{
    for (uint32_t i = 0; i < ps->tab_size; i++)
        for (const producer_t *p = ps->tab[i]; p; p = p->hnext) {
            const pbatch_t *b = last_batch(p);
            gr_pinfo_t info;
            info.producer_id = p->pid;
            info.epoch = p->epoch;
            info.last_sequence = b ? b->last_seq : -1;
            info.last_timestamp = p->last_ts;
            info.coordinator_epoch = p->coordinator_epoch;
            info.txn_first_offset = p->txn_first;
            cb(arg, &info);
        }
}

int
gr_pstate_expire(gr_pstate_t *ps, int64_t now_ms, int64_t expiration_ms)
{
    int n = 0;
    if (ps->txnidx && ps->log) /* segments retention deleted */
        gr_txnidx_drop_before(ps->txnidx,
                              gr_log_segment_base(ps->log,
                                                  gr_log_start_offset(ps->log)));
    for (uint32_t i = 0; i < ps->tab_size; i++) {
        producer_t *p = ps->tab[i], *next;
        for (; p; p = next) {
            next = p->hnext;
            if (p->txn_first < 0 && now_ms - p->last_ts >= expiration_ms) {
                remove_producer(ps, p);
                n++;
            }
        }
    }
    return n;
}

/* --- replay and snapshots */

typedef struct marker_probe {
    int type;
    int32_t coordinator_epoch;
} marker_probe_t;

static int
read_marker(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    marker_probe_t *m = arg;
    (void)h;
    if (r->key.len >= 4)
        m->type = (int)gr_get_u16(r->key.ptr + 2);
    if (r->value.len >= 6)
        m->coordinator_epoch = (int32_t)gr_get_u32(r->value.ptr + 2);
    return 1;
}

void
gr_pstate_replay(gr_pstate_t *ps, const uint8_t *batch, size_t n)
{
    gr_batch_hdr_t h;
    if (n < GR_BATCH_HEADER_SIZE)
        return;
    gr_batch_hdr_parse(batch, &h);
    if (h.producer_id < 0)
        return;
    if (h.attributes & GR_ATTR_CONTROL) {
        marker_probe_t m = {-1, -1};
        gr_buf_t scratch = GR_BUF_INIT;
        gr_batch_foreach_record(batch, n, &scratch, 1 << 16, read_marker, &m);
        gr_buf_fini(&scratch);
        if (m.type == GR_CONTROL_ABORT || m.type == GR_CONTROL_COMMIT)
            gr_pstate_end_txn(ps, h.producer_id, h.producer_epoch,
                              m.coordinator_epoch, m.type == GR_CONTROL_COMMIT,
                              h.base_offset, h.max_timestamp);
        return;
    }
    gr_pstate_append(ps, &h, h.max_timestamp);
}

static int
replay_cb(void *arg, const uint8_t *batch, size_t n)
{
    gr_pstate_replay(arg, batch, n);
    return 0;
}

static void
snapshot_path(char *buf, size_t n, const char *dir, int64_t off)
{
    snprintf(buf, n, "%s/%020" PRId64 ".snapshot", dir, off);
}

/* Reads one snapshot file into the (empty) state. 0 or -1. */
static int
load_snapshot(gr_pstate_t *ps, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC); /* 4 system calls, not 7 */
    uint8_t *buf = NULL;
    struct stat st;
    off_t len, got = 0;
    int rc = -1;
    gr_arena_t *a = NULL;
    gr_producer_snapshot_t snap;
    gr_reader_t r;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || (len = st.st_size) < SNAPSHOT_ENTRIES_OFFSET ||
        len > (1L << 30))
        goto out;
    buf = malloc((size_t)len);
    a = gr_arena_new(4096);
    if (buf == NULL || a == NULL)
        goto out;
    while (got < len) {
        ssize_t n = pread(fd, buf + got, (size_t)(len - got), got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto out;
        got += n;
    }
    if (gr_get_u16(buf) != SNAPSHOT_VERSION ||
        gr_get_u32(buf + 2) != gr_crc32c(buf + SNAPSHOT_ENTRIES_OFFSET,
                                         (size_t)len - SNAPSHOT_ENTRIES_OFFSET))
        goto out;
    r = gr_reader_init(buf + 2, (size_t)len - 2);
    if (gr_producer_snapshot_decode(&r, SNAPSHOT_VERSION, a, &snap) != 0 ||
        gr_reader_remaining(&r) != 0)
        goto out;
    for (int32_t i = 0; i < snap.producer_entries_cnt; i++) {
        const gr_producer_snapshot_producer_entry_t *e =
            &snap.producer_entries[i];
        producer_t *p = get(ps, e->producer_id);
        if (p == NULL)
            goto out;
        p->epoch = e->epoch;
        p->coordinator_epoch = e->coordinator_epoch;
        p->last_ts = e->timestamp;
        if (e->last_sequence >= 0) {
            pbatch_t b;
            b.last_seq = e->last_sequence;
            b.first_seq = e->last_sequence - e->offset_delta;
            b.last_offset = e->last_offset;
            b.first_offset = e->last_offset - e->offset_delta;
            b.max_ts = e->timestamp;
            push_batch(p, &b);
        }
        if (e->current_txn_first_offset >= 0) {
            p->txn_first = e->current_txn_first_offset;
            txn_begin(ps, p->pid, p->txn_first);
        }
    }
    rc = 0;
out:
    if (rc != 0)
        clear(ps);
    gr_arena_destroy(a);
    free(buf);
    close(fd);
    return rc;
}

/* --- what the log cleaner asks (gr_log_txns_t) */

static int64_t
txns_first_unstable(void *arg)
{
    return gr_pstate_first_unstable(arg);
}

typedef struct triples {
    int64_t *v;
    int n, cap;
    bool oom;
} triples_t;

static void
add_triple(void *arg, const gr_aborted_txn_t *t)
{
    triples_t *tr = arg;
    if (tr->n == tr->cap) {
        int cap = tr->cap ? tr->cap * 2 : 16;
        int64_t *v = realloc(tr->v, (size_t)cap * 3 * sizeof(*v));
        if (v == NULL) {
            tr->oom = true;
            return;
        }
        tr->v = v;
        tr->cap = cap;
    }
    tr->v[3 * tr->n] = t->producer_id;
    tr->v[3 * tr->n + 1] = t->first_offset;
    tr->v[3 * tr->n + 2] = t->last_offset;
    tr->n++;
}

static int
txns_aborted(void *arg, int64_t from, int64_t to, int64_t **out)
{
    gr_pstate_t *ps = arg;
    triples_t tr = { NULL, 0, 0, false };
    *out = NULL;
    if (ps->txnidx != NULL)
        gr_txnidx_collect(ps->txnidx, from, to, add_triple, &tr);
    if (tr.oom) {
        free(tr.v);
        return -1;
    }
    *out = tr.v;
    return tr.n;
}

static void
txns_merged(void *arg, int64_t base, int64_t end)
{
    gr_pstate_t *ps = arg;
    if (ps->txnidx != NULL)
        gr_txnidx_merged(ps->txnidx, base, end);
}

gr_err_t
gr_pstate_load(gr_pstate_t *ps, gr_log_t *l)
{
    const char *dir = gr_log_dir(l);
    int64_t *offs = NULL, leo = gr_log_end_offset(l), from = -1;
    gr_dir_names_t names; /* one listing for snapshots and txn indexes */
    int n = -1;
    char path[4096];
    gr_err_t err;
    bool damaged = false;

    clear(ps);
    ps->log = l;
    gr_txnidx_destroy(ps->txnidx);
    if (gr_dir_names_read(dir, &names) == 0) {
        n = gr_dir_names_bases(&names, ".snapshot", &offs);
        ps->txnidx = gr_txnidx_open_listed(dir, &names, leo, &damaged);
        gr_dir_names_free(&names);
    } else {
        ps->txnidx = gr_txnidx_open(dir, leo, &damaged);
    }
    if (ps->txnidx == NULL) {
        free(offs);
        return GR_ERR_NOMEM;
    }
    {
        gr_log_txns_t t = { txns_first_unstable, txns_aborted, txns_merged,
                            ps };
        gr_log_set_txns(l, &t);
    }
    if (damaged) {
        /* every entry comes back from a replay of the whole log */
        GR_LOG_WARN("%s: transaction index damaged: rebuilding it and the "
                    "producer state from the log",
                    ps->name);
        gr_txnidx_reset(ps->txnidx);
        n = 0;
    }
    for (int i = n - 1; i >= 0; i--) {
        snapshot_path(path, sizeof path, dir, offs[i]);
        if (offs[i] > leo) {
            /* written before a truncation: not ours any more */
            unlink(path);
            continue;
        }
        if (load_snapshot(ps, path) == 0) {
            from = offs[i];
            break;
        }
        GR_LOG_WARN("%s: producer snapshot %s is damaged; ignored", ps->name,
                    path);
    }
    free(offs);
    ps->snap_offset = from;
    err = gr_log_scan(l, from < 0 ? 0 : from, replay_cb, ps);
    if (err != 0)
        GR_LOG_ERROR("%s: rebuilding producer state from the log: %s",
                     ps->name, gr_err_str(err));
    else if (ps->count > 0)
        GR_LOG_INFO("%s: producer state of %d producer(s) loaded (snapshot "
                    "%" PRId64 ", log end %" PRId64 ")",
                    ps->name, ps->count, from, leo);
    return err;
}

gr_err_t
gr_pstate_snapshot(gr_pstate_t *ps, gr_log_t *l)
{
    const char *dir = gr_log_dir(l);
    int64_t leo = gr_log_end_offset(l), *offs = NULL;
    gr_producer_snapshot_t snap;
    gr_arena_t *a;
    uint8_t *buf;
    size_t size;
    gr_writer_t w;
    char path[4096], name[64];
    int n, k = 0;
    gr_err_t err = 0;
    FILE *f;

    /* as Kafka's takeSnapshot: nothing appended since the last snapshot,
     * nothing to write (a restart of 10,000 idle partitions wrote 10,000) */
    if (ps->snap_offset == leo) {
        snapshot_path(path, sizeof path, dir, leo);
        if (access(path, F_OK) == 0)
            return 0;
    }
    if ((a = gr_arena_new(4096)) == NULL)
        return GR_ERR_NOMEM;
    gr_producer_snapshot_init(&snap);
    snap.producer_entries =
        gr_arena_zalloc(a, (size_t)(ps->count ? ps->count : 1) *
                               sizeof(*snap.producer_entries));
    for (uint32_t i = 0; i < ps->tab_size; i++)
        for (producer_t *p = ps->tab[i]; p; p = p->hnext) {
            gr_producer_snapshot_producer_entry_t *e =
                &snap.producer_entries[k++];
            const pbatch_t *b = last_batch(p);
            e->producer_id = p->pid;
            e->epoch = p->epoch;
            e->last_sequence = b ? b->last_seq : -1;
            e->last_offset = b ? b->last_offset : -1;
            e->offset_delta = b ? b->last_seq - b->first_seq : 0;
            e->timestamp = p->last_ts;
            e->coordinator_epoch = p->coordinator_epoch;
            e->current_txn_first_offset = p->txn_first;
        }
    snap.producer_entries_cnt = k;
    size = 2 + gr_producer_snapshot_size(&snap, SNAPSHOT_VERSION);
    buf = gr_arena_alloc(a, size);
    w = gr_writer_init(buf, size, a);
    gr_wr_i16(&w, SNAPSHOT_VERSION);
    gr_producer_snapshot_encode(&w, &snap, SNAPSHOT_VERSION);
    gr_put_u32(buf + 2, gr_crc32c(buf + SNAPSHOT_ENTRIES_OFFSET,
                                  size - SNAPSHOT_ENTRIES_OFFSET));
    snprintf(name, sizeof name, "%020" PRId64 ".snapshot", leo);
    snprintf(path, sizeof path, "%s/%s.tmp", dir, name);
    f = fopen(path, "wb");
    /* no fsync: snapshots are written at shutdown, before the log
     * manager's single syncfs (gr_logs_close); a lost snapshot only means
     * more of the log is replayed */
    if (f == NULL || fwrite(buf, 1, size, f) != size || fflush(f) != 0) {
        GR_LOG_ERROR("%s: cannot write producer snapshot %s: %s", ps->name,
                     path, strerror(errno));
        err = GR_ERR_IO;
    }
    if (f)
        fclose(f);
    if (err == 0) {
        char final[4096];
        snapshot_path(final, sizeof final, dir, leo);
        if (rename(path, final) != 0)
            err = GR_ERR_IO;
        else
            ps->snap_offset = leo;
    }
    if (err != 0)
        unlink(path);
    gr_arena_destroy(a);
    /* keep this one and the one before it */
    n = gr_dir_bases(dir, ".snapshot", &offs);
    for (int i = 0; i < n - 2; i++) {
        snapshot_path(path, sizeof path, dir, offs[i]);
        unlink(path);
    }
    free(offs);
    return err;
}
