/*
 * rtcosim/ofile.h — output files that a crash, a kill or a full disk never leave half
 * written: recording streams written in whole records, and whole files replaced at once.
 *
 * Streams (results.csv, inputs.bin, events.log): bytes are appended to a user-space buffer
 * and a record boundary is marked after each complete record (a CSV row, a 40-byte input
 * record, a log line). rtc_ofile_flush() hands the kernel only complete records, so every
 * write(2) ends on a boundary: a SIGKILL or an OOM kill between two flushes loses the last
 * records, never leaves a partial one. When a write fails after part of a flush reached the
 * file (a disk filling up, RLIMIT_FSIZE), the file is cut back to the boundary before that
 * flush (to the last record delimiter, when the stream has one). After a failure the
 * stream writes nothing more unless told to retry, so the file stays a gap-free prefix of
 * the recording. The first failure is sticky and keeps its errno and the file's path for one clear
 * message. The owner decides WHEN to flush (a writer thread's clock tick); the stream
 * flushes by itself when RTC_OFILE_FLUSH_BYTES of complete records are pending. Closing
 * flushes, fsyncs (regular files) and closes.
 *
 * Whole files (summary.json, timing.json, histogram.txt, session.conf, ...): written to a
 * temporary name in the same directory, fsynced, then renamed over the final name, so a
 * reader sees the old content or the new one, never an empty or partial file, and a
 * failure leaves no temporary behind.
 */
#ifndef RTCOSIM_OFILE_H
#define RTCOSIM_OFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Complete records pending that make a stream flush by itself (bytes). */
#define RTC_OFILE_FLUSH_BYTES (256 * 1024)

typedef struct rtc_ofile rtc_ofile;

/**
 * Create (truncate) @p path for appending records; "-" is standard output (not closed).
 * Returns RTC_OK and *out, -errno (open failed, e.g. -ENOENT: a missing directory; errno
 * kept too) or RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_ofile_open(const char *path, rtc_ofile **out);

/** Flush every complete record, fsync (regular files), close and free. A record left
 *  unfinished is dropped. Returns the first error of the stream's life (-errno of the
 *  failing write, fsync or close, e.g. -ENOSPC; errno kept too) or RTC_OK. NULL is a
 *  no-op returning RTC_OK. RT-safe: no. */
int rtc_ofile_close(rtc_ofile *f);

/**
 * A pointer to at least @p n writable bytes at the end of the current record; the caller
 * writes there and then calls rtc_ofile_put(). The buffer grows when one record is larger
 * than it (records are never split across writes). NULL only when out of memory (latched
 * as the stream's error). The pointer is valid until the next call on the stream.
 * RT-safe: no. Thread: the stream's one writer (or under its lock).
 */
char *rtc_ofile_room(rtc_ofile *f, size_t n);

/** Account for @p n bytes written at rtc_ofile_room(). */
void rtc_ofile_put(rtc_ofile *f, size_t n);

/** Append @p n bytes to the current record. */
void rtc_ofile_append(rtc_ofile *f, const void *data, size_t n);

/** The current record is complete; flushes when RTC_OFILE_FLUSH_BYTES are pending.
 *  Returns the sticky error (RTC_OK when none). */
int rtc_ofile_end_record(rtc_ofile *f);

/** Records end with byte @p delim (e.g. '\n' for text lines): a failed write is cut back
 *  to the last whole record it wrote, not to the start of the flush. Default: none. */
void rtc_ofile_set_delimiter(rtc_ofile *f, int delim);

/** true: after an error, later flushes write again (the records that failed are lost,
 *  whole, leaving a gap); false (default): nothing more is written after an error. */
void rtc_ofile_set_retry(rtc_ofile *f, bool retry);

/** Write every complete record now. Returns the sticky error. RT-safe: no. */
int rtc_ofile_flush(rtc_ofile *f);

/** Bytes of complete records not yet handed to the kernel. */
size_t rtc_ofile_pending(const rtc_ofile *f);

/** First error (-errno, RTC_ENOMEM) or RTC_OK. Thread: the writer. */
int rtc_ofile_error(const rtc_ofile *f);

/** errno of the first error (0 when none; rtc_status_errno() of the error). Thread: the
 *  writer. */
int rtc_ofile_errno(const rtc_ofile *f);

/** Records that reached the file: handed to the kernel and not cut back after a failed
 *  write (on a pipe or device, the whole records written before the failure). The stream
 *  counts a record per rtc_ofile_end_record(); after a partial write it counts the
 *  delimiters kept, so a delimiter inside a record would miscount (and miscut) there.
 *  Thread: the writer. */
uint64_t rtc_ofile_records(const rtc_ofile *f);

/** Complete records that never reached the file: discarded by a failed flush, or not
 *  written after the first error (no retry). With rtc_ofile_records() they add up to every
 *  record completed and flushed. Thread: the writer. */
uint64_t rtc_ofile_records_lost(const rtc_ofile *f);

/** The path given to rtc_ofile_open(). */
const char *rtc_ofile_path(const rtc_ofile *f);

/**
 * Whole-file replacement, step 1: create a temporary file next to @p path (same
 * directory, so the rename stays in one file system) and open it for writing. Its name
 * goes to @p tmp (capacity @p cap). Returns the stream, or NULL (errno kept).
 * RT-safe: no.
 */
FILE *rtc_ofile_replace_begin(const char *path, char *tmp, size_t cap);

/**
 * Step 2: flush, fsync and close @p f, then rename @p tmp over @p path. On any failure
 * the temporary is removed and @p path is left as it was. NULL @p f (begin failed) is a
 * failure. Returns RTC_OK or -errno of the first failing call (errno kept too; RTC_ESYS
 * when @p f is NULL and errno holds no error).
 * RT-safe: no.
 */
int rtc_ofile_replace_commit(FILE *f, const char *tmp, const char *path);

#endif
