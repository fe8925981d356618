/*
 * rtcosim/csv.h — streaming writer for result files (results.csv).
 *
 * Layout (the fmi-cross-check convention): a header of double-quoted names
 * ("time","h","v"), one row per communication point, comma separated, booleans 0/1,
 * doubles with 17 significant digits (rtcosim/numfmt.h), the time column exactly k·h as
 * written by rtc_time_format_s(), strings quoted with "" escaping, binary as hex.
 * Rows go through a fixed buffer straight to the file descriptor, so memory stays flat
 * whatever the run length. Errors are sticky: the first failed write is reported by
 * rtc_csv_close() (and rtc_csv_error()).
 */
#ifndef RTCOSIM_CSV_H
#define RTCOSIM_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rtc_csv rtc_csv;

/**
 * Create (truncate) @p path for writing; "-" writes to standard output.
 * Returns RTC_OK and *out, RTC_ESYS (open failed; errno kept) or RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_csv_open(const char *path, rtc_csv **out);

/** Flush, close and free. Returns the first write error seen, or RTC_OK. NULL is a no-op
 *  returning RTC_OK. RT-safe: no. */
int rtc_csv_close(rtc_csv *w);

/** First error seen (sticky), RTC_OK when none. RT-safe: yes. */
int rtc_csv_error(const rtc_csv *w);

/** Write buffered bytes to the file now. Returns the sticky error. RT-safe: no. */
int rtc_csv_flush(rtc_csv *w);

/** Append one quoted field (header names and strings): "..." with " doubled.
 *  The first field of a row gets no leading comma. RT-safe: no (may write). */
void rtc_csv_str(rtc_csv *w, const char *s);
/** Append the time column value, exact seconds from integer ns. */
void rtc_csv_time(rtc_csv *w, int64_t ns);
void rtc_csv_f64(rtc_csv *w, double v);
void rtc_csv_i64(rtc_csv *w, int64_t v);
void rtc_csv_u64(rtc_csv *w, uint64_t v);
void rtc_csv_bool(rtc_csv *w, bool v);
/** Binary value as lower-case hex digits, unquoted. */
void rtc_csv_hex(rtc_csv *w, const uint8_t *data, size_t size);
/** End the current row (writes "\n"; the next field starts a new row). */
void rtc_csv_end_row(rtc_csv *w);

#endif
