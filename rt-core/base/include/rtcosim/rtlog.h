/*
 * rtcosim/rtlog.h — the real-time thread's log: fixed-size records, formatted elsewhere.
 *
 * The real-time thread never formats text (README, "Real-time rules"). It pushes a record
 * of a code and a few integers into a preallocated SPSC ring (rtcosim/ring.h); a non-RT
 * thread drains the ring, turns each record into one line through a formatter and hands
 * it to an rtc_logger. Recurring conditions (an overrun every tick of a slow stretch) are
 * reported once and then only counted: the drainer logs the first record of a code marked
 * recurring and counts the rest; rtc_rtlog_report() logs how many were not shown. A full
 * ring drops the record and counts it (rtc_rtlog_dropped()), never silently.
 *
 * Text: a thread bound to a log (rtc_rtlog_bind_thread(); the RT-thread creator of
 * rtcosim/rt.h binds the threads it starts, and a Jacobi worker or substitute unit takes
 * the binding of the thread that hands it work) never formats: rtc_log() on it captures
 * the format and its arguments into a preallocated text slot (rtc_rtlog_vtext()) and the
 * drainer formats the line and hands it to the logger given at the call. Several threads
 * may push text at once (a bounded lock-free multi-producer queue); a full queue drops
 * and counts (rtc_rtlog_dropped()). What capture cannot take safely — %n, wide strings,
 * %m, a positional or unknown specifier and everything after it — is shown as "<?>";
 * formats, strings and argument lists are truncated to fixed sizes.
 */
#ifndef RTCOSIM_RTLOG_H
#define RTCOSIM_RTLOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/rtsafe.h"

typedef struct rtc_rtlog rtc_rtlog;

/** Codes used by the executive (rtcosim/exec.h); other modules start at RTC_RTLOG_USER. */
typedef enum {
    RTC_RTLOG_NONE = 0,
    RTC_RTLOG_OVERRUN,       /**< detail: cause; a: tick; b: lateness ns; c: unit time ns */
    RTC_RTLOG_SKIP,          /**< a: tick; b: periods skipped; c: gap ns */
    RTC_RTLOG_STEP_FAILED,   /**< a: tick; b: rtc_status */
    RTC_RTLOG_PAUSED,        /**< a: tick */
    RTC_RTLOG_RESUMED,       /**< a: tick */
    RTC_RTLOG_SINGLE_STEP,   /**< a: tick */
    RTC_RTLOG_STOPPING,      /**< detail: stop reason; a: tick; b: signal number or status */
    RTC_RTLOG_ROW_DROPPED,   /**< a: tick (recorder ring full) */
    RTC_RTLOG_TRACE_DROPPED, /**< a: tick (latency trace ring full) */
    RTC_RTLOG_SUBSTITUTE,    /**< a: tick; b: late steps so far (substitute policy) */
    RTC_RTLOG_USER = 32,     /**< first code free for other modules (up to 63) */
    RTC_RTLOG_MAX_CODE = 63,
} rtc_rtlog_code;

/** One record as the drainer sees it. */
typedef struct rtc_rtlog_rec {
    uint32_t code;
    uint32_t detail;
    int64_t a, b, c;
    int64_t wall_ns; /**< CLOCK_MONOTONIC when pushed */
} rtc_rtlog_rec;

/**
 * Turn a record into one line in @p buf (NUL-terminated) and return its log level
 * (RTC_LOG_*). Called on the draining thread only.
 */
typedef int (*rtc_rtlog_format)(void *user, const rtc_rtlog_rec *r, char *buf, size_t cap);

/**
 * Create a log of at least @p depth records (rounded up to a power of two) that drains
 * into @p lg (may be NULL: records are counted, nothing printed). Allocates and touches
 * the ring (arm phase). Returns RTC_OK, RTC_EINVAL (depth 0) or RTC_ENOMEM. RT-safe: no.
 */
int rtc_rtlog_new(size_t depth, const rtc_logger *lg, rtc_rtlog **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_rtlog_free(rtc_rtlog *log);

/** Use @p fn to format records (default: "rtlog <code>: a=.. b=.. c=.."). Not while
 *  draining. RT-safe: no. */
void rtc_rtlog_set_format(rtc_rtlog *log, rtc_rtlog_format fn, void *user);

/** Mark @p code as recurring: its first record is logged, the rest only counted.
 *  RT-safe: no. Thread: before the producer starts. */
void rtc_rtlog_set_recurring(rtc_rtlog *log, uint32_t code, bool recurring);

/**
 * Push a record (detail 0, c 0). Returns false when the ring was full (then counted).
 * RT-safe: yes (no allocation, lock, syscall or formatting). Thread: the single producer.
 */
RTC_RT_SAFE bool rtc_rtlog_push(rtc_rtlog *log, uint32_t code, int64_t a, int64_t b);

/** As rtc_rtlog_push() with every field. RT-safe: yes. Thread: the single producer. */
RTC_RT_SAFE bool rtc_rtlog_push_ext(rtc_rtlog *log, uint32_t code, uint32_t detail, int64_t a,
                                    int64_t b, int64_t c);

/**
 * Queue a printf-style message for @p lg at @p level, formatted by the drainer: the
 * literal pieces of @p prefix (a NULL-terminated list, may be NULL; '%' is literal there)
 * followed by @p fmt with @p ap. @p lg must outlive the next drain. Returns false when the
 * queue was full (then counted). RT-safe: yes (no allocation, lock, system call or
 * formatting). Thread: any.
 */
RTC_RT_SAFE bool rtc_rtlog_vtext(rtc_rtlog *log, const rtc_logger *lg, int level,
                                 const char *const *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

/**
 * Route rtc_log() of the calling thread into @p log (NULL: back to direct formatting).
 * RT-safe: yes. Thread: the calling thread.
 */
RTC_RT_SAFE void rtc_rtlog_bind_thread(rtc_rtlog *log);

/** The log the calling thread is bound to, or NULL. RT-safe: yes. */
RTC_RT_SAFE rtc_rtlog *rtc_rtlog_thread(void);

/**
 * Format and log every queued record (recurring ones after the first: counted only) and
 * every queued text message. Returns the number of records taken. RT-safe: no. Thread: the single consumer.
 */
size_t rtc_rtlog_drain(rtc_rtlog *log);

/** Records of @p code taken by the drainer so far (shown or not). RT-safe: yes.
 *  Thread: the consumer (or after it stopped). */
RTC_RT_SAFE uint64_t rtc_rtlog_count(const rtc_rtlog *log, uint32_t code);

/** Records and text messages lost because the ring or the text queue was full. RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_rtlog_dropped(const rtc_rtlog *log);

/**
 * Log one line per recurring code with records not shown ("<name>: N more not shown"),
 * and the dropped count if any. RT-safe: no. Thread: the consumer.
 */
void rtc_rtlog_report(rtc_rtlog *log);

/** Name of an engine code ("overrun", "skip", ...; "user" above RTC_RTLOG_USER).
 *  RT-safe: yes. */
RTC_RT_SAFE const char *rtc_rtlog_code_name(uint32_t code);

#endif
