/*
 * Lag — a first-order lag with two inputs: tau·y' = k1·u1 + k2·u2 + b − y, solved exactly
 * for inputs held over the step. Small and cheap, with two inputs and an output, it is the
 * building block of the Parallel Fast four-unit example and of the scaling benchmark
 * (chains and rings of any length).
 */
#include "model.h"

#include <math.h>

typedef struct lag {
    double tau, k1, k2, b, y0; /* fixed parameters */
    double u1, u2;             /* inputs */
    double y;                  /* output, the state */
    double f_h, f_tau, f;      /* cache: f = exp(-h / tau) */
} lag;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(lag, tau, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(lag, k1, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(lag, k2, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(lag, b, 4, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(lag, y0, 5, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(lag, u1, 6, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(lag, u2, 7, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(lag, y, 8, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    lag *m = mv;
    (void)ctx, (void)resource_dir;
    m->tau = 1.0;
    m->k1 = 0.5;
    m->k2 = 0.5;
    m->b = 1.0;
    m->f_h = -1.0;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    lag *m = mv;
    (void)ctx, (void)t0;
    m->y = m->y0;
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    lag *m = mv;
    (void)t, (void)info;
    if (m->tau <= 0) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "tau must be positive");
        return RTC_TM_ERROR;
    }
    if (h != m->f_h || m->tau != m->f_tau) {
        m->f = exp(-h / m->tau);
        m->f_h = h;
        m->f_tau = m->tau;
    }
    double target = m->k1 * m->u1 + m->k2 * m->u2 + m->b;
    m->y = target + (m->y - target) * m->f;
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Lag",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000009}",
    .size = sizeof(lag),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .step = step,
};
