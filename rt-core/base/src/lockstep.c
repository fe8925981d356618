/*
 * The lock-step channel (rtcosim/lockstep.h): two single-producer single-consumer rings of
 * rounds between the stepping thread and a driver.
 *
 *   tx: the stepping thread fills slot tx_head % DEPTH, then publishes tx_head + 1
 *       (release); the driver reads slots up to tx_head (acquire), sends each, then
 *       publishes tx_tail + 1 (release) so the slot may be reused.
 *   rx: the driver fills slot rx_head % DEPTH, then publishes rx_head + 1 (release); the
 *       stepping thread finds the round it waits for among the slots from rx_floor to
 *       rx_head and, when the tick has read them, moves rx_floor (release) past the first
 *       round it used: older slots may be overwritten.
 *
 * Every change the stepping thread may wait for (a round stored, a slot freed while it
 * waits for one, a failure) also increments one event word, so it waits on one futex
 * whatever it waits for. A slot sent wakes it only when it said it waits for room
 * (tx_full): in lock-step it is then usually waiting for the peer's round, and a wake-up
 * per round sent would cost it a context switch per tick and link for nothing. The
 * payload is plain memory ordered by the counters (a slot is written only while the other
 * side cannot read it).
 */
#include "rtcosim/lockstep.h"
#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH RTC_LOCKSTEP_DEPTH

struct rtc_lockstep {
    size_t n_out, n_in;
    bool enabled;
    bool init_only;          /* rtc_lockstep_enable_init: INIT passes only */
    int64_t wait_ns;
    uint8_t *ahead;          /* per incoming value: 0 or 1 */
    int tick_ahead;          /* max of ahead, -1 without incoming values */
    double *stage;           /* the next outgoing round, n_out */
    rtc_lockstep_round tx[DEPTH], rx[DEPTH];
    double *mem;             /* every value array above, one block */
    /* stepping thread only */
    uint32_t ret_first;      /* the first rx slot returned since the last release */
    bool has_ret;
    alignas(64) _Atomic uint32_t tx_head, tx_waiters; /* committed (stepping thread) */
    alignas(64) _Atomic uint32_t tx_tail;             /* sent (driver) */
    _Atomic bool tx_full;     /* the stepping thread waits for a slot to be sent */
    alignas(64) _Atomic uint32_t rx_head;             /* stored (driver) */
    _Atomic uint32_t rx_floor;                        /* still needed from here (stepping) */
    alignas(64) _Atomic uint32_t ev, ev_waiters;      /* any change the stepper waits for */
    _Atomic(const char *) why;                        /* the failure, NULL: none */
};

int rtc_lockstep_new(size_t n_out, size_t n_in, rtc_lockstep **out)
{
    if (!out)
        return RTC_EINVAL;
    rtc_lockstep *ls = aligned_alloc(64, sizeof *ls);
    if (!ls)
        return RTC_ENOMEM;
    memset(ls, 0, sizeof *ls);
    ls->n_out = n_out;
    ls->n_in = n_in;
    ls->tick_ahead = n_in ? 0 : -1;
    ls->mem = calloc(n_out * (DEPTH + 1) + n_in * DEPTH + 1, sizeof(double));
    ls->ahead = calloc(n_in + 1, 1);
    if (!ls->mem || !ls->ahead) {
        rtc_lockstep_free(ls);
        return RTC_ENOMEM;
    }
    ls->stage = ls->mem;
    for (size_t i = 0; i < DEPTH; i++) {
        ls->tx[i].v = ls->mem + n_out * (1 + i);
        ls->rx[i].v = ls->mem + n_out * (DEPTH + 1) + n_in * i;
    }
    *out = ls;
    return RTC_OK;
}

void rtc_lockstep_free(rtc_lockstep *ls)
{
    if (!ls)
        return;
    free(ls->mem);
    free(ls->ahead);
    free(ls);
}

int rtc_lockstep_enable(rtc_lockstep *ls, const uint8_t *in_ahead, int64_t wait_ns)
{
    if (!ls || wait_ns <= 0)
        return RTC_EINVAL;
    for (size_t i = 0; in_ahead && i < ls->n_in; i++)
        if (in_ahead[i] > 1)
            return RTC_EINVAL;
    ls->tick_ahead = ls->n_in ? 0 : -1;
    for (size_t i = 0; i < ls->n_in; i++) {
        ls->ahead[i] = in_ahead ? in_ahead[i] : 0;
        if (ls->ahead[i] > ls->tick_ahead)
            ls->tick_ahead = ls->ahead[i];
    }
    ls->wait_ns = wait_ns;
    ls->enabled = true;
    return RTC_OK;
}

int rtc_lockstep_enable_init(rtc_lockstep *ls, int64_t wait_ns)
{
    int rc = rtc_lockstep_enable(ls, NULL, wait_ns);
    if (rc == RTC_OK)
        ls->init_only = true;
    return rc;
}

bool rtc_lockstep_init_only(const rtc_lockstep *ls) { return ls && ls->init_only; }
bool rtc_lockstep_enabled(const rtc_lockstep *ls) { return ls && ls->enabled; }
size_t rtc_lockstep_n_out(const rtc_lockstep *ls) { return ls->n_out; }
size_t rtc_lockstep_n_in(const rtc_lockstep *ls) { return ls->n_in; }
unsigned rtc_lockstep_ahead(const rtc_lockstep *ls, size_t i) { return ls->ahead[i]; }
int rtc_lockstep_tick_ahead(const rtc_lockstep *ls) { return ls->tick_ahead; }
double *rtc_lockstep_stage(rtc_lockstep *ls) { return ls->stage; }
int64_t rtc_lockstep_wait_ns(const rtc_lockstep *ls) { return ls->enabled ? ls->wait_ns : 0; }

const char *rtc_lockstep_failure(const rtc_lockstep *ls)
{
    return atomic_load_explicit(&((rtc_lockstep *)ls)->why, memory_order_acquire);
}

/* Something the stepping thread may wait for changed: count it and wake it. */
static void signal_event(rtc_lockstep *ls)
{
    atomic_fetch_add_explicit(&ls->ev, 1, memory_order_release);
    rtc_rt_wake(&ls->ev, &ls->ev_waiters);
}

/* Wait for the next event after @p seen, until *deadline (set on the first wait). */
static int wait_event(rtc_lockstep *ls, uint32_t seen, int64_t *deadline)
{
    int64_t now = rtc_time_now_ns();
    if (!*deadline)
        *deadline = now + ls->wait_ns;
    else if (now >= *deadline)
        return RTC_ETIME;
    rtc_rt_wait_change_until(&ls->ev, &ls->ev_waiters, seen, 0, *deadline);
    return RTC_OK;
}

int rtc_lockstep_commit(rtc_lockstep *ls, int kind, uint32_t idx, int64_t t_ns)
{
    uint32_t head = atomic_load_explicit(&ls->tx_head, memory_order_relaxed);
    int64_t deadline = 0;
    for (;;) {
        uint32_t ev = atomic_load_explicit(&ls->ev, memory_order_acquire);
        if (rtc_lockstep_failure(ls))
            return RTC_EIO;
        if (head - atomic_load_explicit(&ls->tx_tail, memory_order_acquire) < DEPTH)
            break;
        /* say so, then look again: either this look sees the slot the driver frees, or
         * the driver sees the flag and wakes this thread (both seq_cst) */
        atomic_store_explicit(&ls->tx_full, true, memory_order_seq_cst);
        if (head - atomic_load_explicit(&ls->tx_tail, memory_order_seq_cst) < DEPTH)
            break;
        if (wait_event(ls, ev, &deadline) != RTC_OK)
            return RTC_ETIME;
    }
    atomic_store_explicit(&ls->tx_full, false, memory_order_relaxed);
    rtc_lockstep_round *r = &ls->tx[head % DEPTH];
    r->kind = kind;
    r->idx = idx;
    r->t_ns = t_ns;
    r->sent_ns = 0;
    memcpy(r->v, ls->stage, ls->n_out * sizeof(double));
    atomic_store_explicit(&ls->tx_head, head + 1, memory_order_release);
    rtc_rt_wake(&ls->tx_head, &ls->tx_waiters);
    return RTC_OK;
}

/* The newest INIT round among rx slots [from, to), or NULL. */
static const rtc_lockstep_round *newest_init(rtc_lockstep *ls, uint32_t from, uint32_t to,
                                             uint32_t *slot)
{
    const rtc_lockstep_round *best = NULL;
    for (uint32_t s = from; s != to; s++)
        if (ls->rx[s % DEPTH].kind == RTC_LOCKSTEP_INIT) {
            best = &ls->rx[s % DEPTH];
            *slot = s;
        }
    return best;
}

/* Look for round (kind, idx) among the stored ones: 1 found (*out), 0 not yet, an error. */
static int find_round(rtc_lockstep *ls, int kind, uint32_t idx, const rtc_lockstep_round **out,
                      uint32_t *slot)
{
    uint32_t floor = atomic_load_explicit(&ls->rx_floor, memory_order_relaxed);
    uint32_t head = atomic_load_explicit(&ls->rx_head, memory_order_acquire);
    for (uint32_t s = floor; s != head; s++) {
        const rtc_lockstep_round *r = &ls->rx[s % DEPTH];
        if (r->kind == kind && r->idx == idx) {
            *out = r;
            *slot = s;
            return 1;
        }
        if (kind == RTC_LOCKSTEP_INIT && r->kind != RTC_LOCKSTEP_INIT) {
            /* the peer has left initialization: its last pass is what it ended with */
            *out = newest_init(ls, floor, s, slot);
            return 1;
        }
        if (r->kind == RTC_LOCKSTEP_END)
            return RTC_EIO;
    }
    return 0;
}

int rtc_lockstep_wait(rtc_lockstep *ls, int kind, uint32_t idx, const rtc_lockstep_round **out)
{
    int64_t deadline = 0;
    for (;;) {
        uint32_t ev = atomic_load_explicit(&ls->ev, memory_order_acquire), slot = 0;
        *out = NULL;
        int found = find_round(ls, kind, idx, out, &slot);
        if (found == 1) {
            if (*out && !ls->has_ret) {
                ls->ret_first = slot;
                ls->has_ret = true;
            }
            return RTC_OK;
        }
        if (found < 0) {
            rtc_lockstep_fail(ls, "the peer ended its run before this tick");
            return found;
        }
        if (rtc_lockstep_failure(ls))
            return RTC_EIO;
        if (wait_event(ls, ev, &deadline) != RTC_OK)
            return RTC_ETIME;
    }
}

void rtc_lockstep_release(rtc_lockstep *ls)
{
    if (!ls->has_ret)
        return;
    atomic_store_explicit(&ls->rx_floor, ls->ret_first + 1, memory_order_release);
    ls->has_ret = false;
}

const rtc_lockstep_round *rtc_lockstep_next_out(rtc_lockstep *ls)
{
    uint32_t tail = atomic_load_explicit(&ls->tx_tail, memory_order_relaxed);
    if (tail == atomic_load_explicit(&ls->tx_head, memory_order_acquire))
        return NULL;
    return &ls->tx[tail % DEPTH];
}

void rtc_lockstep_out_done(rtc_lockstep *ls)
{
    atomic_fetch_add_explicit(&ls->tx_tail, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&ls->tx_full, memory_order_seq_cst))
        signal_event(ls); /* only when the stepping thread waits for this slot */
}

uint32_t rtc_lockstep_committed(const rtc_lockstep *ls)
{
    return atomic_load_explicit(&((rtc_lockstep *)ls)->tx_head, memory_order_acquire);
}

uint32_t rtc_lockstep_wait_out(rtc_lockstep *ls, uint32_t seen, int64_t deadline_ns)
{
    return rtc_rt_wait_change_until(&ls->tx_head, &ls->tx_waiters, seen, 0, deadline_ns);
}

int rtc_lockstep_put(rtc_lockstep *ls, int kind, uint32_t idx, int64_t t_ns, int64_t sent_ns,
                     const double *v, size_t n)
{
    if (kind != RTC_LOCKSTEP_END && n != ls->n_in)
        return RTC_EINVAL;
    uint32_t head = atomic_load_explicit(&ls->rx_head, memory_order_relaxed);
    if (head - atomic_load_explicit(&ls->rx_floor, memory_order_acquire) >= DEPTH)
        return RTC_ELIMIT;
    rtc_lockstep_round *r = &ls->rx[head % DEPTH];
    r->kind = kind;
    r->idx = idx;
    r->t_ns = t_ns;
    r->sent_ns = sent_ns;
    if (kind != RTC_LOCKSTEP_END)
        memcpy(r->v, v, n * sizeof(double));
    atomic_store_explicit(&ls->rx_head, head + 1, memory_order_release);
    signal_event(ls);
    return RTC_OK;
}

void rtc_lockstep_fail(rtc_lockstep *ls, const char *why)
{
    const char *none = NULL;
    atomic_compare_exchange_strong_explicit(&ls->why, &none, why ? why : "failed",
                                            memory_order_acq_rel, memory_order_acquire);
    signal_event(ls);
}
