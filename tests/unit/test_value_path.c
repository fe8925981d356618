/*
 * The value path of a bench sample: from an I/O signal to an FMU input through exactly one
 * estimator, the one at the signal (where each sample arrives with its own sample and
 * arrival time), and one conversion to the FMU input's type.
 *
 * Systems with an I/O component are loaded through the system API with the replay unit
 * factory: its sample source (the hook `rtcosim replay` feeds recorded sessions through)
 * gives the signal one sample per tick, a ramp sampled 5 ms before the tick, so what the
 * FMU input receives tells which estimator ran on which samples. The refusals are also
 * checked with `rtcosim check` on a live OSC component.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/estimate.h"
#include "rtcosim/fmu.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

RTC_TEST_RTCOSIM_FIXTURE

#define TICK_NS 10000000 /* baseStep 0.01 */
#define LATE_NS 5000000  /* each sample is this old when it arrives */
#define RAMP 2.6         /* units/s: x(t) = RAMP·t */

/* ---- a deterministic bench: one ramp sample per tick ---- */

typedef struct ramp_feed {
    int64_t last_t_ns; /* tick already served */
} ramp_feed;

static long feed_lookup(void *user, const char *unit, const char *signal)
{
    (void)user;
    return !strcmp(unit, "bench") && !strcmp(signal, "x") ? 0 : -1;
}

static bool feed_next(void *user, long signal, int64_t t_ns, double *value, int64_t *sample_ns,
                      int64_t *arrival_ns)
{
    ramp_feed *f = user;
    if (signal != 0 || t_ns <= f->last_t_ns)
        return false;
    f->last_t_ns = t_ns;
    *sample_ns = t_ns - LATE_NS;
    *arrival_ns = t_ns;
    *value = RAMP * (double)*sample_ns * 1e-9;
    return true;
}

/* ---- systems: bench.x feeds the Real input of one or two Passthrough FMUs ---- */

#define HEAD                                                                                       \
    "<?xml version=\"1.0\"?>\n"                                                                    \
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"t\" "                                  \
    "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "                       \
    "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "                            \
    "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n"
#define PT(name)                                                                                   \
    "<ssd:Component name=\"" name "\" source=\"" RTC_TEST_FMU_DIR "/fmi2/Passthrough.fmu\">\n"     \
    "<ssd:Connectors><ssd:Connector name=\"Real_input\" kind=\"input\"><ssc:Real/>"                \
    "</ssd:Connector></ssd:Connectors></ssd:Component>\n"
#define ANNOT(x) "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">" x               \
                 "</ssc:Annotation></ssd:Annotations>"

/* Write the system: a bench of @p comp_keys ("port=\"0\"" for OSC) whose signal x has the
 * type @p ctype and the keys @p sig_keys, connected to pt1 (connection annotation @p c1)
 * and, when @p c2 is not NULL, to pt2; @p rt_keys go on rtc:RealTime. */
static void write_system(const char *path, const char *comp_keys, const char *ctype,
                         const char *sig_keys, const char *c1, const char *c2,
                         const char *rt_keys)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, HEAD "<ssd:Component name=\"bench\" type=\"application/x-rtcosim-osc\">\n"
            "<ssd:Connectors><ssd:Connector name=\"x\" kind=\"output\"><ssc:%s/></ssd:Connector>"
            "</ssd:Connectors>\n" ANNOT("<rtc:Component %s><rtc:Signal name=\"x\" %s/>"
            "</rtc:Component>") "</ssd:Component>\n" PT("pt1") "%s</ssd:Elements>\n"
            "<ssd:Connections>\n<ssd:Connection startElement=\"bench\" startConnector=\"x\" "
            "endElement=\"pt1\" endConnector=\"Real_input\">" ANNOT("<rtc:Connection %s/>")
            "</ssd:Connection>\n", ctype, comp_keys, sig_keys, c2 ? PT("pt2") : "", c1);
    if (c2)
        fprintf(f, "<ssd:Connection startElement=\"bench\" startConnector=\"x\" "
                "endElement=\"pt2\" endConnector=\"Real_input\">" ANNOT("<rtc:Connection %s/>")
                "</ssd:Connection>\n", c2);
    fprintf(f, "</ssd:Connections>\n" ANNOT("<rtc:RealTime baseStep=\"0.01\" %s/>")
            "</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.1\"/>\n"
            "</ssd:SystemStructureDescription>\n", rt_keys);
    fclose(f);
}

static ramp_feed feed;
static const rtc_io_sample_source source = {feed_lookup, feed_next, &feed};
static tlog lg;

/* Load the system of write_system() with the FMU factory and the replay factory. */
static int load(const char *ctype, const char *sig_keys, const char *c1, const char *c2,
                const char *rt_keys, rtc_system **sys)
{
    char path[700];
    snprintf(path, sizeof path, "%s/vp.ssd", work);
    write_system(path, "", ctype, sig_keys, c1, c2, rt_keys);
    rtc_unit_factory f[2];
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f[0]), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_io_unit_replay_factory(&f[1], "application/x-rtcosim-osc", &source),
                          RTC_OK);
    feed.last_t_ns = -1;
    tlog_init(&lg);
    rtc_system_options o = {0};
    *sys = NULL;
    return rtc_system_load(path, f, 2, &o, &lg.lg, sys);
}

/* The estimator of bench.x and who named it. */
static const rtc_est_config *bench_estimator(const rtc_system *sys, const char **by)
{
    size_t u, v;
    CU_ASSERT_EQUAL_FATAL(rtc_system_find_var(sys, "bench.x", &u, &v), RTC_OK);
    *by = rtc_io_unit_estimator_by(rtc_system_unit(sys, u), v);
    return rtc_io_unit_estimator(rtc_system_unit(sys, u), v);
}

/* Step through the run; in[k] receives pt1's input as set for the step from t_k. */
static int run(rtc_system *sys, double *in, int n)
{
    size_t u, v;
    CU_ASSERT_EQUAL_FATAL(rtc_system_find_var(sys, "pt1.Real_input", &u, &v), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    for (int k = 0; k < n; k++) {
        int rc = rtc_system_step(sys);
        if (rc != RTC_OK)
            return rc;
        CU_ASSERT_EQUAL(rtc_system_get_value(sys, u, v, &in[k]), RTC_OK);
    }
    return RTC_OK;
}

/* ---- cases ---- */

/* The connection names "linear", the signal none: the estimator runs once, at the signal,
 * on the samples' own times, so the ramp is reproduced at each tick. Stacked behind the
 * signal's zero-order hold (as before), it would extrapolate the held values and lag by
 * the 5 ms the samples are old. */
static void connection_estimator_runs_at_the_signal(void)
{
    rtc_system *sys;
    CU_ASSERT_EQUAL_FATAL(load("Real", "", "estimator=\"linear\"", NULL, "", &sys), RTC_OK);
    const char *by;
    const rtc_est_config *cfg = bench_estimator(sys, &by);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    CU_ASSERT_EQUAL(cfg->method, RTC_EST_LINEAR);
    CU_ASSERT_STRING_EQUAL(by ? by : "", "connection bench.x -> pt1.Real_input");
    rtc_link_stats ls;
    rtc_system_link_stats(sys, 0, &ls);
    CU_ASSERT_PTR_NULL(ls.config); /* no second estimator on the connection */
    double in[10];
    CU_ASSERT_EQUAL(run(sys, in, 10), RTC_OK);
    /* tick 0 has one sample (held); from tick 1 on the line through the newest two:
     * exact for a ramp up to round-off on values below 1 (1e-12, see test_estimate_util.h) */
    CU_ASSERT_DOUBLE_EQUAL(in[0], RAMP * -0.005, 1e-12);
    for (int k = 1; k < 10; k++)
        CU_ASSERT_DOUBLE_EQUAL(in[k], RAMP * k * 0.01, 1e-12);
    rtc_system_free(sys);
}

/* An Integer connector holds whole values: the estimate is rounded once at the signal (what
 * its recorded column shows) and reaches the Real input unchanged. */
static void integer_signal_reaches_a_real_input_as_recorded(void)
{
    rtc_system *sys;
    CU_ASSERT_EQUAL_FATAL(load("Integer", "estimator=\"zoh\"", "", NULL, "", &sys), RTC_OK);
    double in[10];
    CU_ASSERT_EQUAL(run(sys, in, 10), RTC_OK);
    size_t u, v;
    CU_ASSERT_EQUAL_FATAL(rtc_system_find_var(sys, "bench.x", &u, &v), RTC_OK);
    double x;
    CU_ASSERT_EQUAL(rtc_system_get_value(sys, u, v, &x), RTC_OK);
    CU_ASSERT_EQUAL(x, in[9]);
    for (int k = 0; k < 10; k++) /* zoh of RAMP·(t_k − 5 ms), rounded half to even */
        CU_ASSERT_EQUAL(in[k], nearbyint(RAMP * (k * 0.01 - 0.005)));
    rtc_system_free(sys);
}

/* Both the signal and the connection name one: refused, naming both, one line. */
static void estimator_on_signal_and_connection_refused(void)
{
    rtc_system *sys;
    CU_ASSERT_EQUAL(load("Real", "estimator=\"linear\"", "estimator=\"kalman-cv\"", NULL, "", &sys),
                    RTC_EPARSE);
    CU_ASSERT_PTR_NULL(sys);
    CU_ASSERT_EQUAL(lg.errors, 1);
    CU_ASSERT_TRUE(tlog_has(&lg, "vp.ssd:"));
    CU_ASSERT_TRUE(tlog_has(&lg, "Connection bench.x -> pt1.Real_input: estimator \"kalman-cv"));
    CU_ASSERT_TRUE(tlog_has(&lg, "I/O signal bench.x already has \"linear\" from its rtc:Signal"));
    /* also an explicit zoh: the user expects held samples and would get the signal's (the
     * default, auto, with the signal's parameters) */
    CU_ASSERT_EQUAL(load("Real", "params=\"stale=1s\"", "estimator=\"zoh\"", NULL, "", &sys),
                    RTC_EPARSE);
    CU_ASSERT_TRUE(tlog_has(&lg, "already has \"auto "));
    CU_ASSERT_TRUE(tlog_has(&lg, " stale=1s"));
}

/* Two connections from one signal: the same estimator is one; different ones are refused. */
static void two_connections_from_one_signal(void)
{
    rtc_system *sys;
    CU_ASSERT_EQUAL_FATAL(load("Real", "", "estimator=\"linear\"", "estimator=\"linear\"", "",
                               &sys), RTC_OK);
    rtc_system_free(sys);
    CU_ASSERT_EQUAL(load("Real", "", "estimator=\"linear\"", "estimator=\"quadratic\"", "", &sys),
                    RTC_EPARSE);
    CU_ASSERT_EQUAL(lg.errors, 1);
    CU_ASSERT_TRUE(tlog_has(&lg, "Connection bench.x -> pt2.Real_input: estimator \"quadratic\", "
                                 "but its I/O signal bench.x already has \"linear\" from "
                                 "connection bench.x -> pt1.Real_input"));
}

/* The system's default estimator gives way to a named one and otherwise runs at the
 * signal; "none" on a connection leaves the signal as it is. */
static void system_default_runs_once_at_the_signal(void)
{
    rtc_system *sys;
    const char *by;
    CU_ASSERT_EQUAL_FATAL(load("Real", "estimator=\"kalman-cv\"", "", NULL, "estimator=\"linear\"",
                               &sys), RTC_OK);
    CU_ASSERT_EQUAL(bench_estimator(sys, &by)->method, RTC_EST_KALMAN_CV);
    rtc_link_stats ls;
    rtc_system_link_stats(sys, 0, &ls);
    CU_ASSERT_PTR_NULL(ls.config);
    rtc_system_free(sys);
    CU_ASSERT_EQUAL_FATAL(load("Real", "", "", NULL, "estimator=\"linear\"", &sys), RTC_OK);
    CU_ASSERT_EQUAL(bench_estimator(sys, &by)->method, RTC_EST_LINEAR);
    CU_ASSERT_PTR_NULL(by);
    rtc_system_free(sys);
    CU_ASSERT_EQUAL_FATAL(load("Real", "", "estimator=\"none\"", NULL, "estimator=\"linear\"",
                               &sys), RTC_OK);
    CU_ASSERT_EQUAL(bench_estimator(sys, &by)->method, RTC_EST_AUTO); /* a bench's default */
    rtc_system_free(sys);
}

/* The same refusal from the command line, with the OSC driver opened for real. */
static void check_refuses_a_live_component(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/osc.ssd", work);
    write_system(path, "port=\"0\"", "Real", "path=\"/x\" estimator=\"linear\"",
                 "estimator=\"kalman-cv\"", NULL, "");
    CU_ASSERT_EQUAL(rtcosim("check '%s'", path), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "osc.ssd:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "a bench value is estimated once"));
    const char *e = strstr(out, "error:");
    CU_ASSERT_TRUE(e && !strstr(e + 1, "error:"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"connection_estimator_runs_at_the_signal", connection_estimator_runs_at_the_signal},
        {"integer_signal_reaches_a_real_input_as_recorded",
         integer_signal_reaches_a_real_input_as_recorded},
        {"estimator_on_signal_and_connection_refused", estimator_on_signal_and_connection_refused},
        {"two_connections_from_one_signal", two_connections_from_one_signal},
        {"system_default_runs_once_at_the_signal", system_default_runs_once_at_the_signal},
        {"check_refuses_a_live_component", check_refuses_a_live_component},
        {NULL, NULL},
    };
    rtc_test_add_suite("value_path", setup, teardown, cases);
}
