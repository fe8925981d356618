/*
 * rtcosim/numfmt.h — fast, allocation-free number formatting for result files.
 *
 * Result files hold one text row per communication point, so formatting speed bounds how
 * fast a recorded run can go. snprintf("%.17g") costs a few hundred ns per double; the
 * formatter here produces the same text (17 significant digits, %g's choice between fixed
 * and exponent notation, trailing zeros removed) in about a ninth of that, and the text
 * always reads back (strtod) to exactly the same double.
 */
#ifndef RTCOSIM_NUMFMT_H
#define RTCOSIM_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

/** Buffer size that fits any output of the functions below, NUL included. */
#define RTC_NUMFMT_MAX 32

/**
 * Format @p v with 17 significant digits in the layout of printf("%.17g"): "nan", "inf",
 * "-inf" for non-finite values. The text equals glibc's printf("%.17g") byte for byte and
 * reads back (strtod) to exactly @p v.
 *
 * @param buf at least RTC_NUMFMT_MAX bytes.
 * Returns: the length written (excluding the NUL).
 * RT-safe: no (a value of extreme magnitude right at a rounding tie goes through snprintf).
 */
size_t rtc_fmt_double(double v, char *buf);

/** Format a signed integer in decimal. @p buf at least RTC_NUMFMT_MAX bytes.
 *  Returns the length. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_fmt_i64(int64_t v, char *buf);

/** Format an unsigned integer in decimal. Returns the length. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_fmt_u64(uint64_t v, char *buf);

/**
 * Format @p ns nanoseconds as exact decimal seconds: whole seconds, then the fraction
 * with its trailing zeros removed ("0", "0.3", "-0.000001", "9223372036.854775807"), the
 * time column of result files. @p buf at least RTC_NUMFMT_MAX bytes.
 * Returns the length written (excluding the NUL). RT-safe: yes.
 */
RTC_RT_SAFE size_t rtc_fmt_time_ns(int64_t ns, char *buf);

#endif
