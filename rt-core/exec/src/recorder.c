/*
 * Recorder thread (see rtcosim/recorder.h).
 *
 * Ring records are [int64 t_ns][row bytes]. Rows become CSV text here and reach the
 * kernel on a clock: every FLUSH_TICK_NS the complete rows written so far are flushed
 * (and at every RTC_OFILE_FLUSH_BYTES by the stream itself), so a kill at time T loses at
 * most the rows of the last ~2 ticks, never half a row. The file is fsynced at stop.
 *
 * DESIGN — rows change threads in batches, without busy waiting and without a system
 * call per row:
 *   consumer  takes rows only in batches of at least `drain_min` (or whatever is there
 *             on the flush tick and at stop): with fewer ready it announces `sleeping`
 *             (store, barrier), checks the ring once more, and waits on the `wake`
 *             semaphore with a timeout of one flush tick. So it never chases the
 *             producer row by row — reading the head index and the row the producer is
 *             still writing next to, each row's cache lines bouncing between the cores,
 *             the cost of a hand-off per row — and an idle recorder costs ~20 wake-ups
 *             per second, whatever the row rate.
 *   rows      the producer samples a row straight into its ring slot and publishes it
 *             with one release store of its own index, which no one else writes (on x86
 *             a plain store): it reads nothing of the consumer's per row and waits for
 *             nothing. Publishing every row rather than every batch keeps each row
 *             visible at once, so it reaches the file on the next flush tick however
 *             long the producer's next step takes.
 *   producer  real-time mode: never wakes the consumer and never waits (a full ring drops
 *             and counts the row): the RT thread makes no system call for the recorder at
 *             all; the tick drains 50 ms of rows, the ring holds seconds of them.
 *             Lossless mode (fast runs, replay): every WAKE_DIVISOR-th of the ring's rows
 *             it looks at `sleeping` (a relaxed load, no syscall unless the consumer
 *             sleeps) and posts `wake`. When the ring is full it announces `waiting`,
 *             wakes the consumer and waits on the `space` semaphore; the consumer posts
 *             `space` once it has drained the ring to half (hysteresis: one wake-up per
 *             half ring, not per row).
 *   Lost wake-ups: each side stores its announcement, then a barrier, then reads the
 *   other side's ring index (Dekker): at least one of the two sees the other. The
 *   barrier is an acq_rel read-modify-write of one shared word rather than a fence
 *   (ThreadSanitizer does not model fences): the two RMWs are ordered, and the later one
 *   synchronizes with the earlier, so the earlier side's announcement or index is
 *   visible to the later side. The semaphore waits are timed all the same, so a mistake
 *   could only cost a tick.
 * Stop is an atomic flag plus a post; the thread drains the ring before it exits, so no
 * row queued before rtc_recorder_stop() is lost.
 *
 * A write error (disk full, EFBIG, EIO) is reported at once, in one line naming the file,
 * by this thread; in stop mode rtc_recorder_push() then returns RTC_EIO so the stepping
 * loop (the RT thread, or a fast loop) ends the run through its normal stop path.
 */
#include "rtcosim/recorder.h"
#include "rtcosim/ring.h"
#include "rtcosim/rt.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FLUSH_TICK_NS 50000000 /* rows reach the kernel within ~2 ticks: ≤ 100 ms */
#define BATCH 256              /* rows formatted before their slots are handed back */
#define DRAIN_MIN 64           /* rows ready that make a batch worth taking (see DESIGN) */
#define WAKE_DIVISOR 4         /* lossless: look at `sleeping` every capacity/4 rows */

struct rtc_recorder {
    rtc_record *rec;
    rtc_csv *csv;
    rtc_ring *ring;
    rtc_recorder_opts o;
    size_t drain_min;              /* consumer: see DESIGN */
    size_t wake_every, until_wake; /* producer only; until_wake counts down to a wake_due() */
    sem_t wake, space;
    _Atomic uint32_t sleeping, waiting;
    _Atomic bool stop;
    _Atomic int failed;            /* RTC_OK, or the CSV's first error (written once) */
    rtc_rt_thread *thread;
    /* rows the consumer released unwritten after a failure (read after the join); the
     * header's fate, so the row counts leave it out */
    uint64_t discarded, header_rows, header_lost;
    /* its own cache line: the consumer touches it every batch, the producer only when
     * the ring is full */
    alignas(64) _Atomic uint32_t barrier;
};

/* StoreLoad ordering between the two sides (see DESIGN). */
static void barrier(rtc_recorder *r)
{
    atomic_fetch_add_explicit(&r->barrier, 0, memory_order_acq_rel);
}

/* Wait on @p s at most @p ns (EINTR and timeouts simply return). */
static void timed_wait(sem_t *s, int64_t ns)
{
    int64_t t = rtc_time_now_ns() + ns;
    struct timespec ts = {.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
    sem_clockwait(s, CLOCK_MONOTONIC, &ts);
}

/* Post @p s when the other side announced it sleeps on it (one post per announcement). */
static void wake_if(_Atomic uint32_t *announced, sem_t *s)
{
    if (atomic_exchange_explicit(announced, 0, memory_order_acq_rel))
        sem_post(s);
}

/* The first write error: one line at once; the producer sees it at its next push. */
static void check_error(rtc_recorder *r)
{
    int st = rtc_csv_error(r->csv);
    if (st == RTC_OK || atomic_load_explicit(&r->failed, memory_order_relaxed) != RTC_OK)
        return;
    atomic_store_explicit(&r->failed, st, memory_order_release);
    int e = rtc_csv_errno(r->csv);
    const char *path = rtc_csv_path(r->csv);
    rtc_log(r->o.lg, RTC_LOG_ERROR, "%s: write failed: %s; %s",
            strcmp(path, "-") ? path : "standard output", strerror(e ? e : EIO),
            r->o.continue_on_error ? "continuing as asked (--on-write-error continue): rows "
                                     "are being lost"
                                   : "stopping the run");
}

/* Format up to BATCH rows, hand their slots back, let a waiting producer go on. Once
 * the recording failed in stop mode, queued rows are only released: they could not be
 * written, so they are counted as lost. */
static void drain_batch(rtc_recorder *r, size_t n)
{
    n = n > BATCH ? BATCH : n;
    bool discard = !r->o.continue_on_error &&
                   atomic_load_explicit(&r->failed, memory_order_relaxed) != RTC_OK;
    for (size_t i = 0; i < n && !discard; i++) {
        const char *slot = rtc_ring_at(r->ring, i);
        int64_t t_ns;
        memcpy(&t_ns, slot, sizeof t_ns);
        rtc_record_write_row(r->rec, r->csv, t_ns, slot + sizeof(int64_t));
    }
    rtc_ring_release_n(r->ring, n);
    if (discard)
        r->discarded += n;
    barrier(r); /* release_n before reading `waiting` */
    if (atomic_load_explicit(&r->waiting, memory_order_relaxed) &&
        rtc_ring_ready(r->ring) <= rtc_ring_capacity(r->ring) / 2)
        wake_if(&r->waiting, &r->space);
}

/* Too little to do: sleep until a post or the next flush tick. */
static void idle(rtc_recorder *r)
{
    atomic_store_explicit(&r->sleeping, 1, memory_order_relaxed);
    barrier(r); /* the announcement before the last look */
    if (rtc_ring_ready(r->ring) < r->drain_min &&
        !atomic_load_explicit(&r->stop, memory_order_acquire))
        timed_wait(&r->wake, FLUSH_TICK_NS);
    atomic_store_explicit(&r->sleeping, 0, memory_order_relaxed);
}

static void *recorder_main(void *arg)
{
    rtc_recorder *r = arg;
    int64_t last_flush = rtc_time_now_ns();
    for (;;) {
        size_t n = rtc_ring_ready(r->ring);
        int64_t now = rtc_time_now_ns();
        bool tick = now - last_flush >= FLUSH_TICK_NS;
        /* a batch; a few rows only on the tick, or at stop (when the producer is done) */
        bool take = n >= r->drain_min ||
                    (n && (tick || atomic_load_explicit(&r->stop, memory_order_relaxed)));
        if (take)
            drain_batch(r, n);
        if (tick) {
            if (rtc_csv_pending(r->csv))
                rtc_csv_flush(r->csv);
            last_flush = now;
        }
        check_error(r);
        if (take)
            continue;
        /* acquire: a stop seen here was requested after the producer's last commit */
        if (atomic_load_explicit(&r->stop, memory_order_acquire) && !rtc_ring_peek(r->ring))
            break;
        idle(r);
    }
    rtc_csv_flush(r->csv);
    check_error(r);
    return NULL;
}

int rtc_recorder_start(rtc_record *rec, rtc_csv *csv, const rtc_recorder_opts *o,
                       rtc_recorder **out)
{
    rtc_recorder *r = aligned_alloc(alignof(rtc_recorder), sizeof *r); /* `barrier` alone */
    if (!r)
        return RTC_ENOMEM;
    memset(r, 0, sizeof *r);
    r->rec = rec;
    r->csv = csv;
    r->o = *o;
    int rc = rtc_ring_new(sizeof(int64_t) + rtc_record_row_size(rec),
                          o->ring_rows ? o->ring_rows : RTC_RECORDER_ROWS, &r->ring);
    if (rc != RTC_OK) {
        free(r);
        return rc;
    }
    size_t cap = rtc_ring_capacity(r->ring);
    r->wake_every = o->lossless ? cap / WAKE_DIVISOR : 0;
    r->until_wake = r->wake_every ? r->wake_every : SIZE_MAX;
    r->drain_min = cap / WAKE_DIVISOR < DRAIN_MIN ? (cap / WAKE_DIVISOR ? cap / WAKE_DIVISOR : 1)
                                                   : DRAIN_MIN;
    sem_init(&r->wake, 0, 0);
    sem_init(&r->space, 0, 0);
    rtc_csv_set_retry(csv, o->continue_on_error); /* stop: the file stays a prefix */
    rtc_record_write_header(rec, csv);
    rtc_csv_flush(csv); /* a reader finds the header at once */
    r->header_rows = rtc_csv_rows(csv);
    r->header_lost = rtc_csv_rows_lost(csv);
    rtc_rt_thread_opts to = {.priority = 0, .cpu = -1, .name = "rtcosim-rec"};
    rc = rtc_rt_thread_start(&to, recorder_main, r, o->lg, &r->thread);
    if (rc != RTC_OK) {
        sem_destroy(&r->wake);
        sem_destroy(&r->space);
        rtc_ring_free(r->ring);
        free(r);
        return rc;
    }
    *out = r;
    return RTC_OK;
}

/* Lossless mode, ring full: announce, wake the consumer, wait for half a ring of room. */
static void wait_space(rtc_recorder *r)
{
    atomic_store_explicit(&r->waiting, 1, memory_order_relaxed);
    barrier(r); /* the announcement before the last look */
    if (!rtc_ring_reserve(r->ring)) {
        wake_if(&r->sleeping, &r->wake);
        timed_wait(&r->space, FLUSH_TICK_NS);
    }
    atomic_store_explicit(&r->waiting, 0, memory_order_relaxed);
}

/* The ring is full: real-time mode drops the row and counts it (NULL), lossless mode waits
 * for room. Out of line: a push that finds room never comes here. */
static char *no_room(rtc_recorder *r)
{
    char *slot;
    while (!(slot = rtc_ring_reserve(r->ring))) {
        if (!r->o.lossless) {
            rtc_ring_drop(r->ring);
            return NULL;
        }
        wait_space(r);
    }
    return slot;
}

/* Lossless mode, every wake_every-th row: wake a consumer that sleeps (see DESIGN). */
static void wake_due(rtc_recorder *r)
{
    r->until_wake = r->wake_every ? r->wake_every : SIZE_MAX;
    if (r->wake_every && atomic_load_explicit(&r->sleeping, memory_order_relaxed))
        wake_if(&r->sleeping, &r->wake);
}

int rtc_recorder_push(rtc_recorder *r, int64_t t_ns)
{
    /* relaxed: the error only needs to be seen soon, it orders nothing */
    int failed = atomic_load_explicit(&r->failed, memory_order_relaxed);
    if (failed && !r->o.continue_on_error)
        return failed; /* the write's -errno (e.g. -ENOSPC) */
    char *slot = rtc_ring_reserve(r->ring);
    if (!slot && !(slot = no_room(r)))
        return RTC_ELIMIT;
    memcpy(slot, &t_ns, sizeof t_ns);
    int rc = rtc_record_sample(r->rec, slot + sizeof(int64_t));
    if (rc != RTC_OK)
        return rc;
    rtc_ring_commit(r->ring);
    if (--r->until_wake == 0)
        wake_due(r);
    return RTC_OK;
}

int rtc_recorder_failed(const rtc_recorder *r)
{
    return r ? atomic_load_explicit(&r->failed, memory_order_acquire) : RTC_OK;
}

int rtc_recorder_stop(rtc_recorder *r, rtc_recorder_stats *stats)
{
    if (!r)
        return RTC_OK;
    /* release: every row committed before this store is drained by the thread */
    atomic_store_explicit(&r->stop, true, memory_order_release);
    sem_post(&r->wake);
    rtc_rt_thread_join(r->thread);
    if (stats) { /* the thread has ended (joined): its counts and the CSV's are final */
        stats->rows_written = rtc_csv_rows(r->csv) - r->header_rows;
        stats->rows_lost = r->discarded + rtc_csv_rows_lost(r->csv) - r->header_lost;
        stats->rows_dropped = rtc_ring_dropped(r->ring);
        stats->ring_capacity = rtc_ring_capacity(r->ring);
        stats->ring_high_water = rtc_ring_high_water(r->ring);
    }
    int rc = rtc_csv_error(r->csv);
    sem_destroy(&r->wake);
    sem_destroy(&r->space);
    rtc_ring_free(r->ring);
    free(r);
    return rc;
}
