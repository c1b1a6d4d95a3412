/*
 * One segment of a partition log: a .log file of record batches and its two
 * sparse indexes, in Kafka's on-disk formats (Kafka's DumpLogSegments reads
 * them). A segment is named by its base offset, printed %020lld: the
 * smallest offset it may hold. This file works on file descriptors and
 * memory only; which segments exist, which fds stay open (an LRU across all
 * logs) and when indexes are written is log.c's business.
 *
 * <base>.log: record batches back to back, exactly as on the wire
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    n a record batch, magic 2 (proto/records.h): baseOffset
 *               assigned by the broker, CRC-32C over bytes 21..n
 *        n  ... the next batch; offsets only grow, and every offset lies in
 *               [base, base + 2^31 - 1] and below the next segment's base
 *
 * <base>.index: offset index, 8-byte entries, both fields increasing
 *
 *   OFFSET SIZE DESCRIPTION
 *      8*i    4 relative offset (int32 BE): last offset of an append - base
 *    8*i+4    4 position (int32 BE): where that append's first batch starts
 *
 *   An entry is added to an append that starts more than
 *   index.interval.bytes after the previous entry (Kafka's
 *   bytesSinceLastIndexEntry > indexIntervalBytes), so the first batch of a
 *   segment never has one: lookups below the first entry start at 0.
 *
 * <base>.timeindex: time index, 12-byte entries, both fields non-decreasing
 *
 *   OFFSET SIZE DESCRIPTION
 *     12*i    8 timestamp (int64 BE, ms): the largest batch maxTimestamp of
 *               the segment so far
 *   12*i+8    4 relative offset (int32 BE): last offset of the batch that
 *               has it - base
 *
 *   Written at the same points as .index when the largest timestamp grew,
 *   plus a last entry with the segment's largest timestamp when it stops
 *   being active (roll, close), as Kafka's onBecomeInactiveSegment does; so
 *   the last entry of an inactive segment is its largest timestamp.
 *
 * Kafka preallocates index files (segment.index.bytes) and trims them on
 * roll and close; we keep entries in memory (the file format, big-endian)
 * and write exactly the entries: appended ones on flush, the whole index
 * trimmed on roll, recovery and close. Index files are not fsynced: any
 * prefix of an index is valid, and a damaged one (size not a multiple of
 * the entry size, entries not increasing, past the segment) is detected when
 * loaded and rebuilt from the .log. Loop thread only.
 */
#ifndef GR_LOG_SEGMENT_H
#define GR_LOG_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/file.h"
#include "proto/records.h"

#define GR_OIDX_ENTRY   8  /* bytes per .index entry */
#define GR_TIDX_ENTRY   12 /* bytes per .timeindex entry */
#define GR_SEG_PATH_MAX 4096

/* A sparse index held in memory in its file format. All-zero is empty. */
typedef struct gr_index {
    uint8_t *ent;    /* n entries, big-endian, as in the file */
    uint32_t n;      /* entries */
    uint32_t cap;    /* entries allocated */
    uint32_t stored; /* entries [0, stored) are known to be in the file */
    bool exact;      /* and the file holds nothing else (cleared by
                        whatever drops entries from memory) */
    bool loaded;     /* ent holds the whole index (else: not read yet) */
} gr_index_t;

typedef struct gr_segment gr_segment_t;

struct gr_segment {
    int64_t base;       /* base offset: the file name */
    int64_t size;       /* bytes of whole batches in .log */
    int64_t created_ms; /* wall clock when created or loaded (segment.ms) */
    int64_t first_ts;   /* maxTimestamp of the first batch, once known */
    bool first_ts_known;
    int64_t max_ts;        /* largest batch maxTimestamp, -1: none */
    int64_t max_ts_offset; /* last offset of that batch, -1: none */
    bool max_ts_known;     /* max_ts is valid (else: read the time index) */
    int64_t since_index;   /* bytes appended since the last index entry */
    int64_t prealloc_end;  /* blocks reserved up to here (fallocate) */
    bool rebuild;          /* index files missing or damaged */
    gr_index_t oidx;       /* offset index */
    gr_index_t tidx;       /* time index */
    gr_file_t *file;       /* the open .log, NULL when closed (LRU) */
    gr_segment_t *lru_prev, *lru_next; /* in the manager's LRU if file */
};

/* A new segment in memory (no file is touched); NULL on ENOMEM. */
gr_segment_t *gr_segment_new(int64_t base, int64_t created_ms);
/* Frees the indexes and seg; the file must have been released. */
void gr_segment_free(gr_segment_t *seg);
/* dir/<base as %020lld><suffix> into out (GR_SEG_PATH_MAX bytes). */
void gr_segment_path(char *out, const char *dir, int64_t base,
                     const char *suffix);

/* The names in a partition directory, read once and shared by what a log
 * open looks for (segments, leftovers, swaps, snapshots, transaction
 * indexes): each readdir of a directory costs four system calls. */
typedef struct gr_dir_names {
    char **v; /* n names, "." and ".." left out */
    int n;
} gr_dir_names_t;

/* 0, or -1 (errno set; out empty). */
int gr_dir_names_read(const char *dir, gr_dir_names_t *out);
void gr_dir_names_free(gr_dir_names_t *d);
/* If name is <20 digits><suffix>: true, *base and *suffix set. */
bool gr_seg_name_parse(const char *name, int64_t *base, const char **suffix);
/* The bases of the names <20 digits><suffix> (suffix exactly), ascending,
 * in *out (malloc'd, NULL when none): their number, or -1 on ENOMEM. */
int gr_dir_names_bases(const gr_dir_names_t *d, const char *suffix,
                       int64_t **out);
/* The same from a listing of dir made for it; -1 when dir cannot be read. */
int gr_dir_bases(const char *dir, const char *suffix, int64_t **out);

/* --- indexes (entry size esz: GR_OIDX_ENTRY or GR_TIDX_ENTRY) */

void gr_index_fini(gr_index_t *ix);
void gr_index_reset(gr_index_t *ix);
/* Appends (rel, pos) if rel and pos are above the last entry's; false
 * otherwise or on ENOMEM (an index may skip entries: it is sparse). */
bool gr_oidx_append(gr_index_t *ix, uint32_t rel, uint32_t pos);
/* Position of the largest entry whose relative offset <= rel; 0 if none. */
uint32_t gr_oidx_lookup(const gr_index_t *ix, int64_t rel);
/* The largest entry position <= pos (a batch's start); 0 if none. */
uint32_t gr_oidx_pos_floor(const gr_index_t *ix, int64_t pos);
/* Kafka's TimeIndex.maybeAppend: appends (ts, rel) when ts is above the
 * last entry's timestamp (-1 when empty) and rel not below its offset. */
bool gr_tidx_maybe_append(gr_index_t *ix, int64_t ts, uint32_t rel);
/* The last entry, or (-1, 0) when empty. */
void gr_tidx_last(const gr_index_t *ix, int64_t *ts, uint32_t *rel);
/* Relative offset of the largest entry whose timestamp <= ts; 0 if none. */
uint32_t gr_tidx_lookup(const gr_index_t *ix, int64_t ts);
/* NULL when ix is a valid index of a segment of seg_size bytes whose
 * relative offsets are <= max_rel; else why not (a static string). */
const char *gr_oidx_check(const gr_index_t *ix, int64_t max_rel,
                          int64_t seg_size);
const char *gr_tidx_check(const gr_index_t *ix, int64_t max_rel);
/* Reads the whole index file into ix (replacing its entries).
 * GR_ERR_NOT_FOUND (no file), GR_ERR_CORRUPT (size not a multiple of esz),
 * GR_ERR_IO, GR_ERR_NOMEM. */
gr_err_t gr_index_read(const char *path, size_t esz, gr_index_t *ix);
/* Writes ix to path (created if missing): whole: every entry, then the file
 * is cut to exactly them (only the entries not stored yet when the file is
 * known to hold exactly the stored ones); else only the entries not stored
 * yet. */
gr_err_t gr_index_write(const char *path, size_t esz, gr_index_t *ix,
                        bool whole);

/* --- batch headers of a .log */

#define GR_SCAN_BUF 4096

/* Walks batch headers from pos to end, reading GR_SCAN_BUF bytes at a time
 * (one pread usually covers several small batches). */
typedef struct gr_scan {
    int fd;
    int64_t pos;     /* next batch */
    int64_t end;     /* data end (segment size) */
    int64_t buf_pos; /* file position of buf[0] */
    size_t buf_len;
    uint8_t buf[GR_SCAN_BUF];
} gr_scan_t;

void gr_scan_init(gr_scan_t *s, int fd, int64_t pos, int64_t end);
/* The header of the batch at s->pos into h, its position into *pos, and
 * moves past it. 1: a batch; 0: end; GR_ERR_TRUNCATED: the batch goes past
 * end; GR_ERR_CORRUPT: the header is not sane (length, magic); GR_ERR_IO.
 * *why names the problem. The CRC is not checked. */
int gr_scan_next(gr_scan_t *s, gr_batch_hdr_t *h, int64_t *pos,
                 const char **why);

/* --- recovery */

typedef struct gr_recovery {
    int64_t valid;       /* bytes of valid batches kept */
    int64_t truncated;   /* bytes cut off the end */
    int64_t next_offset; /* last offset + 1 of the last batch, or base */
    int batches;         /* valid batches */
} gr_recovery_t;

/* Kafka's LogSegment.recover: reads the whole .log (fd) checking every
 * batch (gr_batch_check: length, magic, CRC-32C; offsets increasing, not
 * below base, below limit, representable relative to base); cuts the file
 * at the first bad batch with a WARN line naming file, position and reason;
 * rebuilds both indexes (index.interval.bytes: interval) and timestamps in
 * seg and writes the index files whole. limit: the next segment's base, or
 * INT64_MAX. GR_ERR_IO (logged) if the file cannot be read or cut. */
gr_err_t gr_segment_recover(gr_segment_t *seg, int fd, const char *dir,
                            int32_t interval, int64_t limit, gr_recovery_t *r);

#endif
