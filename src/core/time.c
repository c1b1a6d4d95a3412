/* Clocks: see time.h. */
#include "core/time.h"

#include <time.h>

int64_t
gr_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t
gr_mono_ms(void)
{
    return gr_mono_us() / 1000;
}

int64_t
gr_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
