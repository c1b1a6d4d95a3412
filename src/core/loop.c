/*
 * Event loop: see loop.h. epoll in level-triggered mode; timers in a binary
 * min-heap keyed by expiry; posts from other threads through a mutex-guarded
 * list and an eventfd. stop() may be called from a signal handler: it only
 * writes the eventfd and sets a flag.
 */
#include "core/loop.h"
#include "core/log.h"
#include "core/time.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef struct post {
    struct post *next;
    gr_post_cb cb;
    void *arg;
} post_t;

struct gr_loop {
    int epfd;
    gr_io_t wake; /* eventfd */
    volatile sig_atomic_t stop;
    int64_t now_us;
    gr_timer_t **heap;
    int heap_len;
    int heap_cap;
    pthread_mutex_t lock;
    post_t *posts;
    post_t **posts_tail;
    gr_post_cb before_sleep;
    void *before_sleep_arg;
};

static void
wake_cb(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    uint64_t v;
    post_t *p, *next;
    (void)events;
    while (read(io->fd, &v, sizeof v) == (ssize_t)sizeof v)
        ;
    pthread_mutex_lock(&loop->lock);
    p = loop->posts;
    loop->posts = NULL;
    loop->posts_tail = &loop->posts;
    pthread_mutex_unlock(&loop->lock);
    for (; p; p = next) {
        next = p->next;
        p->cb(loop, p->arg);
        free(p);
    }
}

gr_loop_t *
gr_loop_new(void)
{
    gr_loop_t *loop = calloc(1, sizeof(*loop));
    if (loop == NULL)
        return NULL;
    loop->epfd = epoll_create1(EPOLL_CLOEXEC);
    loop->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (loop->epfd < 0 || loop->wake.fd < 0) {
        GR_LOG_ERROR("event loop: %s", strerror(errno));
        if (loop->epfd >= 0)
            close(loop->epfd);
        if (loop->wake.fd >= 0)
            close(loop->wake.fd);
        free(loop);
        return NULL;
    }
    pthread_mutex_init(&loop->lock, NULL);
    loop->posts_tail = &loop->posts;
    loop->wake.cb = wake_cb;
    loop->now_us = gr_mono_us();
    gr_loop_io_add(loop, &loop->wake, GR_IO_READ);
    return loop;
}

void
gr_loop_destroy(gr_loop_t *loop)
{
    post_t *p, *next;
    if (loop == NULL)
        return;
    for (p = loop->posts; p; p = next) {
        next = p->next;
        free(p);
    }
    close(loop->wake.fd);
    close(loop->epfd);
    pthread_mutex_destroy(&loop->lock);
    free(loop->heap);
    free(loop);
}

static uint32_t
to_epoll(uint32_t ev)
{
    uint32_t e = 0;
    if (ev & GR_IO_READ)
        e |= EPOLLIN;
    if (ev & GR_IO_WRITE)
        e |= EPOLLOUT;
    if (ev & GR_IO_RDHUP)
        e |= EPOLLRDHUP;
    return e;
}

int
gr_loop_io_add(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    struct epoll_event ee;
    memset(&ee, 0, sizeof ee);
    ee.events = to_epoll(events);
    ee.data.ptr = io;
    io->events = events;
    if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, io->fd, &ee) != 0) {
        GR_LOG_ERROR("epoll add fd %d: %s", io->fd, strerror(errno));
        return -1;
    }
    return 0;
}

int
gr_loop_io_set(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    struct epoll_event ee;
    if (io->events == events)
        return 0;
    memset(&ee, 0, sizeof ee);
    ee.events = to_epoll(events);
    ee.data.ptr = io;
    io->events = events;
    if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, io->fd, &ee) != 0) {
        GR_LOG_ERROR("epoll mod fd %d: %s", io->fd, strerror(errno));
        return -1;
    }
    return 0;
}

void
gr_loop_io_del(gr_loop_t *loop, gr_io_t *io)
{
    epoll_ctl(loop->epfd, EPOLL_CTL_DEL, io->fd, NULL);
    io->events = 0;
}

/* --- timer heap */

static void
heap_swap(gr_loop_t *loop, int i, int j)
{
    gr_timer_t *t = loop->heap[i];
    loop->heap[i] = loop->heap[j];
    loop->heap[j] = t;
    loop->heap[i]->heap_idx = i;
    loop->heap[j]->heap_idx = j;
}

static void
heap_up(gr_loop_t *loop, int i)
{
    while (i > 0) {
        int p = (i - 1) / 2;
        if (loop->heap[p]->when_us <= loop->heap[i]->when_us)
            break;
        heap_swap(loop, i, p);
        i = p;
    }
}

static void
heap_down(gr_loop_t *loop, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < loop->heap_len &&
            loop->heap[l]->when_us < loop->heap[m]->when_us)
            m = l;
        if (r < loop->heap_len &&
            loop->heap[r]->when_us < loop->heap[m]->when_us)
            m = r;
        if (m == i)
            break;
        heap_swap(loop, i, m);
        i = m;
    }
}

void
gr_timer_stop(gr_loop_t *loop, gr_timer_t *t)
{
    int i = t->heap_idx;
    if (i < 0)
        return;
    t->heap_idx = -1;
    loop->heap_len--;
    if (i == loop->heap_len)
        return;
    loop->heap[i] = loop->heap[loop->heap_len];
    loop->heap[i]->heap_idx = i;
    heap_up(loop, i);
    heap_down(loop, loop->heap[i]->heap_idx);
}

void
gr_timer_start(gr_loop_t *loop, gr_timer_t *t, int64_t delay_ms)
{
    gr_timer_stop(loop, t);
    if (delay_ms < 0)
        delay_ms = 0;
    t->when_us = gr_mono_us() + delay_ms * 1000;
    if (loop->heap_len == loop->heap_cap) {
        int cap = loop->heap_cap ? loop->heap_cap * 2 : 64;
        gr_timer_t **h = realloc(loop->heap, (size_t)cap * sizeof(*h));
        GR_ASSERT(h != NULL);
        loop->heap = h;
        loop->heap_cap = cap;
    }
    t->heap_idx = loop->heap_len;
    loop->heap[loop->heap_len++] = t;
    heap_up(loop, t->heap_idx);
}

int
gr_loop_post(gr_loop_t *loop, gr_post_cb cb, void *arg)
{
    post_t *p = malloc(sizeof(*p));
    uint64_t one = 1;
    if (p == NULL)
        return -1;
    p->next = NULL;
    p->cb = cb;
    p->arg = arg;
    pthread_mutex_lock(&loop->lock);
    *loop->posts_tail = p;
    loop->posts_tail = &p->next;
    pthread_mutex_unlock(&loop->lock);
    if (write(loop->wake.fd, &one, sizeof one) < 0 && errno != EAGAIN)
        return -1;
    return 0;
}

void
gr_loop_drain_posts(gr_loop_t *loop)
{
    wake_cb(loop, &loop->wake, GR_IO_READ);
}

void
gr_loop_stop(gr_loop_t *loop)
{
    uint64_t one = 1;
    loop->stop = 1;
    if (write(loop->wake.fd, &one, sizeof one) < 0) {
        /* the loop is awake anyway when the counter is full */
    }
}

bool
gr_loop_stopping(const gr_loop_t *loop)
{
    return loop->stop != 0;
}

int64_t
gr_loop_now_us(const gr_loop_t *loop)
{
    return loop->now_us;
}

void
gr_loop_set_before_sleep(gr_loop_t *loop, gr_post_cb cb, void *arg)
{
    loop->before_sleep = cb;
    loop->before_sleep_arg = arg;
}

static void
run_timers(gr_loop_t *loop)
{
    while (loop->heap_len > 0 && loop->heap[0]->when_us <= loop->now_us) {
        gr_timer_t *t = loop->heap[0];
        gr_timer_stop(loop, t);
        t->cb(loop, t);
    }
}

void
gr_loop_run(gr_loop_t *loop)
{
    struct epoll_event evs[256];
    while (!loop->stop) {
        int timeout = -1, n;
        if (loop->before_sleep)
            loop->before_sleep(loop, loop->before_sleep_arg);
        if (loop->stop)
            break;
        if (loop->heap_len > 0) {
            int64_t d = loop->heap[0]->when_us - gr_mono_us();
            timeout = d <= 0 ? 0 : (int)((d + 999) / 1000);
        }
        n = epoll_wait(loop->epfd, evs, 256, timeout);
        loop->now_us = gr_mono_us();
        if (n < 0) {
            if (errno == EINTR)
                continue;
            GR_LOG_ERROR("epoll_wait: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) {
            gr_io_t *io = evs[i].data.ptr;
            uint32_t ev = 0;
            if (evs[i].events & EPOLLIN)
                ev |= GR_IO_READ;
            if (evs[i].events & EPOLLRDHUP)
                ev |= GR_IO_RDHUP;
            if (evs[i].events & EPOLLOUT)
                ev |= GR_IO_WRITE;
            if (evs[i].events & (EPOLLERR | EPOLLHUP))
                ev |= GR_IO_ERROR | GR_IO_READ;
            io->cb(loop, io, ev);
        }
        run_timers(loop);
    }
}

static void
run_for_stop(gr_loop_t *loop, gr_timer_t *t)
{
    (void)t;
    gr_loop_stop(loop);
}

void
gr_loop_run_for(gr_loop_t *loop, int64_t ms)
{
    gr_timer_t t;
    gr_timer_init(&t, run_for_stop, NULL);
    gr_timer_start(loop, &t, ms);
    loop->stop = 0;
    gr_loop_run(loop);
    gr_timer_stop(loop, &t);
    loop->stop = 0;
}
