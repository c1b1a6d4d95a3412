/* Logging: see log.h. */
#include "core/log.h"
#include "core/time.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int gr_log_level = GR_LOG_LEVEL_INFO;

static const char *const names[] = { "ERROR", "WARN", "INFO", "DEBUG",
                                     "TRACE" };

void
gr_log_write(int level, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    int n;

    gr_utc_format(gr_wall_ms(), line);
    n = 24;
    if (level < 0 || level > 4)
        level = level < 0 ? 0 : 4;
    n += snprintf(line + n, sizeof line - (size_t)n, " %-5s ", names[level]);
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
    gr_log_write(GR_LOG_LEVEL_ERROR, "assertion failed: %s (%s:%d)", cond, file,
                 line);
    abort();
}
