/*
 * Clocks: monotonic for timers and timeouts, wall clock for timestamps,
 * both real (gr_mono_us, gr_wall_ms), and the broker's clock (gr_clock_t),
 * which is real too unless the broker runs with --virtual-clock
 * (gregor.virtual.clock=true): then it stands still and moves only when a
 * test advances it (POST /v1/clock/advance), monotonic and wall time
 * together, from the real values at start-up.
 *
 * Which reads follow the broker's clock and which stay real is decided
 * at each read, by the clock it asks: core/loop.h's header lists them.
 */
#ifndef GR_CORE_TIME_H
#define GR_CORE_TIME_H

#include <stdbool.h>
#include <stdint.h>

/* Monotonic milliseconds / microseconds. */
int64_t gr_mono_ms(void);
int64_t gr_mono_us(void);
/* Wall-clock milliseconds since the epoch (record timestamps). */
int64_t gr_wall_ms(void);
/* ms since the epoch as "YYYY-MM-DDTHH:MM:SS.mmmZ" (24 characters and a
 * NUL; out holds at least 25). Proleptic Gregorian UTC computed here:
 * glibc's gmtime_r reads the time zone file on its first call (0.2 ms on
 * this VM, in every start-up's first log line). */
void gr_utc_format(int64_t ms, char *out);

/* The broker's clock. All-zero (or gr_clock_init(c, false)) is the real
 * clock; a virtual one holds the real monotonic and wall times it was
 * started at and how far it was advanced since. Reads are safe from any
 * thread (workers stamp segments too); gr_clock_advance() is the loop
 * thread's (gr_loop_advance, which fires the timers that became due). */
typedef struct gr_clock {
    bool virt;
    int64_t mono0_us; /* gr_mono_us() when made virtual */
    int64_t wall0_ms; /* gr_wall_ms() then */
    int64_t moved_us; /* advanced since (atomic) */
} gr_clock_t;

void gr_clock_init(gr_clock_t *c, bool virt);
/* NULL reads as the real clock. */
int64_t gr_clock_mono_us(const gr_clock_t *c);
int64_t gr_clock_mono_ms(const gr_clock_t *c);
int64_t gr_clock_wall_ms(const gr_clock_t *c);
/* Virtual only: moves c to monotonic time mono_us (never back). */
void gr_clock_set_mono_us(gr_clock_t *c, int64_t mono_us);

#endif
