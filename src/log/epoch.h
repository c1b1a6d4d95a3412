/*
 * The leader-epoch cache of a partition log (Kafka's LeaderEpochFileCache):
 * for each leader epoch that wrote to the log, the offset of its first
 * record. Entries are strictly increasing in both epoch and start offset.
 * The partition's current leader epoch is the latest entry's; batches
 * carry it in partitionLeaderEpoch, and OffsetForLeaderEpoch answers from
 * the entries (gr_epochs_end_offset).
 *
 * On disk, <partition dir>/leader-epoch-checkpoint, text, Kafka's
 * LeaderEpochCheckpointFile (CheckpointFile with version 0):
 *
 *   LINE DESCRIPTION
 *      1 version: 0
 *      2 number of entries
 *    3.. "<epoch> <start offset>", one per entry, oldest first
 *
 * each line ended by "\n" (Kafka writes "0\n1\n0 0\n" for a new
 * partition). This file is the pure part: the list, its rules and its
 * text; log.c loads, rebuilds and writes it.
 */
#ifndef GR_LOG_EPOCH_H
#define GR_LOG_EPOCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#define GR_LOG_EPOCH_CHECKPOINT "leader-epoch-checkpoint"

typedef struct gr_epoch_entry {
    int32_t epoch;
    int64_t start_offset;
} gr_epoch_entry_t;

/* All-zero is an empty cache. */
typedef struct gr_epochs {
    gr_epoch_entry_t *v;
    int n, cap;
} gr_epochs_t;

void gr_epochs_fini(gr_epochs_t *c);
void gr_epochs_clear(gr_epochs_t *c);
/* The latest epoch, -1 when empty. */
int32_t gr_epochs_latest(const gr_epochs_t *c);

/* Kafka's assign(epoch, start): nothing when the latest entry is this
 * epoch with a start at or below start_offset; otherwise the entries
 * whose epoch >= epoch or start >= start_offset go (a non-monotonic
 * history is cut, as Kafka's maybeTruncateNonMonotonicEntries) and the
 * entry is appended. epoch and start_offset must be >= 0 (else nothing).
 * 1 when the cache changed, 0 when not, -1 on ENOMEM (unchanged). */
int gr_epochs_assign(gr_epochs_t *c, int32_t epoch, int64_t start_offset);
/* truncateFromStart: the entries starting at or below offset go but the
 * last of them, which starts at offset instead. true when changed. */
bool gr_epochs_truncate_start(gr_epochs_t *c, int64_t offset);
/* truncateFromEnd: the entries starting at or past offset go. true when
 * changed. */
bool gr_epochs_truncate_end(gr_epochs_t *c, int64_t offset);

/* Kafka's endOffsetFor(requested, leo): the largest epoch <= requested
 * and the start of the next higher epoch, or leo for the latest epoch;
 * a requested epoch below the first gives (requested, the first start);
 * -1 (UNDEFINED_EPOCH) or one above every epoch gives (-1, -1). */
void gr_epochs_end_offset(const gr_epochs_t *c, int32_t requested,
                          int64_t leo, int32_t *epoch, int64_t *end_offset);

/* Parses the checkpoint text (n bytes, not NUL-terminated) into c
 * (emptied first). 0, or -1 with *why naming what was wrong (c empty):
 * a version other than 0, a count that does not match the lines, a
 * malformed line, entries not increasing or negative, ENOMEM. */
int gr_epochs_parse(gr_epochs_t *c, const char *text, size_t n,
                    const char **why);
/* Appends the checkpoint text of c to out (out->oom on failure). */
void gr_epochs_format(const gr_epochs_t *c, gr_buf_t *out);

#endif
