/*
 * The masters behind their one interface (rt-core/system/src/masters/master_priv.h): every
 * row of the table rtc__masters[] runs the same system — the coupled mass-spring-damper of
 * configs/msd-jacobi, 1 s at 10 ms — through the public API, chosen by the options that
 * select it, and the results agree where the algorithms say they must:
 *   - rows of one algorithm differ only in the threads that call the units (--workers,
 *     overrun policy substitute), so without lateness their results equal, bit for bit,
 *     those of the algorithm's row on the stepping thread (rtcosim/system.h);
 *   - Parallel Fast with H equal to every unit's step qualifies every unit at every step
 *     end (Eq. 2 of pfast.h), which is Jacobi's exchange;
 *   - Gauss-Seidel takes the fresh outputs of the units before it: different from Jacobi,
 *     and close to it (both are first-order couplings of the same system).
 * The names, the parser and the thread options that have no row derive from the table too.
 * The table is the system layer's internal one: this test reads it through its header.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "masters/master_priv.h"
#include "rtcosim/nonfinite.h"
#include "rtcosim/record.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H_NS INT64_C(10000000) /* msd-jacobi's base step, 10 ms */
#define TICKS 100              /* 1 s */
#define MAX_COLS 8

static char msd[600];

static int setup(void)
{
    snprintf(msd, sizeof msd, "%s/msd-jacobi.ssp", RTC_TEST_CONFIG_DIR);
    return 0;
}

/* Load msd-jacobi (a factory per system: the system releases it). */
static int load(const rtc_system_options *o, tlog *log, rtc_system **sys)
{
    rtc_unit_factory fmus;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&fmus), RTC_OK);
    return rtc_system_load(msd, &fmus, 1, o, &log->lg, sys);
}

/* The options that select @p row: its algorithm, and its threads. */
static rtc_system_options options_for(const rtc__master_ops *row)
{
    rtc_system_options o = {.has_algorithm = true, .sync_step_ns = H_NS,
                            .has_stop = true, .stop_ns = TICKS * H_NS};
    CU_ASSERT_EQUAL(rtc_master_parse(row->name, &o.algorithm), RTC_OK);
    o.workers = row->threads == RTC__ON_WORKERS ? 2 : 0;
    o.substitute = row->threads == RTC__ON_OWN_THREAD;
    return o;
}

/* The recorded values (the file's selection) at every tick, 0 .. TICKS. */
typedef struct run {
    size_t cols;
    double v[TICKS + 1][MAX_COLS];
} run;

static void sample(rtc_record *rec, void *row, run *r, size_t k)
{
    CU_ASSERT_EQUAL_FATAL(rtc_record_sample(rec, row), RTC_OK);
    for (size_t c = 0; c < r->cols; c++) {
        CU_ASSERT_TRUE(rtc_record_column_double(rec, row, c, &r->v[k][c]));
        CU_ASSERT_TRUE(isfinite(r->v[k][c]));
    }
}

/* Load msd-jacobi with the options of @p row, check the row is the one armed, run to the
 * stop time. */
static void run_row(const rtc__master_ops *row, run *r)
{
    tlog log;
    tlog_init(&log);
    rtc_system_options o = options_for(row);
    rtc_system *sys = NULL;
    rtc_record *rec = NULL;
    CU_ASSERT_EQUAL_FATAL(load(&o, &log, &sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_record_new(&rec), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_record(sys, rec, NULL, 0), RTC_OK);
    r->cols = rtc_record_columns(rec);
    CU_ASSERT_FATAL(r->cols >= 1 && r->cols <= MAX_COLS);
    void *buf = calloc(1, rtc_record_row_size(rec));
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    CU_ASSERT_PTR_EQUAL(sys->master, row); /* the options picked this row */
    sample(rec, buf, r, 0);
    for (size_t k = 1; k <= TICKS; k++) {
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
        sample(rec, buf, r, k);
    }
    CU_ASSERT_EQUAL(rtc_system_time_ns(sys), TICKS * H_NS);
    CU_ASSERT_EQUAL(rtc_system_step(sys), RTC_ESTATE); /* finished: no tick past the stop */
    CU_ASSERT_EQUAL(rtc_system_late_steps(sys), 0);
    free(buf);
    rtc_record_free(rec);
    rtc_system_free(sys);
}

static double max_diff(const run *a, const run *b)
{
    double worst = 0;
    for (size_t k = 0; k <= TICKS; k++)
        for (size_t c = 0; c < a->cols; c++)
            worst = fmax(worst, fabs(a->v[k][c] - b->v[k][c]));
    return worst;
}

static bool same_bits(const run *a, const run *b)
{
    return a->cols == b->cols && memcmp(a->v, b->v, sizeof a->v) == 0;
}

static void every_master_runs_the_system_and_agrees(void)
{
    CU_ASSERT_FATAL(rtc__n_masters >= 5);
    run *r = calloc(rtc__n_masters, sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (size_t i = 0; i < rtc__n_masters; i++) {
        printf("\n    %s on %s", rtc__masters[i]->name,
               rtc__masters[i]->threads == RTC__ON_STEPPER   ? "the stepping thread"
               : rtc__masters[i]->threads == RTC__ON_WORKERS ? "worker threads"
                                                             : "one thread per unit");
        run_row(rtc__masters[i], &r[i]);
    }
    rtc_master m;
    const run *jacobi = NULL, *gs = NULL, *pf = NULL;
    for (size_t i = 0; i < rtc__n_masters; i++) {
        CU_ASSERT_EQUAL_FATAL(rtc_master_parse(rtc__masters[i]->name, &m), RTC_OK);
        const rtc__master_ops *first = rtc__master_algorithm(m);
        size_t f = 0;
        while (rtc__masters[f] != first)
            f++;
        /* every row of an algorithm gives its first row's results, bit for bit */
        CU_ASSERT_TRUE(same_bits(&r[i], &r[f]));
        if (!same_bits(&r[i], &r[f]))
            printf("\n    row %zu (%s) differs from row %zu by %.3g", i, rtc__masters[i]->name,
                   f, max_diff(&r[i], &r[f]));
        jacobi = m == RTC_MASTER_JACOBI ? &r[f] : jacobi;
        gs = m == RTC_MASTER_GAUSS_SEIDEL ? &r[f] : gs;
        pf = m == RTC_MASTER_PARALLEL_FAST ? &r[f] : pf;
    }
    CU_ASSERT_FATAL(jacobi && gs && pf);
    CU_ASSERT_TRUE(same_bits(pf, jacobi)); /* H = h: Parallel Fast exchanges as Jacobi */
    /* first-order couplings of one system differ by O(h): at h = 10 ms the largest
     * difference (the coupling force, N) is 0.02; 0.05 still fails a wrong exchange */
    double d = max_diff(gs, jacobi);
    printf("\n    gauss-seidel vs jacobi: largest difference %.3g", d);
    CU_ASSERT(d > 0 && d < 0.05);
    free(r);
}

/* rtc_system_step_n() takes the ticks rtc_system_step() takes, with every row: in batches
 * of 7 the values after each call are those of the tick-by-tick run at that tick, bit for
 * bit; one call for the whole run stops at the stop time, not past it. */
static void every_master_steps_in_batches_as_tick_by_tick(void)
{
    for (size_t i = 0; i < rtc__n_masters; i++) {
        run ref, got;
        run_row(rtc__masters[i], &ref);
        for (int whole = 0; whole < 2; whole++) {
            tlog log;
            tlog_init(&log);
            rtc_system_options o = options_for(rtc__masters[i]);
            rtc_system *sys = NULL;
            rtc_record *rec = NULL;
            CU_ASSERT_EQUAL_FATAL(load(&o, &log, &sys), RTC_OK);
            CU_ASSERT_EQUAL_FATAL(rtc_record_new(&rec), RTC_OK);
            CU_ASSERT_EQUAL_FATAL(rtc_system_record(sys, rec, NULL, 0), RTC_OK);
            got.cols = rtc_record_columns(rec);
            CU_ASSERT_EQUAL_FATAL(got.cols, ref.cols);
            void *buf = calloc(1, rtc_record_row_size(rec));
            CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
            CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
            CU_ASSERT_EQUAL(rtc_system_step_n(sys, 0), RTC_OK); /* no tick */
            CU_ASSERT_EQUAL(rtc_system_tick_index(sys), 0);
            int64_t calls = 0;
            while (!rtc_system_finished(sys) && calls++ <= TICKS) {
                CU_ASSERT_EQUAL_FATAL(rtc_system_step_n(sys, whole ? 10 * TICKS : 7), RTC_OK);
                size_t k = (size_t)rtc_system_tick_index(sys);
                CU_ASSERT_FATAL(k <= TICKS);
                CU_ASSERT_EQUAL(k % 7 == 0 || k == TICKS, true); /* returned at n or the stop */
                sample(rec, buf, &got, k);
                CU_ASSERT_EQUAL(memcmp(got.v[k], ref.v[k], got.cols * sizeof(double)), 0);
            }
            CU_ASSERT_EQUAL(calls, whole ? 1 : (TICKS + 6) / 7);
            CU_ASSERT_EQUAL(rtc_system_time_ns(sys), TICKS * H_NS);
            CU_ASSERT_EQUAL(rtc_system_step_n(sys, 5), RTC_ESTATE); /* no tick past the stop */
            free(buf);
            rtc_record_free(rec);
            rtc_system_free(sys);
        }
    }
}

/* Load one test FMU (FMI 2) as a system of one unit recording its outputs, 10 ms steps to
 * 1 s, with the --set values @p sets. */
static rtc_system *load_fmu(const char *name, const char *const *sets, size_t n_sets,
                            rtc_record **rec, tlog *log)
{
    rtc_unit_factory fmus;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&fmus), RTC_OK);
    rtc_system_options o = {.step_ns = H_NS, .has_stop = true, .stop_ns = TICKS * H_NS,
                            .sets = sets, .n_sets = n_sets};
    rtc_system *sys = NULL;
    tlog_init(log);
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(tfmu_path(2, name), &fmus, 1, &o, &log->lg, &sys),
                          RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_record_new(rec), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_record(sys, *rec, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    return sys;
}

/* A batch ends where a caller must act before the next tick: after the tick that found a
 * value non-finite for the first time (not after each tick it stays so), and after the
 * tick in which a unit ended the simulation (the next call says RTC_ETERMINATED). */
static void step_n_returns_at_a_new_nonfinite_value_and_a_units_end(void)
{
    tlog log;
    rtc_record *rec = NULL;
    static const char *const nan_k[] = {"k=nan"}; /* der_x NaN at t0, x after a step */
    rtc_system *sys = load_fmu("Decay", nan_k, 1, &rec, &log);
    CU_ASSERT_EQUAL(rtc_nonfinite_count(rtc_system_nonfinite(sys)), 1); /* der_x, at init */
    CU_ASSERT_EQUAL(rtc_system_step_n(sys, 50), RTC_OK);
    CU_ASSERT_EQUAL(rtc_system_tick_index(sys), 1);
    CU_ASSERT_EQUAL(rtc_nonfinite_count(rtc_system_nonfinite(sys)), 2); /* x, new */
    CU_ASSERT_EQUAL(rtc_system_step_n(sys, 50), RTC_OK); /* still NaN: nothing new */
    CU_ASSERT_EQUAL(rtc_system_tick_index(sys), 51);
    rtc_record_free(rec);
    rtc_system_free(sys);

    static const char *const end[] = {"mode=3", "t_fault=0.025"}; /* ends inside tick 3 */
    sys = load_fmu("Fault", end, 2, &rec, &log);
    CU_ASSERT_EQUAL(rtc_system_step_n(sys, 50), RTC_OK);
    CU_ASSERT_EQUAL(rtc_system_tick_index(sys), 3);
    CU_ASSERT_EQUAL(rtc_system_time_ns(sys), 25000000); /* where it ended */
    CU_ASSERT_EQUAL(rtc_system_step_n(sys, 50), RTC_ETERMINATED);
    CU_ASSERT_EQUAL(rtc_system_tick_index(sys), 3);
    rtc_record_free(rec);
    rtc_system_free(sys);
}

/* Names and parsing come from the table; the public constants keep their names. */
static void names_and_parser_follow_the_table(void)
{
    size_t n = rtc_master_count();
    CU_ASSERT(n >= 3 && n <= rtc__n_masters);
    for (size_t i = 0; i < n; i++) {
        rtc_master m = RTC_MASTER_PARALLEL_FAST;
        CU_ASSERT_EQUAL(rtc_master_parse(rtc_master_name((rtc_master)i), &m), RTC_OK);
        CU_ASSERT_EQUAL((size_t)m, i);
        CU_ASSERT_STRING_EQUAL(rtc__master_algorithm((rtc_master)i)->name,
                               rtc_master_name((rtc_master)i));
    }
    for (size_t i = 0; i < rtc__n_masters; i++) { /* every row's name is an algorithm */
        rtc_master m;
        CU_ASSERT_EQUAL(rtc_master_parse(rtc__masters[i]->name, &m), RTC_OK);
    }
    CU_ASSERT_STRING_EQUAL(rtc_master_name(RTC_MASTER_JACOBI), "jacobi");
    CU_ASSERT_STRING_EQUAL(rtc_master_name(RTC_MASTER_GAUSS_SEIDEL), "gauss-seidel");
    CU_ASSERT_STRING_EQUAL(rtc_master_name(RTC_MASTER_PARALLEL_FAST), "parallel-fast");
    CU_ASSERT_STRING_EQUAL(rtc_master_name((rtc_master)n), "?");
    CU_ASSERT_PTR_NULL(rtc__master_algorithm((rtc_master)n));
    rtc_master m = RTC_MASTER_GAUSS_SEIDEL;
    CU_ASSERT_EQUAL(rtc_master_parse("Jacobi", &m), RTC_EPARSE);
    CU_ASSERT_EQUAL(rtc_master_parse("", &m), RTC_EPARSE);
    CU_ASSERT_EQUAL(m, RTC_MASTER_GAUSS_SEIDEL); /* unchanged on rejection */
}

static bool has_row(const char *name, rtc__master_threads th)
{
    for (size_t i = 0; i < rtc__n_masters; i++)
        if (rtc__masters[i]->threads == th && !strcmp(rtc__masters[i]->name, name))
            return true;
    return false;
}

/* An algorithm with a thread option it has no row for, or no algorithm at all, is refused
 * at load, with the reason. */
static void thread_options_without_a_row_are_refused(void)
{
    static const rtc__master_threads threaded[] = {RTC__ON_WORKERS, RTC__ON_OWN_THREAD};
    int refused = 0;
    for (size_t m = 0; m < rtc_master_count(); m++) {
        for (size_t t = 0; t < 2; t++) {
            if (has_row(rtc_master_name((rtc_master)m), threaded[t]))
                continue;
            tlog log;
            tlog_init(&log);
            rtc__master_ops probe = {.name = rtc_master_name((rtc_master)m),
                                     .threads = threaded[t]};
            rtc_system_options o = options_for(&probe);
            rtc_system *sys = NULL;
            CU_ASSERT_EQUAL(load(&o, &log, &sys), RTC_EINVAL);
            CU_ASSERT_PTR_NULL(sys);
            CU_ASSERT_TRUE(tlog_has(&log, "jacobi master"));
            refused++;
        }
    }
    CU_ASSERT(refused >= 2); /* gauss-seidel and parallel-fast run on one thread */
    /* an embedder's algorithm number past the table */
    tlog log;
    tlog_init(&log);
    rtc_system_options o = {.has_algorithm = true, .algorithm = (rtc_master)rtc_master_count()};
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL(load(&o, &log, &sys), RTC_EINVAL);
    CU_ASSERT_PTR_NULL(sys);
    char want[64];
    snprintf(want, sizeof want, "no master algorithm number %zu", rtc_master_count());
    CU_ASSERT_TRUE(tlog_has(&log, want));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"every_master_runs_the_system_and_agrees", every_master_runs_the_system_and_agrees},
        {"every_master_steps_in_batches_as_tick_by_tick",
         every_master_steps_in_batches_as_tick_by_tick},
        {"step_n_returns_at_a_new_nonfinite_value_and_a_units_end",
         step_n_returns_at_a_new_nonfinite_value_and_a_units_end},
        {"names_and_parser_follow_the_table", names_and_parser_follow_the_table},
        {"thread_options_without_a_row_are_refused", thread_options_without_a_row_are_refused},
        {NULL, NULL}};
    rtc_test_add_suite("masters", setup, NULL, cases);
}
