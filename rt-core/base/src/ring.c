/*
 * SPSC ring (see rtcosim/ring.h for the contract).
 *
 * head: next slot the producer writes; tail: next slot the consumer reads. Each side owns
 * one counter and only reads the other's. They live on separate cache lines so the two
 * threads do not bounce one line between cores on every record.
 */
#include "rtcosim/ring.h"
#include "rtcosim/status.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct rtc_ring {
    alignas(64) _Atomic uint64_t head; /* written by the producer */
    uint64_t tail_cache;               /* producer's last view of tail */
    _Atomic size_t high_water;         /* written by the producer, read by anyone */
    _Atomic uint64_t dropped;
    alignas(64) _Atomic uint64_t tail; /* written by the consumer */
    uint64_t head_cache;               /* consumer's last view of head */
    alignas(64) size_t record_size;
    uint64_t mask;
    unsigned char *data;
};

int rtc_ring_new(size_t record_size, size_t min_records, rtc_ring **out)
{
    if (record_size == 0 || min_records == 0 || min_records > (SIZE_MAX >> 2) / record_size)
        return RTC_EINVAL;
    size_t n = 1;
    while (n < min_records)
        n <<= 1;
    rtc_ring *r = aligned_alloc(64, sizeof *r);
    if (!r)
        return RTC_ENOMEM;
    memset(r, 0, sizeof *r);
    r->record_size = (record_size + 7) & ~(size_t)7;
    r->mask = n - 1;
    r->data = calloc(n, r->record_size); /* calloc touches: no page fault later */
    if (!r->data) {
        free(r);
        return RTC_ENOMEM;
    }
    memset(r->data, 0, n * r->record_size);
    *out = r;
    return RTC_OK;
}

void rtc_ring_free(rtc_ring *r)
{
    if (!r)
        return;
    free(r->data);
    free(r);
}

size_t rtc_ring_capacity(const rtc_ring *r)
{
    return (size_t)r->mask + 1;
}

void *rtc_ring_reserve(rtc_ring *r)
{
    /* Only the producer writes head, so a relaxed load of our own counter suffices. */
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (head - r->tail_cache > r->mask) {
        /* acquire: the consumer finished reading the slot before it advanced tail */
        r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (head - r->tail_cache > r->mask)
            return NULL;
    }
    /* The high-water mark, exact without reading the consumer's counter per record (its
     * line would cross between the cores every time): the cached tail is never ahead of
     * the real one, so the fill it gives is an upper bound; only when that bound passes
     * the mark is the real tail read, which also refreshes the cache. Relaxed stores: a
     * statistic, ordered with nothing. */
    size_t mark = atomic_load_explicit(&r->high_water, memory_order_relaxed);
    if ((size_t)(head - r->tail_cache) + 1 > mark) {
        r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
        size_t used = (size_t)(head - r->tail_cache) + 1;
        if (used > mark)
            atomic_store_explicit(&r->high_water, used, memory_order_relaxed);
    }
    return r->data + (head & r->mask) * r->record_size;
}

void rtc_ring_commit(rtc_ring *r)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    /* release: the record's bytes become visible before the new head */
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

void rtc_ring_drop(rtc_ring *r)
{
    atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
}

bool rtc_ring_push(rtc_ring *r, const void *record)
{
    void *slot = rtc_ring_reserve(r);
    if (!slot) {
        rtc_ring_drop(r);
        return false;
    }
    memcpy(slot, record, r->record_size);
    rtc_ring_commit(r);
    return true;
}

const void *rtc_ring_peek(rtc_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (tail == r->head_cache) {
        /* acquire: pairs with the producer's release in rtc_ring_commit() */
        r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
        if (tail == r->head_cache)
            return NULL;
    }
    return r->data + (tail & r->mask) * r->record_size;
}

void rtc_ring_release(rtc_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* release: we are done reading the slot before the producer may reuse it */
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
}

uint64_t rtc_ring_dropped(const rtc_ring *r)
{
    return atomic_load_explicit(&r->dropped, memory_order_relaxed);
}

size_t rtc_ring_used(const rtc_ring *r)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    return (size_t)(head - tail);
}

size_t rtc_ring_high_water(const rtc_ring *r)
{
    return atomic_load_explicit(&((rtc_ring *)r)->high_water, memory_order_relaxed);
}

size_t rtc_ring_ready(rtc_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* acquire: pairs with the producer's release in rtc_ring_commit() */
    r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
    return (size_t)(r->head_cache - tail);
}

const void *rtc_ring_at(const rtc_ring *r, size_t i)
{
    uint64_t tail = atomic_load_explicit(&((rtc_ring *)r)->tail, memory_order_relaxed);
    return r->data + ((tail + i) & r->mask) * r->record_size;
}

void rtc_ring_release_n(rtc_ring *r, size_t n)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* release: done reading these slots before the producer may reuse them */
    atomic_store_explicit(&r->tail, tail + n, memory_order_release);
}
