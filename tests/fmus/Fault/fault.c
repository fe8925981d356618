/*
 * Fault — fault injection for the engine's error-path tests. Output y = t (time reached),
 * resource_value = the number in resources/value.txt (read once at instantiation; the
 * instantiation fails when it cannot be read). Input u only exists to be coupled.
 *
 * mode (fixed parameter):
 *   0 none
 *   1 Error  in the step that would pass t_fault (t + h > t_fault): nothing advances
 *   2 Fatal  likewise
 *   3 terminate in that step: the model advances to exactly t_fault and reports it
 *     (FMI 2: fmi2Discard + fmi2Terminated / fmi2LastSuccessfulTime; FMI 3: fmi3OK with
 *     terminateSimulation = true, lastSuccessfulTime = t_fault); y = t_fault
 *   4 sleep sleep_s seconds inside every step that starts at t >= t_fault
 *   5 sleep sleep_s seconds once, in the first step that starts at t >= t_fault
 *   6 log a warning in every step ("step <k> from t = <t> s: Fault logs every step (100%)",
 *     FMI 2: as a printf-style format with its arguments), logging on or off
 *   7 log the same error text in every step that starts at t >= t_fault ("Fault: sensor
 *     value out of range"), the step itself succeeding (as generated FMUs report a
 *     violated assertion and go on)
 * "Passing" and "starting at" use a relative tolerance of 1e-9, so with a step grid that
 * hits t_fault the fault fires in doStep(t_fault, h) and the step ending at t_fault is good.
 */
#include "model.h"

#include <math.h>
#include <stdio.h>

typedef struct fault {
    int32_t mode;
    double t_fault, sleep_s; /* fixed parameters */
    double u;                /* input */
    double y;                /* output: time */
    double resource_value;   /* output: from resources/value.txt */
    bool slept;              /* mode 5 fired */
    long steps;              /* mode 6: steps logged */
} fault;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(fault, mode, 1, RTC_TM_I32, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(fault, t_fault, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(fault, sleep_s, 3, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(fault, u, 4, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(fault, y, 5, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(fault, resource_value, 6, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    fault *m = mv;
    char path[4200];
    m->t_fault = 1.0;
    m->sleep_s = 0.01;
    snprintf(path, sizeof path, "%s/value.txt", resource_dir);
    FILE *f = fopen(path, "r");
    int n = f ? fscanf(f, "%lf", &m->resource_value) : 0;
    if (f)
        fclose(f);
    if (n != 1) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                   "Fault: cannot read a number from resource file '%s'", path);
        return -1;
    }
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    fault *m = mv;
    m->y = t0;
    m->slept = false;
    m->steps = 0;
    if (m->mode < 0 || m->mode > 7 || !(m->sleep_s >= 0.0) || !isfinite(m->t_fault)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                   "Fault: mode %d not in 0..7, or sleep_s %g < 0, or t_fault not finite",
                   (int)m->mode, m->sleep_s);
        return -1;
    }
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    fault *m = mv;
    double tol = 1e-9 * fmax(1.0, fabs(m->t_fault));
    bool passes = t + h > m->t_fault + tol, started = t >= m->t_fault - tol;
    switch (m->mode) {
    case 1:
    case 2:
        if (!passes)
            break;
        rtc_tm_log(ctx, m->mode == 1 ? RTC_TM_ERROR : RTC_TM_FATAL,
                   m->mode == 1 ? RTC_TM_LOG_ERROR : RTC_TM_LOG_FATAL,
                   "Fault: injected %s in the step from t = %.17g (t_fault = %.17g)",
                   m->mode == 1 ? "Error" : "Fatal", t, m->t_fault);
        return m->mode == 1 ? RTC_TM_ERROR : RTC_TM_FATAL;
    case 3:
        if (!passes)
            break;
        info->terminate = true;
        info->t_reached = fmax(t, m->t_fault);
        m->y = info->t_reached;
        rtc_tm_log(ctx, RTC_TM_OK, RTC_TM_LOG_EVENTS, "Fault: requesting termination at t = %.17g",
                   info->t_reached);
        return RTC_TM_OK;
    case 4:
        if (started)
            rtc_tm_sleep(m->sleep_s);
        break;
    case 5:
        if (started && !m->slept) {
            m->slept = true;
            rtc_tm_sleep(m->sleep_s);
        }
        break;
    case 6:
        rtc_tm_log_step(ctx, m->steps++, t, "Fault logs every step");
        break;
    case 7:
        if (started)
            rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "Fault: sensor value out of range");
        break;
    default:
        break;
    }
    m->y = t + h;
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Fault",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000008}",
    .size = sizeof(fault),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .needs_resources = true,
    .setup = setup,
    .initialize = initialize,
    .step = step,
};
