/*
 * Internals of feasibility planning (rtcosim/plan.h): the model built from a profile,
 * shared by plan.c (model, sampling, verdict) and plan_options.c (what to change).
 */
#ifndef RTC_PLAN_PRIV_H
#define RTC_PLAN_PRIV_H

#include "rtcosim/plan.h"

/* Phases of a hyperperiod enumerated for its patterns; beyond, the first ones are used. */
#define PLAN_MAX_PHASES 100000
/* Distinct patterns kept; further ones fold into the heaviest of them (noted). */
#define PLAN_MAX_PATTERNS 256
/* Draws over all patterns, and at least this many per pattern. */
#define PLAN_DRAWS 100000
#define PLAN_MIN_DRAWS 2000

/* The measured model of one system (see the header comment). */
typedef struct plan_model {
    const rtc_system *sys;
    size_t n;           /* units */
    int64_t tick_ns;
    bool *io;           /* I/O units: refreshed every tick on the RT thread */
    int64_t **x;        /* per unit: its work samples, sorted */
    size_t *nx;
    size_t nt;          /* profiled ticks */
    int64_t *e;         /* per profiled tick: the engine's work E */
    int64_t *w;         /* per profiled tick: wake-up latency, -1 invalid */
    int64_t *wv;        /* valid wake-ups, sorted */
    size_t nw;
    size_t np;          /* patterns */
    bool *due;          /* np × n: unit due in pattern */
    double *weight;     /* np: fraction of ticks */
    double *freq;       /* n: fraction of ticks the unit works in */
    bool folded;        /* more patterns than kept */
    bool truncated;     /* hyperperiod longer than the phases enumerated */
    int64_t hyper_ns;
    unsigned profile_workers;
} plan_model;

/* A structure to predict: threads and work changes (plan_predict). */
typedef struct plan_what {
    unsigned workers;
    const size_t *thread; /* per unit, NULL: rtc_system_worker_owner */
    const double *scale;  /* per unit, NULL: 1 */
    const bool *drop;     /* per unit, NULL: none */
    int64_t period_ns;
    double q;             /* percentile */
} plan_what;

/* What a prediction gives. */
typedef struct plan_result {
    rtc_plan_dist work, response, worst;
    int64_t worst_q;      /* the worst pattern's response at the percentile */
    size_t worst_pattern;
    double overrun_rate;
} plan_result;

int rtc__plan_model_init(plan_model *m, const rtc_system *sys, const rtc_profile *prof,
                         unsigned profile_workers);
void rtc__plan_model_clear(plan_model *m);
/* Sample the responses of @p w. Returns RTC_OK or RTC_ENOMEM. */
int rtc__plan_predict(const plan_model *m, const plan_what *w, plan_result *out);
/* The options of a plan that is not feasible (plan_options.c). */
void rtc__plan_options(rtc_plan *plan, const plan_model *m, const rtc_plan_opts *o);
/* Judge a response at the percentile and a thread load against the period. */
rtc_plan_verdict rtc__plan_judge(const rtc_plan *plan, int64_t response_ns, double headroom);

#endif
