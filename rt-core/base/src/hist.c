/*
 * Log-linear histograms and the cyclictest-layout µs histogram (rtcosim/hist.h).
 *
 * Bucket index of v (SUB = 128 sub-buckets per power of two):
 *   v < 2·SUB:   index v (exact)
 *   otherwise:   e = msb(v) − 7, index = SUB·(e + 1) + (v >> e) − SUB
 * i.e. for msb(v) = m ≥ 8 the value keeps its top 8 bits; the bucket width 2^e is at most
 * 1/128 of v. The writer is the only thread that modifies the counters, so a relaxed load
 * followed by a relaxed store is an exact increment without a locked instruction (which a
 * fetch_add would need and would cost on every tick).
 */
#include "rtcosim/hist.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SUB 128
#define SUB_BITS 7

struct rtc_hist {
    size_t n_buckets;
    int64_t max_value;
    _Atomic uint64_t count;
    _Atomic int64_t min, max, sum;
    _Atomic uint64_t buckets[]; /* n_buckets */
};

static int msb64(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

static size_t bucket_of(int64_t v)
{
    if (v < 2 * SUB)
        return (size_t)v;
    int e = msb64((uint64_t)v) - SUB_BITS;
    return (size_t)SUB * (size_t)(e + 1) + (size_t)(v >> e) - SUB;
}

/* Lowest value of bucket i and its width. */
static void bucket_range(size_t i, int64_t *lo, int64_t *width)
{
    if (i < 2 * SUB) {
        *lo = (int64_t)i;
        *width = 1;
        return;
    }
    int e = (int)(i / SUB) - 1;
    *lo = (int64_t)((i % SUB) + SUB) << e;
    *width = (int64_t)1 << e;
}

int rtc_hist_new(int64_t max_value, rtc_hist **out)
{
    if (max_value < 1)
        return RTC_EINVAL;
    size_t n = bucket_of(max_value) + 1;
    rtc_hist *h = calloc(1, sizeof *h + n * sizeof h->buckets[0]);
    if (!h)
        return RTC_ENOMEM;
    h->n_buckets = n;
    h->max_value = max_value;
    rtc_hist_reset(h); /* also touches every page (calloc may hand out untouched ones) */
    *out = h;
    return RTC_OK;
}

void rtc_hist_free(rtc_hist *h)
{
    free(h);
}

void rtc_hist_reset(rtc_hist *h)
{
    for (size_t i = 0; i < h->n_buckets; i++)
        atomic_store_explicit(&h->buckets[i], 0, memory_order_relaxed);
    atomic_store_explicit(&h->count, 0, memory_order_relaxed);
    atomic_store_explicit(&h->min, INT64_MAX, memory_order_relaxed);
    atomic_store_explicit(&h->max, 0, memory_order_relaxed);
    atomic_store_explicit(&h->sum, 0, memory_order_relaxed);
}

/* Single writer: load + store is an exact increment (see the file comment). */
static inline void bump_u64(_Atomic uint64_t *c, uint64_t by)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

void rtc_hist_add(rtc_hist *h, int64_t v)
{
    if (v < 0)
        v = 0;
    size_t i = bucket_of(v > h->max_value ? h->max_value : v);
    bump_u64(&h->buckets[i], 1);
    if (v < atomic_load_explicit(&h->min, memory_order_relaxed))
        atomic_store_explicit(&h->min, v, memory_order_relaxed);
    if (v > atomic_load_explicit(&h->max, memory_order_relaxed))
        atomic_store_explicit(&h->max, v, memory_order_relaxed);
    atomic_store_explicit(&h->sum, atomic_load_explicit(&h->sum, memory_order_relaxed) + v,
                          memory_order_relaxed);
    /* count last: a reader that sees count n has (nearly) all n values in the buckets */
    bump_u64(&h->count, 1);
}

uint64_t rtc_hist_count(const rtc_hist *h)
{
    return atomic_load_explicit(&h->count, memory_order_relaxed);
}

/* Rank (1..n) of the value at quantile q of n values: ceil(q·n), at least the first. */
static uint64_t rank_of(uint64_t n, double q)
{
    q = q < 0 ? 0 : q > 1 ? 1 : q;
    uint64_t rank = (uint64_t)ceil(q * (double)n);
    return rank < 1 ? 1 : rank;
}

int64_t rtc_hist_quantile(const rtc_hist *h, double q)
{
    uint64_t n = rtc_hist_count(h);
    if (n == 0)
        return 0;
    uint64_t rank = rank_of(n, q), seen = 0;
    int64_t lo = 0, width = 1;
    for (size_t i = 0; i < h->n_buckets; i++) {
        seen += atomic_load_explicit(&h->buckets[i], memory_order_relaxed);
        if (seen >= rank) {
            bucket_range(i, &lo, &width);
            break;
        }
    }
    int64_t v = lo + (width - 1) / 2;
    int64_t mn = atomic_load_explicit(&h->min, memory_order_relaxed);
    int64_t mx = atomic_load_explicit(&h->max, memory_order_relaxed);
    return v < mn ? mn : v > mx ? mx : v;
}

void rtc_hist_summarize(const rtc_hist *h, rtc_hist_summary *out)
{
    out->count = rtc_hist_count(h);
    if (out->count == 0) {
        *out = (rtc_hist_summary){0};
        return;
    }
    out->min = atomic_load_explicit(&h->min, memory_order_relaxed);
    out->max = atomic_load_explicit(&h->max, memory_order_relaxed);
    out->avg = (double)atomic_load_explicit(&h->sum, memory_order_relaxed) / (double)out->count;
    out->p50 = rtc_hist_quantile(h, 0.50);
    out->p99 = rtc_hist_quantile(h, 0.99);
    out->p999 = rtc_hist_quantile(h, 0.999);
    out->p9999 = rtc_hist_quantile(h, 0.9999);
}

/* ---- the cyclictest-layout µs histogram ---- */

struct rtc_ushist {
    _Atomic uint64_t over, count;
    _Atomic uint64_t buckets[RTC_USHIST_BUCKETS];
};

int rtc_ushist_new(rtc_ushist **out)
{
    rtc_ushist *h = calloc(1, sizeof *h);
    if (!h)
        return RTC_ENOMEM;
    /* calloc may hand out untouched pages: write every bucket once (arm, not run) */
    for (size_t i = 0; i < RTC_USHIST_BUCKETS; i++)
        atomic_store_explicit(&h->buckets[i], 0, memory_order_relaxed);
    *out = h;
    return RTC_OK;
}

void rtc_ushist_free(rtc_ushist *h)
{
    free(h);
}

void rtc_ushist_add_us(rtc_ushist *h, int64_t us, uint64_t count)
{
    if (us < 0)
        us = 0;
    bump_u64(us < RTC_USHIST_BUCKETS ? &h->buckets[us] : &h->over, count);
    bump_u64(&h->count, count); /* last: a reader that sees count n has the n values */
}

void rtc_ushist_add(rtc_ushist *h, int64_t ns)
{
    rtc_ushist_add_us(h, ns > 0 ? ns / 1000 : 0, 1); /* truncated, as cyclictest does */
}

void rtc_ushist_merge(rtc_ushist *dst, const rtc_ushist *src)
{
    for (size_t i = 0; i < RTC_USHIST_BUCKETS; i++) {
        uint64_t c = rtc_ushist_bucket(src, i);
        if (c)
            rtc_ushist_add_us(dst, (int64_t)i, c);
    }
    uint64_t o = rtc_ushist_overflow(src);
    if (o)
        rtc_ushist_add_us(dst, RTC_USHIST_BUCKETS, o);
}

uint64_t rtc_ushist_bucket(const rtc_ushist *h, size_t us)
{
    return us < RTC_USHIST_BUCKETS ? atomic_load_explicit(&h->buckets[us], memory_order_relaxed)
                                   : 0;
}

uint64_t rtc_ushist_overflow(const rtc_ushist *h)
{
    return atomic_load_explicit(&h->over, memory_order_relaxed);
}

uint64_t rtc_ushist_count(const rtc_ushist *h)
{
    return atomic_load_explicit(&h->count, memory_order_relaxed);
}

int64_t rtc_ushist_quantile_us(const rtc_ushist *h, double q)
{
    uint64_t n = rtc_ushist_count(h);
    if (n == 0)
        return 0;
    uint64_t rank = rank_of(n, q), seen = 0;
    for (size_t i = 0; i < RTC_USHIST_BUCKETS; i++)
        if ((seen += rtc_ushist_bucket(h, i)) >= rank)
            return (int64_t)i;
    return RTC_USHIST_BUCKETS;
}
