/* Logging: see log.h. */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

int gr_log_level = GR_LOG_LEVEL_INFO;

static const char *const names[] = {"ERROR", "WARN", "INFO", "DEBUG",
                                    "TRACE"};

void
gr_log_write(int level, const char *fmt, ...)
{
    char line[2048];
    struct timeval tv;
    struct tm tm;
    va_list ap;
    int n;

    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %-5s ",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000),
                 names[level < 0 ? 0 : level > 4 ? 4 : level]);
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    fwrite(line, 1, (size_t)n, stderr);
}

int
gr_log_level_parse(const char *s)
{
    for (int i = 0; i < 5; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    if (strcasecmp(s, "warning") == 0)
        return GR_LOG_LEVEL_WARN;
    return -1;
}

void
gr_assert_fail(const char *cond, const char *file, int line)
{
    gr_log_write(GR_LOG_LEVEL_ERROR, "assertion failed: %s (%s:%d)", cond,
                 file, line);
    abort();
}
