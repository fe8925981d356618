/*
 * Stair (Model Exchange only) — the interface of the Modelica Reference FMU of that name
 * (time, counter) plus one parameter of ours: no continuous states, only time events.
 * counter starts at 1 and is incremented at every whole second (nextEventTime = 1, 2, ...).
 * counter_max > 0 (ours, vr 2, default 0 = never) asks the host to end the simulation
 * (terminateSimulation) in the event that makes counter reach it.
 * step_events (ours, vr 3, default 0 = off) > 0: CompletedIntegratorStep asks for Event Mode
 * after every step_events-th step (a step event); each such event increments step_count
 * (ours, vr 4). Both interfaces declare that CompletedIntegratorStep is needed.
 * endless (ours, vr 5, default false): every time event asks for one more event iteration,
 * forever — a faulty FMU whose event iteration never converges (the host must bound it).
 * past_event (ours, vr 6, default false): from the first time event on, nextEventTime is
 * 0.5 s before the event's time — a faulty FMU asking for a time event in the past.
 */
#include "model.h"

#include <float.h>
#include <math.h>

typedef struct stair {
    int32_t counter;
    int32_t counter_max;
    int32_t step_events, step_count;
    int32_t steps_done;
    bool step_due;
    bool endless;
    bool past_event;
    double next;
} stair;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(stair, counter, 1, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(stair, counter_max, 2, RTC_TM_I32, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(stair, step_events, 3, RTC_TM_I32, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(stair, step_count, 4, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(stair, endless, 5, RTC_TM_BOOL, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(stair, past_event, 6, RTC_TM_BOOL, RTC_TM_PARAMETER, RTC_TM_FIXED),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    stair *m = mv;
    (void)ctx, (void)resource_dir;
    m->counter = 1;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    stair *m = mv;
    (void)ctx;
    m->counter = 1;
    m->step_count = m->steps_done = 0;
    m->step_due = false;
    m->next = floor(t0) + 1.0;
    return 0;
}

static rtc_tm_status event(void *mv, rtc_tm_ctx *ctx, double t, rtc_tm_event_info *info)
{
    stair *m = mv;
    /* a host may land a rounding error short of the event time */
    if (t + (1.0 + fabs(t)) * 4.0 * DBL_EPSILON >= m->next) {
        m->counter++;
        m->next += 1.0;
        rtc_tm_log(ctx, RTC_TM_OK, RTC_TM_LOG_EVENTS, "Stair: counter = %d at t = %.17g",
                   (int)m->counter, t);
    }
    if (m->step_due) {
        m->step_due = false;
        m->step_count++;
    }
    info->again = m->endless && m->counter > 1;
    info->next_defined = true;
    info->next_time = m->past_event && m->counter > 1 ? t - 0.5 : m->next;
    info->terminate = m->counter_max > 0 && m->counter >= m->counter_max;
    return RTC_TM_OK;
}

static bool completed(void *mv, double t)
{
    stair *m = mv;
    (void)t;
    m->step_due = m->step_events > 0 && ++m->steps_done % m->step_events == 0;
    return m->step_due;
}

static const rtc_tm_me me = {.nx = 0, .event = event, .completed = completed};

const rtc_tm_model rtc_tm_model_def = {
    .name = "Stair",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000023}",
    .size = sizeof(stair),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .me = &me,
};
