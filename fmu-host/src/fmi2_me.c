/*
 * FMI 2.0 Model Exchange calls for me_unit.c: thin wrappers that map fmi2Status to
 * rtc_status (rtc__fmu_check logs a failure once and a Fatal ends all calls but free).
 * RT-safe: yes (the FMU's own code aside).
 */
#include "me_priv.h"

#include "rtcosim/status.h"

#define API(c) ((const rtc_fmi2_api *)(c)->api)

static int ck(const rtc_me_call *c, const char *fn, fmi2Status st)
{
    if (st <= fmi2Warning) /* the common case, without a call */
        return RTC_OK;
    if (st == fmi2Fatal)
        *c->fatal = true;
    return rtc__fmu_check(c->name, fn, (int)st, c->lg);
}

static int set_time(const rtc_me_call *c, double t)
{
    return ck(c, "fmi2SetTime", API(c)->SetTime(c->inst, t));
}

static int set_x(const rtc_me_call *c, const double *x, size_t nx)
{
    return ck(c, "fmi2SetContinuousStates", API(c)->SetContinuousStates(c->inst, x, nx));
}

static int get_x(const rtc_me_call *c, double *x, size_t nx)
{
    return ck(c, "fmi2GetContinuousStates", API(c)->GetContinuousStates(c->inst, x, nx));
}

static int get_dx(const rtc_me_call *c, double *dx, size_t nx)
{
    return ck(c, "fmi2GetDerivatives", API(c)->GetDerivatives(c->inst, dx, nx));
}

static int get_z(const rtc_me_call *c, double *z, size_t nz)
{
    return ck(c, "fmi2GetEventIndicators", API(c)->GetEventIndicators(c->inst, z, nz));
}

static int get_nominals(const rtc_me_call *c, double *nom, size_t nx)
{
    return ck(c, "fmi2GetNominalsOfContinuousStates",
              API(c)->GetNominalsOfContinuousStates(c->inst, nom, nx));
}

static int enter_event(const rtc_me_call *c)
{
    return ck(c, "fmi2EnterEventMode", API(c)->EnterEventMode(c->inst));
}

static int update(const rtc_me_call *c, rtc_me_event_info *ev)
{
    fmi2EventInfo info = {0};
    int rc = ck(c, "fmi2NewDiscreteStates", API(c)->NewDiscreteStates(c->inst, &info));
    *ev = (rtc_me_event_info){.again = info.newDiscreteStatesNeeded != fmi2False,
                              .terminate = info.terminateSimulation != fmi2False,
                              .nominals_changed = info.nominalsOfContinuousStatesChanged != fmi2False,
                              .values_changed = info.valuesOfContinuousStatesChanged != fmi2False,
                              .next_defined = info.nextEventTimeDefined != fmi2False,
                              .next_time = info.nextEventTime};
    return rc;
}

static int enter_ct(const rtc_me_call *c)
{
    return ck(c, "fmi2EnterContinuousTimeMode", API(c)->EnterContinuousTimeMode(c->inst));
}

static int completed(const rtc_me_call *c, bool *enter_event_mode, bool *terminate)
{
    fmi2Boolean enter = fmi2False, term = fmi2False;
    int rc = ck(c, "fmi2CompletedIntegratorStep",
                API(c)->CompletedIntegratorStep(c->inst, c->no_prior, &enter, &term));
    *enter_event_mode = enter != fmi2False;
    *terminate = term != fmi2False;
    return rc;
}

static int dir_der(const rtc_me_call *c, const uint32_t *unk, size_t nu, const uint32_t *kn,
                   size_t nk, const double *seed, double *out)
{
    return ck(c, "fmi2GetDirectionalDerivative",
              API(c)->GetDirectionalDerivative(c->inst, unk, nu, kn, nk, seed, out));
}

/* FMI 2 fixes both numbers in the modelDescription. */
static int sizes(const rtc_me_call *c, const rtc_model_desc *md, size_t *nx, size_t *nz)
{
    (void)c;
    *nx = md->structure.n_derivatives;
    *nz = md->n_event_indicators;
    return RTC_OK;
}

const rtc_me_backend rtc__fmi2_me_backend = {
    .set_time = set_time,
    .set_x = set_x,
    .get_x = get_x,
    .get_dx = get_dx,
    .get_z = get_z,
    .get_nominals = get_nominals,
    .enter_event = enter_event,
    .update = update,
    .enter_ct = enter_ct,
    .completed = completed,
    .dir_der = dir_der,
    .sizes = sizes,
};
