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
 * reads back (strtod) to exactly @p v, except that negative zero prints as "0": a reader
 * of results sees zero, not a sign that every arithmetic comparison ignores.
 *
 * @param buf at least RTC_NUMFMT_MAX bytes.
 * Returns: the length written (excluding the NUL).
 * RT-safe: no (a value of extreme magnitude right at a rounding tie goes through snprintf).
 */
size_t rtc_fmt_double(double v, char *buf);

/**
 * Format @p v in its shortest round-trip form: the fewest significant digits (1 to 17) in
 * the layout of printf("%.Ng") whose text reads back (strtod) to exactly @p v — "0.1",
 * "0.0794", "0.30000000000000004" — with whole numbers below 10^16 in fixed notation
 * ("100", not "1e+02"). For text people read (`rtcosim info`); result files keep
 * rtc_fmt_double's fixed 17 digits. "nan", "inf", "-inf" as rtc_fmt_double.
 *
 * @param buf at least RTC_NUMFMT_MAX bytes.
 * Returns: the length written (excluding the NUL).
 * RT-safe: no (snprintf, strtod).
 */
size_t rtc_fmt_double_short(double v, char *buf);

/**
 * rtc_fmt_double_short() for a 32-bit float: the fewest digits (1 to 9) that read back
 * (strtof) to exactly @p v, so a Float32 start value 0.1f prints "0.1", not its widened
 * double "0.10000000149011612".
 *
 * Returns: the length written (excluding the NUL). RT-safe: no.
 */
size_t rtc_fmt_float_short(float v, char *buf);

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
