/*
 * rtcosim/mailbox.h — latest-value mailbox for one signal between two threads.
 *
 * A driver's I/O thread and the real-time loop exchange signals only through mailboxes
 * (DESIGN.md, "Threads and the three phases"). A mailbox holds one sample: the newest value,
 * when it was true (sample_ns), when it reached this process (arrival_ns), a per-write
 * sequence number and a quality flag. It is a seqlock: exactly one writer thread and one
 * reader thread (per direction: from-bench signals are written by the driver and read by
 * the RT loop; to-bench signals the other way round).
 *
 * The writer never blocks and never waits for the reader. The reader copies a consistent
 * snapshot, retrying while a write is in progress; because a SCHED_FIFO reader could spin
 * forever on a preempted lower-priority writer on the same CPU, the number of retries is
 * bounded (RTC_MAILBOX_READ_TRIES): after that the read fails and the caller keeps its
 * previous sample. Neither side allocates, locks or makes a system call.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (rtc_time_now_ns() in rtcosim/time.h).
 */
#ifndef RTCOSIM_MAILBOX_H
#define RTCOSIM_MAILBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

/** Quality of a sample, as judged by the side that wrote it. */
typedef enum {
    RTC_QUALITY_NONE = 0,  /**< never written: value is the static default 0.0 */
    RTC_QUALITY_FRESH = 1, /**< value from a successful exchange within the staleness limit */
    RTC_QUALITY_STALE = 2, /**< last good value, but older than the limit or link is down */
    RTC_QUALITY_ERROR = 3, /**< the peer reported an error for this signal (e.g. exception) */
} rtc_quality;

/** One sample as stored in and copied out of a mailbox. */
typedef struct rtc_sample {
    double value;       /**< engineering value (after scale/offset) */
    int64_t sample_ns;  /**< CLOCK_MONOTONIC time at which the value was true */
    int64_t arrival_ns; /**< CLOCK_MONOTONIC time at which this process received it */
    uint32_t seq;       /**< incremented by every rtc_mailbox_write(); 0 = never written */
    uint8_t quality;    /**< rtc_quality */
} rtc_sample;

/** Most snapshot attempts of one rtc_mailbox_read() before it gives up. */
#define RTC_MAILBOX_READ_TRIES 64

typedef struct rtc_mailbox rtc_mailbox;

/**
 * Allocate an empty mailbox (quality NONE, value 0, seq 0), on its own cache line.
 *
 * Returns: RTC_OK or RTC_ENOMEM (*out untouched). Errors: RTC_EINVAL if out is NULL.
 * RT-safe: no (allocates; call in the load or arm phase). Thread: any.
 */
int rtc_mailbox_new(rtc_mailbox **out);

/** Free a mailbox; NULL is a no-op. Both threads must have stopped using it. RT-safe: no. */
void rtc_mailbox_free(rtc_mailbox *mb);

/**
 * Publish a new sample: value, sample_ns, arrival_ns and quality are taken from @p s; the
 * sequence number is the mailbox's previous one plus one (s->seq is ignored).
 *
 * Returns: the new sequence number (never 0; wraps from UINT32_MAX to 1).
 * RT-safe: yes (a handful of atomic stores, never waits). Thread: the single writer.
 */
RTC_RT_SAFE uint32_t rtc_mailbox_write(rtc_mailbox *mb, const rtc_sample *s);

/**
 * Change only the quality of the stored sample (e.g. mark the last good value STALE when
 * the link drops). The sequence number does not change: no new sample arrived.
 *
 * RT-safe: yes. Thread: the single writer.
 */
RTC_RT_SAFE void rtc_mailbox_set_quality(rtc_mailbox *mb, rtc_quality q);

/**
 * Copy a consistent snapshot of the stored sample into @p out.
 *
 * Returns: true on success; false when a write stayed in progress for
 * RTC_MAILBOX_READ_TRIES attempts (then *out is unchanged and the failure is counted).
 * RT-safe: yes (bounded retries, no waiting). Thread: the single reader.
 */
RTC_RT_SAFE bool rtc_mailbox_read(rtc_mailbox *mb, rtc_sample *out);

/** Sequence number of the newest sample without copying it (0 = never written).
 *  RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint32_t rtc_mailbox_seq(const rtc_mailbox *mb);

/** Number of rtc_mailbox_read() calls that gave up (see RTC_MAILBOX_READ_TRIES).
 *  RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_mailbox_read_failures(const rtc_mailbox *mb);

#endif
