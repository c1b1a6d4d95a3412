/* Fixtures for the log suites: a temporary directory with a loop, workers
 * and a log manager, and small file helpers. */
#ifndef GR_TESTS_LOGTEST_H
#define GR_TESTS_LOGTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/loop.h"
#include "core/worker.h"
#include "log/log.h"

typedef struct gr_logtest {
    char dir[64]; /* a fresh directory under /tmp */
    gr_loop_t *loop;
    gr_workers_t *workers;
    gr_logs_t *m;
} gr_logtest_t;

/* Creates the directory, loop, workers and opens the manager. */
void gr_logtest_init(gr_logtest_t *t, int max_open_files);
/* Closes the manager cleanly and opens it again. */
void gr_logtest_reopen(gr_logtest_t *t, int max_open_files);
/* Closes the manager (if open), stops workers, removes the directory. */
void gr_logtest_fini(gr_logtest_t *t);
/* Runs posted callbacks until *flag is true (5 s at most). */
bool gr_logtest_wait(gr_logtest_t *t, const int *flag);

/* Waits for every queued worker job and runs its callback. */
void gr_logtest_settle(gr_logtest_t *t);

/* A test config: Kafka's defaults. */
gr_log_config_t gr_logtest_config(void);

/* Reads a whole file into out; false if it cannot. */
bool gr_logtest_read_file(const char *path, gr_buf_t *out);
/* pread of len bytes at pos of a slice's file into out. */
bool gr_logtest_read_slice(const gr_log_slice_t *s, gr_buf_t *out);
/* Size of a file, -1 if missing. */
long long gr_logtest_file_size(const char *path);
/* "dir/topic-partition/<base 20 digits><suffix>" into out (4096 bytes). */
void gr_logtest_seg_path(char *out, const gr_logtest_t *t, const char *topic,
                         int partition, int64_t base, const char *suffix);
/* rm -rf path. */
void gr_logtest_rmrf(const char *path);

#endif
