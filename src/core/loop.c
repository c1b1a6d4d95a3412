/*
 * Event loop: see loop.h. epoll in level-triggered mode; timers in a binary
 * min-heap keyed by expiry; posts from other threads through a mutex-guarded
 * list and an eventfd. stop() may be called from a signal handler: it only
 * writes the eventfd and sets a flag.
 *
 * A virtual clock adds a second heap, of the virtual timers, keyed by the
 * virtual clock's monotonic time: its top bounds epoll's wait only when
 * it is already due (a timer armed with delay 0 fires on the next turn,
 * as with the real clock); the rest wait for gr_loop_advance(). Without
 * one, virtual timers share the real heap: the broker's clock is real.
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

typedef struct heap {
    gr_timer_t **t;
    int len;
    int cap;
} heap_t;

struct gr_loop {
    int epfd;
    gr_io_t wake; /* eventfd */
    volatile sig_atomic_t stop;
    int64_t now_us;
    heap_t heap;  /* real timers (all of them with the real clock) */
    heap_t vheap; /* virtual timers, with a virtual clock */
    gr_clock_t clock;
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
    gr_clock_init(&loop->clock, false);
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
    free(loop->heap.t);
    free(loop->vheap.t);
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

/* --- timer heaps */

static void
heap_swap(heap_t *h, int i, int j)
{
    gr_timer_t *t = h->t[i];
    h->t[i] = h->t[j];
    h->t[j] = t;
    h->t[i]->heap_idx = i;
    h->t[j]->heap_idx = j;
}

static void
heap_up(heap_t *h, int i)
{
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h->t[p]->when_us <= h->t[i]->when_us)
            break;
        heap_swap(h, i, p);
        i = p;
    }
}

static void
heap_down(heap_t *h, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->len && h->t[l]->when_us < h->t[m]->when_us)
            m = l;
        if (r < h->len && h->t[r]->when_us < h->t[m]->when_us)
            m = r;
        if (m == i)
            break;
        heap_swap(h, i, m);
        i = m;
    }
}

/* The heap t is (or goes) in: the clock is made virtual before any timer
 * is armed, so this does not change while t is armed. */
static heap_t *
heap_of(gr_loop_t *loop, const gr_timer_t *t)
{
    return t->virt && loop->clock.virt ? &loop->vheap : &loop->heap;
}

void
gr_timer_stop(gr_loop_t *loop, gr_timer_t *t)
{
    heap_t *h = heap_of(loop, t);
    int i = t->heap_idx;
    if (i < 0)
        return;
    GR_ASSERT(i < h->len && h->t[i] == t);
    t->heap_idx = -1;
    h->len--;
    if (i == h->len)
        return;
    h->t[i] = h->t[h->len];
    h->t[i]->heap_idx = i;
    heap_up(h, i);
    heap_down(h, h->t[i]->heap_idx);
}

void
gr_timer_start(gr_loop_t *loop, gr_timer_t *t, int64_t delay_ms)
{
    heap_t *h = heap_of(loop, t);
    gr_timer_stop(loop, t);
    if (delay_ms < 0)
        delay_ms = 0;
    t->when_us =
        (h == &loop->vheap ? gr_clock_mono_us(&loop->clock) : gr_mono_us()) +
        delay_ms * 1000;
    if (h->len == h->cap) {
        int cap = h->cap ? h->cap * 2 : 64;
        gr_timer_t **n = realloc(h->t, (size_t)cap * sizeof(*n));
        GR_ASSERT(n != NULL);
        h->t = n;
        h->cap = cap;
    }
    t->heap_idx = h->len;
    h->t[h->len++] = t;
    heap_up(h, t->heap_idx);
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

void
gr_loop_virtual_clock(gr_loop_t *loop)
{
    GR_ASSERT(loop->heap.len == 0 && loop->vheap.len == 0);
    gr_clock_init(&loop->clock, true);
}

const gr_clock_t *
gr_loop_clock(const gr_loop_t *loop)
{
    return loop ? &loop->clock : NULL; /* NULL: the real clock (tests) */
}

/* Fires the timers of h due at now_us (a timer a callback arms at or
 * before it fires too). */
static int64_t
run_heap(gr_loop_t *loop, heap_t *h, int64_t now_us)
{
    int64_t n = 0;
    while (h->len > 0 && h->t[0]->when_us <= now_us) {
        gr_timer_t *t = h->t[0];
        gr_timer_stop(loop, t);
        t->cb(loop, t);
        n++;
    }
    return n;
}

static void
run_timers(gr_loop_t *loop)
{
    run_heap(loop, &loop->heap, loop->now_us);
    if (loop->clock.virt)
        run_heap(loop, &loop->vheap, gr_clock_mono_us(&loop->clock));
}

int64_t
gr_loop_advance(gr_loop_t *loop, int64_t ms)
{
    heap_t *h = &loop->vheap;
    int64_t to, n = 0;
    if (!loop->clock.virt || ms < 0 || ms > GR_LOOP_ADVANCE_MAX_MS)
        return -1;
    to = gr_clock_mono_us(&loop->clock) + ms * 1000;
    while (h->len > 0 && h->t[0]->when_us <= to) {
        gr_timer_t *t = h->t[0];
        gr_clock_set_mono_us(&loop->clock, t->when_us);
        gr_timer_stop(loop, t);
        t->cb(loop, t);
        n++;
    }
    gr_clock_set_mono_us(&loop->clock, to);
    return n;
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
        if (loop->heap.len > 0) {
            int64_t d = loop->heap.t[0]->when_us - gr_mono_us();
            timeout = d <= 0 ? 0 : (int)((d + 999) / 1000);
        }
        if (loop->vheap.len > 0 &&
            loop->vheap.t[0]->when_us <= gr_clock_mono_us(&loop->clock))
            timeout = 0; /* due already: armed with no delay */
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
