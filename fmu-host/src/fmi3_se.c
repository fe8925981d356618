/*
 * FMI 3.0 Scheduled Execution units: an SE FMU's model partitions run as activations on the
 * engine's tick schedule.
 *
 * The unit steps like any other: the master calls do_step(t, h) at every tick of its
 * communication step h, on the RT thread at the tick's deadline in a real-time run (or at
 * once in fast mode — same activations, same results). do_step activates the input clocks
 * whose ticks fall at t, in priority order (smaller priority first, ties by value
 * reference), each with fmi3ActivateModelPartition(clock, t); outputs read after the step
 * are those of the activations at t and become visible at t + h like every unit's outputs.
 *
 * Clocks (DESIGN: time is integer ns, so a tick is either on the grid or refused):
 *   periodic (constant, fixed, tunable with an interval): ticks at shift + k·interval;
 *       interval and shift must be multiples of h (refused at the first step otherwise);
 *   countdown: scheduled when the FMU reports a Changed interval (GetIntervalDecimal after
 *       its clockUpdate): at activation time + interval, which must be on the grid; an
 *       interval 0 ticks in the same instant, after the partitions already run;
 *   triggered input clocks (aperiodic): ticked by the importer — a set(RTC_TYPE_CLOCK) of
 *       true before the step activates them at t: an SSP Clock connection from an output
 *       clock that ticked in the step before (visible one step later like any output), or
 *       the API;
 *   changing: not supported, refused at creation.
 * Output clocks are read with GetClock after the clockUpdate callback and latched for get()
 * until the next step. Each activation is counted as an event of the unit (summary), and
 * the number at one instant as its microsteps.
 *
 * Preemption: partitions of one FMU run one after another on the thread that steps the
 * unit, in priority order and to completion, so no partition ever preempts another. The
 * lockPreemption/unlockPreemption callbacks are a real guard all the same: they count the
 * lock depth of the partition running on this thread (thread-local, the callbacks carry no
 * instance argument), no activation starts while it is non-zero, and a partition that
 * returns with the lock held or unlocks more than it locked fails the step. No lock, no
 * allocation, no syscall: RT-safe.
 */
#include "fmi3_priv.h"

#include "rtcosim/status.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct se_clock {
    const rtc_var *var;
    int64_t period_ns; /* periodic clocks; 0 otherwise */
    int64_t next_ns;   /* next tick, ns from the start; -1: none scheduled */
    bool pending;      /* triggered: set by the importer for the next step */
    bool ran;          /* activated at the current instant */
    bool countdown;
} se_clock;

struct rtc_fmi3_sched {
    se_clock *in;  /* input clocks */
    size_t n_in;
    uint32_t *out_vr; /* output clocks */
    bool *out_on;     /* ticked in the last step (latched for get) */
    size_t n_out;
    uint32_t *cd_vr;  /* countdown clocks (GetIntervalDecimal scratch) */
    size_t *cd_idx;
    double *cd_iv;
    fmi3IntervalQualifier *cd_q;
    size_t n_cd;
    bool update;      /* clockUpdate called since the last look */
    int lock_depth;   /* lockPreemption depth of the running partition */
    int64_t h_ns;     /* the communication step, fixed at the first step */
    uint64_t out_ticks;
};

/* The unit whose partition runs on this thread (the callbacks carry no instance). */
static _Thread_local fmi3_unit *running;

static void clock_update(fmi3InstanceEnvironment env)
{
    fmi3_unit *u = env;
    if (u && u->se)
        u->se->update = true;
}

static void lock_preemption(void)
{
    if (running)
        running->se->lock_depth++;
}

static void unlock_preemption(void)
{
    if (running)
        running->se->lock_depth--;
}

static int u_instantiate(void *self, const rtc_unit_setup *setup)
{
    fmi3_unit *u = self;
    char res[PATH_MAX + 64];
    rtc__fmi3_resource_path(u, res, sizeof res);
    u->setup = *setup;
    u->inst = u->api->InstantiateScheduledExecution(
        u->name, u->fmu->md->guid, res, fmi3False, setup->logging_on ? fmi3True : fmi3False, u,
        rtc__fmi3_log_message, clock_update, lock_preemption, unlock_preemption);
    if (!u->inst) {
        rtc_log(u->lg, RTC_LOG_ERROR,
                "%s: fmi3InstantiateScheduledExecution failed (returned NULL)", u->name);
        return RTC_EFMU;
    }
    return RTC_OK;
}

/* Countdown clocks with a Changed interval: schedule them relative to t_ns. */
static int poll_countdowns(fmi3_unit *u, int64_t t_ns)
{
    rtc_fmi3_sched *se = u->se;
    if (!se->n_cd)
        return RTC_OK;
    int rc = rtc__fmi3_check(u, "fmi3GetIntervalDecimal",
                             u->api->GetIntervalDecimal(u->inst, se->cd_vr, se->n_cd, se->cd_iv,
                                                        se->cd_q));
    for (size_t i = 0; rc == RTC_OK && i < se->n_cd; i++) {
        if (se->cd_q[i] != fmi3IntervalChanged)
            continue;
        se_clock *c = &se->in[se->cd_idx[i]];
        double iv = se->cd_iv[i];
        int64_t ns = (int64_t)llround(iv * 1e9);
        if (!(iv >= 0) || fabs(iv * 1e9 - (double)ns) > 1e-3 ||
            (se->h_ns && (ns % se->h_ns) != 0)) {
            rtc_log(u->lg, RTC_LOG_ERROR, "%s: countdown clock %s: interval %.9g s is not a "
                    "whole number of communication steps", u->name, c->var->name, iv);
            return RTC_EUNSUPPORTED;
        }
        c->next_ns = t_ns + ns;
    }
    return rc;
}

/* After a partition called clockUpdate: output clocks and countdown intervals. */
static int poll_clocks(fmi3_unit *u, int64_t t_ns)
{
    rtc_fmi3_sched *se = u->se;
    if (!se->update)
        return RTC_OK;
    se->update = false;
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < se->n_out; i++) {
        fmi3Clock on = fmi3ClockInactive;
        rc = rtc__fmi3_check(u, "fmi3GetClock", u->api->GetClock(u->inst, &se->out_vr[i], 1, &on));
        if (on) {
            se->out_on[i] = true;
            se->out_ticks++;
        }
    }
    return rc == RTC_OK ? poll_countdowns(u, t_ns) : rc;
}

static int u_exit_init(void *self)
{
    fmi3_unit *u = self;
    int rc = rtc__fmi3_check(u, "fmi3ExitInitializationMode",
                             u->api->ExitInitializationMode(u->inst));
    /* countdown clocks may be known from the start */
    return rc == RTC_OK ? poll_countdowns(u, 0) : rc;
}

/* The due clock of highest priority not yet run at t_ns, or -1. */
static long next_due(const rtc_fmi3_sched *se, int64_t t_ns)
{
    long best = -1;
    for (size_t i = 0; i < se->n_in; i++) {
        const se_clock *c = &se->in[i];
        if (c->ran || !(c->pending || c->next_ns == t_ns))
            continue;
        const rtc_clock_info *a = &c->var->clock, *b = best < 0 ? NULL : &se->in[best].var->clock;
        if (!b || a->priority < b->priority ||
            (a->priority == b->priority && c->var->vr < se->in[best].var->vr))
            best = (long)i;
    }
    return best;
}

/* Run one partition under the preemption guard. */
static int activate(fmi3_unit *u, se_clock *c, double t_s)
{
    rtc_fmi3_sched *se = u->se;
    if (se->lock_depth != 0)
        return RTC_ESTATE; /* never: partitions run to completion one after another */
    running = u;
    int rc = rtc__fmi3_check(u, "fmi3ActivateModelPartition",
                             u->api->ActivateModelPartition(u->inst, c->var->vr, t_s));
    running = NULL;
    if (rc == RTC_OK && se->lock_depth != 0) {
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: the partition of clock %s returned with "
                "lockPreemption/unlockPreemption unbalanced (depth %d)", u->name,
                c->var->name, se->lock_depth);
        se->lock_depth = 0;
        rc = RTC_EFMU;
    }
    return rc;
}

/* The first step fixes h: every periodic clock must tick on the grid. */
static int check_grid(fmi3_unit *u, int64_t h_ns)
{
    rtc_fmi3_sched *se = u->se;
    if (se->h_ns) {
        if (h_ns == se->h_ns)
            return RTC_OK;
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: a Scheduled Execution unit steps with one fixed "
                "step (%.9g s, now %.9g s)", u->name, (double)se->h_ns / 1e9, (double)h_ns / 1e9);
        return RTC_EUNSUPPORTED;
    }
    se->h_ns = h_ns;
    for (size_t i = 0; i < se->n_in; i++) {
        const se_clock *c = &se->in[i];
        if (c->period_ns && (c->period_ns % h_ns || c->var->clock.shift_ns % h_ns)) {
            rtc_log(u->lg, RTC_LOG_ERROR, "%s: clock %s: interval %.9g s (shift %.9g s) is not "
                    "a multiple of the communication step %.9g s; choose a step that divides "
                    "every clock interval", u->name, c->var->name, (double)c->period_ns / 1e9,
                    (double)c->var->clock.shift_ns / 1e9, (double)h_ns / 1e9);
            return RTC_EUNSUPPORTED;
        }
    }
    return RTC_OK;
}

static int u_do_step(void *self, double t_s, double h_s, rtc_step_result *res)
{
    fmi3_unit *u = self;
    rtc_fmi3_sched *se = u->se;
    int64_t t_ns = llround((t_s - u->setup.start_time_s) * 1e9), h_ns = llround(h_s * 1e9);
    int rc = check_grid(u, h_ns);
    *res = (rtc_step_result){.outcome = RTC_STEP_DONE, .last_time_s = t_s + h_s};
    memset(se->out_on, 0, se->n_out * sizeof *se->out_on);
    for (size_t i = 0; i < se->n_in; i++)
        se->in[i].ran = false;
    for (long i; rc == RTC_OK && (i = next_due(se, t_ns)) >= 0;) {
        se_clock *c = &se->in[i];
        rc = activate(u, c, t_s);
        c->ran = true;
        c->pending = false;
        if (c->period_ns)
            c->next_ns += c->period_ns;
        else if (c->next_ns == t_ns)
            c->next_ns = -1; /* countdown: until the FMU sets a new interval */
        res->events++;
        if (rc == RTC_OK)
            rc = poll_clocks(u, t_ns);
    }
    res->microsteps = res->events;
    return rc;
}

/* set/get: clocks are the schedule's (input: trigger, output: latched tick), the rest the
 * FMU's values. */
static se_clock *input_clock(rtc_fmi3_sched *se, uint32_t vr)
{
    for (size_t i = 0; i < se->n_in; i++)
        if (se->in[i].var->vr == vr)
            return &se->in[i];
    return NULL;
}

static int u_set(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, const void *v,
                 size_t n)
{
    fmi3_unit *u = self;
    if (type != RTC_TYPE_CLOCK)
        return rtc__fmi3_set(self, type, vr, n_vr, v, n);
    for (size_t i = 0; i < n_vr; i++) {
        se_clock *c = input_clock(u->se, vr[i]);
        if (!c || c->period_ns || c->countdown)
            return RTC_EINVAL; /* only triggered input clocks are ticked from outside */
        c->pending = c->pending || ((const bool *)v)[i];
    }
    return RTC_OK;
}

static int u_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *v, size_t n)
{
    fmi3_unit *u = self;
    rtc_fmi3_sched *se = u->se;
    if (type != RTC_TYPE_CLOCK)
        return rtc__fmi3_get(self, type, vr, n_vr, v, n);
    for (size_t i = 0; i < n_vr; i++) {
        bool on = false;
        for (size_t k = 0; k < se->n_out; k++)
            on = on || (se->out_vr[k] == vr[i] && se->out_on[k]);
        se_clock *c = input_clock(se, vr[i]);
        ((bool *)v)[i] = on || (c && c->ran);
    }
    return RTC_OK;
}

static const rtc_unit_ops fmi3_se_ops = {
    .kind = "fmi3-se",
    .instantiate = u_instantiate,
    .enter_init = rtc__fmi3_enter_init,
    .exit_init = u_exit_init,
    .set = u_set,
    .get = u_get,
    .do_step = u_do_step,
    .terminate = rtc__fmi3_terminate,
    .free = rtc__fmi3_free,
};

/* One input clock of the description into the schedule; refuses what cannot run. */
static int add_input(fmi3_unit *u, const rtc_var *v, se_clock *c)
{
    const rtc_clock_info *ci = &v->clock;
    const char *why = NULL;
    *c = (se_clock){.var = v, .next_ns = -1};
    if (!ci->has_priority)
        why = "has no priority (required for Scheduled Execution input clocks)";
    else if (ci->interval_variability == RTC_CLOCK_CHANGING)
        why = "has intervalVariability=\"changing\", which this engine does not schedule";
    else if (ci->interval_variability == RTC_CLOCK_COUNTDOWN)
        c->countdown = true;
    else if (ci->interval_variability != RTC_CLOCK_TRIGGERED) {
        if (!ci->has_interval || ci->interval_ns <= 0)
            why = "is periodic but has no interval > 0 in the modelDescription";
        c->period_ns = ci->interval_ns;
        c->next_ns = ci->shift_ns;
    }
    if (why)
        rtc_log(u->lg, RTC_LOG_ERROR, "%s:%u: clock \"%s\" %s", u->fmu->md->path, v->line,
                v->name, why);
    return why ? RTC_EUNSUPPORTED : RTC_OK;
}

int rtc__fmi3_se_attach(fmi3_unit *u)
{
    const rtc_model_desc *md = u->fmu->md;
    rtc_fmi3_sched *se = u->se = calloc(1, sizeof *se);
    if (!se)
        return RTC_ENOMEM;
    size_t n = md->n_vars ? md->n_vars : 1;
    se->in = calloc(n, sizeof *se->in);
    se->out_vr = calloc(n, sizeof *se->out_vr);
    se->out_on = calloc(n, sizeof *se->out_on);
    se->cd_vr = calloc(n, sizeof *se->cd_vr);
    se->cd_idx = calloc(n, sizeof *se->cd_idx);
    se->cd_iv = calloc(n, sizeof *se->cd_iv);
    se->cd_q = calloc(n, sizeof *se->cd_q);
    if (!se->in || !se->out_vr || !se->out_on || !se->cd_vr || !se->cd_idx || !se->cd_iv ||
        !se->cd_q)
        return RTC_ENOMEM;
    for (size_t i = 0; i < md->n_vars; i++) {
        const rtc_var *v = &md->vars[i];
        if (v->type != RTC_TYPE_CLOCK)
            continue;
        if (v->causality == RTC_CAUSALITY_OUTPUT) {
            se->out_vr[se->n_out++] = v->vr;
        } else if (v->causality == RTC_CAUSALITY_INPUT) {
            int rc = add_input(u, v, &se->in[se->n_in]);
            if (rc != RTC_OK)
                return rc;
            if (se->in[se->n_in].countdown) {
                se->cd_idx[se->n_cd] = se->n_in;
                se->cd_vr[se->n_cd++] = v->vr;
            }
            se->n_in++;
        }
    }
    u->unit.ops = &fmi3_se_ops;
    u->unit.caps = 0; /* no FMU state, fixed step: the schedule's grid */
    return RTC_OK;
}

void rtc__fmi3_se_free(rtc_fmi3_sched *se)
{
    if (!se)
        return;
    free(se->in);
    free(se->out_vr);
    free(se->out_on);
    free(se->cd_vr);
    free(se->cd_idx);
    free(se->cd_iv);
    free(se->cd_q);
    free(se);
}
