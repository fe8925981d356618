/*
 * FMI 3 co-simulation events and early return, and Scheduled Execution clocks (issue 12
 * items 3 and 4), against the project's test FMUs Events and Clocks (tests/fmus/README.md):
 * the importer handles the events an FMU reports from fmi3DoStep in Event Mode (counted per
 * unit, microsteps in the system's superdense time), resumes an early return to the end of
 * the communication step on the integer grid, and activates an SE FMU's model partitions
 * on the clock schedule in priority order.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char work[512];
static char out[65536];

static int setup(void)
{
    rtc_test_tmpdir(work, sizeof work);
    return 0;
}

static int teardown(void)
{
    rtc_test_rmtree(work);
    return 0;
}

static int rtcosim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int rtcosim(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rtc_test_vrtcosim(work, NULL, out, sizeof out, fmt, ap);
    va_end(ap);
    return rc;
}

/* Load a single FMU as a system with communication step h_ns up to stop_ns, initialized. */
static rtc_system *load_fmu(const char *path, int64_t h_ns, int64_t stop_ns, tlog *log)
{
    rtc_unit_factory f;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
    tlog_init(log);
    rtc_system_options o = {.step_ns = h_ns, .stop_ns = stop_ns, .has_stop = true};
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, &f, 1, &o, &log->lg, &sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    return sys;
}

/* Int32 output of unit 0 by name, as visible at the current tick. */
static int32_t get_i32(rtc_system *sys, const char *name)
{
    const rtc_unit *u = rtc_system_unit(sys, 0);
    for (size_t i = 0; i < u->md->n_vars; i++) {
        if (strcmp(u->md->vars[i].name, name) != 0)
            continue;
        int32_t v = -1;
        CU_ASSERT_EQUAL(u->ops->get(u->self, RTC_TYPE_INT32, &u->md->vars[i].vr, 1, &v, 1),
                        RTC_OK);
        return v;
    }
    CU_FAIL("no such variable");
    return -1;
}

static double get_f64(rtc_system *sys, const char *name)
{
    const rtc_unit *u = rtc_system_unit(sys, 0);
    for (size_t i = 0; i < u->md->n_vars; i++) {
        if (strcmp(u->md->vars[i].name, name) != 0)
            continue;
        double v = NAN;
        CU_ASSERT_EQUAL(u->ops->get(u->self, RTC_TYPE_FLOAT64, &u->md->vars[i].vr, 1, &v, 1),
                        RTC_OK);
        return v;
    }
    CU_FAIL("no such variable");
    return NAN;
}

/*
 * Events (period 0.25 s, ramp rate 0.7/s) stepped at h = 0.1 s to 2 s: time events at
 * 0.25 … 2.0 (8) and one state event at 1/0.7 s, each handled by the importer in Event
 * Mode with two event iterations (superdense microsteps) per instant. The steps that hold
 * an event report superdense index 2, the others 0.
 */
static void event_mode_events_handled_by_importer(void)
{
    tlog log;
    rtc_system *sys = load_fmu(tfmu_path(3, "Events"), 100000000, 2000000000, &log);
    static const int with_event[] = {2, 4, 7, 9, 12, 14, 17, 19};
    for (int k = 0, e = 0; k < 20; k++) {
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
        rtc_sdtime now = rtc_system_superdense_time(sys);
        bool ev = e < 8 && with_event[e] == k;
        e += ev;
        CU_ASSERT_EQUAL(now.t_ns, (int64_t)(k + 1) * 100000000);
        CU_ASSERT_EQUAL(now.index, ev ? 2u : 0u);
        if (k == 13) { /* before the state event at 1.4286 s */
            CU_ASSERT_EQUAL(get_i32(sys, "resets"), 0);
            CU_ASSERT_EQUAL(get_i32(sys, "level"), 5);
        }
    }
    /* after the events: both counters, and level set in the second iteration */
    CU_ASSERT_EQUAL(get_i32(sys, "ticks"), 8);
    CU_ASSERT_EQUAL(get_i32(sys, "resets"), 1);
    CU_ASSERT_EQUAL(get_i32(sys, "level"), 108);
    CU_ASSERT_EQUAL(get_i32(sys, "microstep"), 1);
    /* the initial event and the nine of the run went through the importer's Event Mode */
    CU_ASSERT_EQUAL(get_i32(sys, "host_events"), 10);
    rtc_unit_event_stats st;
    rtc_system_unit_event_stats(sys, 0, &st);
    CU_ASSERT_EQUAL(st.events, 9);
    CU_ASSERT_EQUAL(st.max_microsteps, 2);
    rtc_system_free(sys);
}

/*
 * Early return: the events at 0.25, 0.75, 1.25, 1.75 s and the state event at 1/0.7 s lie
 * inside steps; the FMU returns there, the importer handles the event and resumes the step
 * to its end, so every tick still ends at (k+1)·h exactly and the ramp's value after the
 * state event is exact: x(1.5) = 0.7 · (1.5 − 1/0.7).
 */
static void early_return_resumed_to_the_grid(void)
{
    tlog log;
    rtc_system *sys = load_fmu(tfmu_path(3, "Events"), 100000000, 2000000000, &log);
    for (int k = 0; k < 20; k++) {
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
        CU_ASSERT_EQUAL(rtc_system_time_ns(sys), (int64_t)(k + 1) * 100000000);
        if (k == 14)
            CU_ASSERT_DOUBLE_EQUAL(get_f64(sys, "x"), 0.7 * 1.5 - 1.0, 1e-12);
    }
    rtc_unit_event_stats st;
    rtc_system_unit_event_stats(sys, 0, &st);
    CU_ASSERT_EQUAL(st.early_returns, 5);
    rtc_system_free(sys);
}

/* The same through the CLI: the CSV grid is exact (time column text) and one row per
 * communication point, however many early returns happened inside the steps. */
static void early_return_keeps_the_csv_grid(void)
{
    int rc = rtcosim("run '%s' -o ev.csv", tfmu_path(3, "Events"));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char path[700];
    snprintf(path, sizeof path, "%s/ev.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_rows, 21);
    char want[32];
    for (size_t r = 0; r < c.n_rows; r++) {
        snprintf(want, sizeof want, "%g", (double)r / 10);
        CU_ASSERT_STRING_EQUAL(c.time_text[r], want);
    }
    long he = tcsv_col(&c, "host_events");
    CU_ASSERT_FATAL(he > 0);
    CU_ASSERT_EQUAL(tcsv_at(&c, c.n_rows - 1, (size_t)he), 10.0);
    tcsv_free(&c);
}

void rtc_test_register(void)
{
    static const rtc_test_case events[] = {
        {"event_mode_events_handled_by_importer", event_mode_events_handled_by_importer},
        {"early_return_resumed_to_the_grid", early_return_resumed_to_the_grid},
        {"early_return_keeps_the_csv_grid", early_return_keeps_the_csv_grid},
        {NULL, NULL},
    };
    rtc_test_add_suite("fmi3_events", setup, teardown, events);
}
