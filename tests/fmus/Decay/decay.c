/*
 * Decay — x' = -k x, x(0) = x0, solved exactly per step (x *= exp(-k h)). The benchmark
 * FMU: a step is one multiplication while the step size and k are unchanged (the factor
 * is cached), so timing tests measure the host, not the model.
 */
#include "model.h"

#include <math.h>

typedef struct decay {
    double k, x0;       /* fixed parameters */
    double x;           /* output, the state */
    double der_x;       /* output, derivative of x */
    double f_h, f_k, f; /* cache: f = exp(-f_k * f_h) */
} decay;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(decay, k, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(decay, x0, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(decay, x, 3, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(decay, der_x, 4, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    decay *m = mv;
    (void)ctx, (void)resource_dir;
    m->k = 1.0;
    m->x0 = 1.0;
    m->f_h = -1.0; /* no cached factor yet */
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    decay *m = mv;
    (void)ctx, (void)t0;
    m->x = m->x0;
    m->der_x = -m->k * m->x;
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    decay *m = mv;
    (void)ctx, (void)t, (void)info;
    if (h != m->f_h || m->k != m->f_k) {
        m->f = exp(-m->k * h);
        m->f_h = h;
        m->f_k = m->k;
    }
    m->x *= m->f;
    m->der_x = -m->k * m->x;
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Decay",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000001}",
    .size = sizeof(decay),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .step = step,
};
