/*
 * Producer id allocation: ids come in blocks of 1000, and a block is
 * recorded durably (<log.dirs>/gregor-producer-ids, written atomically)
 * before any id of it is handed out, so an id is never given twice, even
 * across a crash (unused ids of the last block are skipped). Kafka keeps
 * the same blocks in ZooKeeper (/latest_producer_id_block) or its
 * controller.
 *
 * Cluster mode (gr_pids_use_meta): the blocks come from ZooKeeper's
 * /latest_producer_id_block instead, as Kafka's ZkProducerIdManager takes
 * them ({"version":1,"broker":<id>,"block_start":"<n>","block_end":"<n>"},
 * both ends inclusive; written conditional on the version read, and read
 * again on BADVERSION), so no two brokers of a cluster give the same id.
 * The next block is asked for once 90% of the current one is given (as
 * Kafka's RPCProducerIdManager prefetches); while none is at hand,
 * gr_pids_next answers GR_PID_PENDING at once (never waiting), which
 * InitProducerId answers COORDINATOR_LOAD_IN_PROGRESS (retriable), as
 * Kafka does. A broker (re)started takes a fresh block: ids are never
 * given twice. The local file is then neither read nor written.
 * Loop thread only.
 */
#ifndef GR_TXN_PID_H
#define GR_TXN_PID_H

#include <stddef.h>
#include <stdint.h>

#include "meta/meta.h"

#define GR_PID_BLOCK 1000

typedef struct gr_pids gr_pids_t;

/* NULL with a log line when the file is unreadable or damaged. */
gr_pids_t *gr_pids_open(const char *dir);
void gr_pids_close(gr_pids_t *p);
/* A new producer id, or -1 when the next block could not be recorded,
 * or GR_PID_PENDING (cluster mode) while the next block is being taken. */
#define GR_PID_PENDING (-2)
int64_t gr_pids_next(gr_pids_t *p);

/* Cluster mode: blocks from m's /latest_producer_id_block, taken for
 * broker; the first is asked for now. m outlives p's use of it (closing
 * m answers nothing more). */
void gr_pids_use_meta(gr_pids_t *p, gr_meta_t *m, int32_t broker);
/* Before m is closed: gr_pids_next answers -1 from then on (never ids
 * of the local file). */
void gr_pids_drop_meta(gr_pids_t *p);

#define GR_PID_ZNODE "/latest_producer_id_block"

/* The first id of the block that follows the one the znode's data holds
 * (0 for empty data: the node Kafka creates at start-up), or -1 when the
 * data is not Kafka's JSON or the ids are exhausted. Pure. */
int64_t gr_pids_parse_block(const void *data, size_t len);
/* Kafka's JSON for the block [start, start + GR_PID_BLOCK) of broker,
 * into out (NUL-terminated); its length, or -1 if cap is too small. */
int gr_pids_block_json(int32_t broker, int64_t start, char *out, size_t cap);

#endif
