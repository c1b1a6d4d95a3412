/*
 * The event loop: epoll for file descriptors, a binary heap of timers, and a
 * thread-safe post queue (eventfd) through which worker threads hand results
 * back. One thread runs the loop and owns everything reached from it.
 *
 * It sits in core/, below every module: storage, the coordinators and the
 * workers arm timers and post to it without knowing of sockets; net/ keeps
 * the listeners and connections that watch descriptors through it.
 */
#ifndef GR_CORE_LOOP_H
#define GR_CORE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gr_loop gr_loop_t;
typedef struct gr_io gr_io_t;
typedef struct gr_timer gr_timer_t;

typedef void (*gr_io_cb)(gr_loop_t *loop, gr_io_t *io, uint32_t events);
typedef void (*gr_timer_cb)(gr_loop_t *loop, gr_timer_t *t);
typedef void (*gr_post_cb)(gr_loop_t *loop, void *arg);

#define GR_IO_READ  0x1u
#define GR_IO_WRITE 0x4u /* EPOLLOUT */
#define GR_IO_ERROR 0x8u /* EPOLLERR/EPOLLHUP reported */
#define GR_IO_RDHUP 0x2000u /* EPOLLRDHUP: watch/report peer shutdown */

struct gr_io {
    int fd;
    uint32_t events; /* registered GR_IO_READ | GR_IO_WRITE */
    gr_io_cb cb;
    void *data;
};

struct gr_timer {
    int64_t when_us; /* monotonic */
    int heap_idx;    /* -1 when not armed */
    gr_timer_cb cb;
    void *data;
};

gr_loop_t *gr_loop_new(void);
void gr_loop_destroy(gr_loop_t *loop);
/* Registers io->fd for events (GR_IO_READ and/or GR_IO_WRITE). */
int gr_loop_io_add(gr_loop_t *loop, gr_io_t *io, uint32_t events);
int gr_loop_io_set(gr_loop_t *loop, gr_io_t *io, uint32_t events);
void gr_loop_io_del(gr_loop_t *loop, gr_io_t *io);

static inline void
gr_timer_init(gr_timer_t *t, gr_timer_cb cb, void *data)
{
    t->when_us = 0;
    t->heap_idx = -1;
    t->cb = cb;
    t->data = data;
}
/* (Re)arms t to fire once after delay_ms. */
void gr_timer_start(gr_loop_t *loop, gr_timer_t *t, int64_t delay_ms);
void gr_timer_stop(gr_loop_t *loop, gr_timer_t *t);
static inline bool
gr_timer_armed(const gr_timer_t *t)
{
    return t->heap_idx >= 0;
}

/* From any thread: runs cb(loop, arg) on the loop thread soon. 0 or -1. */
int gr_loop_post(gr_loop_t *loop, gr_post_cb cb, void *arg);
/* Runs the callbacks posted so far (shutdown, after workers stopped). */
void gr_loop_drain_posts(gr_loop_t *loop);
/* Runs until gr_loop_stop(). */
void gr_loop_run(gr_loop_t *loop);
/* Runs for ms milliseconds (tests): timers and I/O as gr_loop_run(). */
void gr_loop_run_for(gr_loop_t *loop, int64_t ms);
/* From the loop thread or a signal handler. */
void gr_loop_stop(gr_loop_t *loop);
bool gr_loop_stopping(const gr_loop_t *loop);
/* Cached monotonic time of this iteration (microseconds). */
int64_t gr_loop_now_us(const gr_loop_t *loop);
/* Called once per iteration before waiting (e.g. flush pending wake-ups). */
void gr_loop_set_before_sleep(gr_loop_t *loop, gr_post_cb cb, void *arg);

#endif
