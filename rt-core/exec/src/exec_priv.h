/*
 * Internals of the real-time executive (rtcosim/exec.h), shared by exec.c (arming, the
 * RT loop, control), exec_threads.c (monitor, watchdog, run) and exec_report.c
 * (timing.json, histogram.txt).
 *
 * Ownership of the fields during a run:
 *   RT thread writes    counters (_Atomic, relaxed single-writer stores: readers only
 *                       need each value whole), histograms, the trace/rtlog rings
 *                       (producer side), step_begin_ns / cur_unit (watchdog), paused;
 *   any thread writes   the control requests ctl_* (the RT thread reads them with
 *                       acquire at step boundaries);
 *   monitor thread      the rings' consumer side and the trace file;
 *   main thread         everything else (arming, joining, safe callbacks).
 */
#ifndef RTC_EXEC_PRIV_H
#define RTC_EXEC_PRIV_H

#include "rtcosim/driver.h"
#include "rtcosim/exec.h"
#include "rtcosim/ring.h"
#include "rtcosim/rtlog.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>

/* Record of the latency trace ring (one per paced step). */
typedef struct trace_rec {
    int64_t k, wakeup_ns, step_ns;
} trace_rec;

/* rtlog code of a non-finite value (a: tick; b: event index in the system's tracker);
 * a user code so the engine's list in rtlog.h stays as it is */
#define EXEC_RTLOG_NONFINITE (RTC_RTLOG_USER + 8)

/* Where the RT thread is, for a stop that must not wait forever for a hung unit: the RT
 * thread moves IDLE → IN_STEP → IDLE around rtc_system_step(); the main thread may move
 * IN_STEP → ABANDONED once the grace is over. Both moves are CAS, so exactly one side
 * wins: either the RT thread is out of the units (the main thread waits for it) or it
 * is abandoned (and parks forever when it comes back, touching nothing). */
enum { RT_IDLE = 0, RT_IN_STEP, RT_ABANDONED };

/* Time bases kept for timing.json (a run re-anchors at each skip and resume). */
#define RTC__EXEC_TIME_BASES 64

/* Stop request encoding in ctl_stop: 0 none; reason | signo << 8. */
#define STOP_REQ(reason, signo) ((int)(reason) | ((signo) << 8))

struct rtc_exec {
    rtc_system *sys;
    rtc_exec_options o;
    int64_t period_ns;
    int64_t t0_agreed;  /* start_at's instant of logical 0 (0: one period after the start) */
    const rtc_logger *lg;

    /* telemetry (RT thread writes) */
    rtc_hist *h_wake, *h_step, *h_handoff, *h_slack, *h_busy;
    rtc_hist **h_unit;          /* n_units, NULL without unit timing */
    size_t n_units;
    rtc_ushist *lat_us;         /* wake-up latency in 1-µs buckets (histogram.txt) */
    _Atomic uint64_t steps, overruns, max_consec, skipped;
    _Atomic int64_t max_late, gap_ns, sim_ns;
    /* time bases: from step from_tick on, logical time t = (CLOCK_MONOTONIC − t0)·rtf;
     * the RT thread appends one at the start and at every re-anchor (skip, resume) and
     * publishes the count with release; beyond the array they are only counted */
    struct {
        int64_t from_tick, t0_mono_ns;
    } bases[RTC__EXEC_TIME_BASES];
    _Atomic uint32_t n_bases;
    _Atomic long minflt, majflt;
    _Atomic uint64_t rows_dropped, trace_dropped;

    /* per-tick unit timing (RT thread only) */
    int64_t unit_t0, tick_unit_max_ns;
    long tick_unit_max;

    /* control (any thread → RT thread) */
    _Atomic bool ctl_pause;
    _Atomic uint32_t ctl_step;  /* single steps requested so far */
    _Atomic int ctl_stop;       /* STOP_REQ() or 0 */
    _Atomic bool paused;        /* RT thread is parked */
    _Atomic uint32_t kick, kick_waiters; /* rtc_exec_kick(): ends the paused loop's nap */

    /* watchdog view (RT thread publishes) */
    _Atomic int64_t step_begin_ns; /* wall time the current tick began, 0 between ticks */
    _Atomic int64_t cur_k;
    _Atomic long cur_unit;      /* unit in do_step, -1 none */

    /* stop path: the main thread sleeps on wake; the RT thread posts it when its loop
     * ends, stop requests (the signal handler too: sem_post is async-signal-safe) post
     * it so that the grace can begin */
    sem_t wake;
    _Atomic bool rt_done;
    _Atomic int rt_phase;       /* RT_IDLE / RT_IN_STEP / RT_ABANDONED */
    long hung_unit;             /* abandoned: the unit in its do_step, -1 unknown */
    size_t nf_seen;             /* RT thread: non-finite events already pushed */

    /* the link contract (exec_links.c): the I/O units' links, collected at arm */
    rtc_link **links;
    size_t *link_unit;          /* the system's unit index of each */
    size_t n_links;
    long stop_unit;             /* RTC_EXEC_LINK: the unit (-1: none) */
    int64_t stop_lost_ns;       /* RTC_EXEC_LINK: when it was lost (0: never up) */

    /* outcome */
    _Atomic int stop;           /* rtc_exec_stop */
    int stop_status, stop_signal;
    atomic_flag safe_done;
    rtc_exec_safe_fn safe[RTC_EXEC_MAX_SAFE];
    void *safe_user[RTC_EXEC_MAX_SAFE];
    size_t n_safe;

    /* threads and rings */
    rtc_rtlog *log;
    rtc_ring *trace;
    FILE *trace_file;
    char *trace_path_copy;
    rtc_rt_thread *rt;
    rtc_rt_thread *mon, *wd;    /* monitor, watchdog (NULL: not running) */
    bool ran;
    _Atomic bool mon_stop;
    pthread_barrier_t start;
    rtc_rt_info info;
    const char *policy;
    int priority;
};

/* exec.c */
void *rtc__exec_rt_main(void *arg);
void rtc__exec_apply_safe(rtc_exec *ex);
void rtc__exec_install_timer(rtc_exec *ex);

/* exec_links.c */
int rtc__exec_links_arm(rtc_exec *ex);
void rtc__exec_links_free(rtc_exec *ex);
/* Before t0 (main thread): wait for the required links up to their connect deadlines.
 * false: the run must not start (a link not up in time: RTC_EXEC_LINK; or a stop
 * request or signal meanwhile), the stop reason set. */
bool rtc__exec_links_ready(rtc_exec *ex);
/* At a tick boundary (RT thread, atomics only): true when a link's loss policy stops the
 * run, with its unit and when it was lost. */
bool rtc__exec_links_lost(rtc_exec *ex, int64_t now, long *unit, int64_t *lost);

/* exec_threads.c */
void *rtc__exec_monitor_main(void *arg);
void *rtc__exec_watchdog_main(void *arg);
void rtc__exec_block_signals(void);

#endif
