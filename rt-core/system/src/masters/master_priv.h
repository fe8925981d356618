/*
 * The one internal interface of the master strategies (rtcosim/system.h): each strategy is
 * one file of this folder holding a const rtc__master_ops, and rtc__masters[] in master.c
 * lists them (master.c also holds the frame of a tick, step_unit.c the stepping of one
 * unit that every strategy shares). rtc_system_init() picks the row once, from the
 * system's algorithm and its thread options (--workers, overrun policy substitute); every
 * tick then goes through that row's tick, so no strategy tests another's flags.
 *
 * Adding a master: write masters/NAME.c with `const rtc__master_ops rtc__master_NAME`, and
 * add its row to rtc__masters[] in master.c (the build takes every file of this folder).
 * Its name is then a value of --algorithm and of the annotation's algorithm attribute,
 * rtc_master_name() and rtc_master_parse() know it, and tests/unit/test_masters.c runs it.
 *
 * What a tick is (rtc__master_tick): the I/O units are refreshed, the row's tick steps the
 * units due at t = k·tick (each writes only its own "nxt" outputs), then the frame folds
 * the microsteps, advances k and publishes the outputs that became visible.
 */
#ifndef RTC_MASTER_PRIV_H
#define RTC_MASTER_PRIV_H

#include "../system_priv.h"

#include "rtcosim/time.h"

/* Which threads make the units' calls (each FMU instance is called from one thread only). */
typedef enum rtc__master_threads {
    RTC__ON_STEPPER,    /* the thread that calls rtc_system_step() */
    RTC__ON_WORKERS,    /* worker threads that own the units (--workers N) */
    RTC__ON_OWN_THREAD, /* one thread per unit (overrun policy substitute) */
} rtc__master_threads;

/* Work for one unit, run on the thread that owns the unit. */
typedef int (*rtc__unit_job)(rtc_system *sys, sys_unit *u, void *arg);

typedef struct rtc__master_ops {
    /* The algorithm this row runs, as --algorithm and algorithm="..." name it. Rows of one
     * algorithm differ only in threads; the algorithm's first row says sync_step/in_order. */
    const char *name;
    rtc__master_threads threads;
    bool sync_step; /* steps on the synchronization step H: it is required and the base
                       tick divides it */
    bool in_order;  /* steps the units in dependency order: each loop cut is reported */
    /* Load phase, after the buffers are sized and before the units are instantiated:
     * start threads, size the strategy's own buffers (sys->master_state). NULL: nothing.
     * On failure free is called and the system runs every job on the caller. */
    int (*arm)(rtc_system *sys);
    /* The strategy's part of the base tick at t: step the due units. RT-safe. */
    int (*tick)(rtc_system *sys, int64_t t);
    /* Run @p job for every unit on its owner thread; NULL: on the caller, in declaration
     * order. Returns the first unit's error. */
    int (*each)(rtc_system *sys, rtc__unit_job job, void *arg);
    /* Undo arm (also a partial one): join threads, free buffers. NULL: nothing. */
    void (*free)(rtc_system *sys);
} rtc__master_ops;

/* master.c: the table. A row's index is no rtc_master: algorithms are numbered by the order
 * in which their names first appear. */
extern const rtc__master_ops *const rtc__masters[];
extern const size_t rtc__n_masters;

/* The first row of algorithm @p m (its properties), or NULL. RT-safe. */
const rtc__master_ops *rtc__master_algorithm(rtc_master m);
/* Whether the system's settings name a row; if not, log why (the system file's path) and
 * return RTC_EINVAL. Called at load and by rtc_system_use_substitute(). */
int rtc__master_check(rtc_system *sys);
/* Pick the row for the system's settings and arm it (rtc_system_init). */
int rtc__master_arm(rtc_system *sys);
/* Run @p job for every unit on its owner thread (the armed row's each, or the caller). */
int rtc__master_each(rtc_system *sys, rtc__unit_job job, void *arg);
/* One base tick (rtc_system_step). RT-safe. */
int rtc__master_tick(rtc_system *sys);
/* Up to @p n ticks (rtc_system_step_n): returns after a tick that failed, that ended the
 * run or a unit's simulation, or that found a non-finite value. RT-safe. */
int rtc__master_ticks(rtc_system *sys, int64_t n);
/* Undo rtc__master_arm (rtc_system_free). */
void rtc__master_free(rtc_system *sys);

/* ---- what the strategies share (step_unit.c) ---- */

/* Does unit u start a step at t? I/O units never step; the last step must end by the stop
 * (a single FMU that can vary its step takes a shorter one to reach it: short_last). */
static inline bool rtc__master_due(const rtc_system *sys, const sys_unit *u, int64_t t)
{
    /* a unit stepping at the base tick is due at every tick: no 64-bit division */
    return !u->io && (u->step_ns == sys->tick_ns || t % u->step_ns == 0) &&
           (t + u->step_ns <= sys->stop_ns || (sys->short_last && t < sys->stop_ns));
}

/* The length of u's step from t: its step, or what is left to the stop (short_last). */
static inline int64_t rtc__master_step_len(const rtc_system *sys, const sys_unit *u, int64_t t)
{
    return t + u->step_ns <= sys->stop_ns ? u->step_ns : sys->stop_ns - t;
}

/* The unit clock (rtc_system_set_unit_clock): @p ns more work of @p u in this tick. */
static inline void rtc__master_add_work(sys_unit *u, int64_t ns)
{
    u->work_ns = (u->work_ns < 0 ? 0 : u->work_ns) + ns;
}

/* Count the events a unit's step reported (on the thread that stepped it). RT-safe. */
void rtc__master_count_events(sys_unit *u, const rtc_step_result *res);
/* step_unit.c, the parts of a unit's step that are not on every step's path. RT-safe. */
/* RTC_ESTALE (logged) when an input's estimator reported FAULT (the safe-state path). */
int rtc__master_check_faults(rtc_system *sys, const sys_unit *u);
/* do_step between the unit timer's and the unit clock's marks (rtc_system_set_unit_timer,
 * rtc_system_set_unit_clock). */
int rtc__master_measured_step(rtc_system *sys, sys_unit *u, int64_t t, int64_t h,
                              rtc_step_result *res);
/* The unit ended the simulation in its step from t (length h): logged; its outputs where
 * it ended kept for the frame to publish. Returns RTC_ETERMINATED or a fetch's error. */
int rtc__master_step_ended(rtc_system *sys, sys_unit *u, int64_t t, int64_t h,
                           const rtc_step_result *res);

/*
 * Set u's inputs, step it over [t, t + h], fetch its outputs for t + h into nxt. Inline: it
 * runs for every unit-step, and every check that can be resolved before the step is one
 * test of a field set at init (a unit without estimated inputs has no faults to look at,
 * one without connected inputs sets nothing, one whose outputs nobody reads gets nothing,
 * a run that measures no unit calls do_step directly). RT-safe.
 */
static inline int rtc__master_step_unit(rtc_system *sys, sys_unit *u, int64_t t)
{
    int rc = u->est_in ? rtc__master_check_faults(sys, u) : RTC_OK;
    if (rc == RTC_OK && u->n_set)
        rc = rtc__sys_set_inputs(sys, u);
    if (rc != RTC_OK)
        return rc;
    rtc_step_result res = {0};
    int64_t h = rtc__master_step_len(sys, u, t);
    if (sys->unit_timer || sys->unit_clock)
        rc = rtc__master_measured_step(sys, u, t, h, &res);
    else
        rc = u->unit->ops->do_step(u->unit->self, rtc_time_to_s(sys->start_ns + t),
                                   rtc_time_to_s(h), &res);
    if (rc != RTC_OK)
        return rc;
    if (res.events | res.early_returns | res.microsteps)
        rtc__master_count_events(u, &res);
    if (res.outcome != RTC_STEP_DONE)
        return rtc__master_step_ended(sys, u, t, h, &res);
    rc = u->n_get ? rtc__sys_fetch(sys, u, true) : RTC_OK; /* its get calls */
    u->t_nxt_ns = t + h;
    u->has_nxt = true;
    return rc;
}

#endif
