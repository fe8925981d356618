/*
 * Burn — a unit whose step costs a known amount of CPU, for the feasibility planner's tests
 * and benchmarks (rtcosim plan --realtime). y = u (coupled through); acc = the arithmetic
 * kernel's running value (an output, so the work cannot be optimized away).
 *
 * Parameters (fixed):
 *   burn_s      busy-wait this many seconds of wall time (CLOCK_MONOTONIC) in every burning
 *               step: a step that costs burn_s whatever the machine (default 0)
 *   work        iterations of a dependent floating-point kernel in every burning step
 *               (about a nanosecond each; scales with the machine, like real model code)
 *   burn_every  burn in every n-th step only (1: every step; 100: one step in a hundred,
 *               the first of the run included) — an occasional heavy step
 */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

typedef struct burn {
    double burn_s;
    int32_t work, burn_every;
    double u, y, acc;
    long steps;
} burn;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(burn, burn_s, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(burn, work, 2, RTC_TM_I32, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(burn, burn_every, 3, RTC_TM_I32, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(burn, u, 4, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(burn, y, 5, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(burn, acc, 6, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    burn *m = mv;
    (void)ctx, (void)resource_dir;
    m->burn_every = 1;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    burn *m = mv;
    (void)t0;
    m->y = m->u;
    m->acc = 0;
    m->steps = 0;
    if (!(m->burn_s >= 0.0 && m->burn_s < 10.0) || m->work < 0 || m->burn_every < 1) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                   "Burn: burn_s %g not in [0, 10), or work %d < 0, or burn_every %d < 1",
                   m->burn_s, (int)m->work, (int)m->burn_every);
        return -1;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    burn *m = mv;
    (void)ctx, (void)t, (void)h, (void)info;
    if (m->steps++ % m->burn_every == 0) {
        double x = m->acc;
        for (int32_t i = 0; i < m->work; i++)
            x = x * 0.999999 + 1e-6; /* each iteration waits for the last */
        m->acc = x;
        if (m->burn_s > 0) {
            double end = now_s() + m->burn_s;
            while (now_s() < end)
                ;
        }
    }
    m->y = m->u;
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Burn",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000024}",
    .size = sizeof(burn),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .step = step,
};
