/*
 * Opening a partition log (Kafka's LogLoader, with the part of
 * UnifiedLog.apply around it): gr_log_open takes a partition directory as
 * a clean stop, a crash or a new topic left it to a log that log.c runs.
 * Its steps, in order:
 *
 *  1. the directory is made if missing (a deleted one of the same name
 *     still waiting to be moved aside goes first);
 *  2. partition.metadata is written unless it names the topic id already;
 *     one naming another topic id moves the directory aside as
 *     <topic>-<p>.<id>-stray, an empty one takes its place and the
 *     checkpoints (the old incarnation's) are ignored;
 *  3. swaps the cleaner left half done (<base>.range.swap) are completed
 *     or dropped (LogLoader's completeSwapOperations);
 *  4. from one listing (another after a completed swap): leftovers
 *     (.deleted, .cleaned, .swap) and index files without a .log are
 *     deleted, the segments are taken from the .log names and sizes, and
 *     those whose index files are missing or of a wrong size are flagged
 *     for a rebuild (removeTempFilesAndCollectSwapFiles, loadSegmentFiles);
 *  5. recovery (recoverLog): after an unclean shutdown every segment
 *     holding offsets from the recovery point
 *     (recovery-point-offset-checkpoint) on is scanned, its indexes
 *     rebuilt and a torn tail cut, and the segments after one that was cut
 *     are deleted; flagged segments get their indexes rebuilt; the active
 *     segment's tail is scanned from its last index entry for the LEO; a
 *     LEO below the checkpointed log start (log-start-offset-checkpoint)
 *     deletes every segment; an empty log gets a segment at the log start;
 *     the log start and the recovery point are set;
 *  6. the leader-epoch cache is loaded or rebuilt (log_epochs.c);
 *  7. after an unclean shutdown the blocks reserved past the active
 *     segment's data are given back;
 *  8. the log takes its checkpoint entry and joins the manager.
 *
 * The producer state is the broker's to load once the log is open
 * (gr_pstate_load: a snapshot, then the batches after it). New partitions'
 * directories may be made ahead on a worker (gr_logs_prepare); gr_log_open
 * then finds them ready. Loop thread only, except those workers.
 */
#include "log/log_int.h"

#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the segment files */

static int
cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool
has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Completes a swap the cleaner had committed (its <base>.log.swap exists)
 * when the broker stopped: the segments it replaces, those with bases in
 * [base, end) where end is read from <base>.range.swap, are deleted and the
 * .swap files take their names. Index files that are missing are rebuilt
 * later. Without the range file (written before the .log.swap) the swap
 * is dropped and the old segments stay. swapped: only the range file is
 * left (the .log was renamed, but maybe not every old file deleted and
 * not durably): the old segments in (base, end) and base's indexes go. */
static gr_err_t
complete_swap(gr_log_t *l, int64_t base, bool swapped)
{
    char path[GR_SEG_PATH_MAX], to[GR_SEG_PATH_MAX], buf[64];
    static const char *const suffixes[] = { ".index", ".timeindex" };
    long long end = -1;
    struct dirent *de;
    ssize_t n;
    DIR *d;
    int fd;

    gr_segment_path(path, l->dir, base, ".range.swap");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        if (sscanf(buf, "%lld", &end) != 1)
            end = -1;
    }
    if (end <= base) {
        if (swapped)
            return 0; /* a damaged leftover: load_segments deletes it */
        GR_LOG_WARN("%s/%020" PRId64 ".log.swap: no valid range file; "
                    "dropping the swap, the old segments stay",
                    l->dir, base);
        return 0; /* load_segments deletes the .swap files */
    }
    d = opendir(l->dir);
    if (d == NULL)
        return GR_ERR_IO;
    while ((de = readdir(d)) != NULL) {
        const char *suffix;
        int64_t b;
        if (!gr_seg_name_parse(de->d_name, &b, &suffix) || b < base || b >= end)
            continue;
        /* after a swap its .log is the cleaned one; its indexes may be
         * either, so they are rebuilt */
        if (swapped && b == base && strcmp(suffix, ".log") == 0)
            continue;
        if (strcmp(suffix, ".log") && strcmp(suffix, ".index") &&
            strcmp(suffix, ".timeindex"))
            continue;
        snprintf(path, sizeof path, "%s/%s", l->dir, de->d_name);
        if (unlink(path) != 0 && errno != ENOENT) {
            GR_LOG_ERROR("cannot delete %s: %s", path, strerror(errno));
            closedir(d);
            return GR_ERR_IO;
        }
    }
    closedir(d);
    if (swapped) {
        GR_LOG_INFO("%s: finished the clean-up of the swap of cleaned "
                    "segment %" PRId64,
                    l->dir, base);
        return gr_logs_fsync_dir(l->dir);
    }
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(buf, sizeof buf, "%s.swap", suffixes[i]);
        gr_segment_path(path, l->dir, base, buf);
        gr_segment_path(to, l->dir, base, suffixes[i]);
        if (rename(path, to) != 0 && errno != ENOENT)
            return GR_ERR_IO;
    }
    gr_segment_path(path, l->dir, base, ".log.swap");
    gr_segment_path(to, l->dir, base, ".log");
    if (rename(path, to) != 0) {
        GR_LOG_ERROR("cannot rename %s: %s", path, strerror(errno));
        return GR_ERR_IO;
    }
    GR_LOG_INFO("%s: completed the interrupted swap of cleaned segment "
                "%" PRId64 " (offsets below %lld)",
                l->dir, base, end);
    return gr_logs_fsync_dir(l->dir);
}

/* A listing of l->dir failed (errno): logged. */
static gr_err_t
list_failed(const gr_log_t *l)
{
    int e = errno;
    GR_LOG_ERROR("cannot list %s: %s", l->dir, strerror(e));
    return e == ENOMEM ? GR_ERR_NOMEM : GR_ERR_IO;
}

/* Completes the swaps the names show (.range.swap files); *changed when
 * there was one (the directory is then no longer as listed). */
static gr_err_t
complete_swaps(gr_log_t *l, const gr_dir_names_t *names, bool *changed)
{
    char path[GR_SEG_PATH_MAX];
    int64_t *bases;
    gr_err_t err = 0;
    int n = gr_dir_names_bases(names, ".range.swap", &bases);

    *changed = n != 0;
    if (n < 0)
        return GR_ERR_NOMEM;
    for (int i = 0; i < n && err == 0; i++) {
        gr_segment_path(path, l->dir, bases[i], ".log.swap");
        err = complete_swap(l, bases[i], access(path, F_OK) != 0);
    }
    free(bases);
    return err;
}

/* Lists the segments of l->dir (sizes from stat, nothing opened), deletes
 * leftovers (.deleted, .cleaned, .swap, orphan indexes) as LogLoader does,
 * and flags segments whose index files are missing or of a wrong size. */
static gr_err_t
load_segments(gr_log_t *l, const gr_dir_names_t *names)
{
    int64_t *bases = NULL, *idx_bases = NULL;
    size_t nb = 0, cb = 0, ni = 0, ci = 0;
    char path[GR_SEG_PATH_MAX];
    gr_err_t err = 0;

    for (int k = 0; k < names->n; k++) {
        const char *name = names->v[k], *suffix;
        int64_t base;
        if (has_suffix(name, ".deleted") || has_suffix(name, ".cleaned") ||
            has_suffix(name, ".swap")) {
            snprintf(path, sizeof path, "%s/%s", l->dir, name);
            GR_LOG_INFO("deleting leftover file %s", path);
            unlink(path);
            continue;
        }
        if (!gr_seg_name_parse(name, &base, &suffix))
            continue;
        if (strcmp(suffix, ".log") == 0) {
            if (nb == cb) {
                int64_t *p = realloc(bases, (cb = cb ? cb * 2 : 16) * 8);
                if (p == NULL) {
                    err = GR_ERR_NOMEM;
                    break;
                }
                bases = p;
            }
            bases[nb++] = base;
        } else if (strcmp(suffix, ".index") == 0 ||
                   strcmp(suffix, ".timeindex") == 0) {
            if (ni == ci) {
                int64_t *p = realloc(idx_bases, (ci = ci ? ci * 2 : 16) * 8);
                if (p == NULL) {
                    err = GR_ERR_NOMEM;
                    break;
                }
                idx_bases = p;
            }
            idx_bases[ni++] = base;
        }
    }
    if (err == 0 && nb > 0)
        qsort(bases, nb, sizeof(bases[0]), cmp_i64);

    for (size_t i = 0; err == 0 && i < ni; i++) {
        if (nb > 0 && bsearch(&idx_bases[i], bases, nb, sizeof(bases[0]),
                              cmp_i64) != NULL)
            continue;
        gr_segment_path(path, l->dir, idx_bases[i], ".index");
        GR_LOG_WARN("deleting index files without a log: %s", path);
        unlink(path);
        gr_segment_path(path, l->dir, idx_bases[i], ".timeindex");
        unlink(path);
    }

    for (size_t i = 0; err == 0 && i < nb; i++) {
        gr_segment_t *seg =
            gr_segment_new(bases[i], gr_loop_wall_ms(l->m->loop));
        struct stat st;
        if (seg == NULL || gr_log_seg_push(l, seg) != 0) {
            gr_segment_free(seg);
            err = GR_ERR_NOMEM;
            break;
        }
        gr_segment_path(path, l->dir, seg->base, ".log");
        if (stat(path, &st) != 0) {
            GR_LOG_ERROR("cannot stat %s: %s", path, strerror(errno));
            err = GR_ERR_IO;
            break;
        }
        seg->size = st.st_size;
        l->size_bytes += seg->size;
        gr_segment_path(path, l->dir, seg->base, ".index");
        if (stat(path, &st) != 0 || st.st_size % GR_OIDX_ENTRY != 0)
            seg->rebuild = true;
        else if (st.st_size == 0) /* read: nothing to open (no entry to
                                     check either) */
            seg->oidx.loaded = seg->oidx.exact = true;
        gr_segment_path(path, l->dir, seg->base, ".timeindex");
        if (stat(path, &st) != 0 || st.st_size % GR_TIDX_ENTRY != 0)
            seg->rebuild = true;
        if (seg->rebuild)
            GR_LOG_WARN("%s/%020" PRId64 ": index files missing or damaged,"
                        " rebuilding",
                        l->dir, seg->base);
    }
    free(bases);
    free(idx_bases);
    return err;
}

/* Finds the LEO from the active segment's last index entry: scans the
 * batch headers after it (remembering them for reads) and cuts the file at
 * a header that is not sane. */
static gr_err_t
load_active_tail(gr_log_t *l)
{
    gr_segment_t *seg = gr_log_active_seg(l);
    int64_t pos, ts;
    uint32_t rel;
    gr_batch_hdr_t h;
    const char *why;
    gr_scan_t s;
    gr_file_t *f;
    int rc;

    l->leo = seg->base;
    l->recent_n = 0;
    l->recent_head = 0;
    gr_tidx_last(&seg->tidx, &ts, &rel);
    if (!seg->max_ts_known || ts > seg->max_ts) {
        seg->max_ts = ts;
        seg->max_ts_offset = ts >= 0 ? seg->base + rel : -1;
        seg->max_ts_known = true;
    }
    if (seg->size == 0)
        return 0;
    f = gr_logs_seg_file(l->m, l, seg);
    if (f == NULL)
        return GR_ERR_IO;
    /* the last entry's batch holds offset base + rel: start there */
    pos = seg->oidx.n ? gr_oidx_lookup(&seg->oidx, INT64_MAX) : 0;
    gr_scan_init(&s, f->fd, pos, seg->size);
    while ((rc = gr_scan_next(&s, &h, &pos, &why)) == 1) {
        int64_t last = gr_batch_last_offset(&h);
        if (h.base_offset < l->leo || last - seg->base > INT32_MAX) {
            /* the scan has moved past this batch: cut at its start, or
             * what is appended next lands behind it and is lost with it
             * at the next start-up */
            why = "offsets not increasing";
            s.pos = pos;
            rc = GR_ERR_CORRUPT;
            break;
        }
        l->leo = last + 1;
        l->last_epoch = h.leader_epoch;
        if (h.max_timestamp > seg->max_ts) {
            seg->max_ts = h.max_timestamp;
            seg->max_ts_offset = last;
        }
        if (pos == 0) {
            seg->first_ts = h.max_timestamp;
            seg->first_ts_known = true;
        }
        gr_log_recent_push(l, h.base_offset, last, pos,
                           (int32_t)gr_batch_size(&h));
    }
    if (rc == GR_ERR_IO) {
        GR_LOG_ERROR("%s/%020" PRId64 ".log: cannot read: %s", l->dir,
                     seg->base, why);
        return GR_ERR_IO;
    }
    if (rc < 0) {
        GR_LOG_WARN("%s/%020" PRId64 ".log: %s at position %" PRId64
                    ": truncating %" PRId64 " bytes",
                    l->dir, seg->base, why, s.pos, seg->size - s.pos);
        if (ftruncate(f->fd, (off_t)s.pos) != 0) {
            GR_LOG_ERROR("cannot truncate %s/%020" PRId64 ".log: %s", l->dir,
                         seg->base, strerror(errno));
            return GR_ERR_IO;
        }
        l->size_bytes -= seg->size - s.pos;
        seg->size = s.pos;
    }
    return 0;
}

/* LogLoader: recovery of what lies past the recovery point after an
 * unclean shutdown, rebuilt indexes, the active segment, the offsets. */
static gr_err_t
recover_log(gr_log_t *l, int64_t ck_rp, int64_t ck_lso)
{
    gr_logs_t *m = l->m;
    int64_t rp = ck_rp >= 0 ? ck_rp : 0;
    gr_err_t err;
    gr_segment_t *seg;

    for (int i = 0; i < l->nsegs; i++) {
        bool last = i == l->nsegs - 1;
        bool unflushed = !m->was_clean && (last || l->segs[i + 1]->base > rp);
        gr_recovery_t r;
        gr_file_t *f;

        seg = l->segs[i];
        if (!unflushed && !seg->rebuild)
            continue;
        f = gr_logs_seg_file(m, l, seg);
        if (f == NULL)
            return GR_ERR_IO;
        err =
            gr_segment_recover(seg, f->fd, l->dir, l->cfg.index_interval_bytes,
                               gr_log_seg_limit(l, i), &r);
        if (err != 0)
            return err;
        l->size_bytes -= r.truncated;
        if (unflushed)
            m->stat_recovered_segments++;
        else
            m->stat_rebuilt_indexes++;
        if (unflushed && r.truncated > 0 && !last) {
            GR_LOG_WARN("%s: corruption in segment %" PRId64
                        ", deleting the %d segments after it",
                        l->dir, seg->base, l->nsegs - i - 1);
            gr_log_seg_remove(l, i + 1, l->nsegs - i - 1, true);
            break;
        }
    }

    if (l->nsegs > 0) {
        gr_segment_t *act = gr_log_active_seg(l);
        if (!act->oidx.loaded &&
            (err = gr_log_seg_ensure_index(l, l->nsegs - 1, false)) != 0)
            return err;
        if (!act->tidx.loaded &&
            (err = gr_log_seg_ensure_index(l, l->nsegs - 1, true)) != 0)
            return err;
        if ((err = load_active_tail(l)) != 0)
            return err;
        if (ck_lso >= 0 && l->leo < ck_lso) {
            GR_LOG_WARN("%s: log end offset %" PRId64 " is below the log"
                        " start offset %" PRId64 ": deleting every segment",
                        l->dir, l->leo, ck_lso);
            gr_log_seg_remove(l, 0, l->nsegs, true);
        }
    }
    if (l->nsegs == 0) {
        int64_t base = ck_lso >= 0 ? ck_lso : 0;
        seg = gr_log_seg_create(l, base, &err);
        if (seg == NULL)
            return err;
        if ((err = gr_log_seg_push(l, seg)) != 0) {
            gr_logs_seg_release(m, seg);
            gr_segment_free(seg);
            return err;
        }
        l->leo = base;
    }
    l->start_offset = l->segs[0]->base;
    if (ck_lso > l->start_offset)
        l->start_offset = ck_lso;
    if (m->was_clean)
        l->recovery_point = l->leo;
    else
        l->recovery_point = rp < l->leo ? rp : l->leo;
    return 0;
}

/* --- partition.metadata and stray directories */

/* The topic id a partition.metadata text names (its base64 characters
 * after "topic_id: "), "" for none. */
static void
metadata_id(const char *have, char *id, size_t size)
{
    const char *p = strstr(have, "topic_id: ");
    size_t n = 0;
    for (p = p ? p + 10 : ""; *p && n < size - 1; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')
            id[n++] = *p;
    id[n] = '\0';
}

/* Moves l->dir aside as <topic>-<p>.<old id>-stray (Kafka's name for the
 * log of a topic incarnation the metadata no longer has: a crash between
 * writing a partition directory and the topic's metadata, or between
 * deleting the metadata and the directories; the topic cut to fit 255
 * bytes as Kafka cuts it) and makes an empty one. */
static gr_err_t
move_stray(gr_log_t *l, const char *have)
{
    char stray[GR_SEG_PATH_MAX], id[64], tag[80];

    metadata_id(have, id, sizeof id);
    for (int k = 0; k < 100; k++) {
        if (k == 0)
            snprintf(tag, sizeof tag, "%s", id);
        else
            snprintf(tag, sizeof tag, "%s.%d", id, k);
        gr_logs_aside_path(l->m, stray, l->topic, l->partition, tag, "-stray");
        if (access(stray, F_OK) == 0)
            continue;
        if (rename(l->dir, stray) != 0)
            break;
        GR_LOG_WARN("%s belongs to another incarnation of the topic (id %s): "
                    "moved aside to %s",
                    l->dir, id, stray);
        if (mkdir(l->dir, 0755) != 0 || gr_logs_fsync_dir(l->m->dir) != 0)
            return GR_ERR_IO;
        return 0;
    }
    GR_LOG_ERROR("cannot move %s aside: %s", l->dir, strerror(errno));
    return GR_ERR_IO;
}

/* partition.metadata as Kafka's PartitionMetadata.encode writes it: two
 * lines, the second without a newline (Gregor wrote one until 2026-12;
 * such files are read alike) */
static void
metadata_text(const gr_uuid_t *id, char *buf, size_t size)
{
    char b64[23];
    gr_uuid_to_base64(id, b64);
    snprintf(buf, size, "version: 0\ntopic_id: %s", b64);
}

/* Whether a partition.metadata text names the same topic id as want's. */
static bool
metadata_same(const char *have, const char *want)
{
    char a[64], b[64];
    metadata_id(have, a, sizeof a);
    metadata_id(want, b, sizeof b);
    return strncmp(have, "version: 0\n", 11) == 0 && a[0] != '\0' &&
           strcmp(a, b) == 0;
}

/* dir's partition.metadata into buf, NUL-terminated ("" and false when
 * it cannot be read). */
static bool
metadata_read(const char *dir, char *buf, size_t size)
{
    char path[GR_SEG_PATH_MAX];
    ssize_t n;
    int fd = -1;

    if (snprintf(path, sizeof path, "%s/%s", dir, GR_LOG_METADATA) <
        (int)sizeof path)
        fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        buf[0] = '\0';
        return false;
    }
    n = read(fd, buf, size - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return true;
}

bool
gr_log_dir_names(const char *dir, const gr_uuid_t *id)
{
    char want[64], have[128];
    metadata_text(id, want, sizeof want);
    return metadata_read(dir, have, sizeof have) && metadata_same(have, want);
}

/* partition.metadata: written once. A directory holding another topic id
 * is moved aside (*stray set) and the log starts empty. */
static gr_err_t
write_metadata(gr_log_t *l, const gr_uuid_t *id, bool *stray)
{
    char want[64], have[128];

    *stray = false;
    if (id == NULL || gr_uuid_is_zero(id))
        return 0;
    metadata_text(id, want, sizeof want);
    if (metadata_read(l->dir, have, sizeof have)) {
        if (metadata_same(have, want))
            return 0;
        if (strstr(have, "topic_id: ") != NULL) {
            gr_err_t err = move_stray(l, have);
            if (err != 0)
                return err;
            *stray = true;
        }
    }
    /* not fsynced: the topic id is durable in the cluster metadata, and
     * creating thousands of partitions must not cost two fsyncs each */
    return gr_logs_write_replace(l->dir, GR_LOG_METADATA, want, strlen(want));
}

/* --- opening */

gr_log_t *
gr_log_open(gr_logs_t *m, const char *topic, int32_t partition,
            const gr_uuid_t *topic_id, const gr_log_config_t *cfg,
            gr_err_t *err)
{
    gr_ckpt_t *ck = gr_logs_ckpt_find(m, topic, partition);
    int64_t ck_rp = ck ? ck->recovery_point : -1;
    int64_t ck_lso = ck ? ck->start_offset : -1;
    gr_log_t *l;
    size_t n;

    *err = 0;
    gr_logs_trash_flush_for(m, topic, partition); /* none may take this dir */
    if (ck && ck->log) {
        *err = GR_ERR_EXISTS;
        return NULL;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        *err = GR_ERR_NOMEM;
        return NULL;
    }
    l->m = m;
    l->refs = 1;
    l->partition = partition;
    if (topic_id != NULL)
        l->topic_id = *topic_id;
    l->cfg = *cfg;
    l->topic = strdup(topic);
    n = strlen(m->dir) + strlen(topic) + 16;
    l->dir = malloc(n);
    if (l->topic == NULL || l->dir == NULL) {
        gr_log_free(l);
        *err = GR_ERR_NOMEM;
        return NULL;
    }
    snprintf(l->dir, n, "%s/%s-%d", m->dir, topic, (int)partition);
    l->last_flush_ms = gr_loop_wall_ms(m->loop);
    l->last_epoch = -1;
    l->hw_ckpt = -1;

    if (mkdir(l->dir, 0755) != 0 && errno != EEXIST) {
        GR_LOG_ERROR("cannot create %s: %s", l->dir, strerror(errno));
        *err = gr_log_errno_err(errno);
    }
    if (*err == 0) {
        bool stray;
        *err = write_metadata(l, topic_id, &stray);
        if (stray) /* the checkpoints speak of the old incarnation */
            ck_rp = ck_lso = -1;
    }
    if (*err == 0) {
        /* one listing serves both, unless a swap was completed */
        gr_dir_names_t names;
        bool changed = false;
        if (gr_dir_names_read(l->dir, &names) != 0)
            *err = list_failed(l);
        if (*err == 0)
            *err = complete_swaps(l, &names, &changed);
        if (*err == 0 && changed) {
            gr_dir_names_free(&names);
            if (gr_dir_names_read(l->dir, &names) != 0)
                *err = list_failed(l);
        }
        if (*err == 0)
            *err = load_segments(l, &names);
        gr_dir_names_free(&names);
    }
    if (*err == 0)
        *err = recover_log(l, ck_rp, ck_lso);
    if (*err == 0)
        *err = gr_log_epochs_load(l, ck_rp);
    if (*err == 0 && !m->was_clean && l->nsegs > 0) {
        /* a crash may have left blocks reserved past the active
         * segment's data (seg_prealloc): give them back */
        gr_segment_t *act = l->segs[l->nsegs - 1];
        act->prealloc_end = act->size + 2 * (int64_t)GR_LOG_PREALLOC_MAX;
        gr_log_seg_trim(l, act);
    }
    if (*err == 0 && (ck = gr_logs_ckpt_get(m, topic, partition)) == NULL)
        *err = GR_ERR_NOMEM;
    if (*err != 0) {
        gr_log_seg_remove(l, 0, l->nsegs, false);
        gr_log_free(l);
        return NULL;
    }
    ck->log = l;
    l->clean_offset = ck->clean_offset;
    l->delete_horizon_ms = -1;
    gr_log_link(m, l);
    GR_LOG_DEBUG("%s: opened, %d segments, offsets %" PRId64 "..%" PRId64,
                 l->dir, l->nsegs, l->start_offset, l->leo);
    return l;
}

/* --- new partitions made off the loop */

typedef struct prep_job {
    char *dir; /* log.dirs: the manager may be closed before done() */
    gr_log_prep_t *items;
    int n;
    unsigned gen; /* prep_gen when queued */
    gr_done_fn done;
    void *arg;
} prep_job_t;

/* Moved by gr_logs_close(): the jobs queued before stop making directories
 * (a stopping broker opens what they did not make at its next start; any
 * other manager's cut short job leaves gr_log_open to make the rest). */
static atomic_uint prep_gen;

void
gr_logs_prepare_cancel(void)
{
    atomic_fetch_add_explicit(&prep_gen, 1, memory_order_relaxed);
}

static int
make_empty(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    return close(fd) == 0 ? 0 : errno;
}

/* On a worker: no log lines (the loop reports item->err). */
static void
prep_work(void *arg)
{
    prep_job_t *job = arg;
    char dir[GR_SEG_PATH_MAX - 64], path[GR_SEG_PATH_MAX], text[64];
    static const char *const suffixes[] = { ".log", ".index", ".timeindex" };

    for (int i = 0; i < job->n; i++) {
        gr_log_prep_t *it = &job->items[i];
        if (atomic_load_explicit(&prep_gen, memory_order_relaxed) != job->gen)
            break; /* a manager closes: the rest is left to gr_log_open */
        snprintf(dir, sizeof dir, "%s/%s-%d", job->dir, it->topic,
                 (int)it->partition);
        if (mkdir(dir, 0755) != 0) {
            it->err = errno == EEXIST ? 0 : errno;
            continue; /* exists: gr_log_open looks at what is there */
        }
        /* the metadata first: a crash in between leaves a directory that
         * gr_log_open completes, not one of an unknown topic */
        metadata_text(&it->topic_id, text, sizeof text);
        it->err =
            gr_logs_replace_quiet(dir, GR_LOG_METADATA, text, strlen(text));
        for (size_t k = 0; it->segment && k < 3 && it->err == 0; k++) {
            gr_segment_path(path, dir, 0, suffixes[k]);
            it->err = make_empty(path);
        }
    }
}

static void
prep_done(gr_loop_t *loop, void *arg)
{
    prep_job_t *job = arg;
    job->done(loop, job->arg);
    free(job->dir);
    free(job);
}

int
gr_logs_prepare(gr_logs_t *m, gr_log_prep_t *items, int n, gr_done_fn done,
                void *arg)
{
    prep_job_t *job;

    /* before any directory is made; all at once when matching every name
     * would cost more than a few milliseconds of the loop */
    if (m->trash_holds == 0 || (int64_t)n * gr_logs_trash_waiting(m) > 1 << 20)
        gr_logs_trash_flush(m);
    else
        for (int i = 0; i < n; i++)
            gr_logs_trash_flush_for(m, items[i].topic, items[i].partition);
    if (m->workers == NULL || n <= 0 || (job = calloc(1, sizeof *job)) == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        gr_ckpt_t *ck =
            gr_logs_ckpt_find(m, items[i].topic, items[i].partition);
        /* a checkpointed log start (an old incarnation's) is gr_log_open's
         * to sort out: it makes that segment itself */
        items[i].segment = ck == NULL || ck->start_offset <= 0;
        items[i].err = 0;
    }
    job->dir = strdup(m->dir);
    job->items = items;
    job->n = n;
    job->gen = atomic_load_explicit(&prep_gen, memory_order_relaxed);
    job->done = done;
    job->arg = arg;
    if (job->dir == NULL ||
        gr_workers_submit(m->workers, prep_work, prep_done, job) != 0) {
        free(job->dir);
        free(job);
        return -1;
    }
    return 0;
}

void
gr_logs_prepared_unused(gr_logs_t *m, const gr_log_prep_t *item)
{
    char dir[GR_SEG_PATH_MAX - 64];

    snprintf(dir, sizeof dir, "%s/%s-%d", m->dir, item->topic,
             (int)item->partition);
    if (!gr_log_dir_names(dir, &item->topic_id))
        return; /* gone, or somebody else's now */
    if (gr_logs_rmrf(dir) != 0)
        GR_LOG_WARN("%s: cannot remove the directory of a partition deleted "
                    "while it was made",
                    dir);
}
