/*
 * FMI 3.0 Model Exchange calls for me_unit.c: thin wrappers that map fmi3Status to
 * rtc_status (rtc__fmu_check logs a failure once and a Fatal ends all calls but free).
 * RT-safe: yes (the FMU's own code aside).
 */
#include "me_priv.h"

#include "rtcosim/status.h"

#define API(c) ((const rtc_fmi3_api *)(c)->api)

static int ck(const rtc_me_call *c, const char *fn, fmi3Status st)
{
    if (st <= fmi3Warning) /* the common case, without a call */
        return RTC_OK;
    if (st == fmi3Fatal)
        *c->fatal = true;
    return rtc__fmu_check(c->name, fn, (int)st, c->lg);
}

static int set_time(const rtc_me_call *c, double t)
{
    return ck(c, "fmi3SetTime", API(c)->SetTime(c->inst, t));
}

static int set_x(const rtc_me_call *c, const double *x, size_t nx)
{
    return ck(c, "fmi3SetContinuousStates", API(c)->SetContinuousStates(c->inst, x, nx));
}

static int get_x(const rtc_me_call *c, double *x, size_t nx)
{
    return ck(c, "fmi3GetContinuousStates", API(c)->GetContinuousStates(c->inst, x, nx));
}

static int get_dx(const rtc_me_call *c, double *dx, size_t nx)
{
    return ck(c, "fmi3GetContinuousStateDerivatives",
              API(c)->GetContinuousStateDerivatives(c->inst, dx, nx));
}

static int get_z(const rtc_me_call *c, double *z, size_t nz)
{
    return ck(c, "fmi3GetEventIndicators", API(c)->GetEventIndicators(c->inst, z, nz));
}

static int get_nominals(const rtc_me_call *c, double *nom, size_t nx)
{
    return ck(c, "fmi3GetNominalsOfContinuousStates",
              API(c)->GetNominalsOfContinuousStates(c->inst, nom, nx));
}

static int enter_event(const rtc_me_call *c)
{
    return ck(c, "fmi3EnterEventMode", API(c)->EnterEventMode(c->inst));
}

static int update(const rtc_me_call *c, rtc_me_event_info *ev)
{
    fmi3Boolean again = fmi3False, term = fmi3False, nom = fmi3False, val = fmi3False;
    fmi3Boolean next_def = fmi3False;
    fmi3Float64 next = 0.0;
    int rc = ck(c, "fmi3UpdateDiscreteStates",
                API(c)->UpdateDiscreteStates(c->inst, &again, &term, &nom, &val, &next_def, &next));
    *ev = (rtc_me_event_info){.again = again,
                              .terminate = term,
                              .nominals_changed = nom,
                              .values_changed = val,
                              .next_defined = next_def,
                              .next_time = next};
    return rc;
}

static int enter_ct(const rtc_me_call *c)
{
    return ck(c, "fmi3EnterContinuousTimeMode", API(c)->EnterContinuousTimeMode(c->inst));
}

static int completed(const rtc_me_call *c, bool *enter_event_mode, bool *terminate)
{
    fmi3Boolean enter = fmi3False, term = fmi3False;
    int rc = ck(c, "fmi3CompletedIntegratorStep",
                API(c)->CompletedIntegratorStep(c->inst, c->no_prior, &enter, &term));
    *enter_event_mode = enter != fmi3False;
    *terminate = term != fmi3False;
    return rc;
}

/* Scalar knowns and unknowns only (arrays make the unit use differences): nSeed = nKnowns,
 * nSensitivity = nUnknowns. */
static int dir_der(const rtc_me_call *c, const uint32_t *unk, size_t nu, const uint32_t *kn,
                   size_t nk, const double *seed, double *out)
{
    return ck(c, "fmi3GetDirectionalDerivative",
              API(c)->GetDirectionalDerivative(c->inst, unk, nu, kn, nk, seed, nk, out, nu));
}

/* FMI 3 asks the instance (structural parameters may size arrays of states). */
static int sizes(const rtc_me_call *c, const rtc_model_desc *md, size_t *nx, size_t *nz)
{
    (void)md;
    int rc = ck(c, "fmi3GetNumberOfContinuousStates",
                API(c)->GetNumberOfContinuousStates(c->inst, nx));
    return rc == RTC_OK ? ck(c, "fmi3GetNumberOfEventIndicators",
                             API(c)->GetNumberOfEventIndicators(c->inst, nz))
                        : rc;
}

const rtc_me_backend rtc__fmi3_me_backend = {
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
