/*
 * fmu-host internals shared by the FMI 3 units: the co-simulation unit (fmi3_cs.c) and the
 * Scheduled Execution unit (fmi3_se.c), which is the same instance record with a clock
 * schedule attached and its own instantiate / exit_init / do_step.
 */
#ifndef RTC_FMI3_PRIV_H
#define RTC_FMI3_PRIV_H

#include "fmu_priv.h"

typedef struct rtc_fmi3_sched rtc_fmi3_sched;

typedef struct fmi3_unit {
    rtc_unit unit;
    rtc_fmu *fmu;
    const rtc_fmi3_api *api;
    const rtc_logger *lg;
    fmi3Instance inst;
    char *name;
    rtc_unit_setup setup;
    bool event_mode;   /* instantiated with eventModeUsed */
    rtc_fmu_event_mode event_request; /* what the options asked for (rtc_fmu_unit_opts) */
    /* while instantiating with eventModeUsed on trial: the FMU's first message is kept
     * in probe_msg (quoted in the one warning if it refuses) instead of being logged */
    bool probing;
    bool early_return; /* instantiated with earlyReturnAllowed */
    bool fatal; /* after a Fatal status the standard allows no further call */
    bool me;    /* instantiated for Model Exchange (me_unit.c steps it) */
    size_t scratch_n; /* elements: every scalar of every variable */
    size_t *sizes;
    fmi3Binary *bins;
    rtc_fmi3_sched *se; /* Scheduled Execution: the clock schedule (fmi3_se.c), else NULL */
    /* last: large and off the step's path (the calls read the fields above) */
    char probe_msg[160];
    rtc__fmu_repeat rep;      /* the FMU's own messages: repeats counted (fmu_log.c) */
    const rtc_logger *fmu_lg; /* where they go: &rep.lg (or lg when it logs nothing) */
} fmi3_unit;

/* fmi3_cs.c: the pieces every FMI 3 unit shares (rtc_unit_ops signatures). */
void rtc__fmi3_log_message(fmi3InstanceEnvironment env, fmi3Status status,
                           fmi3String category, fmi3String message);
int rtc__fmi3_check(fmi3_unit *u, const char *fn, fmi3Status st);
/* The resource path FMI 3 passes (native, ending with a separator). */
void rtc__fmi3_resource_path(const fmi3_unit *u, char *buf, size_t cap);
int rtc__fmi3_enter_init(void *self);
int rtc__fmi3_set(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, const void *v,
                  size_t n);
int rtc__fmi3_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *v, size_t n);
int rtc__fmi3_terminate(void *self);
void rtc__fmi3_free(void *self);

/* fmi3_se.c: attach the clock schedule built from the model description and switch the
 * unit to the Scheduled Execution operations (at creation; may allocate). Refuses, with
 * one line naming the clock, what the schedule cannot run (see fmi3_se.c). */
int rtc__fmi3_se_attach(fmi3_unit *u);
void rtc__fmi3_se_free(rtc_fmi3_sched *se);

#endif
