/*
 * Events — an FMI 3 co-simulation model with event mode (hasEventMode) that may return early
 * from fmi3DoStep (mightReturnEarlyFromDoStep). Two kinds of events, located exactly:
 *   - time events at t = k·period (k = 1, 2, ...): `ticks` counts them;
 *   - a state event when the ramp x (x' = rate, x(0) = 0) reaches 1: x is reset to 0 and
 *     `resets` counts them.
 * Each event instant takes two event iterations (superdense microsteps 0 and 1): the first
 * handles what happened and asks for another, the second sets the discrete state
 * `level = 100·resets + ticks` from the first's results. `host_events` counts the
 * event instants the HOST handled in Event Mode (0 when the host does not use event mode:
 * the FMU then handles its events inside fmi3DoStep, see common/wrap_events.c), and
 * `microstep` is the index of the last iteration at the last event instant.
 * `terminate_at` (parameter, default -1: never) = N >= 0 requests the end of the simulation
 * (terminateSimulation) at the host's N-th event instant after the initial one: 0 ends it
 * at the initial event, the one ExitInitializationMode leads to.
 */
#include "model.h"

#include <math.h>

typedef struct events {
    double period, rate;   /* parameters */
    double x;              /* output, continuous */
    int32_t ticks, resets; /* outputs, discrete */
    int32_t level;         /* output, discrete state set in the second iteration */
    int32_t microstep;     /* output: last iteration index at the last event instant */
    int32_t host_events;   /* output: event instants handled in the host's Event Mode */
    int32_t terminate_at;  /* parameter: end the simulation at this host event instant */
    int64_t k_next;        /* next time event at k_next·period */
    bool time_event, state_event; /* located by step, handled by update */
} events;

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(events, period, 1, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(events, rate, 2, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(events, x, 3, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_CONTINUOUS),
    RTC_TM_VAR(events, ticks, 4, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(events, resets, 5, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(events, level, 6, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(events, microstep, 7, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(events, host_events, 8, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(events, terminate_at, 9, RTC_TM_I32, RTC_TM_PARAMETER, RTC_TM_FIXED),
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    events *m = mv;
    (void)ctx, (void)resource_dir;
    m->period = 0.25;
    m->rate = 0.7;
    m->terminate_at = -1;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    events *m = mv;
    if (!(m->period > 0.0) || !(m->rate > 0.0)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR,
                   "Events: need period > 0 and rate > 0 (period = %g, rate = %g)", m->period,
                   m->rate);
        return -1;
    }
    m->x = 0.0;
    m->ticks = m->resets = m->level = m->microstep = m->host_events = 0;
    m->k_next = (int64_t)floor(t0 / m->period) + 1;
    m->time_event = m->state_event = false;
    return 0;
}

/* Advance to the first event in (t, t + h], or to t + h. */
static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    events *m = mv;
    (void)ctx;
    double t_end = t + h, eps = 1e-9 * fmax(1.0, fabs(t_end));
    double t_time = (double)m->k_next * m->period;
    double t_state = t + (1.0 - m->x) / m->rate;
    double te = fmin(t_time, t_state);
    if (te > t_end + eps) {
        m->x += m->rate * h;
        return RTC_TM_OK;
    }
    te = te >= t_end - eps ? t_end : te; /* an event at the step's end is at the end */
    m->x += m->rate * (te - t);
    m->time_event = t_time <= te + eps;
    m->state_event = t_state <= te + eps;
    info->event = true;
    info->t_reached = te;
    return RTC_TM_OK;
}

static rtc_tm_status update(void *mv, rtc_tm_ctx *ctx, double t, unsigned iteration,
                            rtc_tm_update *u)
{
    events *m = mv;
    m->microstep = (int32_t)iteration;
    if (iteration == 0) {
        m->host_events += u->by_host;
        if (m->time_event) {
            m->ticks++;
            m->k_next++;
        }
        if (m->state_event) {
            m->resets++;
            m->x = 0.0;
        }
        m->time_event = m->state_event = false;
        u->need_update = true; /* level follows in the next microstep */
        rtc_tm_log(ctx, RTC_TM_OK, RTC_TM_LOG_EVENTS, "Events: t = %.17g ticks %d resets %d", t,
                   (int)m->ticks, (int)m->resets);
        /* host_events counts the initial event: it is instant 0 */
        u->terminate = u->by_host && m->terminate_at >= 0 && m->host_events > m->terminate_at;
        u->need_update = !u->terminate;
    } else {
        m->level = 100 * m->resets + m->ticks;
    }
    return RTC_TM_OK;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Events",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000e01}",
    .size = sizeof(events),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .step = step,
    .has_event_mode = true,
    .update = update,
};
