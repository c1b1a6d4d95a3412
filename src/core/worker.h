/*
 * Worker threads for slow work (fsync, compaction, recompression): work()
 * runs on a worker, then done() runs on the loop thread. The loop never
 * blocks on a worker. A job's arg is owned by the submitter until done().
 */
#ifndef GR_CORE_WORKER_H
#define GR_CORE_WORKER_H

#include "core/loop.h"

typedef struct gr_workers gr_workers_t;
typedef void (*gr_work_fn)(void *arg);           /* on a worker thread */
typedef void (*gr_done_fn)(gr_loop_t *loop, void *arg); /* on the loop */

/* Up to nthreads (>= 1) threads, started as jobs need them. NULL on
 * failure. */
gr_workers_t *gr_workers_new(gr_loop_t *loop, int nthreads);
/* Queues a job; 0 or -1 (ENOMEM, or no thread could be started). */
int gr_workers_submit(gr_workers_t *w, gr_work_fn work, gr_done_fn done,
                      void *arg);
/* Waits for queued jobs to finish and stops the threads. Their done()
 * callbacks are posted to the loop: run them with gr_loop_drain_posts(). */
void gr_workers_destroy(gr_workers_t *w);
/* Jobs queued or running. A job stops counting after its done() is
 * posted to the loop (it may not have run yet). */
int gr_workers_pending(gr_workers_t *w);

#endif
