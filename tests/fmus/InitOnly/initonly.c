/*
 * InitOnly — honours its parameter only when it is set in Initialization Mode, as some
 * exporters' FMUs do (a 20-sim crane FMU in libcosim's demo copies its start values on
 * entering Initialization Mode, so a value set before is lost). Both set times are allowed
 * by FMI 2.0 and 3.0; an importer that sets parameters only before initialization gets
 * y = 1 (the start value) instead of the value it set.
 *
 *     y = k (output), k: parameter/fixed, start 1
 */
#include "model.h"

typedef struct initonly {
    double k, y;
    bool entered; /* Initialization Mode was entered (the start values were copied) */
} initonly;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(initonly, k, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(initonly, y, 2, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    initonly *m = mv;
    (void)ctx, (void)resource_dir;
    m->k = 1.0;
    m->entered = false;
    return 0;
}

/* The first call is the entry into Initialization Mode: the start value replaces whatever
 * was set before. Later calls (after sets in the mode, on leaving it) keep k. */
static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    initonly *m = mv;
    (void)ctx, (void)t0;
    if (!m->entered)
        m->k = 1.0;
    m->entered = true;
    m->y = m->k;
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    initonly *m = mv;
    (void)ctx, (void)t, (void)h, (void)info;
    m->y = m->k;
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "InitOnly",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000009}",
    .size = sizeof(initonly),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .step = step,
};
