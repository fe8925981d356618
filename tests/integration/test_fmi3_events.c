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

RTC_TEST_RTCOSIM_FIXTURE

/* Load @p path (a single FMU, or a system) with communication step h_ns up to stop_ns,
 * initialized. */
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

/* A system of one component "fmu" made from @p fmu with rtc:Component event_mode=@p mode
 * (the way to ask for Event Mode in a system); returns its path (static buffer). */
static const char *with_event_mode(const char *fmu, const char *mode)
{
    static char path[700];
    snprintf(path, sizeof path, "%s/em-%s.ssd", work, mode);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
            "name=\"t\" xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\"><ssd:Elements>"
            "<ssd:Component name=\"fmu\" source=\"%s\"><ssd:Annotations><ssc:Annotation "
            "type=\"org.rtcosim.realtime\"><rtc:Component event_mode=\"%s\"/></ssc:Annotation>"
            "</ssd:Annotations></ssd:Component></ssd:Elements></ssd:System>\n"
            "</ssd:SystemStructureDescription>\n", fmu, mode);
    fclose(f);
    return path;
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
 * Mode (asked for: event_mode="on") with two event iterations (superdense microsteps) per
 * instant. The steps that hold an event report superdense index 2, the others 0.
 */
static void event_mode_events_handled_by_importer(void)
{
    tlog log;
    rtc_system *sys = load_fmu(with_event_mode(tfmu_path(3, "Events"), "on"), 100000000,
                               2000000000, &log);
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
    rtc_system *sys = load_fmu(with_event_mode(tfmu_path(3, "Events"), "on"), 100000000,
                               2000000000, &log);
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
 * communication point, however many early returns happened inside the steps; summary.json
 * counts the events, early returns and microsteps. */
static void early_return_keeps_the_csv_grid(void)
{
    int rc = rtcosim("run '%s' --event-mode on -o ev.csv", tfmu_path(3, "Events"));
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
    snprintf(path, sizeof path, "%s/summary.json", work);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"events\": 9,\n  \"early_returns\": 5,\n  "
                                       "\"max_microsteps\": 2\n"));
    free(sum);
}

/*
 * Event Mode is requested only when the engine needs it (clocks) or the user asks, as
 * fmusim runs an FMU by default: Events, which has no clocks, then handles its events
 * inside fmi3DoStep. The same values at 2 s (8 ticks, 1 reset, level 108), no event
 * through the importer (host_events 0, none counted, no microsteps), no early return.
 */
static void event_mode_only_when_used_or_asked(void)
{
    static const char *const ways[] = {"", "auto", "off"};
    for (size_t w = 0; w < 3; w++) {
        tlog log;
        rtc_system *sys = load_fmu(w ? with_event_mode(tfmu_path(3, "Events"), ways[w])
                                     : tfmu_path(3, "Events"), 100000000, 2000000000, &log);
        for (int k = 0; k < 20; k++) {
            CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
            CU_ASSERT_EQUAL(rtc_system_superdense_time(sys).index, 0u);
        }
        CU_ASSERT_EQUAL(get_i32(sys, "ticks"), 8);
        CU_ASSERT_EQUAL(get_i32(sys, "resets"), 1);
        CU_ASSERT_EQUAL(get_i32(sys, "level"), 108);
        CU_ASSERT_EQUAL(get_i32(sys, "host_events"), 0);
        rtc_unit_event_stats st;
        rtc_system_unit_event_stats(sys, 0, &st);
        CU_ASSERT_EQUAL(st.events, 0);
        CU_ASSERT_EQUAL(st.early_returns, 0);
        CU_ASSERT_EQUAL(log.errors, 0);
        CU_ASSERT_FALSE(tlog_has(&log, "Event Mode"));
        rtc_system_free(sys);
    }
    CU_ASSERT_EQUAL(rtcosim("run '%s' --event-mode sometimes -o -", tfmu_path(3, "Events")), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--event-mode sometimes: expected auto, on or off"));
    /* on for an FMU without Event Mode is a wish it cannot grant: said, then run */
    CU_ASSERT_EQUAL(rtcosim("run '%s' --event-mode on -o d.csv", tfmu_path(3, "Decay")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "event_mode on: the FMU has no Event Mode "
                                       "(hasEventMode is false): it handles its events itself"));
}

/* rtcosim info says what a run does with an FMU's events and clocks. */
static void info_shows_event_handling_and_clock_schedule(void)
{
    CU_ASSERT_EQUAL_FATAL(rtcosim("info '%s'", tfmu_path(3, "Events")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Events:        hasEventMode: with --event-mode on "
                                       "(event_mode=\"on\" in a system), or for clocks, the "
                                       "engine handles the events fmi3DoStep reports"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Early return:  mightReturnEarlyFromDoStep: allowed; the "
                                       "step is resumed to the communication point"));
    CU_ASSERT_EQUAL_FATAL(rtcosim("info '%s'", tfmu_path(3, "Clocks")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Scheduled Execution: input clocks activate model "
                                       "partitions on the step grid, in priority order"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  slow                             clock (input): "
                                       "constant, interval 0.2 s, priority 2\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  burst                            clock (input): "
                                       "countdown, priority 3\n"));
    CU_ASSERT_PTR_NULL(strstr(out, "refused by run"));
}

/* ---- Scheduled Execution: the Clocks test FMU ---- */

enum { SLOW = 1001, FAST, BURST, TRIG, TICK3 };

static int64_t get_i64(rtc_system *sys, uint32_t vr)
{
    const rtc_unit *u = rtc_system_unit(sys, 0);
    int64_t v = -1;
    CU_ASSERT_EQUAL(u->ops->get(u->self, RTC_TYPE_INT64, &vr, 1, &v, 1), RTC_OK);
    return v;
}

static bool get_clock(rtc_system *sys, uint32_t vr)
{
    const rtc_unit *u = rtc_system_unit(sys, 0);
    bool on = false;
    CU_ASSERT_EQUAL(u->ops->get(u->self, RTC_TYPE_CLOCK, &vr, 1, &on, 1), RTC_OK);
    return on;
}

/*
 * The schedule of Clocks at h = 0.1 s, worked out here from its modelDescription: fast at
 * every tick j, slow at even j, burst (countdown 0) at every 3rd slow tick, trig where the
 * test triggers it (j = 3 and j = 8). Within an instant the partitions run by priority
 * (trig 0, fast 1, slow 2, burst 3) — the FMU records the order as digits (1 slow, 2 fast,
 * 3 burst, 4 trig), which is against the value-reference order on purpose. Outputs of the
 * activations at t are visible after the step, at t + h.
 */
static void clocks_activate_on_schedule_in_priority_order(void)
{
    tlog log;
    rtc_system *sys = load_fmu(tfmu_path(3, "Clocks"), 100000000, 2000000000, &log);
    const rtc_unit *u = rtc_system_unit(sys, 0);
    CU_ASSERT_STRING_EQUAL(u->ops->kind, "fmi3-se");
    int n_slow = 0, n_fast = 0, n_burst = 0, n_trig = 0, most = 0;
    for (int j = 0; j < 20; j++) {
        bool trig = j == 3 || j == 8;
        if (trig) {
            uint32_t vr = TRIG;
            bool on = true;
            CU_ASSERT_EQUAL(u->ops->set(u->self, RTC_TYPE_CLOCK, &vr, 1, &on, 1), RTC_OK);
        }
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
        int64_t want = 0;
        int here = 0;
        if (trig)
            want = want * 10 + 4, n_trig++, here++;
        want = want * 10 + 2, n_fast++, here++;
        bool burst = false;
        if (j % 2 == 0) {
            want = want * 10 + 1, n_slow++, here++;
            burst = n_slow % 3 == 0;
        }
        if (burst)
            want = want * 10 + 3, n_burst++, here++;
        most = here > most ? here : most;
        CU_ASSERT_EQUAL(get_i64(sys, 7), want);
        CU_ASSERT_DOUBLE_EQUAL(get_f64(sys, "t_last"), j * 0.1, 1e-12);
        CU_ASSERT_EQUAL(get_i32(sys, "n_slow"), n_slow);
        CU_ASSERT_EQUAL(get_i32(sys, "n_fast"), n_fast);
        CU_ASSERT_EQUAL(get_i32(sys, "n_burst"), n_burst);
        CU_ASSERT_EQUAL(get_i32(sys, "n_trig"), n_trig);
        CU_ASSERT_EQUAL(get_clock(sys, TICK3), n_fast % 3 == 0); /* output clock */
        CU_ASSERT_EQUAL(rtc_system_superdense_time(sys).index, (uint32_t)here);
    }
    CU_ASSERT_EQUAL(n_burst, 3);
    rtc_unit_event_stats st;
    rtc_system_unit_event_stats(sys, 0, &st);
    CU_ASSERT_EQUAL(st.events, (uint64_t)(n_slow + n_fast + n_burst + n_trig));
    CU_ASSERT_EQUAL(st.max_microsteps, (uint32_t)most);
    rtc_system_free(sys);
}

/* A step that does not divide a clock's interval cannot keep the schedule on the integer
 * grid: the first step is refused with one line naming the clock, and nothing ran. */
static void clock_interval_off_the_grid_refused(void)
{
    tlog log;
    rtc_system *sys = load_fmu(tfmu_path(3, "Clocks"), 300000000, 3000000000, &log);
    CU_ASSERT_NOT_EQUAL(rtc_system_step(sys), RTC_OK);
    CU_ASSERT_TRUE(tlog_has(&log, "clock slow: interval 0.2 s (shift 0 s) is not a multiple "
                                  "of the communication step 0.3 s"));
    CU_ASSERT_EQUAL(get_i32(sys, "n_fast"), 0);
    rtc_system_free(sys);
}

/* A countdown clock follows the interval its FMU reports after clockUpdate: with
 * burst_delay 0.3 s, burst ticks 0.3 s after every 3rd slow tick (0.4, 1.0, 1.6 s), i.e.
 * at 0.7, 1.3 and 1.9 s (rows 0.8, 1.4, 2.0); an interval off the step grid is refused. */
static void countdown_clock_follows_the_reported_interval(void)
{
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --set burst_delay=0.3 --record n_burst -o -",
                                  tfmu_path(3, "Clocks")),
                          0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n0.7,0\n0.8,1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n1.3,1\n1.4,2\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n1.9,2\n2,3\n"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set burst_delay=0.05 -o -", tfmu_path(3, "Clocks")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Clocks: countdown clock burst: interval 0.05 s is not "
                                       "a whole number of communication steps"));
}

/* lockPreemption/unlockPreemption are a real guard: a partition that returns with the lock
 * held fails the run at that step, with one line naming the clock. */
static void unbalanced_preemption_lock_fails_the_step(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set lock_fault=1 -o lock.csv", tfmu_path(3, "Clocks")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Clocks: the partition of clock fast returned with "
                                       "lockPreemption/unlockPreemption unbalanced (depth 1)"));
    char path[700];
    snprintf(path, sizeof path, "%s/lock.csv", work);
    CU_ASSERT_EQUAL(tcsv_whole_rows(path), 1); /* only the start row: the first step failed */
}

/* An .ssd with the Clocks FMU, its counters and activation order recorded. */
static void write_clocks_ssd(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/clocks.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
            "name=\"t\" xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
            "<ssd:System name=\"s\"><ssd:Elements><ssd:Component name=\"c\" source=\"%s\">"
            "<ssd:Connectors>"
            "<ssd:Connector name=\"n_slow\" kind=\"output\"><ssc:Integer/></ssd:Connector>"
            "<ssd:Connector name=\"n_fast\" kind=\"output\"><ssc:Integer/></ssd:Connector>"
            "<ssd:Connector name=\"n_burst\" kind=\"output\"><ssc:Integer/></ssd:Connector>"
            "<ssd:Connector name=\"order\" kind=\"output\"><ssc:Integer/></ssd:Connector>"
            "</ssd:Connectors></ssd:Component></ssd:Elements></ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.8\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            tfmu_path(3, "Clocks"));
    fclose(f);
}

/* An aperiodic (triggered) input clock is ticked by the output clock connected to it: a's
 * tick3 ticks at its 3rd, 6th, 9th fast activation (0.2, 0.5, 0.8 s), visible one step
 * later like any output, so b's trig runs at 0.3, 0.6, 0.9 s — first in its instant
 * (priority 0): b.order 42 / 421 in rows 0.4, 0.7, 1.0. */
static void output_clock_triggers_connected_input_clock(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/cc.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    const char *fmu = tfmu_path(3, "Clocks");
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
            "name=\"t\" xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
            "<ssd:System name=\"s\"><ssd:Elements>"
            "<ssd:Component name=\"a\" source=\"%s\"><ssd:Connectors>"
            "<ssd:Connector name=\"tick3\" kind=\"output\"><ssc:Clock/></ssd:Connector>"
            "</ssd:Connectors></ssd:Component>"
            "<ssd:Component name=\"b\" source=\"%s\"><ssd:Connectors>"
            "<ssd:Connector name=\"trig\" kind=\"input\"><ssc:Clock/></ssd:Connector>"
            "</ssd:Connectors></ssd:Component></ssd:Elements><ssd:Connections>"
            "<ssd:Connection startElement=\"a\" startConnector=\"tick3\" endElement=\"b\" "
            "endConnector=\"trig\"/></ssd:Connections></ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            fmu, fmu);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(rtcosim("run cc.ssd --step 0.1 --record b.n_trig --record b.order "
                                  "--output-dir cc"),
                          0);
    snprintf(path, sizeof path, "%s/cc/results.csv", work);
    char *csv = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n0.3,0,21\n0.4,1,42\n0.5,1,213\n0.6,1,2\n"
                                       "0.7,2,421\n0.8,2,2\n0.9,2,21\n1,3,42\n"));
    free(csv);
}

/* Fast and real-time runs activate the same partitions at the same instants: identical
 * results, on the schedule (row t shows the activations at t − h). Without RT privileges
 * the real-time run is paced on SCHED_OTHER: same activations, only the timing differs. */
static void clocks_fast_and_realtime_runs_agree(void)
{
    write_clocks_ssd();
    static const char rec[] = "--record c.n_slow --record c.n_fast --record c.n_burst "
                              "--record c.order";
    CU_ASSERT_EQUAL_FATAL(rtcosim("run clocks.ssd --step 0.1 %s --output-dir fast", rec), 0);
    /* catch-up: a late tick under load is run late, never skipped (same activations) */
    CU_ASSERT_EQUAL_FATAL(
        rtcosim("run clocks.ssd --step 0.1 %s --realtime --overrun catch-up --output-dir rt", rec),
        0);
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/fast/results.csv", work);
    snprintf(b, sizeof b, "%s/rt/results.csv", work);
    char *fa = rtc_test_slurp(a, NULL), *rb = rtc_test_slurp(b, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    CU_ASSERT_STRING_EQUAL(fa, rb);
    /* time, n_slow, n_fast, n_burst, order at 0.1 … 0.8 */
    CU_ASSERT_PTR_NOT_NULL(strstr(fa, "\n0.1,1,1,0,21\n0.2,1,2,0,2\n0.3,2,3,0,21\n"
                                      "0.4,2,4,0,2\n0.5,3,5,1,213\n0.6,3,6,1,2\n"
                                      "0.7,4,7,1,21\n0.8,4,8,1,2\n"));
    free(fa);
    free(rb);
    /* every activation is an event of the unit: 8 fast, 4 slow, 1 burst; 3 at t = 0.4 */
    for (int i = 0; i < 2; i++) {
        snprintf(a, sizeof a, "%s/%s/summary.json", work, i ? "rt" : "fast");
        char *sum = rtc_test_slurp(a, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
        CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"step_ns\": 100000000,\n      \"events\": 13,\n"
                                           "      \"early_returns\": 0,\n      "
                                           "\"max_microsteps\": 3\n"));
        free(sum);
    }
}

void rtc_test_register(void)
{
    static const rtc_test_case events[] = {
        {"event_mode_events_handled_by_importer", event_mode_events_handled_by_importer},
        {"event_mode_only_when_used_or_asked", event_mode_only_when_used_or_asked},
        {"early_return_resumed_to_the_grid", early_return_resumed_to_the_grid},
        {"early_return_keeps_the_csv_grid", early_return_keeps_the_csv_grid},
        {"info_shows_event_handling_and_clock_schedule",
         info_shows_event_handling_and_clock_schedule},
        {NULL, NULL},
    };
    rtc_test_add_suite("fmi3_events", setup, teardown, events);
    static const rtc_test_case clocks[] = {
        {"clocks_activate_on_schedule_in_priority_order",
         clocks_activate_on_schedule_in_priority_order},
        {"clock_interval_off_the_grid_refused", clock_interval_off_the_grid_refused},
        {"unbalanced_preemption_lock_fails_the_step", unbalanced_preemption_lock_fails_the_step},
        {"countdown_clock_follows_the_reported_interval",
         countdown_clock_follows_the_reported_interval},
        {"output_clock_triggers_connected_input_clock",
         output_clock_triggers_connected_input_clock},
        {"clocks_fast_and_realtime_runs_agree", clocks_fast_and_realtime_runs_agree},
        {NULL, NULL},
    };
    rtc_test_add_suite("fmi3_clocks", setup, teardown, clocks);
}
