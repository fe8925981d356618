/*
 * Stiff (Model Exchange only) — a stiff linear system x' = A x with
 * A = [[-lambda, 0], [1, -1]], x(0) = (1, 1), lambda = 1000 (parameter):
 *   x1(t) = exp(-lambda t),  x2(t) = exp(-t) + (exp(-t) - exp(-lambda t)) / (lambda - 1).
 * Explicit Euler is unstable for h > 2 / lambda; the host's linearly implicit method is
 * not. Provides directional derivatives (A) like the Reference FMU StateSpace.
 * jac_fault (ours, vr 6, default false): the directional derivatives say NaN for
 * d(der x2)/d x1 while the derivatives stay finite (a faulty FMU).
 */
#include "model.h"

#include <math.h>

typedef struct stiff {
    double x1, der_x1, x2, der_x2, lambda;
    bool jac_fault;
} stiff;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(stiff, x1, 1, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(stiff, der_x1, 2, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(stiff, x2, 3, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(stiff, der_x2, 4, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(stiff, lambda, 5, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(stiff, jac_fault, 6, RTC_TM_BOOL, RTC_TM_PARAMETER, RTC_TM_FIXED),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    stiff *m = mv;
    (void)ctx, (void)resource_dir;
    m->x1 = m->x2 = 1.0;
    m->lambda = 1000.0;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    (void)mv, (void)ctx, (void)t0;
    return 0;
}

static void outputs(void *mv)
{
    stiff *m = mv;
    m->der_x1 = -m->lambda * m->x1;
    m->der_x2 = m->x1 - m->x2;
}

static void jacobian(const void *mv, double t, double jac[])
{
    const stiff *m = mv;
    (void)t;
    jac[0] = -m->lambda;
    jac[1] = 0.0;
    jac[2] = m->jac_fault ? NAN : 1.0;
    jac[3] = -1.0;
}

static const uint32_t x_vr[] = {1, 3}, dx_vr[] = {2, 4};
static const rtc_tm_me me = {.nx = 2, .x_vr = x_vr, .dx_vr = dx_vr, .jacobian = jacobian};

const rtc_tm_model rtc_tm_model_def = {
    .name = "Stiff",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000024}",
    .size = sizeof(stiff),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .me = &me,
};
