/*
 * The real-time log (rtcosim/rtlog.h): fixed-size records in an SPSC ring.
 *
 * The producer (RT thread) stamps a record with CLOCK_MONOTONIC (vDSO, no syscall) and
 * copies it into the ring; the ring's release/acquire indices make the record visible
 * whole. Everything that costs — formatting, the once-then-count bookkeeping, the logger
 * call — happens on the consumer. The per-code counters belong to the consumer alone, so
 * they need no atomics; the recurring flags are set before the producer starts.
 */
#include "rtlog_priv.h"
#include "rtcosim/ring.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N_CODES (RTC_RTLOG_MAX_CODE + 1)
#define TEXT_DEPTH RTC_RTLOG_TEXT_DEPTH /* text messages between two drains (every 20 ms) */

struct rtc_rtlog {
    rtc_ring *ring;
    rtc__rtlog_text *text; /* printf-style messages, any producer thread */
    const rtc_logger *lg;
    rtc_rtlog_format fmt;
    void *fmt_user;
    bool recurring[N_CODES];
    uint64_t count[N_CODES]; /* consumer only */
};

static const char *const code_names[] = {
    "none",      "overrun",     "skip",       "step failed",      "paused",
    "resumed",   "single step", "stopping",   "result row dropped", "trace record dropped",
    "substitute",
};

const char *rtc_rtlog_code_name(uint32_t code)
{
    if (code < sizeof code_names / sizeof code_names[0])
        return code_names[code];
    return code >= RTC_RTLOG_USER && code <= RTC_RTLOG_MAX_CODE ? "user" : "unknown";
}

static int default_format(void *user, const rtc_rtlog_rec *r, char *buf, size_t cap)
{
    (void)user;
    snprintf(buf, cap, "rtlog %s (%u/%u): a=%lld b=%lld c=%lld", rtc_rtlog_code_name(r->code),
             r->code, r->detail, (long long)r->a, (long long)r->b, (long long)r->c);
    return RTC_LOG_INFO;
}

int rtc_rtlog_new(size_t depth, const rtc_logger *lg, rtc_rtlog **out)
{
    if (depth == 0)
        return RTC_EINVAL;
    rtc_rtlog *log = calloc(1, sizeof *log);
    if (!log)
        return RTC_ENOMEM;
    int rc = rtc_ring_new(sizeof(rtc_rtlog_rec), depth, &log->ring);
    if (rc == RTC_OK)
        rc = rtc__rtlog_text_new(TEXT_DEPTH, &log->text);
    if (rc != RTC_OK) {
        rtc_ring_free(log->ring);
        free(log);
        return rc;
    }
    log->lg = lg;
    log->fmt = default_format;
    *out = log;
    return RTC_OK;
}

void rtc_rtlog_free(rtc_rtlog *log)
{
    if (!log)
        return;
    rtc_ring_free(log->ring);
    rtc__rtlog_text_free(log->text);
    free(log);
}

void rtc_rtlog_set_format(rtc_rtlog *log, rtc_rtlog_format fn, void *user)
{
    log->fmt = fn ? fn : default_format;
    log->fmt_user = user;
}

void rtc_rtlog_set_recurring(rtc_rtlog *log, uint32_t code, bool recurring)
{
    if (code < N_CODES)
        log->recurring[code] = recurring;
}

bool rtc_rtlog_push_ext(rtc_rtlog *log, uint32_t code, uint32_t detail, int64_t a, int64_t b,
                        int64_t c)
{
    rtc_rtlog_rec *r = rtc_ring_reserve(log->ring);
    if (!r) {
        rtc_ring_drop(log->ring);
        return false;
    }
    *r = (rtc_rtlog_rec){.code = code, .detail = detail, .a = a, .b = b, .c = c,
                         .wall_ns = rtc_time_now_ns()};
    rtc_ring_commit(log->ring);
    return true;
}

bool rtc_rtlog_vtext(rtc_rtlog *log, const rtc_logger *lg, int level, const char *const *prefix,
                     const char *fmt, va_list ap)
{
    return rtc__rtlog_text_push(log->text, lg, level, prefix, fmt, ap);
}

bool rtc_rtlog_push(rtc_rtlog *log, uint32_t code, int64_t a, int64_t b)
{
    return rtc_rtlog_push_ext(log, code, 0, a, b, 0);
}

size_t rtc_rtlog_drain(rtc_rtlog *log)
{
    size_t n = 0;
    const rtc_rtlog_rec *r;
    while ((r = rtc_ring_peek(log->ring)) != NULL) {
        rtc_rtlog_rec rec = *r;
        rtc_ring_release(log->ring);
        n++;
        uint32_t code = rec.code < N_CODES ? rec.code : RTC_RTLOG_NONE;
        /* once, then counted: only the first record of a recurring code is formatted */
        if (log->count[code]++ > 0 && log->recurring[code])
            continue;
        char line[512];
        int level = log->fmt(log->fmt_user, &rec, line, sizeof line);
        rtc_log(log->lg, level, "%s%s", line,
                log->recurring[code] ? " (reported once; further ones are counted)" : "");
    }
    return n + rtc__rtlog_text_drain(log->text);
}

uint64_t rtc_rtlog_count(const rtc_rtlog *log, uint32_t code)
{
    return code < N_CODES ? log->count[code] : 0;
}

uint64_t rtc_rtlog_dropped(const rtc_rtlog *log)
{
    return rtc_ring_dropped(log->ring) + rtc__rtlog_text_dropped(log->text);
}

void rtc_rtlog_report(rtc_rtlog *log)
{
    for (uint32_t c = 0; c < N_CODES; c++)
        if (log->recurring[c] && log->count[c] > 1)
            rtc_log(log->lg, RTC_LOG_WARNING, "%s: %llu in total, %llu more not shown",
                    rtc_rtlog_code_name(c), (unsigned long long)log->count[c],
                    (unsigned long long)(log->count[c] - 1));
    uint64_t d = rtc_rtlog_dropped(log);
    if (d)
        rtc_log(log->lg, RTC_LOG_WARNING, "rtlog: %llu records lost (ring full)",
                (unsigned long long)d);
}
