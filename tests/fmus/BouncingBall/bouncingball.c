/*
 * BouncingBall — ballistic flight h' = v, v' = -g, solved exactly inside each step; an
 * impact (h = 0 while falling) is located exactly by solving the quadratic, then
 * v -> -e v. When the rebound speed falls below v_stop = 1e-3 * sqrt(v0^2 + 2 g h0)
 * (a thousandth of the first impact speed) the ball rests: h = 0, v = 0, der_v = 0.
 * Output `bounces` counts impacts (resting one included).
 *
 * Model Exchange: states (h, v), derivatives (v, der_v), one event indicator z = h (1 while
 * resting). The impact is a state event: in Event Mode a falling ball at h <= 0 rebounds
 * with v -> -e v and h = DBL_MIN (so the indicator is not left at 0), as the Reference FMU
 * BouncingBall does; the resting rule is the same as in Co-Simulation.
 * z_fault (ours, vr 10, default false): the indicator is NaN from t = 0.5 s on (a faulty
 * FMU; the host must say so rather than detect no crossing).
 */
#include "model.h"

#include <float.h>
#include <math.h>

typedef struct bball {
    double g, e, h0, v0; /* parameters (e tunable) */
    double h, v;         /* outputs = states */
    double der_v;        /* local, derivative of v */
    int32_t bounces;     /* output, discrete */
    double z;            /* local, the ME event indicator (FMI 3 lists it as a variable) */
    bool z_fault;        /* parameter: the indicator is NaN from t = 0.5 s */
    bool resting;
    double v_stop;
} bball;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(bball, g, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(bball, e, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_TUNABLE),
    RTC_TM_VAR(bball, h0, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(bball, v0, 4, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(bball, h, 5, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(bball, v, 6, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(bball, der_v, 7, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(bball, bounces, 8, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(bball, z, 9, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(bball, z_fault, 10, RTC_TM_BOOL, RTC_TM_PARAMETER, RTC_TM_FIXED),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    bball *m = mv;
    (void)ctx, (void)resource_dir;
    m->g = 9.81;
    m->e = 0.7;
    m->h0 = 1.0;
    m->v0 = 0.0;
    return 0;
}

static void outputs(void *mv)
{
    bball *m = mv;
    m->der_v = m->resting ? 0.0 : -m->g;
    m->z = m->resting ? 1.0 : m->h;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    bball *m = mv;
    (void)t0;
    if (!(m->g > 0.0) || !(m->e >= 0.0 && m->e <= 1.0) || !(m->h0 >= 0.0)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                   "BouncingBall: need g > 0, 0 <= e <= 1, h0 >= 0 (g = %g, e = %g, h0 = %g)", m->g,
                   m->e, m->h0);
        return -1;
    }
    m->h = m->h0;
    m->v = m->v0;
    m->bounces = 0;
    m->v_stop = 1e-3 * sqrt(m->v0 * m->v0 + 2.0 * m->g * m->h0);
    m->resting = m->h0 == 0.0 && m->v0 <= 0.0;
    if (m->resting)
        m->v = 0.0;
    return 0;
}

/* Time until h reaches 0, in the cancellation-free form of the quadratic's root. */
static double time_to_impact(const bball *m)
{
    if (m->h <= 0.0 && m->v <= 0.0)
        return 0.0;
    double root = sqrt(m->v * m->v + 2.0 * m->g * m->h);
    return m->v > 0.0 ? (m->v + root) / m->g : 2.0 * m->h / (root - m->v);
}

/* Rebound at the ground (h_after: 0 in CS, DBL_MIN in ME), or rest when too slow. */
static void impact(bball *m, double h_after)
{
    m->h = h_after;
    m->v = -m->e * m->v;
    m->bounces++;
    if (m->v < m->v_stop) {
        m->v = 0.0;
        m->h = 0.0;
        m->resting = true;
    }
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    bball *m = mv;
    double left = h;
    (void)info;
    /* Each pass ends at an impact; finitely many since speed shrinks by e per bounce. */
    while (!m->resting && left > 0.0) {
        double s = time_to_impact(m);
        if (s >= left) {
            m->h += m->v * left - 0.5 * m->g * left * left;
            m->v -= m->g * left;
            m->h = m->h < 0.0 ? 0.0 : m->h;
            break;
        }
        left -= s;
        m->v -= m->g * s;
        impact(m, 0.0);
        rtc_tm_log(ctx, RTC_TM_OK, RTC_TM_LOG_EVENTS, "BouncingBall: impact %d at t = %.17g",
                   (int)m->bounces, t + (h - left));
    }
    return RTC_TM_OK;
}

static void indicators(const void *mv, double t, double z[])
{
    const bball *m = mv;
    z[0] = m->resting ? 1.0 : m->h; /* = m->z, computed here from the live states */
    if (m->z_fault && t >= 0.5)
        z[0] = NAN;
}

static rtc_tm_status event(void *mv, rtc_tm_ctx *ctx, double t, rtc_tm_event_info *info)
{
    bball *m = mv;
    if (!m->resting && m->h <= 0.0 && m->v < 0.0) {
        impact(m, DBL_MIN);
        info->values_changed = true;
        rtc_tm_log(ctx, RTC_TM_OK, RTC_TM_LOG_EVENTS, "BouncingBall: impact %d at t = %.17g",
                   (int)m->bounces, t);
    }
    return RTC_TM_OK;
}

static const uint32_t x_vr[] = {5, 6}, dx_vr[] = {6, 7};
static const rtc_tm_me me = {
    .nx = 2, .x_vr = x_vr, .dx_vr = dx_vr, .nz = 1, .indicators = indicators, .event = event};

const rtc_tm_model rtc_tm_model_def = {
    .name = "BouncingBall",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000006}",
    .size = sizeof(bball),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .outputs = outputs,
    .step = step,
    .me = &me,
};
