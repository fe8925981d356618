/*
 * Roberts (FMI 3.0 only) — Robertson's stiff chemical kinetics, with the interface of the
 * Modelica Reference FMU of that name (names, types, value references, causalities,
 * variabilities, initial attributes, start values), written here from that interface:
 *
 *     y1' = -0.04 y1 + 1e4 y2 y3
 *     y2' =  0.04 y1 - 1e4 y2 y3 - 3e7 y2^2
 *     0   =  y1 + y2 + y3 - 1            (y3 algebraic, so y1 + y2 + y3 = 1 exactly)
 *
 * Integrated with BDF2 (A-stable, second order) at an internal step of at most 1e-3 s, each
 * implicit stage solved by Newton's method on (y1, y2) with the analytic Jacobian; the
 * first sub-step of a doStep whose sub-step differs from the last one is backward Euler.
 * r is the residual of the algebraic equation, g1 = y1 - 0.5 and g2 = y3 - 0.5 are the
 * two event indicators (our choice; the FMU has no events to report). The structural
 * parameter dae is accepted and has no effect here. The archive lists every file of
 * extra/ twice, as the Reference FMU's does (see tests/fmus/CMakeLists.txt).
 */
#include "model.h"

#include <math.h>

typedef struct roberts {
    bool dae;
    double y1, der_y1, y2, der_y2, y3, y3_nominal, r, g1, g2;
    double p1, p2; /* (y1, y2) one sub-step back, for BDF2 */
    double h_last; /* sub-step of the last doStep; 0 before the first */
} roberts;

#define R(name, f, vr, type, caus, var)                                                            \
    {                                                                                              \
        name, (vr), (type), (caus), (var), offsetof(roberts, f), 1                                 \
    }

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    R("dae", dae, 1, RTC_TM_BOOL, RTC_TM_PARAMETER, RTC_TM_TUNABLE),
    R("y1", y1, 2, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    R("der(y1)", der_y1, 3, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    R("y2", y2, 4, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    R("der(y2)", der_y2, 5, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    R("y3", y3, 6, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    R("y3_nominal", y3_nominal, 7, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_FIXED),
    R("r", r, 8, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    R("g1", g1, 9, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
    R("g2", g2, 10, RTC_TM_F64, RTC_TM_LOCAL, RTC_TM_CONTINUOUS),
};

static void rhs(double y1, double y2, double *f1, double *f2)
{
    double y3 = 1.0 - y1 - y2;
    *f1 = -0.04 * y1 + 1e4 * y2 * y3;
    *f2 = 0.04 * y1 - 1e4 * y2 * y3 - 3e7 * y2 * y2;
}

static void derived(roberts *m)
{
    m->y3 = 1.0 - m->y1 - m->y2;
    rhs(m->y1, m->y2, &m->der_y1, &m->der_y2);
    m->r = m->y1 + m->y2 + m->y3 - 1.0;
    m->g1 = m->y1 - 0.5;
    m->g2 = m->y3 - 0.5;
}

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    roberts *m = mv;
    (void)ctx, (void)resource_dir;
    m->y1 = 1.0;
    m->y3_nominal = 1e-2;
    derived(m);
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    (void)ctx, (void)t0;
    derived(mv);
    return 0;
}

/* Solve y - c * f(y) = b for y = (y1, y2) (c = h for backward Euler, 2h/3 for BDF2),
 * starting from the current values. Returns false when Newton does not converge. */
static bool implicit_stage(roberts *m, double c, double b1, double b2)
{
    double y1 = m->y1, y2 = m->y2;
    for (int it = 0; it < 50; it++) {
        double f1, f2, y3 = 1.0 - y1 - y2;
        rhs(y1, y2, &f1, &f2);
        double j11 = -0.04 - 1e4 * y2, j12 = 1e4 * (y3 - y2);
        double j21 = -j11, j22 = -1e4 * (y3 - y2) - 6e7 * y2;
        double a11 = 1 - c * j11, a12 = -c * j12, a21 = -c * j21, a22 = 1 - c * j22;
        double r1 = y1 - c * f1 - b1, r2 = y2 - c * f2 - b2;
        double det = a11 * a22 - a12 * a21;
        double d1 = (r1 * a22 - r2 * a12) / det, d2 = (a11 * r2 - a21 * r1) / det;
        y1 -= d1;
        y2 -= d2;
        if (fabs(d1) <= 1e-14 * (1 + fabs(y1)) && fabs(d2) <= 1e-16 + 1e-12 * fabs(y2)) {
            m->y1 = y1;
            m->y2 = y2;
            return true;
        }
    }
    return false;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    roberts *m = mv;
    (void)t, (void)info;
    long n = (long)ceil(h / 1e-3 - 1e-9);
    double hs = h / (double)n;
    for (long k = 0; k < n; k++) {
        bool bdf2 = m->h_last == hs || k > 0;
        double c1 = m->y1, c2 = m->y2;
        bool ok = bdf2 ? implicit_stage(m, 2.0 * hs / 3.0, (4.0 * c1 - m->p1) / 3.0,
                                        (4.0 * c2 - m->p2) / 3.0)
                       : implicit_stage(m, hs, c1, c2);
        if (!ok) {
            rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "Newton iteration did not converge");
            return RTC_TM_ERROR;
        }
        m->p1 = c1;
        m->p2 = c2;
    }
    m->h_last = hs;
    derived(m);
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Roberts",
    .token = "{1AE5E10D-9521-4DE3-80B9-D0EAAA7D5AF2}",
    .size = sizeof(roberts),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .step = step,
};
