/*
 * Fetch sessions (KIP-227): a client that sends session epoch 0 gets a
 * session id; later fetches (epoch 1, 2, ...) name only the partitions that
 * changed (and the ones to forget), and responses carry only partitions
 * with something new (data, an error, or a changed high watermark, last
 * stable offset or log start offset). A session finds its partitions
 * through a hash index: a request naming n partitions costs O(n), not
 * O(n * partitions in the session). Loop thread only.
 *
 * The cache, as Kafka's FetchSessionCacheShard (one shard: Kafka's 8
 * split max.incremental.fetch.session.cache.slots between them and evict
 * within one), holds at most max_slots sessions. A new session when the
 * cache is full takes the slot of
 *   - the least recently used session, if unused for eviction_ms (Kafka's
 *     min.incremental.fetch.session.eviction.ms, a constant 120000), else
 *   - the first evictable session ranked by (privileged, size, id), when
 *     the new one ranks above it (strictly larger, or privileged over
 *     not): for a client, only sessions older than eviction_ms at their
 *     last use are evictable; for a follower (privileged), also every
 *     client session;
 * or gets none (session id 0; the client goes on with full fetches). A
 * consumer that keeps fetching therefore keeps its session for
 * eviction_ms against any number of new ones, and after that against any
 * no larger than its own.
 *
 * Gregor's own bound: the sessions hold at most max_partitions partitions
 * together (GR_FSESS_MAX_PARTITIONS, about 120 bytes each; Kafka has none).
 * A session that would pass it evicts by the same rule until there is
 * room, or gets none (a new one) or is closed (FETCH_SESSION_ID_NOT_FOUND
 * to an incremental fetch that grew it).
 */
#ifndef GR_API_FETCH_SESSION_H
#define GR_API_FETCH_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/str.h"

/* Partitions held by all sessions together, by default. */
#define GR_FSESS_MAX_PARTITIONS 1000000
/* Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS. */
#define GR_FSESS_EVICTION_MS 120000

typedef struct gr_fsess_part {
    char *topic;           /* owned */
    gr_uuid_t topic_id;
    int32_t partition;
    int64_t fetch_offset;
    int32_t max_bytes;
    int32_t current_leader_epoch;
    int32_t last_fetched_epoch; /* v12+, -1 none */
    /* what the last response said, to send only changes */
    int64_t sent_hw;
    int64_t sent_lso;
    int64_t sent_log_start;
    bool sent;
    bool removed; /* forgotten; dropped by gr_fsess_compact() */
} gr_fsess_part_t;

typedef struct gr_fsess {
    int32_t id;             /* 0 until in the cache */
    int32_t epoch;          /* the epoch the next request must carry */
    bool privileged;        /* a follower's (Kafka: isFromFollower) */
    bool uses_topic_ids;    /* made by Fetch v13+ */
    gr_fsess_part_t *parts;
    int32_t nparts;
    int32_t cap;
    int32_t *index;    /* open addressing: index into parts, -1 empty */
    int32_t index_cap; /* power of two, > 2 * nparts; 0: none yet */
    bool dirty;        /* removed entries wait for gr_fsess_compact() */
    int64_t creation_ms;
    int64_t last_used_ms;
    int32_t cached_size; /* nparts at the last touch (the cache's view) */
    int32_t heap_pos[3]; /* in the cache's orderings, -1: not in one */
    struct gr_fsess *hnext;
} gr_fsess_t;

typedef struct gr_fsessions gr_fsessions_t;

gr_fsessions_t *gr_fsessions_new(int max_slots);
void gr_fsessions_destroy(gr_fsessions_t *m);
/* Kafka's eviction time and Gregor's partition bound, for tests. */
void gr_fsessions_set_limits(gr_fsessions_t *m, int64_t eviction_ms,
                             int64_t max_partitions);
gr_fsess_t *gr_fsess_find(gr_fsessions_t *m, int32_t id);
/* A new session outside the cache, to fill with gr_fsess_part_upsert()
 * and then hand to gr_fsessions_add() or gr_fsess_free(). NULL on
 * ENOMEM. */
gr_fsess_t *gr_fsess_new(void);
void gr_fsess_free(gr_fsess_t *s);
/* Kafka's maybeCreateSession: puts s (from gr_fsess_new, compacted) in the
 * cache when there is a slot or one may be taken (see above), and room
 * for its partitions, giving it an id and epoch 1; returns the id, or 0
 * when s gets no place (the caller still owns it then). */
int32_t gr_fsessions_add(gr_fsessions_t *m, gr_fsess_t *s, bool privileged,
                         bool uses_topic_ids, int64_t now_ms);
/* Removes s from the cache and frees it. */
void gr_fsess_remove(gr_fsessions_t *m, gr_fsess_t *s);
/* Kafka's touch, after a request's updates (compacted): s was used now
 * and holds s->nparts partitions. false when they would pass the
 * partition bound and nothing can be evicted for them: the caller then
 * removes s. */
bool gr_fsess_touch(gr_fsessions_t *m, gr_fsess_t *s, int64_t now_ms);
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
/* The bound on partitions held by all sessions together. */
int64_t gr_fsessions_max_partitions(const gr_fsessions_t *m);
/* Partitions the cached sessions hold (their sizes at their last touch). */
int64_t gr_fsessions_partitions(const gr_fsessions_t *m);
/* Checks the cache's invariants (orderings, counts); for tests and the
 * fuzz target. */
bool gr_fsessions_is_valid(const gr_fsessions_t *m);

#endif
