/*
 * Clocks — an FMI 3 Scheduled Execution model (no Co-Simulation interface) with model
 * partitions of different rates and priorities, after the pattern of the FMI 3 Reference
 * FMU "Clocks" (own code, own numbers):
 *   slow  (1001) periodic 0.2 s, priority 2: counts; every 3rd tick sets the countdown
 *         clock burst to `burst_delay` (Changed) and calls clockUpdate;
 *   fast  (1002) periodic 0.1 s, priority 1: y += u under lockPreemption; every 3rd tick
 *         the output clock tick3 ticks (clockUpdate);
 *   burst (1003) countdown, priority 3: counts;
 *   trig  (1004) triggered (aperiodic) input clock, priority 0: counts;
 *   tick3 (1005) output clock.
 * Priorities run against the value-reference order on purpose (trig, fast, slow, burst),
 * so a host that activates in reference order shows up in `order`.
 * `lock_fault` = 1 makes fast's partition return with the preemption lock still held (a
 * host's guard must catch it).
 * `order` records the partitions run at the latest activation instant as digits in
 * activation order (1 slow, 2 fast, 3 burst, 4 trig), so a host can check the priority
 * order within one instant; `t_last` is that instant.
 */
#include "model.h"

typedef struct clocks {
    double u, y;            /* input and output of fast */
    int32_t n_slow, n_fast, n_burst, n_trig;
    int64_t order;          /* partitions at the last instant, in activation order */
    double t_last;
    double burst_delay;     /* parameter: countdown interval set by slow */
    int32_t lock_fault;     /* parameter: 1 = fast returns with the lock held */
    double burst_interval;  /* countdown state */
    int burst_qualifier;    /* 0 not yet known, 1 unchanged, 2 changed */
    bool tick3;             /* output clock ticked, not yet read */
} clocks;

enum { SLOW = 1001, FAST, BURST, TRIG, TICK3 };

static const rtc_tm_var vars[] = {
    RTC_TM_TIME,
    RTC_TM_VAR(clocks, u, 1, RTC_TM_F64, RTC_TM_INPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, y, 2, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, n_slow, 3, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, n_fast, 4, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, n_burst, 5, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, n_trig, 6, RTC_TM_I32, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, order, 7, RTC_TM_I64, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, t_last, 8, RTC_TM_F64, RTC_TM_OUTPUT, RTC_TM_DISCRETE),
    RTC_TM_VAR(clocks, burst_delay, 9, RTC_TM_F64, RTC_TM_PARAMETER, RTC_TM_FIXED),
    RTC_TM_VAR(clocks, lock_fault, 10, RTC_TM_I32, RTC_TM_PARAMETER, RTC_TM_FIXED),
};

static const rtc_tm_clock clock_table[] = {
    {SLOW, false, false}, {FAST, false, false}, {BURST, false, true},
    {TRIG, false, false}, {TICK3, true, false},
};

static int setup(void *mv, rtc_tm_ctx *ctx, const char *resource_dir)
{
    clocks *m = mv;
    (void)ctx, (void)resource_dir;
    m->t_last = -1.0;
    return 0;
}

static int initialize(void *mv, rtc_tm_ctx *ctx, double t0)
{
    clocks *m = mv;
    (void)t0;
    if (!(m->burst_delay >= 0.0)) {
        rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "Clocks: burst_delay must be >= 0");
        return -1;
    }
    return 0;
}

static rtc_tm_status step(void *mv, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info)
{
    (void)mv, (void)t, (void)h, (void)info;
    rtc_tm_log(ctx, RTC_TM_ERROR, RTC_TM_LOG_ERROR, "Clocks: Scheduled Execution only");
    return RTC_TM_ERROR;
}

static rtc_tm_status activate(void *mv, rtc_tm_ctx *ctx, uint32_t clock, double t)
{
    clocks *m = mv;
    if (t != m->t_last)
        m->order = 0;
    m->t_last = t;
    m->order = m->order * 10 + (clock - SLOW + 1);
    switch (clock) {
    case SLOW:
        if (++m->n_slow % 3 == 0) {
            m->burst_interval = m->burst_delay;
            m->burst_qualifier = 2;
            rtc_tm_clock_update(ctx);
        }
        break;
    case FAST:
        rtc_tm_lock_preemption(ctx); /* y is shared with nobody here, but shows the use */
        m->y += m->u;
        if (!m->lock_fault)
            rtc_tm_unlock_preemption(ctx);
        if (++m->n_fast % 3 == 0) {
            m->tick3 = true;
            rtc_tm_clock_update(ctx);
        }
        break;
    case BURST:
        m->n_burst++;
        break;
    default:
        m->n_trig++;
        break;
    }
    return RTC_TM_OK;
}

static bool clock_ticked(void *mv, uint32_t clock)
{
    clocks *m = mv;
    bool on = clock == TICK3 && m->tick3;
    if (on)
        m->tick3 = false;
    return on;
}

static int interval(void *mv, uint32_t clock, double *iv)
{
    clocks *m = mv;
    (void)clock; /* only burst is a countdown clock */
    *iv = m->burst_interval;
    int q = m->burst_qualifier;
    if (q == 2)
        m->burst_qualifier = 1;
    return q;
}

const rtc_tm_model rtc_tm_model_def = {
    .name = "Clocks",
    .token = "{a3c2f1d0-5b6e-4c71-9d2a-000000000c01}",
    .size = sizeof(clocks),
    .vars = vars,
    .nvars = sizeof vars / sizeof vars[0],
    .setup = setup,
    .initialize = initialize,
    .step = step,
    .clocks = clock_table,
    .nclocks = sizeof clock_table / sizeof clock_table[0],
    .activate = activate,
    .clock_ticked = clock_ticked,
    .interval = interval,
};
