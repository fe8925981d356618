/*
 * rtcosim/ring.h — single-producer single-consumer ring of fixed-size records.
 *
 * The real-time thread hands data (result rows, log records, samples) to non-real-time
 * threads through these rings. Capacity is a power of two fixed at creation (arm phase);
 * push and pop never allocate, lock or block. A push into a full ring fails and is
 * counted — the producer decides whether to wait (fast mode) or drop (real time), and the
 * drop count is reported, never silent.
 *
 * Indices are free-running 64-bit counters masked on access. The producer publishes its
 * index with release order after writing the record, and the consumer reads it with
 * acquire order before reading the record (and vice versa for freeing slots), so a record
 * is never read half-written.
 */
#ifndef RTCOSIM_RING_H
#define RTCOSIM_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

typedef struct rtc_ring rtc_ring;

/**
 * Create a ring of at least @p min_records records of @p record_size bytes (rounded up to
 * a power of two). Memory is allocated and touched here.
 * Returns RTC_OK, RTC_EINVAL (zero sizes, too large) or RTC_ENOMEM. RT-safe: no.
 */
int rtc_ring_new(size_t record_size, size_t min_records, rtc_ring **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_ring_free(rtc_ring *ring);

/** Number of records the ring holds. RT-safe: yes. Thread: any. */
RTC_RT_SAFE size_t rtc_ring_capacity(const rtc_ring *ring);

/**
 * Producer: a pointer to the next free slot, or NULL when the ring is full (the caller
 * writes the record there, then calls rtc_ring_commit()). A NULL return is counted as an
 * overflow only if the caller gives up: call rtc_ring_drop() then.
 * RT-safe: yes. Thread: the single producer.
 */
RTC_RT_SAFE void *rtc_ring_reserve(rtc_ring *ring);

/** Producer: publish the slot returned by rtc_ring_reserve(). RT-safe: yes. */
RTC_RT_SAFE void rtc_ring_commit(rtc_ring *ring);

/** Producer: count a record that was dropped because the ring was full. RT-safe: yes. */
RTC_RT_SAFE void rtc_ring_drop(rtc_ring *ring);

/** Copy @p record into the ring; false (and counted as dropped) when full.
 *  RT-safe: yes. Thread: the single producer. */
RTC_RT_SAFE bool rtc_ring_push(rtc_ring *ring, const void *record);

/**
 * Consumer: pointer to the oldest record, or NULL when empty. The record stays valid until
 * rtc_ring_release(). RT-safe: yes. Thread: the single consumer.
 */
RTC_RT_SAFE const void *rtc_ring_peek(rtc_ring *ring);

/** Consumer: free the record returned by rtc_ring_peek(). RT-safe: yes. */
RTC_RT_SAFE void rtc_ring_release(rtc_ring *ring);

/**
 * Consumer, batched: the number of records ready (a snapshot), the @p i-th oldest of them
 * (i < that number), and releasing the @p n oldest at once — one shared-counter update per
 * batch instead of per record. RT-safe: yes. Thread: the single consumer.
 */
RTC_RT_SAFE size_t rtc_ring_ready(rtc_ring *ring);
const void *rtc_ring_at(const rtc_ring *ring, size_t i);
void rtc_ring_release_n(rtc_ring *ring, size_t n);

/** Records dropped so far (full ring). RT-safe: yes. Thread: any. */
RTC_RT_SAFE uint64_t rtc_ring_dropped(const rtc_ring *ring);

/** Records currently queued (a snapshot). RT-safe: yes. Thread: any. */
RTC_RT_SAFE size_t rtc_ring_used(const rtc_ring *ring);

/** Highest fill level seen by the producer. RT-safe: yes. Thread: any. */
RTC_RT_SAFE size_t rtc_ring_high_water(const rtc_ring *ring);

#endif
