/*
 * rtcosim/time.h — logical time as integer nanoseconds.
 *
 * Logical time inside rt-core is an int64_t count of nanoseconds from the start time.
 * Communication points are t_k = k·h computed by multiplication, never by summing floats
 * (3 µs added 12 times is not 36 µs in binary floating point). Decimal texts such as "0.001"
 * or "1e-3" are converted exactly, without passing through double; only the FMU boundary
 * sees seconds as double, obtained by one correctly rounded division.
 *
 * Wall-clock time is CLOCK_MONOTONIC in int64_t nanoseconds, read by rtc_time_now_ns() and
 * slept to by rtc_time_sleep_until_ns(): the one clock reader and the one sleep of the
 * library (the RT loop, the workers, the drivers' I/O threads, mailbox timestamps, rtlog
 * records all share this time base).
 */
#ifndef RTCOSIM_TIME_H
#define RTCOSIM_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

#define RTC_NS_PER_S INT64_C(1000000000)

/**
 * CLOCK_MONOTONIC now, in nanoseconds (the time base of deadlines, mailbox samples and
 * rtlog records). RT-safe: yes (vDSO: no system call). Thread: any.
 */
RTC_RT_SAFE int64_t rtc_time_now_ns(void);

/**
 * Sleep until CLOCK_MONOTONIC reaches @p deadline_ns (absolute: clock_nanosleep with
 * TIMER_ABSTIME, so a late wake-up never shifts later deadlines). A signal does not cut the
 * sleep short: EINTR sleeps again to the same deadline. A deadline in the past returns at
 * once.
 * Returns 0, or the error number of clock_nanosleep (EINVAL: deadline_ns negative).
 * RT-safe: yes (the pacing sleep is the RT thread's one blocking call). Thread: any.
 */
RTC_RT_SAFE int rtc_time_sleep_until_ns(int64_t deadline_ns);

/**
 * Parse a decimal number of seconds ("0.001", "1e-3", "+2.5E+1", "10") exactly into
 * nanoseconds: the same as rtc_parse_seconds() (rtcosim/numparse.h, the one number
 * parser), kept under this name for embedders that call it.
 *
 * Returns: RTC_OK; RTC_EPARSE (not a number); RTC_ETIME (finer than 1 ns or out of the
 * int64 range — never silently rounded).
 * RT-safe: yes.
 */
RTC_RT_SAFE int rtc_time_parse_s(const char *text, int64_t *ns);

/**
 * Seconds as double for the FMU boundary: the double nearest to @p ns / 1e9 (one correctly
 * rounded division of exactly representable operands for |ns| < 2^53).
 * RT-safe: yes.
 */
RTC_RT_SAFE static inline double rtc_time_to_s(int64_t ns)
{
    return (double)ns / 1e9;
}

/**
 * Nearest nanosecond count of a double number of seconds (for values that only exist as
 * double, e.g. an FMU's lastSuccessfulTime). Returns RTC_ETIME when out of range or NaN.
 * RT-safe: yes.
 */
RTC_RT_SAFE int rtc_time_from_s(double s, int64_t *ns);

/**
 * Format @p ns as seconds in plain decimal with no trailing zeros ("0.3", "12", "-0.000001").
 * Exact: the text denotes exactly ns·1e-9. Writes at most 22 bytes plus NUL.
 * Returns the length written (excluding the NUL). RT-safe: yes.
 */
RTC_RT_SAFE size_t rtc_time_format_s(int64_t ns, char *buf, size_t cap);

/**
 * Superdense time (Broman, Lee et al.): a logical time plus a microstep index that orders
 * things happening at the same instant — the iterations of a strongly coupled step, the
 * passes that make the initial coupling consistent. (t, i) < (t, i+1) < (t', 0) for t < t'.
 */
typedef struct rtc_sdtime {
    int64_t t_ns;
    uint32_t index;
} rtc_sdtime;

/** Order of two superdense times: negative, zero or positive. RT-safe: yes. */
RTC_RT_SAFE static inline int rtc_sdtime_cmp(rtc_sdtime a, rtc_sdtime b)
{
    if (a.t_ns != b.t_ns)
        return a.t_ns < b.t_ns ? -1 : 1;
    return (a.index > b.index) - (a.index < b.index);
}

/** Greatest common divisor of two non-negative nanosecond counts (gcd(0, b) = b).
 *  RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_time_gcd(int64_t a, int64_t b);

#endif
