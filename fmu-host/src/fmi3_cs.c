/*
 * FMI 3.0 co-simulation units: rtc_unit_ops over an FMU's fmi3* functions. The same
 * record, instantiated with fmi3InstantiateModelExchange (u->me), is the FMU end of a Model
 * Exchange unit (me_unit.c, fmi3_me.c), which integrates it instead of calling do_step.
 *
 * FMI 3 has a getter and setter per type whose element types equal rtc_type_size()'s, so
 * values pass straight through; only Binary (separate size and pointer arrays in FMI 3)
 * needs a scratch conversion, sized at creation.
 *
 * Events (hasEventMode): Event Mode is requested only when the engine needs it or the user
 * asks (rtc_fmu_event_mode: an FMU with clocks, where FMI 3 makes it mandatory, or
 * event_mode=on); otherwise the FMU handles its events inside fmi3DoStep, as fmusim runs
 * it by default. Some FMUs declare hasEventMode and still refuse eventModeUsed (the FMI 3
 * Reference FMU Roberts): such an instantiation is retried without it, said once per FMU.
 * With eventModeUsed the importer handles the events an FMU reports from fmi3DoStep:
 * EnterEventMode, UpdateDiscreteStates until no further update is needed (each call one
 * superdense microstep at that instant), EnterStepMode.
 * Early return (mightReturnEarlyFromDoStep → earlyReturnAllowed): the engine's grid stays
 * integer, so a step that returns early at lastSuccessfulTime (after its event, if any, is
 * handled) is resumed from there with fmi3DoStep(last, t + h − last) inside the same
 * do_step, until t + h is reached — the engine only ever sees whole communication steps,
 * and outputs are read at t + h after the last event there. At most
 * RESUME_MAX resumptions per step (an FMU that makes no progress is an error, not a hang).
 * Events, early returns and microsteps are counted in rtc_step_result.
 */
#include "fmi3_priv.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Early returns resumed within one communication step before the FMU is declared stuck. */
#define RESUME_MAX 1000u
/* Event iterations at one instant before the event loop is declared not to converge. */
#define ITER_MAX 1000u

void rtc__fmi3_log_message(fmi3InstanceEnvironment env, fmi3Status status,
                           fmi3String category, fmi3String message)
{
    fmi3_unit *u = env;
    if (u && u->probing) {
        if (!u->probe_msg[0])
            snprintf(u->probe_msg, sizeof u->probe_msg, "%s", message ? message : "");
        return;
    }
    if (u)
        rtc__fmu_log_message(u->fmu_lg, u->name, (int)status, category, message);
}

int rtc__fmi3_check(fmi3_unit *u, const char *fn, fmi3Status st)
{
    if (st <= fmi3Warning) /* the usual return */
        return RTC_OK;
    if (st == fmi3Fatal)
        u->fatal = true;
    return rtc__fmu_check(u->name, fn, (int)st, u->lg);
}

#define check rtc__fmi3_check

void rtc__fmi3_resource_path(const fmi3_unit *u, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/resources/", u->fmu->dir);
}

/* Co-Simulation: with eventModeUsed when asked for (see the top of the file), and again
 * without it when the FMU refuses that, unless its clocks need it. */
static fmi3Instance instantiate_cs(fmi3_unit *u, const char *res)
{
    const rtc_model_desc *md = u->fmu->md;
    bool clocks = rtc__fmu_has_clocks(md);
    bool want = u->event_request == RTC_FMU_EVENT_MODE_ON ||
                (u->event_request == RTC_FMU_EVENT_MODE_AUTO && clocks);
    fmi3Boolean log_on = u->setup.logging_on ? fmi3True : fmi3False;
    u->early_return = md->cs.might_return_early_from_do_step;
    u->event_mode = md->cs.has_event_mode && want &&
                    (clocks || !atomic_load_explicit(&u->fmu->no_event_mode,
                                                     memory_order_relaxed));
    u->probing = u->event_mode && !clocks; /* a refusal is then no error: kept for below */
    u->probe_msg[0] = '\0';
    fmi3Instance inst = u->api->InstantiateCoSimulation(
        u->name, md->guid, res, fmi3False, log_on, u->event_mode, u->early_return, NULL, 0, u,
        rtc__fmi3_log_message, NULL);
    u->probing = false;
    if (inst || !u->event_mode || clocks)
        return inst;
    /* relaxed: the flag only decides who says it; the instances are the FMU's business */
    if (!atomic_exchange_explicit(&u->fmu->no_event_mode, true, memory_order_relaxed))
        rtc_log(u->lg, RTC_LOG_WARNING, "%s: the FMU declares hasEventMode but refused to "
                "instantiate with eventModeUsed%s%s%s: instantiated without Event Mode (the FMU "
                "handles its events itself)", u->name, u->probe_msg[0] ? " (\"" : "",
                u->probe_msg, u->probe_msg[0] ? "\")" : "");
    u->event_mode = false;
    return u->api->InstantiateCoSimulation(u->name, md->guid, res, fmi3False, log_on, fmi3False,
                                           u->early_return, NULL, 0, u, rtc__fmi3_log_message,
                                           NULL);
}

static int u_instantiate(void *self, const rtc_unit_setup *setup)
{
    fmi3_unit *u = self;
    char res[PATH_MAX + 64];
    rtc__fmi3_resource_path(u, res, sizeof res);
    u->setup = *setup;
    if (u->me)
        u->inst = u->api->InstantiateModelExchange(u->name, u->fmu->md->guid, res, fmi3False,
                                                   setup->logging_on ? fmi3True : fmi3False, u,
                                                   rtc__fmi3_log_message);
    else
        u->inst = instantiate_cs(u, res);
    if (!u->inst) {
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: fmi3Instantiate%s failed (returned NULL)", u->name,
                u->me ? "ModelExchange" : "CoSimulation");
        return RTC_EFMU;
    }
    return RTC_OK;
}

int rtc__fmi3_enter_init(void *self)
{
    fmi3_unit *u = self;
    const rtc_unit_setup *s = &u->setup;
    return check(u, "fmi3EnterInitializationMode",
                 u->api->EnterInitializationMode(u->inst, s->tolerance_defined, s->tolerance,
                                                 s->start_time_s, s->stop_time_defined,
                                                 s->stop_time_s));
}

/* Event Mode at the current instant: iterate UpdateDiscreteStates to a fixed point, then
 * back to Step Mode. *iters gets the number of iterations (microsteps). */
static int event_iteration(fmi3_unit *u, unsigned *iters, bool *terminate)
{
    fmi3Boolean need = fmi3True, term = fmi3False, nom, val, next_def;
    fmi3Float64 next;
    unsigned n = 0;
    int rc = RTC_OK;
    while (rc == RTC_OK && need && !term && n < ITER_MAX) {
        n++;
        rc = check(u, "fmi3UpdateDiscreteStates",
                   u->api->UpdateDiscreteStates(u->inst, &need, &term, &nom, &val, &next_def,
                                                &next));
    }
    *iters = n;
    *terminate = term;
    if (rc == RTC_OK && need && !term) {
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: event iteration did not converge in %u "
                "fmi3UpdateDiscreteStates calls", u->name, ITER_MAX);
        return RTC_EFMU;
    }
    if (rc == RTC_OK && !term)
        rc = check(u, "fmi3EnterStepMode", u->api->EnterStepMode(u->inst));
    return rc;
}

static int u_exit_init(void *self)
{
    fmi3_unit *u = self;
    int rc = check(u, "fmi3ExitInitializationMode", u->api->ExitInitializationMode(u->inst));
    if (rc != RTC_OK || !u->event_mode)
        return rc;
    /* with eventModeUsed, initialization ends in Event Mode (the initial event) */
    unsigned iters;
    bool term;
    rc = event_iteration(u, &iters, &term);
    if (rc == RTC_OK && term) {
        /* a request, not an error: the run ends at its start (rtcosim/unit.h) */
        rtc_log(u->lg, RTC_LOG_WARNING, "%s: the FMU requested termination at its initial "
                "event", u->name);
        rc = RTC_ETERMINATED;
    }
    return rc;
}

/* One switch per direction: the typed FMI 3 function for each rtc_type. */
int rtc__fmi3_set(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, const void *v,
                  size_t n)
{
    fmi3_unit *u = self;
    const rtc_fmi3_api *a = u->api;
    fmi3Instance i = u->inst;
    switch (type) {
    case RTC_TYPE_FLOAT64: return check(u, "fmi3SetFloat64", a->SetFloat64(i, vr, n_vr, v, n));
    case RTC_TYPE_FLOAT32: return check(u, "fmi3SetFloat32", a->SetFloat32(i, vr, n_vr, v, n));
    case RTC_TYPE_INT8: return check(u, "fmi3SetInt8", a->SetInt8(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT8: return check(u, "fmi3SetUInt8", a->SetUInt8(i, vr, n_vr, v, n));
    case RTC_TYPE_INT16: return check(u, "fmi3SetInt16", a->SetInt16(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT16: return check(u, "fmi3SetUInt16", a->SetUInt16(i, vr, n_vr, v, n));
    case RTC_TYPE_INT32: return check(u, "fmi3SetInt32", a->SetInt32(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT32: return check(u, "fmi3SetUInt32", a->SetUInt32(i, vr, n_vr, v, n));
    case RTC_TYPE_INT64:
    case RTC_TYPE_ENUM: return check(u, "fmi3SetInt64", a->SetInt64(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT64: return check(u, "fmi3SetUInt64", a->SetUInt64(i, vr, n_vr, v, n));
    case RTC_TYPE_BOOL: return check(u, "fmi3SetBoolean", a->SetBoolean(i, vr, n_vr, v, n));
    case RTC_TYPE_STRING: return check(u, "fmi3SetString", a->SetString(i, vr, n_vr, v, n));
    case RTC_TYPE_BINARY:
        if (n > u->scratch_n)
            return RTC_EINVAL;
        for (size_t k = 0; k < n; k++) {
            u->sizes[k] = ((const rtc_binary *)v)[k].size;
            u->bins[k] = ((const rtc_binary *)v)[k].data;
        }
        return check(u, "fmi3SetBinary", a->SetBinary(i, vr, n_vr, u->sizes, u->bins, n));
    default: return RTC_EUNSUPPORTED;
    }
}

int rtc__fmi3_get(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *v, size_t n)
{
    fmi3_unit *u = self;
    const rtc_fmi3_api *a = u->api;
    fmi3Instance i = u->inst;
    int rc;
    switch (type) {
    case RTC_TYPE_FLOAT64: return check(u, "fmi3GetFloat64", a->GetFloat64(i, vr, n_vr, v, n));
    case RTC_TYPE_FLOAT32: return check(u, "fmi3GetFloat32", a->GetFloat32(i, vr, n_vr, v, n));
    case RTC_TYPE_INT8: return check(u, "fmi3GetInt8", a->GetInt8(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT8: return check(u, "fmi3GetUInt8", a->GetUInt8(i, vr, n_vr, v, n));
    case RTC_TYPE_INT16: return check(u, "fmi3GetInt16", a->GetInt16(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT16: return check(u, "fmi3GetUInt16", a->GetUInt16(i, vr, n_vr, v, n));
    case RTC_TYPE_INT32: return check(u, "fmi3GetInt32", a->GetInt32(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT32: return check(u, "fmi3GetUInt32", a->GetUInt32(i, vr, n_vr, v, n));
    case RTC_TYPE_INT64:
    case RTC_TYPE_ENUM: return check(u, "fmi3GetInt64", a->GetInt64(i, vr, n_vr, v, n));
    case RTC_TYPE_UINT64: return check(u, "fmi3GetUInt64", a->GetUInt64(i, vr, n_vr, v, n));
    case RTC_TYPE_BOOL: return check(u, "fmi3GetBoolean", a->GetBoolean(i, vr, n_vr, v, n));
    case RTC_TYPE_STRING: return check(u, "fmi3GetString", a->GetString(i, vr, n_vr, v, n));
    case RTC_TYPE_BINARY:
        if (n > u->scratch_n)
            return RTC_EINVAL;
        rc = check(u, "fmi3GetBinary", a->GetBinary(i, vr, n_vr, u->sizes, u->bins, n));
        for (size_t k = 0; rc == RTC_OK && k < n; k++)
            ((rtc_binary *)v)[k] = (rtc_binary){.data = u->bins[k], .size = u->sizes[k]};
        return rc;
    case RTC_TYPE_CLOCK:
        if (!a->GetClock)
            return RTC_EUNSUPPORTED;
        return check(u, "fmi3GetClock", a->GetClock(i, vr, n_vr, v));
    default: return RTC_EUNSUPPORTED;
    }
}

/* The event an FMU reported at res->last_time_s: Event Mode there, counted. */
static int handle_event(fmi3_unit *u, rtc_step_result *res)
{
    unsigned iters;
    bool term;
    int rc = check(u, "fmi3EnterEventMode", u->api->EnterEventMode(u->inst));
    if (rc == RTC_OK)
        rc = event_iteration(u, &iters, &term);
    if (rc != RTC_OK)
        return rc;
    res->events++;
    res->microsteps = iters > res->microsteps ? iters : res->microsteps;
    if (term)
        res->outcome = RTC_STEP_TERMINATE;
    return RTC_OK;
}

/* One fmi3DoStep from t_s to t_end; *more when it stopped early and must be resumed. */
static int step_once(fmi3_unit *u, double t_s, double t_end, rtc_step_result *res, bool *more)
{
    fmi3Boolean event = fmi3False, terminate = fmi3False, early = fmi3False;
    fmi3Float64 last = t_end;
    fmi3Status st = u->api->DoStep(u->inst, t_s, t_end - t_s,
                                   u->setup.may_rollback ? fmi3False : fmi3True, &event,
                                   &terminate, &early, &last);
    *more = false;
    res->event_needed = event;
    res->last_time_s = last;
    if (st > fmi3Discard)
        return check(u, "fmi3DoStep", st);
    if (terminate)
        res->outcome = RTC_STEP_TERMINATE;
    else if (st == fmi3Discard)
        res->outcome = RTC_STEP_DISCARD;
    else if (early && !u->early_return)
        res->outcome = RTC_STEP_EARLY; /* not allowed: the standard forbids it */
    if (res->outcome != RTC_STEP_DONE)
        return RTC_OK;
    int rc = event && u->event_mode ? handle_event(u, res) : RTC_OK;
    /* an "early" return that reached the end is a whole step */
    if (rc != RTC_OK || res->outcome != RTC_STEP_DONE || !early || last >= t_end)
        return rc;
    if (!(last > t_s)) {
        rtc_log(u->lg, RTC_LOG_ERROR, "%s: fmi3DoStep returned early at t=%.17g s without "
                "progress from t=%.17g s", u->name, last, t_s);
        return RTC_EFMU;
    }
    res->early_returns++;
    *more = true;
    return RTC_OK;
}

static int u_do_step(void *self, double t_s, double h_s, rtc_step_result *res)
{
    fmi3_unit *u = self;
    const double t_end = t_s + h_s;
    res->outcome = RTC_STEP_DONE;
    res->events = res->early_returns = res->microsteps = 0;
    bool more = true;
    int rc = RTC_OK;
    for (unsigned n = 0; rc == RTC_OK && more; n++) {
        if (n == RESUME_MAX) {
            rtc_log(u->lg, RTC_LOG_ERROR, "%s: %u early returns within the step from t=%.17g s",
                    u->name, RESUME_MAX, t_s);
            return RTC_EFMU;
        }
        rc = step_once(u, n ? res->last_time_s : t_s, t_end, res, &more);
    }
    if (rc == RTC_OK && res->outcome == RTC_STEP_DONE)
        res->last_time_s = t_end;
    return rc;
}

static int u_get_state(void *self, void **state)
{
    fmi3_unit *u = self;
    if (!u->api->GetFMUState)
        return RTC_EUNSUPPORTED;
    return check(u, "fmi3GetFMUState", u->api->GetFMUState(u->inst, (fmi3FMUState *)state));
}

static int u_set_state(void *self, void *state)
{
    fmi3_unit *u = self;
    if (!u->api->SetFMUState)
        return RTC_EUNSUPPORTED;
    return check(u, "fmi3SetFMUState", u->api->SetFMUState(u->inst, state));
}

static int u_free_state(void *self, void **state)
{
    fmi3_unit *u = self;
    if (!u->api->FreeFMUState || !*state)
        return RTC_OK;
    return check(u, "fmi3FreeFMUState", u->api->FreeFMUState(u->inst, (fmi3FMUState *)state));
}

int rtc__fmi3_terminate(void *self)
{
    fmi3_unit *u = self;
    int rc = check(u, "fmi3Terminate", u->api->Terminate(u->inst));
    rtc__fmu_repeat_flush(&u->rep);
    return rc;
}

void rtc__fmi3_free(void *self)
{
    fmi3_unit *u = self;
    if (!u)
        return;
    if (u->inst && !u->fatal)
        u->api->FreeInstance(u->inst);
    rtc__fmu_unit_released(u->fmu);
    rtc__fmu_repeat_clear(&u->rep);
    rtc__fmi3_se_free(u->se);
    free(u->sizes);
    free(u->bins);
    free(u->name);
    free(u);
}

static const rtc_unit_ops fmi3_ops = {
    .kind = "fmi3-cs",
    .instantiate = u_instantiate,
    .enter_init = rtc__fmi3_enter_init,
    .exit_init = u_exit_init,
    .set = rtc__fmi3_set,
    .get = rtc__fmi3_get,
    .do_step = u_do_step,
    .get_state = u_get_state,
    .set_state = u_set_state,
    .free_state = u_free_state,
    .terminate = rtc__fmi3_terminate,
    .free = rtc__fmi3_free,
};

void *rtc__fmi3_unit_instance(rtc_unit *unit, bool **fatal)
{
    fmi3_unit *u = unit->self;
    *fatal = &u->fatal;
    return u->inst;
}

int rtc__fmi3_unit_new(rtc_fmu *fmu, const char *instance_name, bool me,
                       rtc_fmu_event_mode event_mode, const rtc_logger *lg, rtc_unit **out)
{
    const rtc_model_desc *md = fmu->md;
    fmi3_unit *u = calloc(1, sizeof *u);
    if (!u)
        return RTC_ENOMEM;
    u->fmu = fmu;
    u->api = &fmu->api.fmi3;
    u->lg = lg;
    u->me = me;
    u->event_request = event_mode;
    u->scratch_n = 1;
    for (size_t i = 0; i < md->n_vars; i++)
        u->scratch_n += rtc_var_count(&md->vars[i]);
    u->name = strdup(instance_name);
    u->sizes = calloc(u->scratch_n, sizeof *u->sizes);
    u->bins = calloc(u->scratch_n, sizeof *u->bins);
    int rc = u->name && u->sizes && u->bins ? RTC_OK : RTC_ENOMEM;
    u->fmu_lg = rtc__fmu_repeat_init(&u->rep, u->name, lg);
    u->unit = (rtc_unit){
        .ops = &fmi3_ops, .self = u, .md = md, .name = u->name, .caps = rtc__fmu_caps(md, me)};
    /* an FMU with only the Scheduled Execution interface runs on its clock schedule */
    if (rc == RTC_OK && !me && !md->has_cs && md->has_se)
        rc = rtc__fmi3_se_attach(u);
    if (rc != RTC_OK) {
        rtc__fmu_repeat_clear(&u->rep);
        rtc__fmi3_se_free(u->se);
        free(u->name);
        free(u->sizes);
        free(u->bins);
        free(u);
        return rc;
    }
    *out = &u->unit;
    return RTC_OK;
}
