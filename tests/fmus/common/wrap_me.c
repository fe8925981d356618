/*
 * wrap_me.c — the Model Exchange half of the test-FMU wrappers, shared by FMI 2 and FMI 3.
 *
 * ME instances use the core state machine (Instantiated → Init → Event Mode) with its
 * Event Mode phase (RTC_TM_PH_EVENT, shared with FMI 3 co-simulation event mode) and
 * StepMode standing for Continuous-Time Mode: ExitInitializationMode enters Event Mode;
 * EnterContinuousTimeMode / EnterEventMode switch. States and derivatives are table variables (rtc_tm_me.x_vr / dx_vr), so these
 * functions only copy and call the model's callbacks; none allocates.
 *
 * Rules checked (Error, logged, nothing changed): the call's mode (SetContinuousStates,
 * CompletedIntegratorStep only in Continuous-Time Mode; NewDiscreteStates /
 * UpdateDiscreteStates only in Event Mode), array sizes equal to nx / nz, time finite and
 * not before the last event instant (a host may go back inside a step to locate an event).
 */
#include "wrap_core.h"

#include <math.h>
#include <string.h>

#define CT_OR_EVENT (RTC_TM_PH_STEP | RTC_TM_PH_EVENT)

static const rtc_tm_me *me_of(rtc_tm_inst *in, const char *fn)
{
    const rtc_tm_me *me = in->model->me;
    if (!me || !in->me) {
        rtc__tm_unsupported(in, fn, "not instantiated for Model Exchange");
        return NULL;
    }
    return me;
}

/* The ME function is allowed now: instance ME, state, and mode (0 either, 1 CT, 2 event). */
static const rtc_tm_me *me_allowed(rtc_tm_inst *in, const char *fn, unsigned phases, int mode)
{
    const rtc_tm_me *me = me_of(in, fn);
    if (!me || !rtc__tm_allowed(in, phases, fn))
        return NULL;
    if ((mode == 1 && in->phase == RTC_TM_PH_EVENT) ||
        (mode == 2 && in->phase == RTC_TM_PH_STEP)) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: illegal call sequence (instance is in %s Mode)", fn,
                     in->phase == RTC_TM_PH_EVENT ? "Event" : "Continuous-Time");
        return NULL;
    }
    return me;
}

static bool count_ok(rtc_tm_inst *in, const char *fn, size_t n, size_t want, const char *what)
{
    if (n == want)
        return true;
    rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: %s is %zu, the model has %zu", fn, what,
                 n, want);
    return false;
}

static double *f64(rtc_tm_inst *in, uint32_t vr)
{
    return rtc__tm_ptr(in, rtc__tm_find(in->model, vr));
}

rtc_tm_status rtc__tm_me_set_time(rtc_tm_inst *in, const char *fn, double t)
{
    if (!me_allowed(in, fn, CT_OR_EVENT, 0))
        return RTC_TM_ERROR;
    if (!isfinite(t)) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: time %g is not finite", fn, t);
        return RTC_TM_ERROR;
    }
    in->time = t;
    if (in->model->outputs)
        in->model->outputs(in->m);
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_me_set_x(rtc_tm_inst *in, const char *fn, const double x[], size_t nx)
{
    const rtc_tm_me *me = me_allowed(in, fn, CT_OR_EVENT, 1);
    if (!me || !count_ok(in, fn, nx, me->nx, "nx"))
        return RTC_TM_ERROR;
    for (size_t i = 0; i < nx; i++)
        *f64(in, me->x_vr[i]) = x[i];
    if (in->model->outputs)
        in->model->outputs(in->m);
    return RTC_TM_OK;
}

/* Copy the values at vrs (states, derivatives or nominals 1.0) out. */
rtc_tm_status rtc__tm_me_get(rtc_tm_inst *in, const char *fn, char what, double v[], size_t n)
{
    const rtc_tm_me *me = me_allowed(in, fn, RTC_TM_PH_GET, 0);
    if (!me || !count_ok(in, fn, n, what == 'z' ? me->nz : me->nx, what == 'z' ? "nz" : "nx"))
        return RTC_TM_ERROR;
    if (what == 'z') {
        if (n)
            me->indicators(in->m, in->time, v);
        return RTC_TM_OK;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = what == 'n' ? 1.0 : *f64(in, what == 'x' ? me->x_vr[i] : me->dx_vr[i]);
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_me_mode(rtc_tm_inst *in, const char *fn, bool event_mode)
{
    /* EnterEventMode from Continuous-Time Mode, EnterContinuousTimeMode from Event Mode. */
    if (!me_allowed(in, fn, CT_OR_EVENT, event_mode ? 1 : 2))
        return RTC_TM_ERROR;
    in->phase = event_mode ? RTC_TM_PH_EVENT : RTC_TM_PH_STEP;
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_me_update(rtc_tm_inst *in, const char *fn, rtc_tm_event_info *info)
{
    const rtc_tm_me *me = me_allowed(in, fn, CT_OR_EVENT, 2);
    memset(info, 0, sizeof *info);
    if (!me)
        return RTC_TM_ERROR;
    rtc_tm_status st = me->event ? me->event(in->m, in, in->time, info) : RTC_TM_OK;
    if (st >= RTC_TM_ERROR) {
        in->phase = st == RTC_TM_FATAL ? RTC_TM_PH_FATAL : RTC_TM_PH_ERROR;
        return st;
    }
    if (in->model->outputs)
        in->model->outputs(in->m);
    if (info->terminate)
        in->terminate_requested = true;
    return st;
}

rtc_tm_status rtc__tm_me_completed(rtc_tm_inst *in, const char *fn, bool *enter, bool *term)
{
    *enter = false;
    *term = false;
    const rtc_tm_me *me = me_allowed(in, fn, CT_OR_EVENT, 1);
    if (!me)
        return RTC_TM_ERROR;
    in->last_ok_time = in->time;
    *enter = me->completed && me->completed(in->m, in->time);
    return RTC_TM_OK;
}

/* J·seed for unknowns ⊆ derivatives and knowns ⊆ states (Continuous-Time Mode rules). */
rtc_tm_status rtc__tm_me_dir_der(rtc_tm_inst *in, const char *fn, const uint32_t unk[], size_t nu,
                                 const uint32_t kn[], size_t nk, const double seed[],
                                 double out[])
{
    const rtc_tm_me *me = me_allowed(in, fn, RTC_TM_PH_GET, 0);
    if (!me)
        return RTC_TM_ERROR;
    if (!me->jacobian)
        return rtc__tm_unsupported(in, fn, "no directional derivatives");
    double jac[16 * 16];
    if (me->nx > 16)
        return rtc__tm_unsupported(in, fn, "more than 16 states");
    me->jacobian(in->m, in->time, jac);
    for (size_t i = 0; i < nu; i++) {
        size_t r = me->nx;
        for (size_t k = 0; k < me->nx; k++)
            r = me->dx_vr[k] == unk[i] ? k : r;
        out[i] = 0.0;
        for (size_t j = 0; j < nk && r < me->nx; j++)
            for (size_t c = 0; c < me->nx; c++)
                out[i] += me->x_vr[c] == kn[j] ? jac[r * me->nx + c] * seed[j] : 0.0;
        if (r == me->nx) {
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                         "%s: unknown %u is not a state derivative", fn, (unsigned)unk[i]);
            return RTC_TM_ERROR;
        }
    }
    return RTC_TM_OK;
}
