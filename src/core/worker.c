/* Worker threads: see worker.h. A mutex-guarded FIFO and a condition.
 * Threads start when a job finds none idle, up to the pool's size: one
 * costs 0.1-0.5 ms to create on this VM, which a broker that has nothing
 * slow to do at start (or ever) need not pay. */
#include "core/worker.h"
#include "core/log.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    struct job *next;
    gr_work_fn work;
    gr_done_fn done;
    void *arg;
} job_t;

struct gr_workers {
    gr_loop_t *loop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    job_t *head, *tail;
    int stop;
    int pending;
    int queued;   /* in the FIFO, not yet taken */
    int idle;     /* threads waiting for a job */
    int nthreads; /* started */
    int max;
    bool create_failed; /* logged once */
    pthread_t *threads;
};

typedef struct done_msg {
    gr_done_fn done;
    void *arg;
} done_msg_t;

/* Does not touch the pool: it may be destroyed before the loop runs this. */
static void
run_done(gr_loop_t *loop, void *p)
{
    done_msg_t *m = p;
    if (m->done)
        m->done(loop, m->arg);
    free(m);
}

static void *
thread_main(void *p)
{
    gr_workers_t *w = p;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        job_t *j;
        while (w->head == NULL && !w->stop) {
            w->idle++;
            pthread_cond_wait(&w->cond, &w->lock);
            w->idle--;
        }
        j = w->head;
        if (j == NULL) {
            pthread_mutex_unlock(&w->lock);
            return NULL;
        }
        w->queued--;
        w->head = j->next;
        if (w->head == NULL)
            w->tail = NULL;
        pthread_mutex_unlock(&w->lock);
        if (j->work)
            j->work(j->arg);
        {
            done_msg_t *m = malloc(sizeof(*m));
            GR_ASSERT(m != NULL);
            m->done = j->done;
            m->arg = j->arg;
            if (gr_loop_post(w->loop, run_done, m) != 0)
                GR_ASSERT(!"cannot post a worker result to the loop");
        }
        free(j);
        /* idle again (or taking the next job) under the same lock: a
         * submitter that sees the job finished sees this thread free */
        pthread_mutex_lock(&w->lock);
        w->pending--;
    }
}

gr_workers_t *
gr_workers_new(gr_loop_t *loop, int nthreads)
{
    gr_workers_t *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return NULL;
    w->loop = loop;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->max = nthreads;
    w->threads = calloc((size_t)nthreads, sizeof(pthread_t));
    if (w->threads == NULL) {
        free(w);
        return NULL;
    }
    return w;
}

int
gr_workers_submit(gr_workers_t *w, gr_work_fn work, gr_done_fn done, void *arg)
{
    job_t *j = malloc(sizeof(*j));
    if (j == NULL)
        return -1;
    j->next = NULL;
    j->work = work;
    j->done = done;
    j->arg = arg;
    pthread_mutex_lock(&w->lock);
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    w->pending++;
    w->queued++;
    /* the new thread waits for the lock, then takes a job */
    if (w->queued > w->idle && w->nthreads < w->max) {
        int e = pthread_create(&w->threads[w->nthreads], NULL, thread_main, w);
        if (e == 0) {
            w->nthreads++;
        } else if (w->nthreads == 0) {
            /* nobody would run it: the job was the only one queued */
            w->head = w->tail = NULL;
            w->pending--;
            w->queued--;
            pthread_mutex_unlock(&w->lock);
            free(j);
            GR_LOG_ERROR("cannot start a worker thread: %s", strerror(e));
            return -1;
        } else if (!w->create_failed) {
            w->create_failed = true;
            GR_LOG_WARN("cannot start worker thread %d of %d (%s); %d run "
                        "the jobs",
                        w->nthreads + 1, w->max, strerror(e), w->nthreads);
        }
    }
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

int
gr_workers_pending(gr_workers_t *w)
{
    int n;
    pthread_mutex_lock(&w->lock);
    n = w->pending;
    pthread_mutex_unlock(&w->lock);
    return n;
}

void
gr_workers_destroy(gr_workers_t *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    for (int i = 0; i < w->nthreads; i++)
        pthread_join(w->threads[i], NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w->threads);
    free(w);
}
