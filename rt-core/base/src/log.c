/* The engine's logging path: format into a bounded buffer, hand the line to a callback —
 * or, on a thread bound to an rtlog (a real-time thread), queue format and arguments there. */
#include "rtcosim/log.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/rtlog.h"

#include <stdio.h>

void rtc_log_vwrite(const rtc_logger *lg, int level, const char *fmt, va_list ap)
{
    if (!rtc_log_enabled(lg, level))
        return;
    /* a real-time thread never formats: the rtlog drainer does it (rtcosim/rtlog.h) */
    rtc_rtlog *rt = rtc_rtlog_thread();
    if (rt) {
        rtc_rtlog_vtext(rt, lg, level, NULL, fmt, ap);
        return;
    }
    char msg[RTC_LOG_MSG_MAX];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n < 0)
        return;
    /* Drop one trailing newline: loggers receive lines without it. */
    size_t len = (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
    if (len > 0 && msg[len - 1] == '\n')
        msg[len - 1] = '\0';
    lg->log(lg->user, level, msg);
}

void rtc_log_write(const rtc_logger *lg, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rtc_log_vwrite(lg, level, fmt, ap);
    va_end(ap);
}

const char *rtc_log_level_name(int level)
{
    switch (level) {
    case RTC_LOG_ERROR:
        return "error";
    case RTC_LOG_WARNING:
        return "warning";
    case RTC_LOG_INFO:
        return "info";
    default:
        return "debug";
    }
}

static void stderr_log(void *user, int level, const char *msg)
{
    (void)user;
    /* One fprintf per line keeps lines from different threads whole. */
    if (level == RTC_LOG_INFO)
        fprintf(stderr, "rtcosim: %s\n", msg);
    else
        fprintf(stderr, "rtcosim: %s: %s\n", rtc_log_level_name(level), msg);
}

rtc_logger rtc_logger_stderr(int max_level)
{
    rtc_logger lg = {.log = stderr_log, .user = NULL, .max_level = max_level};
    return lg;
}
