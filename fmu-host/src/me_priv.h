/*
 * Model Exchange inside fmu-host: the per-version calls (fmi2_me.c, fmi3_me.c), the fixed-step
 * solvers (me_solver.c) and the unit that integrates an ME FMU over a communication step
 * (me_unit.c).
 *
 * An ME unit is a CS-style unit of fmi2_cs.c / fmi3_cs.c instantiated for Model Exchange
 * (it keeps set/get/init/state/terminate/free) wrapped by me_unit.c, whose do_step runs N
 * fixed solver substeps and handles time, state and step events. Everything the run needs is
 * allocated when the unit is instantiated (arm); do_step allocates nothing and its work is
 * bounded: stages per substep fixed by the method, at most RTC_ME_SEGMENTS events per
 * substep, RTC_ME_LOCATE_ITER localisation iterations per state event and RTC_ME_EVENT_ITER
 * event iterations (superdense microsteps) per event instant.
 */
#ifndef RTC_ME_PRIV_H
#define RTC_ME_PRIV_H

#include "fmu_priv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Most events handled inside one solver substep (each splits it). */
#define RTC_ME_SEGMENTS 8
/** Most Illinois iterations to locate one state event. */
#define RTC_ME_LOCATE_ITER 40
/** Most event iterations (UpdateDiscreteStates calls) at one instant. */
#define RTC_ME_EVENT_ITER 32

/** What one event iteration reports (fmi2EventInfo / fmi3UpdateDiscreteStates outputs). */
typedef struct rtc_me_event_info {
    bool again;              /* newDiscreteStatesNeeded / discreteStatesNeedUpdate */
    bool terminate;
    bool nominals_changed;
    bool values_changed;
    bool next_defined;
    double next_time;
} rtc_me_event_info;

/** The FMI instance and where its failures go. */
typedef struct rtc_me_call {
    void *inst;
    const void *api; /* rtc_fmi2_api or rtc_fmi3_api */
    const char *name;
    const rtc_logger *lg;
    bool *fatal;
    bool no_prior; /* noSetFMUStatePriorToCurrentPoint: the master never rolls back */
} rtc_me_call;

/** Per-version ME functions; each returns an rtc_status (failures logged once). */
typedef struct rtc_me_backend {
    int (*set_time)(const rtc_me_call *c, double t);
    int (*set_x)(const rtc_me_call *c, const double *x, size_t nx);
    int (*get_x)(const rtc_me_call *c, double *x, size_t nx);
    int (*get_dx)(const rtc_me_call *c, double *dx, size_t nx);
    int (*get_z)(const rtc_me_call *c, double *z, size_t nz);
    int (*get_nominals)(const rtc_me_call *c, double *nom, size_t nx);
    int (*enter_event)(const rtc_me_call *c);
    int (*update)(const rtc_me_call *c, rtc_me_event_info *ev);
    int (*enter_ct)(const rtc_me_call *c);
    int (*completed)(const rtc_me_call *c, bool *enter_event, bool *terminate);
    /** J·seed: unknowns = derivative vrs, knowns = state vrs. NULL member never; the unit
     *  calls it only when the FMU provides directional derivatives. */
    int (*dir_der)(const rtc_me_call *c, const uint32_t *unk, size_t nu, const uint32_t *kn,
                   size_t nk, const double *seed, double *out);
    /** Numbers of continuous states and event indicators of the instance. */
    int (*sizes)(const rtc_me_call *c, const rtc_model_desc *md, size_t *nx, size_t *nz);
} rtc_me_backend;

extern const rtc_me_backend rtc__fmi2_me_backend;
extern const rtc_me_backend rtc__fmi3_me_backend;

/* ---- me_solver.c ---- */

/** f(t, x) into dx. */
typedef int rtc_me_rhs_fn(void *ctx, double t, const double *x, double *dx);
/** J = df/dx at (t, x) with f(t, x) = fx already evaluated; row-major nx*nx. */
typedef int rtc_me_jac_fn(void *ctx, double t, const double *x, const double *fx, double *jac);

/** Work buffers of one solver, sized once for nx states. */
typedef struct rtc_me_work {
    size_t nx;
    double *k1, *k2, *k3, *k4, *tmp, *jac;
    size_t *piv;
    /** After RTC_EINVAL from the implicit method: the first non-finite Jacobian entry,
     *  row-major (row = derivative, column = state), and its value; SIZE_MAX when the
     *  matrix was finite but singular. */
    size_t bad_entry;
    double bad_value;
} rtc_me_work;

int rtc__me_work_init(rtc_me_work *w, size_t nx);
void rtc__me_work_clear(rtc_me_work *w);
/**
 * One step of method @p m from (t, x0) over h into x1 (x1 may not alias x0). The implicit
 * method solves (I - h J) d = h f(t, x0) by LU with partial pivoting, x1 = x0 + d.
 * Returns the first failing callback's status, or RTC_EINVAL when the implicit method
 * cannot solve: a Jacobian with a NaN or infinite entry (w->bad_entry, w->bad_value say
 * which), or a singular matrix (w->bad_entry SIZE_MAX).
 * RT-safe: yes (no allocation).
 */
int rtc__me_step(rtc_me_work *w, rtc_me_solver m, rtc_me_rhs_fn *f, rtc_me_jac_fn *jac,
                 void *ctx, double t, double h, const double *x0, double *x1);

/* ---- me_unit.c ---- */

/** Wrap @p inner (created for ME, not yet instantiated) into an ME unit per @p opt. On
 *  failure @p inner is freed too. */
int rtc__me_unit_new(rtc_fmu *fmu, rtc_unit *inner, const rtc_fmu_unit_opts *opt,
                     const rtc_logger *lg, rtc_unit **out);

#endif
