/*
 * Mass2 — mass-spring-damper S2 of Gomes et al. (survey eq. 14-15) with the extra damper
 * d2 that the survey's stability figures need (errata 6; d2 = 0 reproduces eq. 14):
 *   x2' = v2,  m2 v2' = -c2 x2 - d2 v2 - Fc,  Fc = cc (x2 - xc) + dc (v2 - vc)
 * Inputs xc, vc (the other mass's position and velocity, held constant over a step);
 * output Fc has direct feedthrough from xc and vc and is recomputed whenever they are set.
 * RK4 with sub-steps <= 1e-4 s (common/rk4.h).
 */
#include "model.h"
#include "rk4.h"

typedef struct mass2 {
    double m2, c2, d2, cc, dc, x2_0, v2_0; /* fixed parameters */
    double xc, vc;                         /* inputs */
    double Fc;                             /* output, feedthrough */
    double x2, v2;                         /* outputs = states */
    double der_v2;                         /* local, derivative of v2 */
} mass2;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(mass2, m2, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass2, c2, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass2, d2, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass2, cc, 4, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass2, dc, 5, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass2, x2_0, 6, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass2, v2_0, 7, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(mass2, xc, 8, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass2, vc, 9, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass2, Fc, 10, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass2, x2, 11, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass2, v2, 12, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(mass2, der_v2, 13, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
};

static double coupling_force(const mass2 *m, double x2, double v2)
{
    return m->cc * (x2 - m->xc) + m->dc * (v2 - m->vc);
}

static void deriv(const void *mv, const double *x, double *dx)
{
    const mass2 *m = mv;
    dx[0] = x[1];
    dx[1] = (-m->c2 * x[0] - m->d2 * x[1] - coupling_force(m, x[0], x[1])) / m->m2;
}

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    mass2 *m = mv;
    (void)ctx, (void)resource_dir;
    m->m2 = m->c2 = m->cc = m->dc = 1.0;
    m->d2 = 0.0;
    m->x2_0 = m->v2_0 = 0.0;
    return 0;
}

static void outputs(void *mv)
{
    mass2 *m = mv;
    double x[2] = {m->x2, m->v2}, dx[2];
    m->Fc = coupling_force(m, m->x2, m->v2);
    deriv(m, x, dx);
    m->der_v2 = dx[1];
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    mass2 *m = mv;
    (void)t0;
    m->x2 = m->x2_0;
    m->v2 = m->v2_0;
    if (!(m->m2 > 0.0)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "Mass2: m2 = %g must be > 0", m->m2);
        return -1;
    }
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    mass2 *m = mv;
    double x[2] = {m->x2, m->v2};
    (void)ctx, (void)t, (void)info;
    rtc_tm_rk4(m, deriv, x, 2, h);
    m->x2 = x[0];
    m->v2 = x[1];
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Mass2",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000003}",
    .size = sizeof(mass2),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .step = step,
};
