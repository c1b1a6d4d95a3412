/*
 * Helpers shared by the benchmark programs in tests/bench/: a monotonic
 * clock, CPU time and memory of another process read from /proc, and a
 * uniform failure exit. Header-only; each program is one .c file plus this.
 * Nothing here is used by the broker or by `make check`.
 */
#ifndef GR_BENCH_H
#define GR_BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* built outside configure too */
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static inline void bench_die(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
static inline void
bench_die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_invocation_short_name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline int64_t
bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * CPU time of process <pid> (all its threads, not its reaped children):
 * utime and stime from /proc/<pid>/stat, fields 14 and 15, in seconds.
 * The command name (field 2) may hold spaces and parentheses, so parsing
 * starts after the last ')'. Returns 0, or -1 if the process is gone.
 */
static inline int
bench_proc_cpu(pid_t pid, double *user_s, double *sys_s)
{
    char path[64], buf[1024], *p;
    unsigned long long ut = 0, st = 0;
    long hz = sysconf(_SC_CLK_TCK);
    FILE *f;
    size_t n;

    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if ((p = strrchr(buf, ')')) == NULL)
        return -1;
    /* after ") ": field 3 (state) ... field 14 utime, 15 stime */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
               &ut, &st) != 2)
        return -1;
    *user_s = (double)ut / hz;
    *sys_s = (double)st / hz;
    return 0;
}

/*
 * CPU time of process <pid>, all threads including those that ended, to the
 * nanosecond: the kernel's per-process CPU clock (clock_getcpuclockid()),
 * where /proc/<pid>/stat counts in ticks of 10 ms. Returns seconds, or -1.
 */
static inline double
bench_proc_cpu_total(pid_t pid)
{
    struct timespec ts;
    clockid_t id;

    if (clock_getcpuclockid(pid, &id) != 0 || clock_gettime(id, &ts) != 0)
        return -1;
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * CPU time of thread <tid> of this process, to the nanosecond: the kernel's
 * per-thread CPU clock, whose id is built as the kernel defines it
 * (~tid << 3 | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED). Seconds, or -1.
 */
static inline double
bench_thread_cpu(pid_t tid)
{
    clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);
    struct timespec ts;

    if (clock_gettime(id, &ts) != 0)
        return -1;
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A "Name:   1234 kB" line of /proc/<pid>/status, in KiB; -1 if absent. */
static inline long
bench_proc_status_kb(pid_t pid, const char *name)
{
    char path[64], line[256];
    size_t len = strlen(name);
    long kb = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, name, len) == 0 && line[len] == ':') {
            kb = strtol(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/*
 * Big-endian wire helpers for the programs that speak the Kafka protocol
 * themselves (rawfetch, membroker). Writers advance *p; the full_ ones
 * loop over short transfers and exit on failure.
 */
static inline void
bench_put16(uint8_t **p, int v)
{
    (*p)[0] = (uint8_t)(v >> 8);
    (*p)[1] = (uint8_t)v;
    *p += 2;
}

static inline void
bench_put32(uint8_t **p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        (*p)[i] = (uint8_t)(u >> (24 - 8 * i));
    *p += 4;
}

static inline void
bench_put64(uint8_t **p, int64_t v)
{
    bench_put32(p, (int32_t)((uint64_t)v >> 32));
    bench_put32(p, (int32_t)v);
}

static inline void
bench_putstr(uint8_t **p, const char *s)
{
    size_t n = strlen(s);
    bench_put16(p, (int)n);
    memcpy(*p, s, n);
    *p += n;
}

static inline uint32_t
bench_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static inline int64_t
bench_get64(const uint8_t *p)
{
    return (int64_t)((uint64_t)bench_get32(p) << 32 | bench_get32(p + 4));
}

static inline void
bench_full_write(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            bench_die("write: %s", w < 0 ? strerror(errno) : "closed");
        p += w;
        n -= (size_t)w;
    }
}

static inline void
bench_full_read(int fd, uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r <= 0)
            bench_die("read: %s", r < 0 ? strerror(errno) : "closed");
        p += r;
        n -= (size_t)r;
    }
}

#endif
