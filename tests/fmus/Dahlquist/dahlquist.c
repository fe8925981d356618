/*
 * Dahlquist (Model Exchange only) — the interface of the Modelica Reference FMU of that
 * name: x' = -k x, x(0) = 1, k = 1, so x(t) = exp(-k t). The smooth test equation of the
 * host's convergence-order checks (Euler 1, Heun 2, RK4 4 by halving the step).
 */
#include "model.h"

typedef struct dahlquist {
    double x, der_x, k;
} dahlquist;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(dahlquist, x, 1, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(dahlquist, der_x, 2, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(dahlquist, k, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    dahlquist *m = mv;
    (void)ctx, (void)resource_dir;
    m->x = 1.0;
    m->k = 1.0;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    (void)mv, (void)ctx, (void)t0; /* x is a state with start 1: nothing to compute */
    return 0;
}

static void outputs(void *mv)
{
    dahlquist *m = mv;
    m->der_x = -m->k * m->x;
}

static void jacobian(const void *mv, double t, double jac[])
{
    const dahlquist *m = mv;
    (void)t;
    jac[0] = -m->k;
}

static const uint32_t x_vr[] = {1}, dx_vr[] = {2};
static const rtc_tm_me me = {.nx = 1, .x_vr = x_vr, .dx_vr = dx_vr, .jacobian = jacobian};

const rtc_tm_model rtc_tm_model_def = {
    .name = "Dahlquist",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000021}",
    .size = sizeof(dahlquist),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .me = &me,
};
