/*
 * Mass1 — mass-spring-damper S1 of Gomes et al. (survey eq. 9/13):
 *   x1' = v1,  m1 v1' = -c1 x1 - d1 v1 + Fe
 * Input Fe (force, held constant over a step), outputs x1, v1 (no feedthrough).
 * RK4 with sub-steps <= 1e-4 s (common/rk4.h).
 */
#include "model.h"
#include "rk4.h"

typedef struct mass1 {
    double m1, c1, d1, x1_0, v1_0; /* fixed parameters */
    double Fe;                     /* input */
    double x1, v1;                 /* outputs = states */
    double der_v1;                 /* local, derivative of v1 */
} mass1;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(mass1, m1, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass1, c1, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass1, d1, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass1, x1_0, 4, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass1, v1_0, 5, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass1, Fe, 6, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass1, x1, 7, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass1, v1, 8, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass1, der_v1, 9, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
};

static void deriv(const void *mv, const double *x, double *dx)
{
    const mass1 *m = mv;
    dx[0] = x[1];
    dx[1] = (-m->c1 * x[0] - m->d1 * x[1] + m->Fe) / m->m1;
}

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    mass1 *m = mv;
    (void)ctx, (void)resource_dir;
    m->m1 = m->c1 = m->d1 = 1.0;
    m->x1_0 = 1.0;
    m->v1_0 = 0.0;
    return 0;
}

static void outputs(void *mv)
{
    mass1 *m = mv;
    double x[2] = {m->x1, m->v1}, dx[2];
    deriv(m, x, dx);
    m->der_v1 = dx[1];
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    mass1 *m = mv;
    (void)t0;
    m->x1 = m->x1_0;
    m->v1 = m->v1_0;
    if (!(m->m1 > 0.0)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "Mass1: m1 = %g must be > 0", m->m1);
        return -1;
    }
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    mass1 *m = mv;
    double x[2] = {m->x1, m->v1};
    (void)ctx, (void)t, (void)info;
    rtc_tm_rk4(m, deriv, x, 2, h);
    m->x1 = x[0];
    m->v1 = x[1];
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Mass1",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000002}",
    .size = sizeof(mass1),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .step = step,
};
