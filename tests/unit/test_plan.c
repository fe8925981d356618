/*
 * Unit tests of feasibility planning (rtcosim/plan.h, rtcosim/profile.h) on profiles whose
 * numbers the test chooses: the composition of a tick per master structure (the sum on one
 * thread, the longest thread with workers, the worst pattern of a multi-rate hyperperiod),
 * the verdict and its doubts, the options and their predicted effect, the plan files, and
 * Parallel Fast's paced H* from real-time factors (rtcosim/pfast.h).
 *
 * The systems are real (configs/controller-plant: PI controller + mass, 1 ms; configs/
 * parallel-fast-4: steps 2, 3, 1, 2 s), loaded but never stepped: a plan needs their
 * structure only. Constant samples make every prediction exact: a sum of constants is a
 * constant, so the sampled quantiles equal it to the nanosecond.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/assemble.h"
#include "rtcosim/pfast.h"
#include "rtcosim/plan.h"
#include "rtcosim/profile.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US(x) ((int64_t)(x) * 1000)

static rtc_system *load(const char *config, const rtc_system_options *so)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.ssp", RTC_TEST_CONFIG_DIR, config);
    rtc_system *sys = NULL;
    tlog log;
    tlog_init(&log);
    CU_ASSERT_EQUAL_FATAL(rtc_load_system(path, so, &log.lg, &sys), RTC_OK);
    return sys;
}

/* A profile of @p ticks rows: every unit works @p work[i] ns in the ticks it is due
 * (@p step_ticks[i]: every n-th tick; NULL: every tick), the engine's part is @p engine,
 * the wake-up @p wake. Info: SCHED_FIFO, quiet machine of 4 CPUs. */
static rtc_profile *profile(size_t n, size_t ticks, const int64_t *work, const int64_t *step_ticks,
                            int64_t engine, int64_t wake)
{
    rtc_profile *p = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_profile_new(n, ticks, &p), RTC_OK);
    int64_t row[RTC_PROFILE_UNIT0 + 8];
    for (size_t k = 0; k < ticks; k++) {
        int64_t units = 0;
        for (size_t i = 0; i < n; i++) {
            bool due = !step_ticks || k % (size_t)step_ticks[i] == 0;
            row[RTC_PROFILE_UNIT0 + i] = due ? work[i] : -1;
            units += due ? work[i] : 0;
        }
        row[RTC_PROFILE_WAKEUP] = wake;
        row[RTC_PROFILE_STEP] = units + engine - US(1);
        row[RTC_PROFILE_HANDOFF] = US(1);
        CU_ASSERT_EQUAL_FATAL(rtc_profile_append(p, (int64_t)k, row), RTC_OK);
    }
    rtc_profile_info *in = rtc_profile_info_of(p);
    snprintf(in->policy, sizeof in->policy, "SCHED_FIFO");
    in->cpus = 4;
    in->loadavg = 0.1;
    in->period_ns = US(1000);
    return p;
}

static rtc_plan *plan_of(const rtc_system *sys, const rtc_profile *p, unsigned workers,
                         unsigned profile_workers)
{
    rtc_plan_opts o = {.period_ns = US(1000), .rtf = 1, .workers = workers,
                       .profile_workers = profile_workers};
    rtc_plan *plan = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_plan_new(sys, p, &o, &plan), RTC_OK);
    return plan;
}

/* controller 100 µs, plant 200 µs, engine 10 µs, wake-up 20 µs, 1 ms period: one thread
 * sums them — 310 µs of work, 330 µs response, 67 % headroom, feasible. */
static void test_plan_sequential_sums_units(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(100), US(200)};
    rtc_profile *p = profile(2, 3000, work, NULL, US(10), US(20));
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_EQUAL(plan->work.p50, US(310));
    CU_ASSERT_EQUAL(plan->work.p999, US(310));
    CU_ASSERT_EQUAL(plan->response_ns, US(330));
    CU_ASSERT_EQUAL(plan->slack_ns, US(670));
    CU_ASSERT_DOUBLE_EQUAL(plan->headroom, 0.67, 1e-12);
    CU_ASSERT_EQUAL(plan->engine.p50, US(10));
    CU_ASSERT_EQUAL(plan->units[1].work.p99, US(200));
    CU_ASSERT_EQUAL(plan->units[1].work.samples, 3000);
    CU_ASSERT_STRING_EQUAL(plan->units[1].name, "plant");
    /* utilisation of the one thread: (10 + 100 + 200) µs per 1 ms tick */
    CU_ASSERT_EQUAL(plan->n_threads, 1);
    CU_ASSERT_DOUBLE_EQUAL(plan->utilisation[0], 0.31, 1e-9);
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_FEASIBLE);
    CU_ASSERT_TRUE(plan->confident);
    CU_ASSERT_EQUAL(plan->n_options, 0);
    CU_ASSERT_EQUAL(plan->overrun_rate, 0.0);
    CU_ASSERT_EQUAL(plan->dominant, 1);
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* With one worker the engine's rule puts controller on the RT thread and plant on the
 * worker: the tick is the engine + the longer thread (200 µs) + the assumed hand-off of a
 * profile made without workers. Made with a worker, the profile's own engine part already
 * holds the hand-off. */
static void test_plan_workers_take_the_longest_thread(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(100), US(200)};
    rtc_profile *p = profile(2, 1000, work, NULL, US(10), US(20));
    rtc_plan *plan = plan_of(sys, p, 1, 0);
    CU_ASSERT_EQUAL(plan->units[0].thread, 0);
    CU_ASSERT_EQUAL(plan->units[1].thread, 1);
    CU_ASSERT_EQUAL(plan->work.p50, US(10) + US(200) + RTC_PLAN_WORKER_HANDOFF_NS);
    CU_ASSERT_EQUAL(plan->n_threads, 2);
    CU_ASSERT_DOUBLE_EQUAL(plan->utilisation[1], 0.2, 1e-9);
    rtc_plan_free(plan);
    /* profiled with the worker: step = units' longest thread + engine (hand-off inside) */
    rtc_profile *pw = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_profile_new(2, 100, &pw), RTC_OK);
    for (int k = 0; k < 100; k++) {
        int64_t row[RTC_PROFILE_UNIT0 + 2] = {US(20), US(200) + US(30) - US(1), US(1), US(100),
                                              US(200)};
        CU_ASSERT_EQUAL(rtc_profile_append(pw, k, row), RTC_OK);
    }
    snprintf(rtc_profile_info_of(pw)->policy, 16, "SCHED_FIFO");
    plan = plan_of(sys, pw, 1, 1);
    CU_ASSERT_EQUAL(plan->engine.p50, US(30));
    CU_ASSERT_EQUAL(plan->work.p50, US(230));
    rtc_plan_free(plan);
    rtc_profile_free(pw);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* parallel-fast-4 (steps 2, 3, 1, 2 s on a 1 s tick): the hyperperiod has 6 ticks and 4
 * patterns — {A B C D} at 0, {C}, {A C D}, {B C}; the worst is the first, where all four
 * are due, and it decides although its share of the ticks is 1/6. */
static void test_plan_multirate_worst_tick_decides(void)
{
    rtc_system *sys = load("parallel-fast-4", NULL);
    CU_ASSERT_EQUAL_FATAL(rtc_system_tick_ns(sys), 1000000000);
    const int64_t work[4] = {US(300), US(300), US(100), US(300)};
    const int64_t every[4] = {2, 3, 1, 2};
    rtc_profile *p = profile(4, 600, work, every, US(10), US(20));
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_EQUAL(plan->n_patterns, 4);
    CU_ASSERT_EQUAL(plan->hyperperiod_ns, INT64_C(6000000000));
    CU_ASSERT_STRING_EQUAL(plan->worst_units, "A B C D");
    CU_ASSERT_EQUAL(plan->worst.p50, US(20 + 10 + 1000));
    CU_ASSERT_EQUAL(plan->response_ns, US(1030));
    /* 1.03 ms at the heavy tick misses the 1 ms period: even its median does */
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_INFEASIBLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->reason, "median tick with A B C D"));
    /* utilisation stays below one: A and D every 2nd tick, B every 3rd, C every tick */
    double u = (10 + 300.0 / 2 + 300.0 / 3 + 100 + 300.0 / 2) / 1000;
    CU_ASSERT_DOUBLE_EQUAL(plan->utilisation[0], u, 1e-9);
    /* the overrun rate: one tick in six */
    CU_ASSERT_DOUBLE_EQUAL(plan->overrun_rate, 1.0 / 6, 1e-9);
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* A 1.5 ms unit at a 1 ms period: infeasible, the unit named, and options whose predicted
 * effect fits: the unit on its own thread every 2nd tick (substitute), and a slower pace. */
static void test_plan_infeasible_names_unit_and_options(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(5), US(1500)};
    rtc_profile *p = profile(2, 2000, work, NULL, US(10), US(20));
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_INFEASIBLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->reason, "unit plant"));
    CU_ASSERT_DOUBLE_EQUAL(plan->overrun_rate, 1.0, 1e-12);
    bool substitute = false, pace = false, workers = false;
    for (size_t i = 0; i < plan->n_options; i++) {
        const rtc_plan_option *o = &plan->options[i];
        if (strstr(o->change, "stepSize=\"0.002\" on plant") &&
            strstr(o->change, "--overrun substitute")) {
            substitute = true;
            /* the rest of the tick: engine + controller + wake-up */
            CU_ASSERT_EQUAL(o->response_ns, US(10 + 5 + 20));
            CU_ASSERT_EQUAL(o->verdict, RTC_PLAN_FEASIBLE);
        }
        if (!strncmp(o->change, "--realtime ", 11)) {
            pace = true;
            CU_ASSERT_NOT_EQUAL(o->verdict, RTC_PLAN_INFEASIBLE);
        }
        workers |= !strncmp(o->change, "--workers", 9);
    }
    CU_ASSERT_TRUE(substitute);
    CU_ASSERT_TRUE(pace);
    CU_ASSERT_FALSE(workers); /* one unit cannot be split: no better, not an option */
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* Only the tail misses (5 ticks in 3000 take 1.2 ms): infeasible from a trustworthy
 * profile; from a loaded machine's the same numbers are only "tight", and the plan says
 * why — never a confident verdict drawn from the noise. */
static void test_plan_doubts_turn_tail_verdict_tight(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(100), US(200)};
    rtc_profile *p = profile(2, 3000, work, NULL, US(10), US(20));
    for (size_t k = 0; k < 3000; k += 600) /* overwrite: a long tick every 600 */
        ((int64_t *)rtc_profile_row(p, k, NULL))[RTC_PROFILE_UNIT0 + 1] = US(1200);
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_TRUE(plan->confident);
    CU_ASSERT_TRUE(plan->response_ns > US(1000));
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_INFEASIBLE);
    CU_ASSERT_TRUE(plan->overrun_rate > 0.001 && plan->overrun_rate < 0.0025);
    rtc_plan_free(plan);
    rtc_profile_info *in = rtc_profile_info_of(p);
    in->loadavg = 7.5; /* 4 CPUs */
    snprintf(in->policy, sizeof in->policy, "SCHED_OTHER");
    plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_FALSE(plan->confident);
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_TIGHT);
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->doubts, "loaded (load average 7.5 on 4 CPUs)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->doubts, "SCHED_OTHER"));
    rtc_plan_free(plan);
    /* too few ticks for p99.9 is a doubt too */
    rtc_profile *short_p = profile(2, 500, work, NULL, US(10), US(20));
    plan = plan_of(sys, short_p, 0, 0);
    CU_ASSERT_FALSE(plan->confident);
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->doubts, "500 ticks are too few for p99.9"));
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_FEASIBLE); /* the doubt does not move it */
    rtc_plan_free(plan);
    rtc_profile_free(short_p);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* Units of microseconds, but ten wake-ups in 3000 come 1.2 ms late: the machine's
 * scheduling decides, the plan says so, and proposes a quiet CPU and a slower pace — no
 * change of the system, which would not help. */
static void test_plan_wakeup_bound_blames_the_machine(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(2), US(3)};
    rtc_profile *p = profile(2, 3000, work, NULL, US(5), US(20));
    for (size_t k = 0; k < 3000; k += 300)
        ((int64_t *)rtc_profile_row(p, k, NULL))[RTC_PROFILE_WAKEUP] = US(1200);
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_TRUE(plan->wakeup_bound);
    CU_ASSERT_EQUAL(plan->wakeup_q, US(1200));
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_INFEASIBLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->reason, "the wake-up latency alone is 1.200 ms at "
                                                "p99.9: this machine's scheduling"));
    CU_ASSERT_EQUAL_FATAL(plan->n_options, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->options[0].change, "--cpu N, with CPU N isolated"));
    CU_ASSERT_EQUAL(plan->work_q, US(5 + 5));
    CU_ASSERT_EQUAL(plan->options[0].response_ns, US(20 + 5 + 5));
    CU_ASSERT_PTR_NOT_NULL(strstr(plan->options[1].change, "--realtime "));
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* A heavy unit leaves 15 % headroom: tight (below the 20 % margin), with options. */
static void test_plan_tight_below_margin(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(20), US(800)};
    rtc_profile *p = profile(2, 3000, work, NULL, US(10), US(20));
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_EQUAL(plan->response_ns, US(850));
    CU_ASSERT_DOUBLE_EQUAL(plan->headroom, 0.15, 1e-12);
    CU_ASSERT_EQUAL(plan->verdict, RTC_PLAN_TIGHT);
    CU_ASSERT_TRUE(plan->n_options > 0);
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* A Model Exchange unit with 8 RK4 substeps dominating an infeasible tick: the options
 * propose fewer substeps and a cheaper solver, each with the work scaled accordingly. */
static void test_plan_me_options_scale_work(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(10), US(1200)};
    rtc_profile *p = profile(2, 3000, work, NULL, US(10), US(20));
    rtc_plan_unit_hint hints[2] = {{0}, {.me = true, .solver = "rk4", .substeps = 8}};
    rtc_plan_opts o = {.period_ns = US(1000), .rtf = 1, .hints = hints};
    rtc_plan *plan = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_plan_new(sys, p, &o, &plan), RTC_OK);
    bool substeps = false, solver = false;
    for (size_t i = 0; i < plan->n_options; i++) {
        const rtc_plan_option *op = &plan->options[i];
        if (strstr(op->change, "substeps=\"5\" on plant")) {
            substeps = true; /* 5/8 of 1200 = 750 µs: 790 µs, 21 % headroom; 6 gives 940 */
            CU_ASSERT_EQUAL(op->response_ns, US(20 + 10 + 10 + 750));
        }
        if (strstr(op->change, "solver=\"heun\" on plant")) {
            solver = true; /* half the evaluations: 600 µs */
            CU_ASSERT_EQUAL(op->response_ns, US(20 + 10 + 10 + 600));
        }
    }
    CU_ASSERT_TRUE(substeps);
    CU_ASSERT_TRUE(solver);
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* plan.json + samples.csv: written whole, read back row for row; another key is refused. */
static void test_plan_files_round_trip(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    const int64_t work[2] = {US(100), US(200)};
    rtc_profile *p = profile(2, 50, work, NULL, US(10), US(20));
    ((int64_t *)rtc_profile_row(p, 7, NULL))[RTC_PROFILE_WAKEUP] = -1;
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    char dir[512];
    rtc_test_tmpdir(dir, sizeof dir);
    rtc_plan_meta meta = {.system = "cp", .machine = "m", .options = "o", .ticks_asked = 60};
    snprintf(meta.key, sizeof meta.key, "%064d", 7);
    CU_ASSERT_EQUAL(rtc_plan_save(plan, p, sys, &meta, dir), RTC_OK);
    rtc_profile *back = NULL;
    int64_t asked = 0;
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(rtc_plan_load_profile(dir, sys, meta.key, &back, &asked, err,
                                                sizeof err), RTC_OK);
    CU_ASSERT_EQUAL(asked, 60);
    CU_ASSERT_EQUAL_FATAL(rtc_profile_ticks(back), 50);
    for (size_t k = 0; k < 50; k++)
        CU_ASSERT_EQUAL(memcmp(rtc_profile_row(back, k, NULL), rtc_profile_row(p, k, NULL),
                               (RTC_PROFILE_UNIT0 + 2) * sizeof(int64_t)), 0);
    CU_ASSERT_STRING_EQUAL(rtc_profile_info_get(back)->policy, "SCHED_FIFO");
    rtc_profile *none = NULL;
    CU_ASSERT_EQUAL(rtc_plan_load_profile(dir, sys, "another", &none, &asked, err, sizeof err),
                    RTC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "another system, options or machine"));
    CU_ASSERT_PTR_NULL(none);
    rtc_test_rmtree(dir);
    rtc_profile_free(back);
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* A full table counts what it drops; the units must match the system. */
static void test_profile_full_table_counts_drops(void)
{
    rtc_profile *p = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_profile_new(1, 2, &p), RTC_OK);
    int64_t t[4] = {1000, 1500, 2500, 2600};
    for (int j = 0; j < 3; j++)
        rtc_profile_add(p, j, t, NULL);
    CU_ASSERT_EQUAL(rtc_profile_ticks(p), 2);
    CU_ASSERT_EQUAL(rtc_profile_info_get(p)->dropped, 1);
    const int64_t *r = rtc_profile_row(p, 0, NULL);
    CU_ASSERT_EQUAL(r[RTC_PROFILE_WAKEUP], 500);
    CU_ASSERT_EQUAL(r[RTC_PROFILE_STEP], 1000);
    CU_ASSERT_EQUAL(r[RTC_PROFILE_HANDOFF], 100);
    CU_ASSERT_EQUAL(r[RTC_PROFILE_UNIT0], -1);
    /* the second tick's deadline (1000) is before the first one ended (2600): late start */
    CU_ASSERT_EQUAL(rtc_profile_row(p, 1, NULL)[RTC_PROFILE_WAKEUP], -1);
    CU_ASSERT_EQUAL(rtc_profile_info_get(p)->late_starts, 2);
    rtc_system *sys = load("controller-plant", NULL);
    rtc_plan_opts o = {.period_ns = US(1000)};
    rtc_plan *plan = NULL;
    CU_ASSERT_EQUAL(rtc_plan_new(sys, p, &o, &plan), RTC_EINVAL); /* 1 unit, not 2 */
    CU_ASSERT_PTR_NULL(plan);
    rtc_system_free(sys);
    rtc_profile_free(p);
}

/* Two 600 µs units with two connections between them: one 1 ms node cannot hold both
 * (1.23 ms with the margin's 0.8 ms limit), two nodes each hold one and cut both
 * connections; a pin is obeyed; one light unit and one heavy fit together (no cut). */
static void test_plan_place_fits_then_cuts_least(void)
{
    rtc_system *sys = load("controller-plant", NULL);
    CU_ASSERT_EQUAL_FATAL(rtc_system_link_count(sys), 2);
    const int64_t heavy[2] = {US(600), US(600)}, light[2] = {US(100), US(600)};
    rtc_profile *p = profile(2, 3000, heavy, NULL, US(10), US(20));
    rtc_plan *plan = plan_of(sys, p, 0, 0);
    rtc_plan_placement pl;
    CU_ASSERT_EQUAL_FATAL(rtc_plan_place(plan, sys, p, 1, NULL, &pl), RTC_OK);
    CU_ASSERT_FALSE(pl.fits);
    CU_ASSERT_EQUAL(pl.cut, 0);
    rtc_plan_placement_clear(&pl);
    CU_ASSERT_EQUAL_FATAL(rtc_plan_place(plan, sys, p, 2, NULL, &pl), RTC_OK);
    CU_ASSERT_TRUE(pl.fits);
    CU_ASSERT_TRUE(pl.exhaustive);
    CU_ASSERT_EQUAL(pl.cut, 2);
    CU_ASSERT_NOT_EQUAL(pl.node[0], pl.node[1]);
    CU_ASSERT_EQUAL(pl.response_ns[0], US(20 + 10 + 600));
    CU_ASSERT_DOUBLE_EQUAL(pl.utilisation[1], 0.6, 1e-9);
    rtc_plan_placement_clear(&pl);
    size_t pin[2] = {1, SIZE_MAX};
    CU_ASSERT_EQUAL_FATAL(rtc_plan_place(plan, sys, p, 2, pin, &pl), RTC_OK);
    CU_ASSERT_EQUAL(pl.node[0], 1);
    CU_ASSERT_EQUAL(pl.node[1], 0);
    rtc_plan_placement_clear(&pl);
    pin[0] = 5;
    CU_ASSERT_EQUAL(rtc_plan_place(plan, sys, p, 2, pin, &pl), RTC_EINVAL);
    rtc_plan_free(plan);
    rtc_profile_free(p);
    p = profile(2, 3000, light, NULL, US(10), US(20));
    plan = plan_of(sys, p, 0, 0);
    CU_ASSERT_EQUAL_FATAL(rtc_plan_place(plan, sys, p, 3, NULL, &pl), RTC_OK);
    CU_ASSERT_TRUE(pl.fits);
    CU_ASSERT_EQUAL(pl.cut, 0);
    CU_ASSERT_EQUAL(pl.node[0], pl.node[1]);
    rtc_plan_placement_clear(&pl);
    rtc_plan_free(plan);
    rtc_profile_free(p);
    rtc_system_free(sys);
}

/* Parallel Fast, paced: with d = 1 everywhere only H <= 1 s keeps D_hat at 1; a limit of
 * 1 takes the argmin of E_hat among them; a unit slower than real time on its own (d_a =
 * 1.6, the paper's case) makes every candidate miss: no H helps. */
static void test_pfast_paced_choice(void)
{
    static const int64_t h[4] = {2000000000, 3000000000, 1000000000, 2000000000};
    static const double conn[16] = {0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0};
    const int64_t cand[4] = {500000000, 1000000000, 2000000000, 6000000000};
    double d1[4] = {1, 1, 1, 1}, d16[4] = {1.6, 1, 1, 1};
    rtc_pf_system ps = {.m = 4, .h_ns = h, .d = d1, .conn = conn};
    rtc_pf_plan *plan = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&ps, cand, 4, RTC_PF_LITERAL, &plan, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(plan->rows[plan->best].H_ns, 2000000000); /* unpaced: argmin E_hat */
    long r = rtc_pf_plan_best_paced(plan, 1.0);
    CU_ASSERT_TRUE_FATAL(r >= 0);
    /* D_hat(2 s) = 7/6 > 1; D_hat(6 s) = 1 but E_hat(6) = 13 > E_hat(1) = 7.5 */
    CU_ASSERT_EQUAL(plan->rows[r].H_ns, 1000000000);
    rtc_pf_plan_free(plan);
    ps.d = d16;
    CU_ASSERT_EQUAL_FATAL(rtc_pf_plan_new(&ps, cand, 4, RTC_PF_LITERAL, &plan, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL(rtc_pf_plan_best_paced(plan, 1.0), -1);
    rtc_pf_plan_free(plan);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"plan_sequential_sums_units", test_plan_sequential_sums_units},
        {"plan_workers_take_the_longest_thread", test_plan_workers_take_the_longest_thread},
        {"plan_multirate_worst_tick_decides", test_plan_multirate_worst_tick_decides},
        {"plan_infeasible_names_unit_and_options", test_plan_infeasible_names_unit_and_options},
        {"plan_doubts_turn_tail_verdict_tight", test_plan_doubts_turn_tail_verdict_tight},
        {"plan_tight_below_margin", test_plan_tight_below_margin},
        {"plan_wakeup_bound_blames_the_machine", test_plan_wakeup_bound_blames_the_machine},
        {"plan_me_options_scale_work", test_plan_me_options_scale_work},
        {"plan_files_round_trip", test_plan_files_round_trip},
        {"profile_full_table_counts_drops", test_profile_full_table_counts_drops},
        {"pfast_paced_choice", test_pfast_paced_choice},
        {"plan_place_fits_then_cuts_least", test_plan_place_fits_then_cuts_least},
        {NULL, NULL}};
    rtc_test_add_suite("plan", NULL, NULL, cases);
}
