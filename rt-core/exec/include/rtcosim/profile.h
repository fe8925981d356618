/*
 * rtcosim/profile.h — what a system's ticks cost on this machine, measured: the input of
 * feasibility planning (rtcosim/plan.h, `rtcosim plan --realtime`, the check before
 * `rtcosim run --realtime` arms).
 *
 * A profile is a table with one row per paced tick of a profiling run:
 *
 *     k  wakeup_ns  step_ns  handoff_ns  unit_0 ... unit_{n-1}
 *
 * wakeup_ns is how late the tick woke after its deadline (-1 when the tick started late
 * because the previous one overran: that is no wake-up latency); step_ns the time in
 * rtc_system_step(); handoff_ns the executive's hand-off (recorder row, trace, the units'
 * bookkeeping); unit_i the wall time unit i worked in the tick — its do_step calls
 * (strong-coupling iterations add up; on a Jacobi worker too) or, for an I/O unit, its
 * refresh with the signal estimators — or -1 when the unit did no work in that tick.
 *
 * rtc_profile_run() makes one with the executive itself (rtcosim/exec.h): the same loop,
 * thread set-up (SCHED_FIFO where permitted, the run's priority and CPU, memory locked),
 * pacing and hand-off as a real-time run, bounded by a number of ticks and a wall-time
 * budget, so a unit slower than its period cannot make the profile take forever and a
 * unit that never returns from its step is named instead of waited for.
 */
#ifndef RTCOSIM_PROFILE_H
#define RTCOSIM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/recorder.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/system.h"

typedef struct rtc_profile rtc_profile;

/** Columns of a row (rtc_profile_row()); unit i is column RTC_PROFILE_UNIT0 + i. */
enum { RTC_PROFILE_WAKEUP = 0, RTC_PROFILE_STEP, RTC_PROFILE_HANDOFF, RTC_PROFILE_UNIT0 };

/** How the profiling run went: what a reader needs to judge the numbers. */
typedef struct rtc_profile_info {
    int64_t period_ns;     /**< pacing period of the profiling run */
    int64_t budget_ns;     /**< its wall-time budget (0: none) */
    double wall_s;         /**< how long it took */
    bool budget_hit;       /**< the budget ended it before its tick count */
    long hung_unit;        /**< a unit left inside its step when the budget ran out, -1 */
    char policy[16];       /**< "SCHED_FIFO" or "SCHED_OTHER" (the kernel's answer) */
    int priority, cpu;     /**< as granted; cpu -1: not pinned */
    bool memory_locked;    /**< mlockall succeeded */
    double loadavg;        /**< the higher 1-minute load average of start and end */
    int cpus;              /**< online CPUs */
    uint64_t dropped;      /**< ticks that did not fit the table (not in it) */
    uint64_t late_starts;  /**< ticks that began late after an overrun */
    int status;            /**< how the profiling run ended: RTC_OK, or a unit's error
                                (the rows before it are kept) */
} rtc_profile_info;

/**
 * A profile for @p n_units units with room for @p cap_ticks rows (allocated and touched
 * here, so filling it in the run phase never faults). Returns RTC_OK, RTC_EINVAL
 * (cap_ticks 0) or RTC_ENOMEM. RT-safe: no.
 */
int rtc_profile_new(size_t n_units, size_t cap_ticks, rtc_profile **out);

/** Free; NULL is a no-op. RT-safe: no. */
void rtc_profile_free(rtc_profile *p);

/**
 * The executive's call after each paced tick j: @p t = {deadline, woke, stepped, handed
 * off} (CLOCK_MONOTONIC ns); each unit's work from rtc_system_unit_work_ns(). A full table
 * counts the tick in info.dropped. RT-safe: yes. Thread: the RT thread.
 */
RTC_RT_SAFE void rtc_profile_add(rtc_profile *p, int64_t j, const int64_t t[4],
                                 const rtc_system *sys);

/**
 * Append one row read back from a file (rtcosim/plan.h): @p row holds
 * RTC_PROFILE_UNIT0 + n_units values. Returns RTC_OK or RTC_ELIMIT (table full).
 * RT-safe: yes.
 */
RTC_RT_SAFE int rtc_profile_append(rtc_profile *p, int64_t k, const int64_t *row);

/** Rows in the table. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_profile_ticks(const rtc_profile *p);
/** Units of each row. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_profile_units(const rtc_profile *p);
/** Row @p i (< rtc_profile_ticks(): RTC_PROFILE_UNIT0 + units values), *k its tick index
 *  (@p k may be NULL). RT-safe: yes. */
RTC_RT_SAFE const int64_t *rtc_profile_row(const rtc_profile *p, size_t i, int64_t *k);

/** The run's facts, writable by whoever fills the profile. RT-safe: yes. */
RTC_RT_SAFE rtc_profile_info *rtc_profile_info_of(rtc_profile *p);
/** The same, to read. RT-safe: yes. */
RTC_RT_SAFE const rtc_profile_info *rtc_profile_info_get(const rtc_profile *p);

/** A profiling run. */
typedef struct rtc_profile_opts {
    int64_t max_ticks;    /**< rows to measure (> 0) */
    int64_t budget_ns;    /**< wall-time budget (> 0) */
    int64_t period_ns;    /**< pacing period (> 0) */
    double rtf;           /**< the run's real-time factor (I/O units' time base; > 0) */
    int priority, cpu;    /**< as the real run: SCHED_FIFO priority (0: SCHED_OTHER), CPU
                               (-1: not pinned) */
    rtc_recorder *recorder; /**< rows go here as in the real run (NULL: none; non-lossless) */
    long decimation;      /**< a row every n-th tick (>= 1) */
    const rtc_logger *lg; /**< the run's messages (overruns are expected: pass a logger
                               that keeps errors only) */
    /** Called on the RT thread right before each step with its tick index (a replayed
     *  session's commands are applied here); must be RT-safe. NULL: none. */
    void (*before_step)(void *user, int64_t k);
    void *user;
} rtc_profile_opts;

/**
 * Profile @p sys (initialized, not yet stepped; it is stepped from its start) into @p p:
 * the executive paces it at o->period_ns, overrun policy skip (a late tick is measured and
 * the next one starts on a fresh deadline), until o->max_ticks ticks, the system's stop
 * time, or o->budget_ns of wall time — whichever comes first. Fills rtc_profile_info.
 *
 * Returns RTC_OK; RTC_ETIME when a unit was still inside its step when the budget and the
 * executive's grace (1 s) ran out: info.hung_unit names it, the RT thread is left there,
 * and the caller must free neither the system nor anything its units touch, and should
 * end the process; a unit's error (the run stops there: the rows so far are kept);
 * RTC_EINVAL (bad options, logged); RTC_ENOMEM. RT-safe: no. Thread: the main thread.
 */
int rtc_profile_run(rtc_system *sys, const rtc_profile_opts *o, rtc_profile *p);

#endif
