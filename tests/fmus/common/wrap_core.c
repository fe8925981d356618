/*
 * wrap_core.c — state machine, checks, logging and FMU state shared by the FMI 2 and FMI 3
 * wrappers of the test FMUs (see wrap_core.h for the state diagram).
 *
 * The test FMUs are the fixtures of the engine's conformance and RT tests, so they behave
 * like a strict real exporter: every call is checked against the state machine, every
 * rejection is logged through the host's logger with the function name, and nothing on
 * the step/get/set path allocates (messages are formatted into a buffer of the instance).
 */
#include "wrap_core.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Model data is placed behind the wrapper struct at this alignment. */
#define ALIGN_UP(n) (((n) + 15u) & ~(size_t)15u)

static const char *const categories[] = {
    RTC_TM_LOG_EVENTS, RTC_TM_LOG_WARNING, RTC_TM_LOG_DISCARD, RTC_TM_LOG_ERROR, RTC_TM_LOG_FATAL,
};
#define N_CATEGORIES (sizeof categories / sizeof categories[0])
#define ALL_CATEGORIES ((1u << N_CATEGORIES) - 1u)

static int category_index(const char *cat)
{
    for (size_t i = 0; i < N_CATEGORIES; i++)
        if (cat && strcmp(cat, categories[i]) == 0)
            return (int)i;
    return -1;
}

static void vlog(rtc_tm_inst *in, rtc_tm_status st, const char *cat, const char *fmt, va_list ap)
{
    int idx = category_index(cat);
    unsigned bit = 1u << (idx < 0 ? 0 : idx);
    /* Errors always reach the host: a silent rejection would make tests undiagnosable. */
    if (st < RTC_TM_ERROR && !(in->logging_on && (in->cat_mask & bit)))
        return;
    vsnprintf(in->msg, sizeof in->msg, fmt, ap);
    if (in->emit)
        in->emit(in, st, cat, in->msg);
}

void rtc__tm_logf(rtc_tm_inst *in, rtc_tm_status st, const char *cat, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(in, st, cat, fmt, ap);
    va_end(ap);
}

void rtc_tm_log(rtc_tm_ctx *ctx, rtc_tm_status status, const char *category, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(ctx, status, category, fmt, ap);
    va_end(ap);
}

void rtc_tm_log_step(rtc_tm_ctx *ctx, long k, double t, const char *what)
{
    if (ctx->step_emit)
        ctx->step_emit(ctx, k, t, what);
}

void rtc_tm_sleep(double s)
{
    if (!(s > 0.0))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double whole = floor(s);
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)((s - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    /* Absolute deadline, so an interrupted sleep resumes without drifting. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

const char *rtc__tm_phase_name(unsigned phase)
{
    switch (phase) {
    case RTC_TM_PH_INSTANTIATED:
        return "Instantiated";
    case RTC_TM_PH_CONFIG:
        return "ConfigurationMode";
    case RTC_TM_PH_INIT:
        return "InitializationMode";
    case RTC_TM_PH_STEP:
        return "StepMode";
    case RTC_TM_PH_STEP_FAILED:
        return "StepFailed";
    case RTC_TM_PH_RECONFIG:
        return "ReconfigurationMode";
    case RTC_TM_PH_TERMINATED:
        return "Terminated";
    case RTC_TM_PH_ERROR:
        return "Error";
    case RTC_TM_PH_FATAL:
        return "Fatal";
    case RTC_TM_PH_EVENT:
        return "EventMode";
    case RTC_TM_PH_CLOCK:
        return "ClockActivationMode";
    default:
        return "?";
    }
}

size_t rtc__tm_alloc_size(const rtc_tm_model *model, size_t head)
{
    return ALIGN_UP(head) + 2 * ALIGN_UP(model->size);
}

int rtc__tm_init(
    rtc_tm_inst *in, size_t head, const char *name, bool logging_on, const char *resource_dir)
{
    const rtc_tm_model *md = &rtc_tm_model_def;
    in->model = md;
    in->m = (unsigned char *)in + ALIGN_UP(head);
    in->m0 = in->m + ALIGN_UP(md->size);
    snprintf(in->name, sizeof in->name, "%s", name);
    in->logging_on = logging_on;
    in->cat_mask = ALL_CATEGORIES;
    in->phase = RTC_TM_PH_INSTANTIATED;
    if (md->needs_resources && !resource_dir) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: model %s needs its resources folder, but no resource location was given",
                     in->fmi, md->name);
        return -1;
    }
    if (md->setup && md->setup(in->m, in, resource_dir) != 0)
        return -1;
    if (md->outputs)
        md->outputs(in->m);
    /* Pristine copy: fmiXReset restores it without re-reading resources. */
    memcpy(in->m0, in->m, md->size);
    return 0;
}

bool rtc__tm_allowed(rtc_tm_inst *in, unsigned mask, const char *fn)
{
    if (in->phase & mask)
        return true;
    rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                 "%s: illegal call sequence (instance is in state %s)", fn,
                 rtc__tm_phase_name(in->phase));
    return false;
}

rtc_tm_status rtc__tm_unsupported(rtc_tm_inst *in, const char *fn, const char *why)
{
    rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: not supported by this FMU (%s)", fn, why);
    return RTC_TM_ERROR;
}

const rtc_tm_var *rtc__tm_find(const rtc_tm_model *model, uint32_t vr)
{
    if (vr < model->nvars && model->vars[vr].vr == vr)
        return &model->vars[vr];
    for (size_t i = 0; i < model->nvars; i++)
        if (model->vars[i].vr == vr)
            return &model->vars[i];
    return NULL;
}

size_t rtc__tm_elsize(rtc_tm_type type)
{
    static const size_t sizes[] = {
        [RTC_TM_F64] = sizeof(double),
        [RTC_TM_F32] = sizeof(float),
        [RTC_TM_I8] = 1,
        [RTC_TM_U8] = 1,
        [RTC_TM_I16] = 2,
        [RTC_TM_U16] = 2,
        [RTC_TM_I32] = 4,
        [RTC_TM_U32] = 4,
        [RTC_TM_I64] = 8,
        [RTC_TM_U64] = 8,
        [RTC_TM_BOOL] = sizeof(bool),
        [RTC_TM_STR] = RTC_TM_STR_CAP,
        [RTC_TM_BIN] = sizeof(rtc_tm_binary),
        [RTC_TM_ENUM] = 8,
    };
    return sizes[type];
}

/* May v be set in the current state? Logs the reason when not. */
static bool settable(rtc_tm_inst *in, const rtc_tm_var *v, const char *fn)
{
    unsigned ok;
    if (v->causality == RTC_TM_INPUT)
        ok = RTC_TM_PH_INSTANTIATED | RTC_TM_PH_INIT | RTC_TM_PH_STEP | RTC_TM_PH_EVENT |
             RTC_TM_PH_CLOCK;
    else if (v->causality == RTC_TM_PARAMETER && v->variability == RTC_TM_TUNABLE)
        ok = RTC_TM_PH_INSTANTIATED | RTC_TM_PH_INIT | RTC_TM_PH_STEP | RTC_TM_PH_RECONFIG |
             (in->me ? RTC_TM_PH_EVENT : 0u); /* ME: at events only (checked below) */
    else if (v->causality == RTC_TM_PARAMETER)
        ok = RTC_TM_PH_INSTANTIATED | RTC_TM_PH_INIT | RTC_TM_PH_CONFIG;
    else {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: variable '%s' (vr %u) is not an input or parameter and cannot be set", fn,
                     v->name, (unsigned)v->vr);
        return false;
    }
    /* Model Exchange: discrete inputs and tunable parameters change only at events */
    if (in->me && in->phase == RTC_TM_PH_STEP &&
        v->variability != RTC_TM_CONTINUOUS) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: variable '%s' (vr %u) can be set only in Event Mode", fn, v->name,
                     (unsigned)v->vr);
        return false;
    }
    if (in->phase & ok)
        return true;
    rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                 "%s: variable '%s' (vr %u) cannot be set in state %s", fn, v->name,
                 (unsigned)v->vr, rtc__tm_phase_name(in->phase));
    return false;
}

rtc_tm_status rtc__tm_check_access(rtc_tm_inst *in,
                                   const char *fn,
                                   const uint32_t vrs[],
                                   size_t nvr,
                                   unsigned type_mask,
                                   size_t nvalues,
                                   bool set)
{
    unsigned phases = set ? (RTC_TM_PH_INSTANTIATED | RTC_TM_PH_INIT | RTC_TM_PH_STEP |
                             RTC_TM_PH_CONFIG | RTC_TM_PH_RECONFIG | RTC_TM_PH_EVENT |
                             RTC_TM_PH_CLOCK)
                          : RTC_TM_PH_GET;
    if (!rtc__tm_allowed(in, phases, fn))
        return RTC_TM_ERROR;
    if (nvr > 0 && !vrs) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: NULL valueReferences", fn);
        return RTC_TM_ERROR;
    }
    size_t total = 0;
    for (size_t i = 0; i < nvr; i++) {
        const rtc_tm_var *v = rtc__tm_find(in->model, vrs[i]);
        if (!v) {
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: unknown value reference %u", fn,
                         (unsigned)vrs[i]);
            return RTC_TM_ERROR;
        }
        if (!(type_mask & (1u << v->type))) {
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                         "%s: variable '%s' (vr %u) is not of this function's type", fn, v->name,
                         (unsigned)v->vr);
            return RTC_TM_ERROR;
        }
        if (set && !settable(in, v, fn))
            return RTC_TM_ERROR;
        total += v->n;
    }
    if (total != nvalues) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: nValues is %zu but the variables have %zu elements", fn, nvalues, total);
        return RTC_TM_ERROR;
    }
    return RTC_TM_OK;
}

void *rtc__tm_ptr(rtc_tm_inst *in, const rtc_tm_var *v)
{
    /* The independent variable is the wrapper's own time, not part of the model. */
    if (v->causality == RTC_TM_INDEPENDENT)
        return &in->time;
    return in->m + v->offset;
}

rtc_tm_status rtc__tm_set_str(rtc_tm_inst *in, const rtc_tm_var *v, const char *s, const char *fn)
{
    char *dst = rtc__tm_ptr(in, v);
    if (!s) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: NULL string for '%s'", fn, v->name);
        return RTC_TM_ERROR;
    }
    size_t len = strlen(s);
    if (len < RTC_TM_STR_CAP) {
        memcpy(dst, s, len + 1);
        return RTC_TM_OK;
    }
    memcpy(dst, s, RTC_TM_STR_CAP - 1);
    dst[RTC_TM_STR_CAP - 1] = '\0';
    rtc__tm_logf(in, RTC_TM_WARNING, RTC_TM_LOG_WARNING,
                 "%s: value of '%s' truncated from %zu to %d bytes", fn, v->name, len,
                 RTC_TM_STR_CAP - 1);
    return RTC_TM_WARNING;
}

void rtc__tm_after_set(rtc_tm_inst *in)
{
    const rtc_tm_model *md = in->model;
    /* Start states follow their parameters while initializing (x = x0 after set x0). */
    if (in->phase == RTC_TM_PH_INIT && md->initialize)
        (void)md->initialize(in->m, in, in->time);
    if (md->outputs)
        md->outputs(in->m);
}

rtc_tm_status
rtc__tm_enter_init(rtc_tm_inst *in, const char *fn, double start, bool stop_defined, double stop)
{
    if (!rtc__tm_allowed(in, RTC_TM_PH_INSTANTIATED, fn))
        return RTC_TM_ERROR;
    if (!isfinite(start) || (stop_defined && !(stop >= start))) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: invalid startTime %.17g / stopTime %.17g", fn, start, stop);
        return RTC_TM_ERROR;
    }
    in->start_time = in->time = in->last_ok_time = start;
    in->stop_defined = stop_defined;
    in->stop_time = stop;
    in->phase = RTC_TM_PH_INIT;
    rtc__tm_after_set(in);
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_exit_init(rtc_tm_inst *in, const char *fn)
{
    const rtc_tm_model *md = in->model;
    if (!rtc__tm_allowed(in, RTC_TM_PH_INIT, fn))
        return RTC_TM_ERROR;
    /* Parameters are final now: a model rejecting them fails this call (logged by it). */
    if (md->initialize && md->initialize(in->m, in, in->time) != 0)
        return RTC_TM_ERROR;
    if (md->outputs)
        md->outputs(in->m);
    /* FMI 3: with event mode the FMU leaves initialization into Event Mode, a Scheduled
     * Execution FMU into Clock Activation Mode; Model Exchange (both versions) into Event
     * Mode too (StepMode is then its Continuous-Time Mode). */
    in->phase = in->scheduled                   ? RTC_TM_PH_CLOCK
                : in->event_mode_used || in->me ? RTC_TM_PH_EVENT
                                                : RTC_TM_PH_STEP;
    in->event_iter = 0;
    return RTC_TM_OK;
}

/* Argument checks of a step; logs and returns false on the first violation. */
static bool step_args_ok(rtc_tm_inst *in, const char *fn, double t, double h)
{
    if (in->terminate_requested) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: the model requested termination at t = %.17g; no further steps", fn,
                     in->last_ok_time);
        return false;
    }
    if (!isfinite(h) || !(h > 0.0)) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: communicationStepSize %.17g must be finite and > 0", fn, h);
        return false;
    }
    /* The host must continue exactly where the last step ended (relative 1e-9). */
    double tol = 1e-9 * fmax(1.0, fabs(in->time));
    if (!isfinite(t) || fabs(t - in->time) > tol) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: currentCommunicationPoint %.17g differs from the FMU time %.17g "
                     "(communication point drift)",
                     fn, t, in->time);
        return false;
    }
    if (in->stop_defined && t + h > in->stop_time + 1e-9 * fmax(1.0, fabs(in->stop_time))) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: step to %.17g goes past stopTime %.17g", fn, t + h, in->stop_time);
        return false;
    }
    return true;
}

rtc_tm_status
rtc__tm_do_step(rtc_tm_inst *in, const char *fn, double t, double h, rtc_tm_step_info *info)
{
    const rtc_tm_model *md = in->model;
    if (in->me || !md->step)
        return rtc__tm_unsupported(in, fn, in->me ? "instantiated for Model Exchange"
                                                  : "no Co-Simulation interface");
    if (!rtc__tm_allowed(in, RTC_TM_PH_STEP, fn) || !step_args_ok(in, fn, t, h))
        return RTC_TM_ERROR;
    info->terminate = info->event = false;
    info->t_reached = t + h;
    rtc_tm_status st = md->step(in->m, in, t, h, info);
    if (st >= RTC_TM_ERROR) {
        in->phase = st == RTC_TM_FATAL ? RTC_TM_PH_FATAL : RTC_TM_PH_ERROR;
        return st;
    }
    if (md->outputs)
        md->outputs(in->m);
    if (info->terminate) {
        in->terminate_requested = true;
        in->time = in->last_ok_time = info->t_reached;
    } else if (info->event) {
        in->time = in->last_ok_time = info->t_reached; /* stopped at the event */
    } else {
        in->time = in->last_ok_time = t + h;
    }
    return st;
}

rtc_tm_status rtc__tm_terminate(rtc_tm_inst *in, const char *fn)
{
    /* Error is accepted too, so a host's safe-stop path can always terminate. */
    unsigned ok = RTC_TM_PH_INIT | RTC_TM_PH_STEP | RTC_TM_PH_STEP_FAILED | RTC_TM_PH_ERROR |
                  RTC_TM_PH_EVENT | RTC_TM_PH_CLOCK;
    if (!rtc__tm_allowed(in, ok, fn))
        return RTC_TM_ERROR;
    in->phase = RTC_TM_PH_TERMINATED;
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_reset(rtc_tm_inst *in, const char *fn)
{
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, fn))
        return RTC_TM_ERROR;
    memcpy(in->m, in->m0, in->model->size);
    in->phase = RTC_TM_PH_INSTANTIATED;
    in->time = in->start_time = in->stop_time = in->last_ok_time = 0.0;
    in->stop_defined = in->terminate_requested = false;
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_set_debug_logging(
    rtc_tm_inst *in, const char *fn, bool on, size_t n, const char *const cats[])
{
    unsigned mask = n ? 0u : ALL_CATEGORIES;
    if (!rtc__tm_allowed(in, RTC_TM_PH_ANY, fn))
        return RTC_TM_ERROR;
    for (size_t i = 0; i < n; i++) {
        int idx = cats ? category_index(cats[i]) : -1;
        if (idx < 0) {
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: unknown log category '%s'", fn,
                         cats && cats[i] ? cats[i] : "(null)");
            return RTC_TM_ERROR;
        }
        mask |= 1u << idx;
    }
    in->logging_on = on;
    in->cat_mask = mask;
    return RTC_TM_OK;
}
