/*
 * rtcosim/nonfinite.h — detection of non-finite values (NaN, ±Inf) in unit outputs and
 * coupled signals, on the step they appear.
 *
 * A tracker holds one flag per watched value: the stepping thread checks the values after
 * each step (one isfinite() per value, no formatting, no allocation) and records the first
 * non-finite value of each into a preallocated event table, published with one atomic
 * count. Any other thread reads the events and reports them (once per value). A run
 * counts them in summary.json; `--on-nonfinite stop` ends it at the step one appears.
 */
#ifndef RTCOSIM_NONFINITE_H
#define RTCOSIM_NONFINITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/system.h"

typedef struct rtc_nonfinite rtc_nonfinite;

/** What a run does when a value becomes non-finite. */
typedef enum {
    RTC_NONFINITE_WARN = 0, /**< report it (once per value), count it, run on (default) */
    RTC_NONFINITE_STOP,     /**< report it and stop the run at that step (safe state) */
} rtc_nonfinite_policy;

/** Parse "warn" / "stop". Returns RTC_OK or RTC_EPARSE. RT-safe: yes. */
RTC_RT_SAFE int rtc_nonfinite_policy_parse(const char *text, rtc_nonfinite_policy *out);

/** The first non-finite value of one watched value. */
typedef struct rtc_nonfinite_event {
    size_t id;     /**< the value's id (0 .. n_values-1 of rtc_nonfinite_new) */
    int64_t t_ns;  /**< time given to the check that found it */
    double value;  /**< NaN, +Inf or -Inf */
} rtc_nonfinite_event;

/** A tracker for @p n_values values. Returns RTC_OK or RTC_ENOMEM. RT-safe: no. */
int rtc_nonfinite_new(size_t n_values, rtc_nonfinite **out);
/** NULL is a no-op. RT-safe: no. */
void rtc_nonfinite_free(rtc_nonfinite *nf);

/**
 * Check @p n doubles whose ids are @p first_id .. first_id+n-1 (stride @p stride bytes
 * between values: sizeof(double) or sizeof(float), @p is_float32 for float). Records the
 * first non-finite value of each id at @p t_ns. Returns the number of new events.
 * RT-safe: yes. Thread: one checking thread.
 */
RTC_RT_SAFE size_t rtc_nonfinite_check(rtc_nonfinite *nf, size_t first_id, const void *values,
                                       size_t n, bool is_float32, int64_t t_ns);

/**
 * Whether all @p n values (doubles, or floats with @p is_float32) are finite: the
 * check's fast path, a pass of integer tests over the exponent bits, inline so that a
 * stepping loop pays no call for it. RT-safe: yes.
 */
RTC_RT_SAFE static inline bool rtc_nonfinite_all_finite(const void *values, size_t n,
                                                        bool is_float32)
{
    unsigned bad = 0;
    const unsigned char *p = (const unsigned char *)values;
    if (is_float32) {
        for (size_t i = 0; i < n; i++) {
            uint32_t b;
            __builtin_memcpy(&b, p + i * sizeof b, sizeof b);
            bad |= (b & UINT32_C(0x7f800000)) == UINT32_C(0x7f800000);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t b;
            __builtin_memcpy(&b, p + i * sizeof b, sizeof b);
            bad |= (b & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000);
        }
    }
    return !bad;
}

/** Events recorded so far (acquire: the events below the count are complete).
 *  RT-safe: yes. Thread: any. */
RTC_RT_SAFE size_t rtc_nonfinite_count(const rtc_nonfinite *nf);
/** Event @p i (< rtc_nonfinite_count). RT-safe: yes. Thread: any. */
RTC_RT_SAFE rtc_nonfinite_event rtc_nonfinite_get(const rtc_nonfinite *nf, size_t i);

/* ---- a system's tracker (every Float64/Float32 value the system observes: the units'
 *      outputs that are coupled or recorded), checked by rtc_system_step() ---- */

/** The system's tracker (NULL before rtc_system_init). RT-safe: yes. */
RTC_RT_SAFE const rtc_nonfinite *rtc_system_nonfinite(const rtc_system *sys);

/** "unit.variable[i]" of a system tracker's value @p id. RT-safe: no. */
void rtc_system_nonfinite_name(const rtc_system *sys, size_t id, char *buf, size_t cap);

/**
 * Log events @p from .. count-1 of the system's tracker, one warning line each:
 * "non-finite value: UNIT.VAR = nan at t = T s (reported once per variable)". Returns the
 * new count (pass it as @p from next time). RT-safe: no.
 */
size_t rtc_system_nonfinite_report(const rtc_system *sys, size_t from, const rtc_logger *lg);

#endif
