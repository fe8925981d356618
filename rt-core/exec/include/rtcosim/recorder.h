/*
 * rtcosim/recorder.h — the recorder thread: result rows from the stepping thread to disk.
 *
 * The stepping thread samples a row (rtc_record_sample) straight into a slot of a
 * preallocated SPSC ring of binary rows, published by one store of its own index; the
 * recorder thread takes them in batches (no exchange between the threads per row) and
 * formats them into results.csv. In lossless mode (as-fast-as-possible runs) a full ring
 * makes the producer wait; in real-time mode a full ring drops the row and counts it —
 * the count is reported, never silent. Rows reach the kernel within about 100 ms, in
 * whole rows (rtcosim/ofile.h), and the recorder thread never busy-waits (recorder.c
 * explains the wake-ups). The first write error is reported
 * at once and, unless the options say to continue, ends the run: rtc_recorder_push()
 * returns that error (the write's -errno, e.g. -ENOSPC) from then on.
 */
#ifndef RTCOSIM_RECORDER_H
#define RTCOSIM_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/csv.h"
#include "rtcosim/log.h"
#include "rtcosim/record.h"
#include "rtcosim/rtsafe.h"

typedef struct rtc_recorder rtc_recorder;

/** How a recorder runs. */
typedef struct rtc_recorder_opts {
    size_t ring_rows;        /**< ring capacity in rows (power of two; 0: RTC_RECORDER_ROWS) */
    bool lossless;           /**< true: producers wait when the ring is full (fast runs);
                                  false: drop and count (real time, no wait, no syscall) */
    bool continue_on_error;  /**< true: a write error is reported and the run goes on
                                  (rows are lost); false: push returns the error after it */
    const rtc_logger *lg;    /**< where the first write error is reported (NULL: nowhere) */
} rtc_recorder_opts;

/** What became of the rows (the header is not a row). Every row pushed is written,
 *  dropped or lost (a row still queued when the recorder stops is drained first). */
typedef struct rtc_recorder_stats {
    uint64_t rows_written; /**< rows in the file: handed to the kernel and kept (a write
                                that failed midway is cut back to whole rows) */
    uint64_t rows_dropped; /**< real-time mode only: the ring was full, never queued */
    uint64_t rows_lost;    /**< queued but never in the file: a write error discarded
                                them, or (stop mode) they came after it */
    size_t ring_capacity;
    size_t ring_high_water;
} rtc_recorder_stats;

/**
 * Write (and flush) the header and start the recorder thread.
 *
 * @param rec   columns; must outlive the recorder.
 * @param csv   destination; owned by the caller, closed after rtc_recorder_stop().
 * @param o     ring size, mode and error policy (copied).
 * Returns RTC_OK, RTC_ENOMEM or -errno (thread creation). RT-safe: no.
 */
int rtc_recorder_start(rtc_record *rec, rtc_csv *csv, const rtc_recorder_opts *o,
                       rtc_recorder **out);

/**
 * Sample the current values of every column and queue a row for time @p t_ns.
 * Returns RTC_OK, RTC_ELIMIT (dropped: ring full in real-time mode), the recording's
 * first write error (-errno, e.g. -ENOSPC: the options say stop, so end the run) or a
 * unit's error.
 * RT-safe: yes in real-time mode: no system call (lossless mode waits on a semaphore
 * while the ring is full, and posts one every quarter ring when the recorder sleeps).
 * Thread: the one stepping thread.
 */
RTC_RT_SAFE int rtc_recorder_push(rtc_recorder *r, int64_t t_ns);

/** The recording's first write error (RTC_OK when none; the CSV keeps errno and path).
 *  NULL is RTC_OK. RT-safe: yes. Thread: any. */
RTC_RT_SAFE int rtc_recorder_failed(const rtc_recorder *r);

/**
 * Drain every queued row, stop and join the thread, free the recorder.
 * Fills @p stats when not NULL. Returns the CSV's first write error, or RTC_OK.
 * NULL is a no-op. RT-safe: no. Thread: any, once the stepping thread pushes no more.
 */
int rtc_recorder_stop(rtc_recorder *r, rtc_recorder_stats *stats);

#endif
