/*
 * VanDerPol (Model Exchange only) — the interface of the Modelica Reference FMU of that
 * name: x0' = x1, x1' = mu (1 - x0^2) x1 - x0, x0(0) = 2, x1(0) = 0, mu = 1. Provides
 * directional derivatives (the analytic Jacobian) for the host's linearly implicit solver.
 */
#include "model.h"

typedef struct vdp {
    double x0, der_x0, x1, der_x1, mu;
} vdp;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(vdp, x0, 1, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(vdp, der_x0, 2, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(vdp, x1, 3, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(vdp, der_x1, 4, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(vdp, mu, 5, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    vdp *m = mv;
    (void)ctx, (void)resource_dir;
    m->x0 = 2.0;
    m->x1 = 0.0;
    m->mu = 1.0;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    (void)mv, (void)ctx, (void)t0;
    return 0;
}

static void outputs(void *mv)
{
    vdp *m = mv;
    m->der_x0 = m->x1;
    m->der_x1 = m->mu * (1.0 - m->x0 * m->x0) * m->x1 - m->x0;
}

static void jacobian(const void *mv, double t, double jac[])
{
    const vdp *m = mv;
    (void)t;
    jac[0] = 0.0;
    jac[1] = 1.0;
    jac[2] = -2.0 * m->mu * m->x0 * m->x1 - 1.0;
    jac[3] = m->mu * (1.0 - m->x0 * m->x0);
}

static const uint32_t x_vr[] = {1, 3}, dx_vr[] = {2, 4};
static const rtc_tm_me me = {.nx = 2, .x_vr = x_vr, .dx_vr = dx_vr, .jacobian = jacobian};

const rtc_tm_model rtc_tm_model_def = {
    .name = "VanDerPol",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000022}",
    .size = sizeof(vdp),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .me = &me,
};
