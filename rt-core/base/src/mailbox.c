/*
 * Per-signal mailbox: a single-writer seqlock (see rtcosim/mailbox.h for the contract).
 *
 * Layout: a version counter that is odd while a write is in progress, then the payload.
 * Every payload word is itself an atomic: in C11 a plain read racing with a plain write
 * is undefined even if the result is discarded, so the torn-read-then-retry idea of a
 * seqlock is only legal on atomic words (Boehm, "Can seqlocks get along with programming
 * language memory models?", MSPC 2012). The payload accesses carry the ordering, so no
 * stand-alone fence is needed (ThreadSanitizer does not model fences, and on x86-64 these
 * orders compile to the same plain moves):
 *
 *   writer: version = v+1 (relaxed); payload (release); version = v+2 (release)
 *   reader: v1 = version (acquire); payload (acquire); v2 = version (relaxed);
 *           consistent iff v1 == v2 and v1 is even
 *
 * A reader whose acquire load sees any payload word of write v synchronises with that
 * release store, so the odd version v+1 stored before it is visible to the later load of
 * v2, which then differs from v1. The final release store publishes the whole payload to
 * a reader whose acquire load sees v+2.
 */
#include "rtcosim/mailbox.h"
#include "rtcosim/status.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct rtc_mailbox {
    alignas(64) _Atomic uint64_t version; /* odd while the writer is inside */
    _Atomic uint64_t value_bits;          /* the double's bit pattern */
    _Atomic int64_t sample_ns;
    _Atomic int64_t arrival_ns;
    _Atomic uint64_t meta;                /* seq in bits 0..31, quality in bits 32..39 */
    alignas(64) _Atomic uint64_t read_failures; /* reader side: own cache line */
};

static uint64_t pack_meta(uint32_t seq, uint8_t quality)
{
    return (uint64_t)seq | ((uint64_t)quality << 32);
}

int rtc_mailbox_new(rtc_mailbox **out)
{
    if (!out)
        return RTC_EINVAL;
    rtc_mailbox *mb = aligned_alloc(64, sizeof *mb);
    if (!mb)
        return RTC_ENOMEM;
    memset(mb, 0, sizeof *mb); /* also touches the memory before the run phase */
    atomic_init(&mb->version, 0);
    atomic_init(&mb->value_bits, 0);
    atomic_init(&mb->sample_ns, 0);
    atomic_init(&mb->arrival_ns, 0);
    atomic_init(&mb->meta, pack_meta(0, RTC_QUALITY_NONE));
    atomic_init(&mb->read_failures, 0);
    *out = mb;
    return RTC_OK;
}

void rtc_mailbox_free(rtc_mailbox *mb)
{
    free(mb);
}

/* Enter the write section: make the version odd (the release payload stores after it
 * keep it from being seen late). */
static uint64_t write_begin(rtc_mailbox *mb)
{
    /* Relaxed load: this thread is the only one that ever stores the version. */
    uint64_t v = atomic_load_explicit(&mb->version, memory_order_relaxed);
    atomic_store_explicit(&mb->version, v + 1, memory_order_relaxed);
    return v;
}

/* Leave the write section: the release store publishes every payload store above it. */
static void write_end(rtc_mailbox *mb, uint64_t v)
{
    atomic_store_explicit(&mb->version, v + 2, memory_order_release);
}

uint32_t rtc_mailbox_write(rtc_mailbox *mb, const rtc_sample *s)
{
    uint64_t bits;
    memcpy(&bits, &s->value, sizeof bits);
    /* Only the writer changes meta, so a relaxed read of its own last store is exact. */
    uint32_t seq = (uint32_t)atomic_load_explicit(&mb->meta, memory_order_relaxed) + 1u;
    if (seq == 0)
        seq = 1; /* 0 is reserved for "never written" */
    uint64_t v = write_begin(mb);
    atomic_store_explicit(&mb->value_bits, bits, memory_order_release);
    atomic_store_explicit(&mb->sample_ns, s->sample_ns, memory_order_release);
    atomic_store_explicit(&mb->arrival_ns, s->arrival_ns, memory_order_release);
    atomic_store_explicit(&mb->meta, pack_meta(seq, s->quality), memory_order_release);
    write_end(mb, v);
    return seq;
}

void rtc_mailbox_set_quality(rtc_mailbox *mb, rtc_quality q)
{
    uint64_t meta = atomic_load_explicit(&mb->meta, memory_order_relaxed);
    uint64_t v = write_begin(mb);
    atomic_store_explicit(&mb->meta, pack_meta((uint32_t)meta, (uint8_t)q), memory_order_release);
    write_end(mb, v);
}

bool rtc_mailbox_read(rtc_mailbox *mb, rtc_sample *out)
{
    for (int tries = 0; tries < RTC_MAILBOX_READ_TRIES; tries++) {
        uint64_t v1 = atomic_load_explicit(&mb->version, memory_order_acquire);
        if (v1 & 1u)
            continue; /* writer inside: the payload is being replaced */
        uint64_t bits = atomic_load_explicit(&mb->value_bits, memory_order_acquire);
        int64_t sample_ns = atomic_load_explicit(&mb->sample_ns, memory_order_acquire);
        int64_t arrival_ns = atomic_load_explicit(&mb->arrival_ns, memory_order_acquire);
        uint64_t meta = atomic_load_explicit(&mb->meta, memory_order_acquire);
        if (atomic_load_explicit(&mb->version, memory_order_relaxed) != v1)
            continue;
        memcpy(&out->value, &bits, sizeof bits);
        out->sample_ns = sample_ns;
        out->arrival_ns = arrival_ns;
        out->seq = (uint32_t)meta;
        out->quality = (uint8_t)(meta >> 32);
        return true;
    }
    /* Relaxed: a statistic, read by anyone without ordering needs. */
    atomic_fetch_add_explicit(&mb->read_failures, 1, memory_order_relaxed);
    return false;
}

uint32_t rtc_mailbox_seq(const rtc_mailbox *mb)
{
    /* Acquire pairs with write_end's release only loosely: callers use it as a hint
     * ("something new?") and then read the full sample with rtc_mailbox_read(). */
    return (uint32_t)atomic_load_explicit(&((rtc_mailbox *)mb)->meta, memory_order_acquire);
}

uint64_t rtc_mailbox_read_failures(const rtc_mailbox *mb)
{
    return atomic_load_explicit(&((rtc_mailbox *)mb)->read_failures, memory_order_relaxed);
}
