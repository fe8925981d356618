/*
 * rtcosim/numparse.h — the one number parser: integers, reals, exact decimal seconds and
 * durations, each checked against a range (the reading counterpart of numfmt.h).
 *
 * Every number rtcosim reads from text goes through here: command-line options, SSP and
 * modelDescription.xml attributes, driver and estimator settings, session files, start
 * values. So the rules are the same everywhere:
 * - The whole text is the number. White space around it (space, tab, CR, LF, VT, FF) is
 *   allowed, as XML Schema collapses it; anything else is refused ("10x", "1.5.2", "").
 * - Always the C locale: '.' is the decimal point whatever LC_NUMERIC says (under a German
 *   locale strtod would read "0.5" as 0 and stop at the '.'), and no digit grouping.
 * - Integers are decimal; with RTC_PARSE_HEX also "0x1F". There is no octal: "010" is ten.
 *   Nothing wraps around: "-1" is not an unsigned number, "300" not an 8-bit one.
 * - Reals are decimal with an optional exponent ("-1.5e-3", ".5", "5."), correctly rounded.
 *   Hexadecimal floats are refused; "inf", "infinity" and "nan" (any case, with a sign)
 *   only with RTC_PARSE_NONFINITE. A finite text beyond the type's largest value is out of
 *   range; one below its smallest subnormal reads as zero (the nearest value).
 * - Times never pass through a double: "0.1" s is exactly 100000000 ns, and a value that
 *   is not a whole number of nanoseconds is refused rather than rounded.
 *
 * Every function leaves *out untouched unless it returns RTC_OK, and returns
 *   RTC_OK; RTC_EPARSE (not a number of the kind, or NULL text); RTC_ELIMIT (a number of
 *   the kind, outside the range); the time parsers RTC_ETIME instead of RTC_ELIMIT.
 * Callers name the text and what they accept in their message ("--workers 300: out of
 * range (expected an integer in 0..256)", "FILE:LINE: <Element> attr: ...").
 *
 * RT-safe: yes for all (no allocation, lock or system call; the C locale object is
 * libc's static one). Thread: any.
 */
#ifndef RTCOSIM_NUMPARSE_H
#define RTCOSIM_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

/** Integers: a "0x" or "0X" prefix (after the sign) selects hexadecimal digits. */
#define RTC_PARSE_HEX 0x1u
/** Reals: accept "inf", "infinity", "nan" (any case, optionally signed). A NaN skips the
 *  range check; an infinity must lie in it (pass -HUGE_VAL, HUGE_VAL to allow both). */
#define RTC_PARSE_NONFINITE 0x2u

/**
 * A signed integer in @p lo..@p hi (inclusive) into *out.
 * @param flags 0 or RTC_PARSE_HEX.
 * Returns: RTC_OK; RTC_EPARSE; RTC_ELIMIT (also beyond the int64 range).
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_parse_i64(const char *text, int64_t lo, int64_t hi, unsigned flags,
                              int64_t *out);

/**
 * An unsigned integer in @p lo..@p hi into *out. A minus sign is allowed only on zero
 * ("-0", as XML Schema's unsigned types); "-1" is out of range.
 * Returns: RTC_OK; RTC_EPARSE; RTC_ELIMIT. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_parse_u64(const char *text, uint64_t lo, uint64_t hi, unsigned flags,
                              uint64_t *out);

/**
 * A double in @p lo..@p hi into *out (the correctly rounded value of the decimal text).
 * @param flags 0 (finite only) or RTC_PARSE_NONFINITE.
 * Returns: RTC_OK; RTC_EPARSE (also "nan"/"inf" without the flag); RTC_ELIMIT (outside
 * lo..hi, or too large for a double). RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_parse_f64(const char *text, double lo, double hi, unsigned flags,
                              double *out);

/**
 * A float (correctly rounded from the text itself, not through a double) into *out.
 * Returns: RTC_OK; RTC_EPARSE; RTC_ELIMIT (too large for a float). RT-safe: yes.
 * Thread: any.
 */
RTC_RT_SAFE int rtc_parse_f32(const char *text, unsigned flags, float *out);

/**
 * Decimal seconds ("0.001", "1e-3", "+2.5E+1", "10", "-3") exactly into nanoseconds.
 * Returns: RTC_OK; RTC_EPARSE; RTC_ETIME (finer than 1 ns, or beyond the int64 range).
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_parse_seconds(const char *text, int64_t *ns);

/**
 * A duration with an optional unit, exactly into nanoseconds: "20ms", "500us", "1e6ns",
 * "0.02s", or a bare number of seconds ("0.02"); no space between number and unit.
 * Returns: as rtc_parse_seconds() (an unknown unit is RTC_EPARSE). RT-safe: yes.
 * Thread: any.
 */
RTC_RT_SAFE int rtc_parse_duration(const char *text, int64_t *ns);

/**
 * Decode hexadecimal text ("0a1B", white space ignored) into @p buf (binary values).
 * Returns RTC_OK and *n; RTC_EPARSE (odd digit count, not hex); RTC_ELIMIT (over @p cap).
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_hex_decode(const char *text, uint8_t *buf, size_t cap, size_t *n);

#endif
