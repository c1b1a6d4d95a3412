/* Clocks: monotonic for timers and timeouts, wall clock for timestamps. */
#ifndef GR_CORE_TIME_H
#define GR_CORE_TIME_H

#include <stdint.h>

/* Monotonic milliseconds / microseconds. */
int64_t gr_mono_ms(void);
int64_t gr_mono_us(void);
/* Wall-clock milliseconds since the epoch (record timestamps). */
int64_t gr_wall_ms(void);

#endif
