/*
 * Producer id allocation: ids come in blocks of 1000, and a block is
 * recorded durably (<log.dirs>/gregor-producer-ids, written atomically)
 * before any id of it is handed out, so an id is never given twice, even
 * across a crash (unused ids of the last block are skipped). Kafka keeps
 * the same blocks in ZooKeeper (/latest_producer_id_block) or its
 * controller; a cluster implementation will replace the file.
 * Loop thread only.
 */
#ifndef GR_TXN_PID_H
#define GR_TXN_PID_H

#include <stdint.h>

#define GR_PID_BLOCK 1000

typedef struct gr_pids gr_pids_t;

/* NULL with a log line when the file is unreadable or damaged. */
gr_pids_t *gr_pids_open(const char *dir);
void gr_pids_close(gr_pids_t *p);
/* A new producer id, or -1 when the next block could not be recorded. */
int64_t gr_pids_next(gr_pids_t *p);

#endif
