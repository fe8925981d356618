/*
 * rtcosim/hist.h — log-linear latency histograms (HDR style) for the timing telemetry.
 *
 * Values are non-negative integers (nanoseconds). Below 256 every value has its own
 * bucket; above, each power of two [2^e, 2^(e+1)) is split into 128 equal sub-buckets, so
 * a bucket is at most 1/128 of its lower bound wide: a percentile read back as the middle
 * of its bucket is within 0.4 % of a value in that bucket (≤ 1 % relative error, as the
 * issue asks). Values above the configured maximum land in the top bucket and are still
 * reflected exactly in max.
 *
 * One thread writes (the real-time thread); any thread may read a snapshot while it runs.
 * Counters are C11 atomics written with relaxed single-writer stores (a plain move on
 * x86), so a concurrent reader sees each counter whole but the set of counters only
 * approximately consistent — good enough for a live status line. Read the final values
 * after the writer has been joined.
 *
 * rtc_ushist, the second histogram of this header, has cyclictest's -h layout: one bucket
 * per whole microsecond below RTC_USHIST_BUCKETS, plus an overflow count. It stays apart
 * from rtc_hist only because that output format needs it: histogram.txt and the
 * `rtcosim bench` comparison are read line for line like cyclictest's, and a log-linear
 * bucket is wider than 1 µs above 128 µs. Same single-writer rule.
 */
#ifndef RTCOSIM_HIST_H
#define RTCOSIM_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtc_config.h"
#include "rtcosim/rtsafe.h"

typedef struct rtc_hist rtc_hist;

/** Summary of a histogram: count, exact min/max/average, bucket-accurate percentiles. */
typedef struct rtc_hist_summary {
    uint64_t count;
    int64_t min, max;  /**< 0 when count is 0 */
    double avg;
    int64_t p50, p99, p999, p9999;
} rtc_hist_summary;

/**
 * Create an empty histogram for values 0..@p max_value (larger ones are clamped into the
 * top bucket). Memory is allocated and touched here (arm phase).
 * Returns RTC_OK, RTC_EINVAL (max_value < 1) or RTC_ENOMEM. RT-safe: no.
 */
int rtc_hist_new(int64_t max_value, rtc_hist **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_hist_free(rtc_hist *h);

/** Forget every value (not while a writer runs). RT-safe: yes. */
RTC_RT_SAFE void rtc_hist_reset(rtc_hist *h);

/**
 * Add one value (negative values count as 0).
 * RT-safe: yes (no allocation, no lock, O(1)). Thread: the single writer.
 */
RTC_RT_SAFE void rtc_hist_add(rtc_hist *h, int64_t v);

/** Number of values added. RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_hist_count(const rtc_hist *h);

/**
 * Value at quantile @p q (0..1): the middle of the bucket holding the ceil(q·count)-th
 * smallest value, clamped to [min, max]. 0 when empty. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int64_t rtc_hist_quantile(const rtc_hist *h, double q);

/** Fill @p out. RT-safe: yes. Thread: any (a snapshot while a writer runs). */
RTC_RT_SAFE void rtc_hist_summarize(const rtc_hist *h, rtc_hist_summary *out);

/* ---- the cyclictest-layout µs histogram ---- */

/** Buckets of an rtc_ushist: 1 µs each, 0 .. RTC_LATENCY_HIST_US − 1 µs (cyclictest -h N;
 *  the CMake capacity RTC_LATENCY_HIST_US, default 10000). */
#define RTC_USHIST_BUCKETS RTC_LATENCY_HIST_US

typedef struct rtc_ushist rtc_ushist;

/** Create an empty µs histogram; every page is touched here (arm phase).
 *  Returns RTC_OK or RTC_ENOMEM. RT-safe: no. */
int rtc_ushist_new(rtc_ushist **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_ushist_free(rtc_ushist *h);

/**
 * Add one latency of @p ns nanoseconds, truncated to whole µs as cyclictest does
 * (negative counts as 0; RTC_USHIST_BUCKETS µs or more go to the overflow count).
 * RT-safe: yes (no allocation, no lock, O(1)). Thread: the single writer.
 */
RTC_RT_SAFE void rtc_ushist_add(rtc_ushist *h, int64_t ns);

/** Add @p count values of @p us µs (another histogram's bucket, a line of cyclictest -h
 *  output); negative @p us counts as 0, beyond the last bucket as overflow.
 *  RT-safe: yes. Thread: the single writer. */
RTC_RT_SAFE void rtc_ushist_add_us(rtc_ushist *h, int64_t us, uint64_t count);

/** Add every count of @p src to @p dst. RT-safe: yes. Thread: @p dst's single writer. */
RTC_RT_SAFE void rtc_ushist_merge(rtc_ushist *dst, const rtc_ushist *src);

/** Values in bucket @p us (0 when @p us is out of range). RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_ushist_bucket(const rtc_ushist *h, size_t us);

/** Values of RTC_USHIST_BUCKETS µs or more. RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_ushist_overflow(const rtc_ushist *h);

/** All values, overflow included. RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_ushist_count(const rtc_ushist *h);

/**
 * Value in µs at quantile @p q (0..1): the smallest bucket reaching ceil(q·count) values;
 * RTC_USHIST_BUCKETS when that value lies in the overflow; 0 when empty.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int64_t rtc_ushist_quantile_us(const rtc_ushist *h, double q);

#endif
