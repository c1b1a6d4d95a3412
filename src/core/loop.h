/*
 * The event loop: epoll for file descriptors, a binary heap of timers, and a
 * thread-safe post queue (eventfd) through which worker threads hand results
 * back. One thread runs the loop and owns everything reached from it.
 *
 * It sits in core/, below every module: storage, the coordinators and the
 * workers arm timers and post to it without knowing of sockets; net/ keeps
 * the listeners and connections that watch descriptors through it.
 *
 * Virtual time. The loop owns the broker's clock (core/time.h). With
 * --virtual-clock (gr_loop_virtual_clock) it stands still until a test
 * advances it (gr_loop_advance); timers made with gr_timer_init_virtual()
 * count in that clock and fire only as it reaches them, the others count
 * in real time always. Apache Kafka's MockTime moves every clock of a
 * broker, but there the whole test runs in one JVM; here the clients run
 * on real time, and librdkafka's mock cluster and franz-go's kfake have
 * no virtual clock at all. So the split is: what the broker decides by
 * time on its own (Kafka's "business" clocks) follows the virtual clock;
 * what bounds a wait a client is timing with its own real clock stays
 * real, or a long poll would hang until someone advanced time while the
 * client's request timeout fired.
 *
 * Follow the virtual clock (timers made virtual, and reads of
 * gr_loop_clock()):
 *   - classic groups: session timeouts (heartbeats and pending members),
 *     rebalance timeouts (join and sync), group.initial.rebalance.delay.ms;
 *     state timestamps and offset commit times, offsets.retention.minutes
 *     and its check interval;
 *   - consumer groups (KIP-848): session and rebalance timeouts, their
 *     records' times;
 *   - transactions: transaction.timeout.ms and the abort sweep
 *     (transaction.abort.timed.out.transaction.cleanup.interval.ms),
 *     transactional.id.expiration.ms and its sweep, the times written in
 *     __transaction_state;
 *   - producer ids: producer.id.expiration.ms (the maintenance tick);
 *   - logs: retention.ms and its check interval, segment.ms rolls, segment
 *     creation times, log.flush.interval.ms, the cleaner's backoff and
 *     min/max.compaction.lag.ms; LogAppendTime and every other time the
 *     broker writes into a record or onto disk;
 *   - client quotas' windows (producer/consumer byte rates, request
 *     percentage, controller mutation rate): a throttle time is then the
 *     same in every run.
 * Stay real:
 *   - Fetch max_wait_ms, Produce and other request timeouts, a throttled
 *     connection's mute (the client waits out throttle_time_ms on its own
 *     clock, KIP-219), connections.max.idle.ms, delayed closes, SASL
 *     re-authentication and token lifetimes, the connection creation rate
 *     and accept pauses, fetch session eviction;
 *   - the control interface: injected delays (a round-trip time), its own
 *     idle sweep, the request log's times; log lines' times; metrics'
 *     durations; client telemetry push intervals; start-up work and
 *     retries (markers, loads) that wait for nothing but the machine.
 */
#ifndef GR_CORE_LOOP_H
#define GR_CORE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/time.h"

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
    int64_t when_us; /* monotonic: real, or the loop's clock when virt */
    int heap_idx;    /* -1 when not armed */
    bool virt;       /* counts in the broker's (maybe virtual) clock */
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
    t->virt = false;
    t->cb = cb;
    t->data = data;
}
/* A timer of the broker's clock: with a virtual clock its delays pass
 * only as the clock is advanced (the list above says which are). */
static inline void
gr_timer_init_virtual(gr_timer_t *t, gr_timer_cb cb, void *data)
{
    gr_timer_init(t, cb, data);
    t->virt = true;
}
/* (Re)arms t to fire once after delay_ms (of its clock). */
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

/* Makes the loop's clock virtual, standing at the real time of now.
 * Before any timer is armed (the broker's start). */
void gr_loop_virtual_clock(gr_loop_t *loop);
/* The broker's clock: virtual or real. Readable from any thread for as
 * long as the loop lives. */
const gr_clock_t *gr_loop_clock(const gr_loop_t *loop);
static inline int64_t
gr_loop_wall_ms(const gr_loop_t *loop)
{
    return gr_clock_wall_ms(gr_loop_clock(loop));
}
static inline int64_t
gr_loop_mono_ms(const gr_loop_t *loop)
{
    return gr_clock_mono_ms(gr_loop_clock(loop));
}
/* Loop thread, virtual clock only: moves the clock ms ahead (ms >= 0),
 * firing every virtual timer that falls due on the way in the order of
 * their times, each with the clock standing at its time (a timer a
 * callback arms fires too if it falls within ms), and stops the clock at
 * the end. Returns the number of timers fired, or -1 (not virtual, or
 * ms outside [0, GR_LOOP_ADVANCE_MAX_MS]). Real timers and I/O wait for the
 * next turn of the loop. */
int64_t gr_loop_advance(gr_loop_t *loop, int64_t ms);
/* The most one advance takes: 2^50 ms, 35,000 years (no overflow). */
#define GR_LOOP_ADVANCE_MAX_MS (INT64_C(1) << 50)

#endif
