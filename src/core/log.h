/*
 * Logging: leveled lines on stderr, "<UTC time> <LEVEL> <message>".
 * The level is set once at start-up (log.level override or GREGOR_LOG).
 */
#ifndef GR_CORE_LOG_H
#define GR_CORE_LOG_H

enum gr_log_level {
    GR_LOG_LEVEL_ERROR = 0,
    GR_LOG_LEVEL_WARN,
    GR_LOG_LEVEL_INFO,
    GR_LOG_LEVEL_DEBUG,
    GR_LOG_LEVEL_TRACE,
};

extern int gr_log_level;

void gr_log_write(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "error", "warn", "info", "debug", "trace" -> level, or -1. */
int gr_log_level_parse(const char *s);

#define GR_LOG(level, ...)                                                     \
    do {                                                                       \
        if ((level) <= gr_log_level)                                           \
            gr_log_write((level), __VA_ARGS__);                                \
    } while (0)
#define GR_LOG_ERROR(...) GR_LOG(GR_LOG_LEVEL_ERROR, __VA_ARGS__)
#define GR_LOG_WARN(...)  GR_LOG(GR_LOG_LEVEL_WARN, __VA_ARGS__)
#define GR_LOG_INFO(...)  GR_LOG(GR_LOG_LEVEL_INFO, __VA_ARGS__)
#define GR_LOG_DEBUG(...) GR_LOG(GR_LOG_LEVEL_DEBUG, __VA_ARGS__)
#define GR_LOG_TRACE(...) GR_LOG(GR_LOG_LEVEL_TRACE, __VA_ARGS__)

/* Always-on assertion for states that would corrupt memory or data. */
#define GR_ASSERT(cond)                                                        \
    do {                                                                       \
        if (!(cond))                                                           \
            gr_assert_fail(#cond, __FILE__, __LINE__);                         \
    } while (0)
void gr_assert_fail(const char *cond, const char *file, int line)
    __attribute__((noreturn));

#endif
