/*
 * rtcosim/lockstep.h — the lock-step channel between an I/O unit and its driver.
 *
 * An I/O unit normally meets its driver through per-signal mailboxes: latest values, never
 * waiting (rtcosim/mailbox.h). A link that must give the same results as a one-process run
 * (a node bridge in a fast, lock-step run: DESIGN.md T3) needs more: every value that
 * crosses belongs to one numbered round, and the stepping thread waits for the peer's round
 * before it goes on. This channel carries those rounds. The I/O unit (rtcosim/io_unit.h)
 * makes one per I/O component and hands it to the driver in rtc_driver_config.lockstep; a
 * driver that runs lock-step enables it in open(); any other leaves it off and the unit
 * uses mailboxes as always.
 *
 * A round is the values of one direction at one point of the run: kind INIT (pass p of the
 * coupling at initialization), TICK (the values visible at t_k, sent before tick k steps)
 * or END; its index is p or k. Values are doubles in signal order: value i of an outgoing
 * round is the unit's i-th signal to the bench, value i of an incoming round its i-th
 * signal from the bench.
 *
 *   stepping thread (RT)                         driver's threads
 *   rtc_lockstep_stage()[i] = x    ...
 *   rtc_lockstep_commit(kind, idx, t)  --tx-->   rtc_lockstep_next_out() .. write .. _out_done()
 *   rtc_lockstep_wait(kind, idx)      <--rx--   rtc_lockstep_put(kind, idx, t, values)
 *   rtc_lockstep_in(round)[i]
 *
 * Both directions are single-producer single-consumer rings of RTC_LOCKSTEP_DEPTH rounds,
 * published with release/acquire counters; a side waits on a futex (rtc_rt_wait_change),
 * never on a lock. The stepping thread blocks only in rtc_lockstep_wait() and, when the
 * driver has not sent RTC_LOCKSTEP_DEPTH rounds yet, in rtc_lockstep_commit(): lock-step
 * runs are fast runs, where waiting for the peer is the point. The wait is bounded by the
 * driver's wait time (its loss policy); the driver ends every wait at once with
 * rtc_lockstep_fail().
 */
#ifndef RTCOSIM_LOCKSTEP_H
#define RTCOSIM_LOCKSTEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

/** Rounds each direction holds: how far one side may run ahead of the other. A lock-step
 *  peer is at most two rounds ahead (DESIGN.md T3); the rest is margin. */
#define RTC_LOCKSTEP_DEPTH 16

/** A side that sends no values (n_out 0: its TICK rounds only say how far it is) commits
 *  only the TICK rounds whose index is a multiple of this, and a tick of the other side,
 *  which reads nothing (rtc_lockstep_tick_ahead -1), waits only at those indices, for the
 *  round this many back: the two stay within RTC_LOCKSTEP_DEPTH of each other with a
 *  quarter of the samples and wake-ups of a round every tick. */
#define RTC_LOCKSTEP_PACE 4

/** What a round is. */
typedef enum rtc_lockstep_kind {
    RTC_LOCKSTEP_INIT = 0, /**< pass idx of the coupling at initialization */
    RTC_LOCKSTEP_TICK = 1, /**< the values visible at t_k (idx = k), before tick k steps */
    RTC_LOCKSTEP_END = 2,  /**< the peer ended its run (no values) */
} rtc_lockstep_kind;

/** One round as the channel holds it. */
typedef struct rtc_lockstep_round {
    int kind;         /**< rtc_lockstep_kind */
    uint32_t idx;     /**< pass or tick index */
    int64_t t_ns;     /**< logical time of the round (ns from the start) */
    int64_t sent_ns;  /**< incoming: the sender's source timestamp (CLOCK_REALTIME ns) */
    double *v;        /**< n_out or n_in values */
} rtc_lockstep_round;

typedef struct rtc_lockstep rtc_lockstep;

/**
 * A channel for @p n_out values to the bench and @p n_in from it per round, disabled.
 * Returns RTC_OK, RTC_ENOMEM. RT-safe: no (allocates: load phase). Thread: any.
 */
int rtc_lockstep_new(size_t n_out, size_t n_in, rtc_lockstep **out);

/** Free the channel; NULL is a no-op. Neither side may use it any more. RT-safe: no. */
void rtc_lockstep_free(rtc_lockstep *ls);

/**
 * The driver, in open(): run this link lock-step. @p in_ahead[i] (0 or 1; NULL: all 0) is
 * how many rounds ahead of the tick the i-th incoming value is taken: 0 for a value the
 * peer made before this tick (Jacobi, or a Gauss-Seidel source later in the order), 1 for
 * one it makes in this tick (a Gauss-Seidel source earlier in the order: the peer steps
 * first). @p wait_ns bounds every wait of the stepping thread (> 0).
 * Returns RTC_OK, RTC_EINVAL. RT-safe: no. Thread: the driver's open().
 */
int rtc_lockstep_enable(rtc_lockstep *ls, const uint8_t *in_ahead, int64_t wait_ns);

/**
 * The driver, in open(): exchange rounds during initialization only (its INIT passes), the
 * values through the mailboxes from the first tick on: a link that must never wait while
 * running (a node bridge in a real-time run) still starts from the coupled initial state
 * a one-process run has. @p wait_ns bounds each wait of the initialization (> 0).
 * Returns RTC_OK, RTC_EINVAL. RT-safe: no. Thread: the driver's open().
 */
int rtc_lockstep_enable_init(rtc_lockstep *ls, int64_t wait_ns);

/** True when the channel carries the initialization only (rtc_lockstep_enable_init).
 *  RT-safe: yes. */
RTC_RT_SAFE bool rtc_lockstep_init_only(const rtc_lockstep *ls);

/** True when a driver enabled the channel. RT-safe: yes. Thread: any, after open(). */
RTC_RT_SAFE bool rtc_lockstep_enabled(const rtc_lockstep *ls);

/** Values per outgoing round. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_lockstep_n_out(const rtc_lockstep *ls);
/** Values per incoming round. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_lockstep_n_in(const rtc_lockstep *ls);

/** How many rounds ahead incoming value @p i is taken (rtc_lockstep_enable). RT-safe: yes. */
RTC_RT_SAFE unsigned rtc_lockstep_ahead(const rtc_lockstep *ls, size_t i);

/** The round a tick waits for: the largest ahead of the incoming values, or -1 when
 *  nothing comes in (the tick then only keeps the peer within one round). RT-safe: yes. */
RTC_RT_SAFE int rtc_lockstep_tick_ahead(const rtc_lockstep *ls);

/* ---- the stepping thread ---- */

/** The next outgoing round's values (n_out doubles), to be set before rtc_lockstep_commit();
 *  a value not set keeps the previous round's. RT-safe: yes. Thread: the stepping thread. */
RTC_RT_SAFE double *rtc_lockstep_stage(rtc_lockstep *ls);

/**
 * Hand the staged values to the driver as round (@p kind, @p idx) at logical time @p t_ns.
 * Waits (futex) only while the driver still holds RTC_LOCKSTEP_DEPTH unsent rounds.
 * Returns RTC_OK, RTC_EIO (the driver failed: rtc_lockstep_fail), RTC_ETIME (no room
 * within the wait time). RT-safe: yes (futex only). Thread: the stepping thread.
 */
RTC_RT_SAFE int rtc_lockstep_commit(rtc_lockstep *ls, int kind, uint32_t idx, int64_t t_ns);

/**
 * Wait for the peer's round (@p kind, @p idx) and return it in *@p out (valid until the next
 * rtc_lockstep_wait or _release). An END round of the peer, or a round of a later kind
 * (the peer ticks while this side still initializes), ends an INIT wait with the newest
 * INIT round received (*@p out NULL when there was none).
 * Returns RTC_OK; RTC_ETIME (not within the wait time); RTC_EIO (the driver failed, or the
 * peer ended before the round: rtc_lockstep_failure says why).
 * RT-safe: yes (futex only). Thread: the stepping thread.
 */
RTC_RT_SAFE int rtc_lockstep_wait(rtc_lockstep *ls, int kind, uint32_t idx,
                                  const rtc_lockstep_round **out);

/** Every incoming round older than the last one rtc_lockstep_wait returned may be
 *  dropped: call once per tick after the values were read. RT-safe: yes. */
RTC_RT_SAFE void rtc_lockstep_release(rtc_lockstep *ls);

/* ---- the driver ---- */

/** The oldest committed round not sent yet, or NULL. RT-safe: yes. Thread: the driver's
 *  sending thread (one). */
RTC_RT_SAFE const rtc_lockstep_round *rtc_lockstep_next_out(rtc_lockstep *ls);

/** The round rtc_lockstep_next_out() returned is sent: its slot is free again.
 *  RT-safe: yes. Thread: the sending thread. */
RTC_RT_SAFE void rtc_lockstep_out_done(rtc_lockstep *ls);

/** Wait until a round is committed past @p seen (rounds committed so far, returned) or
 *  @p deadline_ns (CLOCK_MONOTONIC) passes. RT-safe: no (blocks). Thread: sending thread. */
uint32_t rtc_lockstep_wait_out(rtc_lockstep *ls, uint32_t seen, int64_t deadline_ns);

/** Rounds committed so far (the count rtc_lockstep_wait_out takes). RT-safe: yes. */
RTC_RT_SAFE uint32_t rtc_lockstep_committed(const rtc_lockstep *ls);

/**
 * Store the peer's round (@p kind, @p idx, @p t_ns, @p sent_ns, @p n values; n must be
 * n_in, END rounds carry none) and wake the stepping thread. Rounds must come in the
 * peer's order. Returns RTC_OK; RTC_ELIMIT when the stepping thread still needs every
 * slot (the peer ran RTC_LOCKSTEP_DEPTH rounds ahead: a protocol error); RTC_EINVAL (n).
 * RT-safe: yes. Thread: the driver's receiving thread (one).
 */
RTC_RT_SAFE int rtc_lockstep_put(rtc_lockstep *ls, int kind, uint32_t idx, int64_t t_ns,
                                 int64_t sent_ns, const double *v, size_t n);

/** End every wait of the stepping thread, now and later, with RTC_EIO; @p why (a static
 *  text, e.g. "node B left") is kept for rtc_lockstep_failure. The first call wins.
 *  RT-safe: yes. Thread: any driver thread. */
RTC_RT_SAFE void rtc_lockstep_fail(rtc_lockstep *ls, const char *why);

/** Why the channel failed (NULL: it did not). RT-safe: yes. Thread: any. */
RTC_RT_SAFE const char *rtc_lockstep_failure(const rtc_lockstep *ls);

/** The wait time the driver set (0 while disabled). RT-safe: yes. */
RTC_RT_SAFE int64_t rtc_lockstep_wait_ns(const rtc_lockstep *ls);

#endif
