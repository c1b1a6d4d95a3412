/* Clocks: monotonic for timers and timeouts, wall clock for timestamps. */
#ifndef GR_CORE_TIME_H
#define GR_CORE_TIME_H

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

#endif
