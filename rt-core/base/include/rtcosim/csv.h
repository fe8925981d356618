/*
 * rtcosim/csv.h — streaming writer for result files (results.csv).
 *
 * Layout (the fmi-cross-check convention): a header of double-quoted names
 * ("time","h","v"), one row per communication point, comma separated, booleans 0/1,
 * doubles with 17 significant digits (rtcosim/numfmt.h), the time column exactly k·h as
 * written by rtc_time_format_s(), strings quoted with "" escaping, binary as hex.
 * Rows go through a record stream (rtcosim/ofile.h) straight to the file descriptor, so
 * memory stays flat whatever the run length, and each row is one record: the file only
 * ever grows by whole rows (a kill between two flushes leaves a complete prefix). The
 * stream flushes by itself every RTC_OFILE_FLUSH_BYTES; the writer flushes on its own
 * clock too (rtc_csv_flush). Errors are sticky: the first failed write is reported by
 * rtc_csv_error() at once and by rtc_csv_close().
 */
#ifndef RTCOSIM_CSV_H
#define RTCOSIM_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

typedef struct rtc_csv rtc_csv;

/**
 * Create (truncate) @p path for writing; "-" writes to standard output.
 * Returns RTC_OK and *out, -errno (open failed, e.g. -ENOENT: a missing directory; errno
 * kept too) or RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_csv_open(const char *path, rtc_csv **out);

/** Flush, fsync, close and free. Returns the first write error seen (-errno, errno set
 *  too; RTC_ENOMEM), or RTC_OK. NULL is a no-op returning RTC_OK. RT-safe: no. */
int rtc_csv_close(rtc_csv *w);

/** First error seen (sticky), RTC_OK when none. RT-safe: yes. */
RTC_RT_SAFE int rtc_csv_error(const rtc_csv *w);

/** After a write error: true keeps writing later rows (a gap where rows were lost);
 *  false (default) writes nothing more, so the file stays a prefix. RT-safe: no. */
void rtc_csv_set_retry(rtc_csv *w, bool retry);

/** errno of the first error (0 when none), for the message. RT-safe: yes. */
RTC_RT_SAFE int rtc_csv_errno(const rtc_csv *w);

/** The path the writer was opened with. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_csv_path(const rtc_csv *w);

/** Write every complete row to the file now (an unfinished row stays buffered).
 *  Returns the sticky error. RT-safe: no. */
int rtc_csv_flush(rtc_csv *w);

/** Bytes of complete rows not yet written. RT-safe: yes. Thread: the writer. */
RTC_RT_SAFE size_t rtc_csv_pending(const rtc_csv *w);

/** Rows (the header included) that reached the file (rtc_ofile_records()). Thread: the
 *  writer, or any once it has stopped. */
uint64_t rtc_csv_rows(const rtc_csv *w);

/** Complete rows a write error lost (rtc_ofile_records_lost()). Thread: as above. */
uint64_t rtc_csv_rows_lost(const rtc_csv *w);

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

/* ---- whole rows formatted by the caller (the recorder's path: one bounds check per
 *      row instead of one per field) ---- */

/**
 * Room for one row of at most @p max bytes, its newline included, which the caller
 * formats at the returned pointer and completes with rtc_csv_row_done(). Only between
 * rows (not after a field of rtc_csv_str() etc.).
 * Returns the room, valid until the next call on @p w; NULL when out of memory (latched
 * as the writer's error). RT-safe: no (may write). Thread: the writer.
 */
char *rtc_csv_row_room(rtc_csv *w, size_t max);

/** The row of @p n bytes (newline included) written at rtc_csv_row_room() is complete;
 *  flushes when RTC_OFILE_FLUSH_BYTES are pending. RT-safe: no. */
void rtc_csv_row_done(rtc_csv *w, size_t n);

/** Write @p s as one quoted field ("..." with " doubled, no separator) at @p dst, which
 *  has room for 2·strlen(s) + 2 bytes (no NUL written). Returns the length. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_csv_quote(char *dst, const char *s);

/** Write @p size bytes as lower-case hex digits at @p dst (2·size bytes, no NUL).
 *  Returns 2·size. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_csv_hex_text(char *dst, const uint8_t *data, size_t size);

#endif
