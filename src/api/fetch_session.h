/*
 * Fetch sessions (KIP-227): a client that sends session epoch 0 gets a
 * session id; later fetches (epoch 1, 2, ...) name only the partitions that
 * changed (and the ones to forget), and responses carry only partitions
 * with something new (data, an error, or a changed high watermark, last
 * stable offset or log start offset). The cache holds at most
 * max.incremental.fetch.session.cache.slots sessions, evicting the least
 * recently used, and at most GR_FSESS_MAX_PARTITIONS partitions over all
 * sessions (Kafka has no such bound; a request that would pass it gets no
 * session, which Kafka allows a broker to do). A session finds its
 * partitions through a hash index: a request naming n partitions costs
 * O(n), not O(n * partitions in the session). Loop thread only.
 */
#ifndef GR_API_FETCH_SESSION_H
#define GR_API_FETCH_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/str.h"

/* Partitions held by all sessions together (about 120 bytes each). */
#define GR_FSESS_MAX_PARTITIONS 1000000

typedef struct gr_fsess_part {
    char *topic;           /* owned */
    gr_uuid_t topic_id;
    int32_t partition;
    int64_t fetch_offset;
    int32_t max_bytes;
    int32_t current_leader_epoch;
    /* what the last response said, to send only changes */
    int64_t sent_hw;
    int64_t sent_lso;
    int64_t sent_log_start;
    bool sent;
    bool removed; /* forgotten; dropped by gr_fsess_compact() */
} gr_fsess_part_t;

typedef struct gr_fsess {
    int32_t id;
    int32_t epoch;          /* the epoch the next request must carry */
    gr_fsess_part_t *parts;
    int32_t nparts;
    int32_t cap;
    int32_t *index;    /* open addressing: index into parts, -1 empty */
    int32_t index_cap; /* power of two, > 2 * nparts; 0: none yet */
    bool dirty;        /* removed entries wait for gr_fsess_compact() */
    struct gr_fsessions *owner;
    int64_t last_used_ms;
    struct gr_fsess *prev, *next; /* LRU list, most recent first */
    struct gr_fsess *hnext;
} gr_fsess_t;

typedef struct gr_fsessions gr_fsessions_t;

gr_fsessions_t *gr_fsessions_new(int max_slots);
void gr_fsessions_destroy(gr_fsessions_t *m);
gr_fsess_t *gr_fsess_find(gr_fsessions_t *m, int32_t id);
/* A new empty session (evicting the least recently used when full), or
 * NULL when max_slots is 0. */
gr_fsess_t *gr_fsess_create(gr_fsessions_t *m, int64_t now_ms);
void gr_fsess_remove(gr_fsessions_t *m, gr_fsess_t *s);
void gr_fsess_touch(gr_fsessions_t *m, gr_fsess_t *s, int64_t now_ms);
/* Whether the sessions may hold n more partitions. */
bool gr_fsessions_room(const gr_fsessions_t *m, int64_t n);
/* The session's entry for (topic, partition), added when missing; NULL on
 * ENOMEM. Pointers into s->parts stay valid until the next upsert or
 * compaction. */
gr_fsess_part_t *gr_fsess_part_upsert(gr_fsess_t *s, const gr_str_t *topic,
                                      const gr_uuid_t *topic_id,
                                      int32_t partition);
/* Marks the entry removed (skipped from now on, dropped by compaction). */
void gr_fsess_part_remove(gr_fsess_t *s, const gr_str_t *topic,
                          const gr_uuid_t *topic_id, int32_t partition);
/* Drops removed entries, keeping the others in order; call after a
 * request's upserts and removals, before indexing s->parts. */
void gr_fsess_compact(gr_fsess_t *s);
/* The next epoch after e (1..INT32_MAX, wrapping to 1). */
int32_t gr_fsess_next_epoch(int32_t e);
int gr_fsessions_count(const gr_fsessions_t *m);

#endif
