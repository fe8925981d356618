/*
 * Recorder thread (see rtcosim/recorder.h).
 *
 * Ring records are [int64 t_ns][row bytes]. The consumer never blocks the producer: when
 * the ring is empty it spins briefly with sched_yield (rows usually follow each other
 * closely in fast mode) and then naps 200 µs, so an idle recorder costs nothing and a busy
 * one keeps up. Stop is an atomic flag; the thread drains the ring before it exits, so no
 * row queued before rtc_recorder_stop() is lost.
 */
#include "rtcosim/recorder.h"
#include "rtcosim/ring.h"
#include "rtcosim/status.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rtc_recorder {
    rtc_record *rec;
    rtc_csv *csv;
    rtc_ring *ring;
    bool lossless;
    _Atomic bool stop;
    _Atomic uint64_t written;
    pthread_t thread;
};

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *recorder_main(void *arg)
{
    rtc_recorder *r = arg;
    unsigned idle = 0;
    for (;;) {
        /* Rows are taken in batches (at most 64 before the slots are handed back), so the
         * producer's and our counters cross cores once per batch, not once per row. */
        size_t n = rtc_ring_ready(r->ring);
        if (n) {
            n = n > 64 ? 64 : n;
            for (size_t i = 0; i < n; i++) {
                const char *slot = rtc_ring_at(r->ring, i);
                int64_t t_ns;
                memcpy(&t_ns, slot, sizeof t_ns);
                rtc_record_write_row(r->rec, r->csv, t_ns, slot + sizeof(int64_t));
            }
            rtc_ring_release_n(r->ring, n);
            atomic_fetch_add_explicit(&r->written, n, memory_order_relaxed);
            idle = 0;
            continue;
        }
        /* acquire: a stop seen here was requested after the producer's last commit */
        if (atomic_load_explicit(&r->stop, memory_order_acquire) && !rtc_ring_peek(r->ring))
            break;
        if (++idle < 2000)
            sched_yield();
        else
            nap_us(200);
    }
    return NULL;
}

int rtc_recorder_start(rtc_record *rec, rtc_csv *csv, size_t ring_rows, bool lossless,
                       rtc_recorder **out)
{
    rtc_recorder *r = calloc(1, sizeof *r);
    if (!r)
        return RTC_ENOMEM;
    r->rec = rec;
    r->csv = csv;
    r->lossless = lossless;
    int rc = rtc_ring_new(sizeof(int64_t) + rtc_record_row_size(rec), ring_rows, &r->ring);
    if (rc != RTC_OK) {
        free(r);
        return rc;
    }
    rtc_record_write_header(rec, csv);
    if (pthread_create(&r->thread, NULL, recorder_main, r) != 0) {
        rtc_ring_free(r->ring);
        free(r);
        return RTC_ESYS;
    }
    *out = r;
    return RTC_OK;
}

int rtc_recorder_push(rtc_recorder *r, int64_t t_ns)
{
    char *slot;
    while (!(slot = rtc_ring_reserve(r->ring))) {
        if (!r->lossless) {
            rtc_ring_drop(r->ring);
            return RTC_ELIMIT;
        }
        sched_yield(); /* fast mode only: wait for the recorder */
    }
    memcpy(slot, &t_ns, sizeof t_ns);
    int rc = rtc_record_sample(r->rec, slot + sizeof(int64_t));
    if (rc == RTC_OK)
        rtc_ring_commit(r->ring);
    return rc;
}

int rtc_recorder_stop(rtc_recorder *r, rtc_recorder_stats *stats)
{
    if (!r)
        return RTC_OK;
    /* release: every row committed before this store is drained by the thread */
    atomic_store_explicit(&r->stop, true, memory_order_release);
    pthread_join(r->thread, NULL);
    if (stats) {
        stats->rows_written = atomic_load_explicit(&r->written, memory_order_relaxed);
        stats->rows_dropped = rtc_ring_dropped(r->ring);
        stats->ring_capacity = rtc_ring_capacity(r->ring);
        stats->ring_high_water = rtc_ring_high_water(r->ring);
    }
    int rc = rtc_csv_error(r->csv);
    rtc_ring_free(r->ring);
    free(r);
    return rc;
}
