/*
 * rtcosim/recorder.h — the recorder thread: result rows from the stepping thread to disk.
 *
 * The stepping thread samples a row (rtc_record_sample) straight into a slot of a
 * preallocated SPSC ring; the recorder thread formats rows into results.csv. In lossless
 * mode (as-fast-as-possible runs) a full ring makes the producer wait; in real-time mode a
 * full ring drops the row and counts it — the count is reported, never silent.
 */
#ifndef RTCOSIM_RECORDER_H
#define RTCOSIM_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/csv.h"
#include "rtcosim/record.h"

typedef struct rtc_recorder rtc_recorder;

typedef struct rtc_recorder_stats {
    uint64_t rows_written;
    uint64_t rows_dropped; /**< real-time mode only: the ring was full */
    size_t ring_capacity;
    size_t ring_high_water;
} rtc_recorder_stats;

/**
 * Write the header and start the recorder thread.
 *
 * @param rec   columns; must outlive the recorder.
 * @param csv   destination; owned by the caller, closed after rtc_recorder_stop().
 * @param ring_rows  ring capacity in rows (rounded up to a power of two).
 * @param lossless   true: producers wait when the ring is full; false: drop and count.
 * Returns RTC_OK, RTC_ENOMEM or RTC_ESYS (thread creation). RT-safe: no.
 */
int rtc_recorder_start(rtc_record *rec, rtc_csv *csv, size_t ring_rows, bool lossless,
                       rtc_recorder **out);

/**
 * Sample the current values of every column and queue a row for time @p t_ns.
 * Returns RTC_OK, RTC_ELIMIT (dropped: ring full in real-time mode) or a unit's error.
 * RT-safe: yes in real-time mode (lossless mode may yield the CPU while waiting).
 * Thread: the one stepping thread.
 */
int rtc_recorder_push(rtc_recorder *r, int64_t t_ns);

/**
 * Drain every queued row, stop and join the thread, free the recorder.
 * Fills @p stats when not NULL. Returns the CSV's first write error, or RTC_OK.
 * NULL is a no-op. RT-safe: no.
 */
int rtc_recorder_stop(rtc_recorder *r, rtc_recorder_stats *stats);

#endif
