/*
 * What a surface shows of a live session (rtcosim/session.h): the published step as one
 * consistent row (recorded columns and exposed variables), the columns' units, and each
 * I/O component's link per direction.
 *
 * DESIGN: the RT hook writes the snapshot after every step under a seqlock (session.c,
 * publish()); a reader copies the whole row between two reads of the sequence count and
 * retries when a write overlapped, so the values it hands out all belong to one step, the
 * same step results.csv holds in that row. Nothing here blocks the RT thread, which never
 * waits for a reader.
 *
 * Link directions: a direction's state is its link's under the link contract (DESIGN.md
 * T2, rtcosim/driver.h), which every driver keeps — a receive-only link (an OSC input that
 * has delivered set-points) is up while its peer is there — and an up link whose signals
 * in this direction are stale or in error reads "late" for that direction.
 */
#include "session_priv.h"

#include "rtcosim/driver.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <string.h>

const char *rtc_session_column_unit(const rtc_session *s, size_t i)
{
    return i < s->n_col ? rtc_record_column_unit(s->rec, i) : NULL;
}

static double snap_get(const rtc_session *s, size_t i)
{
    uint64_t bits = atomic_load_explicit(&s->snap[i], memory_order_acquire);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Seqlock read of the whole row (C11, Boehm; acquire loads keep the re-check of the count
 * below them, see rt-core/base/src/mailbox.c). The caller's arrays are written on every
 * try and are valid only when the count did not move. */
bool rtc_session_snapshot(rtc_session *s, double *cols, double *values, double *targets,
                          int64_t *k)
{
    if (!s->snap) { /* nothing recorded, nothing exposed: no row to give */
        *k = -1;
        return true;
    }
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t q1 = atomic_load_explicit(&s->snap_seq, memory_order_acquire);
        if (q1 & 1)
            continue;
        for (size_t i = 0; cols && i < s->n_col; i++)
            cols[i] = snap_get(s, i);
        for (size_t i = 0; i < s->n_var; i++) {
            if (values)
                values[i] = snap_get(s, s->n_col + 2 * i);
            if (targets)
                targets[i] = snap_get(s, s->n_col + 2 * i + 1);
        }
        int64_t kk = atomic_load_explicit(&s->snap_k, memory_order_acquire);
        if (atomic_load_explicit(&s->snap_seq, memory_order_relaxed) != q1)
            continue;
        *k = q1 ? kk : -1; /* -1: no step published yet */
        return true;
    }
    return false;
}

int64_t rtc_session_wait_step(rtc_session *s, int64_t after_k, int64_t deadline_ns)
{
    for (;;) {
        uint32_t q = atomic_load_explicit(&s->snap_seq, memory_order_acquire);
        int64_t k = q ? atomic_load_explicit(&s->snap_k, memory_order_acquire) : -1;
        if (!(q & 1) && k > after_k)
            return k;
        if (!s->snap || rtc_time_now_ns() >= deadline_ns)
            return q & 1 ? after_k : k;
        /* publish() moves snap_seq on twice per step and wakes the sleepers after the
         * second: a write in progress (odd) ends within the step */
        rtc_rt_wait_change_until(&s->snap_seq, &s->snap_waiters, q, 0, deadline_ns);
    }
}

/* ---- link directions ---- */

/* What one direction's signals say: how many, how many stale, updates, the newest. */
static void sum_dir(const rtc_unit *u, const rtc_driver_stats *st, bool in,
                    rtc_session_link_dir *d)
{
    int64_t last = 0;
    *d = (rtc_session_link_dir){.age_ns = -1};
    for (size_t i = 0; i < st->n_signals && i < st->n_signals_cap && i < u->md->n_vars; i++) {
        /* an I/O unit's outputs are what its peer sends in (FROM_BENCH) */
        if ((u->md->vars[i].causality == RTC_CAUSALITY_OUTPUT) != in)
            continue;
        const rtc_signal_health *h = &st->signals[i];
        d->signals++;
        d->stale += h->quality == RTC_QUALITY_STALE || h->quality == RTC_QUALITY_ERROR;
        d->updates += h->updates;
        last = h->last_ns > last ? h->last_ns : last;
    }
    if (last)
        d->age_ns = rtc_time_now_ns() - last;
}

/* The contract's state of the link (connecting, up, late, lost, degraded, idle), and for
 * an up link "late" in a direction whose signals are stale or in error. */
static const char *dir_state(const rtc_driver_stats *st, const rtc_session_link_dir *d)
{
    if (st->link == RTC_LINK_UP && d->stale)
        return rtc_link_state_name(RTC_LINK_LATE);
    return rtc_link_state_name(st->link);
}

bool rtc_session_io_dirs(const rtc_session *s, size_t i, rtc_session_link_dir *in,
                         rtc_session_link_dir *out)
{
    const rtc_unit *u = i < s->n_watch ? rtc_system_unit(s->sys, s->watch[i].unit) : NULL;
    rtc_signal_health h[64];
    rtc_driver_stats st = {.signals = h, .n_signals_cap = 64};
    if (!u || rtc_io_unit_stats(u, &st) != RTC_OK)
        return false;
    rtc_session_link_dir d[2];
    for (int dir = 0; dir < 2; dir++) {
        sum_dir(u, &st, dir == 0, &d[dir]);
        d[dir].state = dir_state(&st, &d[dir]);
    }
    if (in)
        *in = d[0];
    if (out)
        *out = d[1];
    return true;
}
