/* Fixtures for the group suites (check_group.c, check_consumer.c): a
 * temporary directory with a loop, one worker, the partition logs, a local
 * cluster holding __consumer_offsets (NPARTS partitions) and a topic "t"
 * of 4, and the group coordinator on top, opened again on the same
 * directory for restarts. */
#ifndef GR_TESTS_GROUPTEST_H
#define GR_TESTS_GROUPTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "core/str.h"
#include "group/group.h"
#include "log/log.h"

#define NPARTS 3

typedef struct gt {
    char dir[64];
    gr_loop_t *loop;
    gr_workers_t *workers;
    gr_logs_t *logs;
    gr_cluster_t *cluster;
    gr_groups_t *g;
    gr_groups_config_t cfg;
    int64_t flush_messages; /* for every log; 0: Kafka's default */
} gt_t;

/* Opens the logs, the cluster (creating the topics on a new directory)
 * and the coordinator, started when start is true. */
void gt_open_all(gt_t *t, bool start);
/* Closes the coordinator, the logs and the cluster (not the loop). */
void gt_close_all(gt_t *t);
/* A new directory, loop and worker, Kafka's group settings turned down
 * for tests, everything opened and the groups loaded. */
void gt_init(gt_t *t);
/* A restart: everything closed and opened again on the same directory. */
void gt_reopen(gt_t *t, bool load_now);
/* Closes everything and removes the directory. */
void gt_fini(gt_t *t);

static inline gr_str_t
S(const char *s)
{
    return s ? gr_str_c(s) : GR_STR_NULL;
}

#endif
