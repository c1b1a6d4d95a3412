/* core/worker: threads start only when jobs need them, up to the pool's
 * size, and every job's done() comes back on the loop. */
#include "../unit.h"
#include "core/worker.h"

#include <dirent.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>

/* Threads of this process (Check forks each test unless CK_FORK=no; either
 * way only the worker threads change during a test). */
static int
threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

typedef struct {
    sem_t *gate;  /* the job waits here (NULL: none) */
    sem_t *began; /* posted when the job runs */
    atomic_int *ran;
    int done;
} job_t;

static void
work(void *arg)
{
    job_t *j = arg;
    if (j->began)
        sem_post(j->began);
    if (j->gate)
        sem_wait(j->gate);
    atomic_fetch_add(j->ran, 1);
}

static void
done(gr_loop_t *loop, void *arg)
{
    job_t *j = arg;
    (void)loop;
    j->done++;
}

START_TEST(test_threads_on_demand)
{
    gr_loop_t *loop = gr_loop_new();
    int base = threads();
    gr_workers_t *w = gr_workers_new(loop, 2);
    sem_t gate, began;
    atomic_int ran = 0;
    job_t a = { &gate, &began, &ran, 0 }, b = { NULL, &began, &ran, 0 };
    job_t c = { NULL, NULL, &ran, 0 };

    ck_assert_ptr_nonnull(w);
    sem_init(&gate, 0, 0);
    sem_init(&began, 0, 0);
    ck_assert_int_eq(threads(), base); /* none before a job */
    ck_assert_int_eq(gr_workers_submit(w, work, done, &a), 0);
    ck_assert_int_eq(threads(), base + 1);
    sem_wait(&began); /* a holds the only thread */
    /* b finds no idle thread: a second starts and runs it while a waits */
    ck_assert_int_eq(gr_workers_submit(w, work, done, &b), 0);
    ck_assert_int_eq(threads(), base + 2);
    sem_wait(&began);
    /* the pool is full: c queues behind them, no third thread */
    ck_assert_int_eq(gr_workers_submit(w, work, done, &c), 0);
    ck_assert_int_eq(threads(), base + 2);
    sem_post(&gate);
    gr_workers_destroy(w); /* waits for all three */
    ck_assert_int_eq(atomic_load(&ran), 3);
    ck_assert_int_eq(threads(), base);
    gr_loop_drain_posts(loop);
    ck_assert_int_eq(a.done + b.done + c.done, 3);
    sem_destroy(&gate);
    sem_destroy(&began);
    gr_loop_destroy(loop);
}
END_TEST

START_TEST(test_idle_thread_reused)
{
    gr_loop_t *loop = gr_loop_new();
    int base = threads();
    gr_workers_t *w = gr_workers_new(loop, 4);
    atomic_int ran = 0;
    job_t j[20];

    ck_assert_ptr_nonnull(w);
    /* one job at a time: the one thread is idle again for each */
    for (int i = 0; i < 20; i++) {
        j[i] = (job_t){ NULL, NULL, &ran, 0 };
        ck_assert_int_eq(gr_workers_submit(w, work, done, &j[i]), 0);
        while (gr_workers_pending(w) > 0)
            sched_yield();
    }
    ck_assert_int_eq(threads(), base + 1);
    gr_workers_destroy(w);
    gr_loop_drain_posts(loop);
    ck_assert_int_eq(atomic_load(&ran), 20);
    gr_loop_destroy(loop);
}
END_TEST

Suite *
suite_core_worker(void)
{
    Suite *s = suite_create("core/worker");
    TCase *tc = tcase_create("worker");
    tcase_add_test(tc, test_threads_on_demand);
    tcase_add_test(tc, test_idle_thread_reused);
    suite_add_tcase(s, tc);
    return s;
}
