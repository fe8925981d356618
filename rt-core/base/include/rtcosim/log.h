/*
 * rtcosim/log.h — the one logging path of the engine.
 *
 * A logger is a callback plus user pointer. Library code never prints: it formats into a
 * bounded buffer and hands the text to the logger the caller supplied. The level is tested
 * before the arguments are formatted, so disabled debug lines cost one comparison.
 * On a thread bound to an rtlog (rtcosim/rtlog.h) rtc_log() only queues the format and
 * its arguments; the rtlog's drainer formats them and calls the logger (README,
 * "Real-time rules": how to log from the real-time thread).
 */
#ifndef RTCOSIM_LOG_H
#define RTCOSIM_LOG_H

#include <stdarg.h>
#include <stddef.h>

#include "rtcosim/rtsafe.h"

/** Severity, ordered: a logger shows every message at or below its threshold. */
typedef enum {
    RTC_LOG_ERROR = 0,
    RTC_LOG_WARNING = 1,
    RTC_LOG_INFO = 2,
    RTC_LOG_DEBUG = 3,
} rtc_log_level;

/** Where messages go. @c log receives one complete line without a trailing newline. */
typedef struct rtc_logger {
    void (*log)(void *user, int level, const char *msg);
    void *user;
    int max_level; /**< messages with level > max_level are dropped before formatting */
} rtc_logger;

/** True when @p lg would show a message of @p level. RT-safe: yes. */
#define rtc_log_enabled(lg, level)                                                                \
    ((lg) != NULL && (lg)->log != NULL && (int)(level) <= (lg)->max_level)

/**
 * Log a printf-style message through @p lg. The level is checked first, so the arguments
 * are neither evaluated nor formatted when the message would be dropped. A NULL logger
 * drops everything. Messages longer than RTC_LOG_MSG_MAX are truncated.
 *
 * RT-safe: on a thread bound to an rtlog, yes (queued, formatted by the drainer); elsewhere
 * no. Thread: any, if the callback is.
 */
#define rtc_log(lg, level, ...)                                                                   \
    do {                                                                                           \
        if (rtc_log_enabled((lg), (level)))                                                        \
            rtc_log_write((lg), (level), __VA_ARGS__);                                             \
    } while (0)

/** Format and emit unconditionally (use rtc_log()). RT-safe: no. */
void rtc_log_write(const rtc_logger *lg, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** As rtc_log_write() with a va_list. RT-safe: no. */
void rtc_log_vwrite(const rtc_logger *lg, int level, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/** Level name for output: "error", "warning", "info", "debug". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_log_level_name(int level);

/**
 * A logger that writes "rtcosim: <level>: <msg>\n" to stderr (warnings and errors always,
 * info and debug when @p max_level allows).
 *
 * RT-safe: no. Thread: any (one fputs per line).
 */
rtc_logger rtc_logger_stderr(int max_level);

#endif
