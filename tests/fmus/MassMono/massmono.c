/*
 * MassMono — Mass1 and Mass2 coupled monolithically (survey eq. 17 plus damper d2): the
 * reference solution for co-simulation convergence tests.
 *   m1 v1' = -c1 x1 - d1 v1 + Fc
 *   m2 v2' = -c2 x2 - d2 v2 - Fc,   Fc = cc (x2 - x1) + dc (v2 - v1)
 * Defaults are the survey's R2 set (m = c = d1 = cc = dc = 1, d2 = 0, x1(0) = 1, rest 0),
 * for which the exact state at t = 10 is [-0.0309694, -0.0068292, -0.0440917, 0.0049942].
 * RK4 with sub-steps <= 1e-4 s (common/rk4.h).
 */
#include "model.h"
#include "rk4.h"

typedef struct massmono {
    double m1, c1, d1, m2, c2, d2, cc, dc; /* fixed parameters */
    double x1_0, v1_0, x2_0, v2_0;         /* fixed parameters */
    double x1, v1, x2, v2;                 /* outputs = states */
    double Fc;                             /* output */
    double der_v1, der_v2;                 /* locals, derivatives of v1, v2 */
} massmono;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(massmono, m1, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, c1, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, d1, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, m2, 4, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, c2, 5, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, d2, 6, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, cc, 7, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, dc, 8, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, x1_0, 9, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, v1_0, 10, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, x2_0, 11, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, v2_0, 12, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(massmono, x1, 13, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(massmono, v1, 14, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(massmono, x2, 15, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(massmono, v2, 16, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(massmono, Fc, 17, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(massmono, der_v1, 18, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(massmono, der_v2, 19, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
};

static void deriv(const void *mv, const double *x, double *dx)
{
    const massmono *m = mv;
    double fc = m->cc * (x[2] - x[0]) + m->dc * (x[3] - x[1]);
    dx[0] = x[1];
    dx[1] = (-m->c1 * x[0] - m->d1 * x[1] + fc) / m->m1;
    dx[2] = x[3];
    dx[3] = (-m->c2 * x[2] - m->d2 * x[3] - fc) / m->m2;
}

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    massmono *m = mv;
    (void)ctx, (void)resource_dir;
    m->m1 = m->c1 = m->d1 = m->m2 = m->c2 = m->cc = m->dc = 1.0;
    m->d2 = 0.0;
    m->x1_0 = 1.0;
    m->v1_0 = m->x2_0 = m->v2_0 = 0.0;
    return 0;
}

static void outputs(void *mv)
{
    massmono *m = mv;
    double x[4] = {m->x1, m->v1, m->x2, m->v2}, dx[4];
    m->Fc = m->cc * (m->x2 - m->x1) + m->dc * (m->v2 - m->v1);
    deriv(m, x, dx);
    m->der_v1 = dx[1];
    m->der_v2 = dx[3];
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    massmono *m = mv;
    (void)t0;
    m->x1 = m->x1_0;
    m->v1 = m->v1_0;
    m->x2 = m->x2_0;
    m->v2 = m->v2_0;
    if (!(m->m1 > 0.0) || !(m->m2 > 0.0)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "MassMono: m1 = %g, m2 = %g must be > 0",
                   m->m1, m->m2);
        return -1;
    }
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    massmono *m = mv;
    double x[4] = {m->x1, m->v1, m->x2, m->v2};
    (void)ctx, (void)t, (void)info;
    rtc_tm_rk4(m, deriv, x, 4, h);
    m->x1 = x[0];
    m->v1 = x[1];
    m->x2 = x[2];
    m->v2 = x[3];
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "MassMono",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000004}",
    .size = sizeof(massmono),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .step = step,
};
