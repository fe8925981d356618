/*
 * wrap_events.c — FMI 3 Event Mode, early return and Scheduled Execution clocks of the test
 * FMUs (see model.h: has_event_mode/update, clocks/activate). Shared by every FMI 3 model
 * that declares them; plain co-simulation models never reach this code.
 *
 * Events in co-simulation: a model's step stops at the first event it locates (time or
 * state) and reports it (info->event, t_reached). What the wrapper does with it depends on
 * how the host instantiated the FMU:
 *   - eventModeUsed and the event lies at t + h, or before it with earlyReturnAllowed:
 *     DoStep returns there with eventHandlingNeeded (and earlyReturn when before t + h);
 *     the host then runs EnterEventMode, UpdateDiscreteStates until no update is needed,
 *     EnterStepMode;
 *   - otherwise the FMU handles the event itself (the same model iterations, inside DoStep)
 *     and continues to t + h, so a host without event mode still gets correct values.
 * The model counts neither path; the wrapper counts the host's UpdateDiscreteStates calls
 * in event_iter (the superdense index at the current instant).
 */
#include "wrap_core.h"

#include <math.h>

/* Is t at the end of the step (within the communication-point tolerance)? */
static bool at_end(double t, double t_end)
{
    return t >= t_end - 1e-9 * fmax(1.0, fabs(t_end));
}

/* The FMU's own event iterations (host without event mode). */
static rtc_tm_status internal_event(rtc_tm_inst *in, const char *fn)
{
    rtc_tm_update u = {.need_update = true};
    rtc_tm_status worst = RTC_TM_OK;
    for (unsigned it = 0; u.need_update && it < 100; it++) {
        u = (rtc_tm_update){.by_host = false};
        rtc_tm_status st = in->model->update(in->m, in, in->time, it, &u);
        worst = st > worst ? st : worst;
        if (st >= RTC_TM_ERROR) {
            in->phase = st == RTC_TM_FATAL ? RTC_TM_PH_FATAL : RTC_TM_PH_ERROR;
            return st;
        }
    }
    if (u.need_update) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: event iteration at t = %.17g does not converge", fn, in->time);
        in->phase = RTC_TM_PH_ERROR;
        return RTC_TM_ERROR;
    }
    if (in->model->outputs)
        in->model->outputs(in->m);
    return worst;
}

rtc_tm_status rtc__tm_step_events(
    rtc_tm_inst *in, const char *fn, double t, double h, bool *event_needed, bool *early)
{
    const double t_end = t + h;
    rtc_tm_step_info info = {0};
    rtc_tm_status worst = RTC_TM_OK;
    *event_needed = *early = false;
    for (double t_cur = t;;) {
        rtc_tm_status st = rtc__tm_do_step(in, fn, t_cur, t_end - t_cur, &info);
        worst = st > worst ? st : worst;
        if (st >= RTC_TM_ERROR || info.terminate || !info.event)
            return worst;
        bool end = at_end(in->time, t_end);
        if (end)
            in->time = in->last_ok_time = t_end;
        if (in->event_mode_used && (end || in->early_return_allowed)) {
            *event_needed = true;
            *early = !end;
            rtc__tm_logf(in, RTC_TM_OK, RTC_TM_LOG_EVENTS, "%s: event at t = %.17g%s", fn,
                         in->time, end ? "" : " (early return)");
            return worst;
        }
        st = internal_event(in, fn);
        worst = st > worst ? st : worst;
        if (st >= RTC_TM_ERROR || end)
            return worst;
        t_cur = in->time;
    }
}

rtc_tm_status rtc__tm_enter_event(rtc_tm_inst *in, const char *fn)
{
    if (!in->event_mode_used) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: instantiated with eventModeUsed = false", fn);
        return RTC_TM_ERROR;
    }
    if (!rtc__tm_allowed(in, RTC_TM_PH_STEP, fn))
        return RTC_TM_ERROR;
    in->phase = RTC_TM_PH_EVENT;
    in->event_iter = 0;
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_update(rtc_tm_inst *in, const char *fn, bool *need_update, bool *terminate)
{
    if (!rtc__tm_allowed(in, RTC_TM_PH_EVENT, fn))
        return RTC_TM_ERROR;
    rtc_tm_update u = {.by_host = true};
    rtc_tm_status st = in->model->update(in->m, in, in->time, in->event_iter++, &u);
    if (st >= RTC_TM_ERROR) {
        in->phase = st == RTC_TM_FATAL ? RTC_TM_PH_FATAL : RTC_TM_PH_ERROR;
        return st;
    }
    if (in->model->outputs)
        in->model->outputs(in->m);
    *need_update = u.need_update;
    *terminate = u.terminate;
    if (u.terminate)
        in->terminate_requested = true;
    return st;
}

rtc_tm_status rtc__tm_enter_step(rtc_tm_inst *in, const char *fn)
{
    if (!rtc__tm_allowed(in, RTC_TM_PH_EVENT, fn))
        return RTC_TM_ERROR;
    in->phase = RTC_TM_PH_STEP;
    return RTC_TM_OK;
}

/* ---- Scheduled Execution ---- */

static const rtc_tm_clock *find_clock(const rtc_tm_model *md, uint32_t vr)
{
    for (size_t i = 0; i < md->nclocks; i++)
        if (md->clocks[i].vr == vr)
            return &md->clocks[i];
    return NULL;
}

rtc_tm_status rtc__tm_activate(rtc_tm_inst *in, const char *fn, uint32_t clock, double t)
{
    if (!rtc__tm_allowed(in, RTC_TM_PH_CLOCK, fn))
        return RTC_TM_ERROR;
    const rtc_tm_clock *c = find_clock(in->model, clock);
    if (!c || c->output) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: %u is not an input clock", fn,
                     (unsigned)clock);
        return RTC_TM_ERROR;
    }
    if (t < in->time) {
        rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                     "%s: activation time %.17g before the last one (%.17g)", fn, t, in->time);
        return RTC_TM_ERROR;
    }
    in->time = in->last_ok_time = t;
    rtc_tm_status st = in->model->activate(in->m, in, clock, t);
    if (st >= RTC_TM_ERROR)
        in->phase = st == RTC_TM_FATAL ? RTC_TM_PH_FATAL : RTC_TM_PH_ERROR;
    else if (in->model->outputs)
        in->model->outputs(in->m);
    return st;
}

/* Every vr a clock of the wanted kind (output / countdown)? */
static bool clocks_ok(rtc_tm_inst *in, const char *fn, const uint32_t vrs[], size_t n, bool output)
{
    if (!rtc__tm_allowed(in, RTC_TM_PH_GET, fn) || (n && !vrs))
        return false;
    for (size_t i = 0; i < n; i++) {
        const rtc_tm_clock *c = find_clock(in->model, vrs[i]);
        if (!c || (output ? !c->output : !c->countdown)) {
            rtc__tm_logf(in, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "%s: %u is not %s clock", fn,
                         (unsigned)vrs[i], output ? "an output" : "a countdown");
            return false;
        }
    }
    return true;
}

rtc_tm_status rtc__tm_get_clocks(rtc_tm_inst *in, const char *fn, const uint32_t vrs[], size_t n,
                                 bool active[])
{
    if (!clocks_ok(in, fn, vrs, n, true))
        return RTC_TM_ERROR;
    for (size_t i = 0; i < n; i++)
        active[i] = in->model->clock_ticked(in->m, vrs[i]);
    return RTC_TM_OK;
}

rtc_tm_status rtc__tm_get_intervals(rtc_tm_inst *in, const char *fn, const uint32_t vrs[],
                                    size_t n, double intervals[], int qualifiers[])
{
    if (!clocks_ok(in, fn, vrs, n, false))
        return RTC_TM_ERROR;
    for (size_t i = 0; i < n; i++)
        qualifiers[i] = in->model->interval(in->m, vrs[i], &intervals[i]);
    return RTC_TM_OK;
}

void rtc_tm_clock_update(rtc_tm_ctx *ctx)
{
    if (ctx->clock_update)
        ctx->clock_update(ctx);
}

void rtc_tm_lock_preemption(rtc_tm_ctx *ctx)
{
    if (ctx->lock)
        ctx->lock();
}

void rtc_tm_unlock_preemption(rtc_tm_ctx *ctx)
{
    if (ctx->unlock)
        ctx->unlock();
}
