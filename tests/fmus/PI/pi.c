/*
 * PI — PI controller with output clamping and conditional-integration anti-windup.
 *   e = r - y,  u = clamp(kp e + ki I, u_min, u_max)
 * Over a step the integral advances exactly for the error held at the step start:
 * I += e h, except while the unclamped output is saturated and e would drive it further
 * into saturation (frozen integrator). Output u has direct feedthrough from r and y: it is
 * recomputed from the current inputs every time an input (or gain) is set, like generated
 * FMUs do, and again after each step. Gains and limits are tunable parameters.
 */
#include "model.h"

typedef struct pi {
    double kp, ki, u_min, u_max; /* tunable parameters */
    double r, y;                 /* inputs: set-point, measurement */
    double u;                    /* output */
    double integral;             /* local, integrator state I */
} pi;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(pi, kp, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_TUNABLE),
    RTC_TM_VAR(pi, ki, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_TUNABLE),
    RTC_TM_VAR(pi, u_min, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_TUNABLE),
    RTC_TM_VAR(pi, u_max, 4, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_TUNABLE),
    RTC_TM_VAR(pi, r, 5, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(pi, y, 6, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(pi, u, 7, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(pi, integral, 8, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
};

static double unclamped(const pi *m)
{
    return m->kp * (m->r - m->y) + m->ki * m->integral;
}

static void outputs(void *mv)
{
    pi *m = mv;
    double u = unclamped(m);
    m->u = u > m->u_max ? m->u_max : u < m->u_min ? m->u_min : u;
}

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    pi *m = mv;
    (void)ctx, (void)resource_dir;
    m->kp = m->ki = 1.0;
    m->u_min = -1e3;
    m->u_max = 1e3;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    pi *m = mv;
    (void)t0;
    m->integral = 0.0;
    if (!(m->u_min <= m->u_max)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "PI: u_min = %g exceeds u_max = %g",
                   m->u_min, m->u_max);
        return -1;
    }
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    pi *m = mv;
    double e = m->r - m->y, u = unclamped(m);
    (void)ctx, (void)t, (void)info;
    /* Anti-windup: do not integrate further into a saturated limit. */
    bool push_up = m->ki * e > 0.0, push_down = m->ki * e < 0.0;
    if (!((u >= m->u_max && push_up) || (u <= m->u_min && push_down)))
        m->integral += e * h;
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "PI",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000005}",
    .size = sizeof(pi),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .step = step,
};
