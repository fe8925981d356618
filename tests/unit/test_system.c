/*
 * Systems end to end: the example configurations and generated SSP files run through the
 * rtcosim executable and the system API — convergence orders of the masters on the
 * coupled mass-spring-damper against its monolithic solution, reproducibility, Parallel
 * Fast synchronization instants, and the validation messages of bad systems.
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

/* The monolithic reference at 5 ms (RK4 sub-steps of 0.1 ms inside: exact to ~1e-12). */
static tcsv reference;

static int load_reference(void)
{
    if (reference.n_rows)
        return 0;
    if (rtcosim("run '%s' --stop 10 --step 0.005 -o ref.csv", tfmu_path(2, "MassMono")) != 0)
        return -1;
    char path[600];
    snprintf(path, sizeof path, "%s/ref.csv", work);
    return tcsv_read(path, &reference) ? 0 : -1;
}

/* Largest |x1 − x1_ref| over the run, at the times both grids share (multiples of 40 ms). */
static double msd_error(const char *config, const char *extra, double h)
{
    char dir[700], path[800];
    snprintf(dir, sizeof dir, "%s/run-%s-%g%s", work, config, h, extra[0] ? "-x" : "");
    int rc = rtcosim("run '%s/%s.ssp' --step %g --stop 10 --output-dir '%s' %s",
                     RTC_TEST_CONFIG_DIR, config, h, dir, extra);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    long x = tcsv_col(&c, "mass1.x1"), xr = tcsv_col(&reference, "x1");
    CU_ASSERT_FATAL(x > 0 && xr > 0);
    double worst = 0;
    for (size_t r = 0; r < c.n_rows; r++) {
        double t = tcsv_at(&c, r, 0);
        long k = lround(t / 0.005);
        if (fabs(t - 0.04 * round(t / 0.04)) > 1e-9 || k < 0 || (size_t)k >= reference.n_rows)
            continue;
        double e = fabs(tcsv_at(&c, r, (size_t)x) - tcsv_at(&reference, (size_t)k, (size_t)xr));
        worst = e > worst ? e : worst;
    }
    tcsv_free(&c);
    return worst;
}

/* Zero-order hold couples with a one-step delay: the global error is first order in H,
 * so halving H must halve it (ratio 2 ± 10 %), for Jacobi and for Gauss-Seidel, and
 * Gauss-Seidel's constant is smaller. */
static void msd_jacobi_and_gauss_seidel_are_first_order(void)
{
    CU_ASSERT_EQUAL_FATAL(load_reference(), 0);
    const double H[] = {0.04, 0.02, 0.01};
    double ej[3], eg[3];
    for (int i = 0; i < 3; i++) {
        ej[i] = msd_error("msd-jacobi", "", H[i]);
        eg[i] = msd_error("msd-gauss-seidel", "", H[i]);
    }
    for (int i = 0; i < 2; i++) {
        printf("\n    H=%g: jacobi %.4g (ratio %.3f), gauss-seidel %.4g (ratio %.3f)", H[i],
               ej[i], ej[i] / ej[i + 1], eg[i], eg[i] / eg[i + 1]);
        CU_ASSERT(ej[i] / ej[i + 1] > 1.8 && ej[i] / ej[i + 1] < 2.2);
        CU_ASSERT(eg[i] / eg[i + 1] > 1.8 && eg[i] / eg[i + 1] < 2.2);
        CU_ASSERT(eg[i] < ej[i]);
    }
    CU_ASSERT(ej[2] < 1e-2); /* and the coupled run is close to the monolithic one */
}

/* With strong coupling the loop is solved implicitly each step: still far closer to the
 * monolithic solution than the explicit masters at the same H. */
static void msd_strong_coupling_converges_and_beats_explicit(void)
{
    CU_ASSERT_EQUAL_FATAL(load_reference(), 0);
    double ej = msd_error("msd-jacobi", "", 0.02);
    double ei = msd_error("msd-jacobi", "--iterate --tolerance 1e-12", 0.02);
    char path[800];
    snprintf(path, sizeof path, "%s/run-msd-jacobi-0.02-x/summary.json", work);
    char *s = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"iterated_steps\": 500"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"not_converged\": 0"));
    free(s);
    printf("\n    H=0.02: explicit %.4g, iterated %.4g", ej, ei);
    CU_ASSERT(ei < ej / 2);
}

/* Strong coupling through the API: iterations are microsteps of the same instant. */
static void strong_coupling_iterations_are_microsteps(void)
{
    rtc_unit_factory f;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
    tlog log;
    tlog_init(&log);
    char path[600];
    snprintf(path, sizeof path, "%s/msd-jacobi.ssp", RTC_TEST_CONFIG_DIR);
    rtc_system_options o = {.iterate = true, .tolerance = 1e-12};
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, &f, 1, &o, &log.lg, &sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    rtc_sdtime prev = rtc_system_superdense_time(sys);
    for (int k = 0; k < 10; k++) {
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
        rtc_sdtime now = rtc_system_superdense_time(sys);
        CU_ASSERT(rtc_sdtime_cmp(prev, now) < 0);
        CU_ASSERT(now.index >= 2); /* at least two iterates to see convergence */
        CU_ASSERT_EQUAL(now.t_ns, (int64_t)(k + 1) * 10000000);
        prev = now;
    }
    rtc_coupling_stats cs;
    rtc_system_coupling_stats(sys, &cs);
    CU_ASSERT_EQUAL(cs.iterated_steps, 10);
    CU_ASSERT_EQUAL(cs.not_converged, 0);
    rtc_system_free(sys);
}

static bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *ta = rtc_test_slurp(a, &na), *tb = rtc_test_slurp(b, &nb);
    bool same = ta && tb && na == nb && na > 0 && memcmp(ta, tb, na) == 0;
    free(ta);
    free(tb);
    return same;
}

/* Parallel stepping on worker threads changes who calls the FMUs, not the results. */
static void jacobi_on_workers_gives_identical_results(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s/msd-jacobi.ssp' --output-dir seq", RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_EQUAL(rtcosim("run '%s/msd-jacobi.ssp' --workers 1 --output-dir par",
                            RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_EQUAL(rtcosim("run '%s/parallel-fast-4.ssp' --algorithm jacobi --step 1 "
                            "--output-dir seq4", RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_EQUAL(rtcosim("run '%s/parallel-fast-4.ssp' --algorithm jacobi --step 1 "
                            "--workers 3 --output-dir par4", RTC_TEST_CONFIG_DIR), 0);
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/seq/results.csv", work);
    snprintf(b, sizeof b, "%s/par/results.csv", work);
    CU_ASSERT_TRUE(same_file(a, b));
    snprintf(a, sizeof a, "%s/seq4/results.csv", work);
    snprintf(b, sizeof b, "%s/par4/results.csv", work);
    CU_ASSERT_TRUE(same_file(a, b));
    /* workers need Jacobi: Gauss-Seidel's order is sequential by definition */
    CU_ASSERT_EQUAL(rtcosim("run '%s/msd-gauss-seidel.ssp' --workers 1 --output-dir x",
                            RTC_TEST_CONFIG_DIR), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "worker threads needs the jacobi master"));
}

static void same_run_twice_is_byte_identical(void)
{
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(rtcosim("run '%s/msd-gauss-seidel.ssp' --output-dir rep%d",
                                RTC_TEST_CONFIG_DIR, i), 0);
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/rep0/results.csv", work);
    snprintf(b, sizeof b, "%s/rep1/results.csv", work);
    size_t na, nb;
    char *ta = rtc_test_slurp(a, &na), *tb = rtc_test_slurp(b, &nb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
    CU_ASSERT_EQUAL(na, nb);
    CU_ASSERT(na > 1000 && memcmp(ta, tb, na) == 0);
    free(ta);
    free(tb);
}

/* ---- Parallel Fast: the synchronization instants of the paper's Fig. 2 ---- */

typedef struct sync_log {
    int n;
    rtc_sync_event ev[32];
} sync_log;

static void on_sync(void *user, const rtc_sync_event *ev)
{
    sync_log *l = user;
    if (l->n < 32)
        l->ev[l->n++] = *ev;
}

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
enum { A = 1, B = 2, C = 4, D = 8 };

/* h = (2, 3, 1, 2) s, H = 1.4 s: in interval ζ the units whose first step end at or after
 * ζH lies before (ζ+1)H synchronize at that end (Holzinger et al., Eq. 2). */
static void parallel_fast_syncs_at_the_papers_instants(void)
{
    static const struct {
        int64_t zeta;
        unsigned units;
        double t[4];
    } want[] = {
        {1, A | C | D, {2, 0, 2, 2}}, {2, A | B | C | D, {4, 3, 3, 4}}, {3, C, {0, 0, 5, 0}},
        {4, A | B | C | D, {6, 6, 6, 6}}, {5, A | C | D, {8, 0, 7, 8}}, {6, B | C, {0, 9, 9, 0}},
        {7, A | C | D, {10, 0, 10, 10}}, {8, A | B | C | D, {12, 12, 12, 12}},
    };
    rtc_unit_factory f;
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
    tlog log;
    tlog_init(&log);
    char path[600];
    snprintf(path, sizeof path, "%s/parallel-fast-4.ssp", RTC_TEST_CONFIG_DIR);
    /* run past 12.6 s: the steps that end in the last listed interval must fit */
    rtc_system_options o = {.sync_step_ns = S(1.4), .has_stop = true, .stop_ns = S(18)};
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, &f, 1, &o, &log.lg, &sys), RTC_OK);
    CU_ASSERT_EQUAL(rtc_system_tick_ns(sys), S(0.2)); /* gcd(2, 3, 1, 2, 1.4) */
    sync_log got = {0};
    rtc_system_on_sync(sys, on_sync, &got);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    while (rtc_system_time_ns(sys) < S(18))
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
    CU_ASSERT_FATAL(got.n >= 8);
    for (int i = 0; i < 8; i++) {
        CU_ASSERT_EQUAL(got.ev[i].zeta, want[i].zeta);
        CU_ASSERT_EQUAL(got.ev[i].units, want[i].units);
        for (int u = 0; u < 4; u++)
            if (want[i].units & (1u << u))
                CU_ASSERT_EQUAL(got.ev[i].t_ns[u], S(want[i].t[u]));
    }
    rtc_system_free(sys);
}

static void plan_recommends_two_seconds_for_the_example(void)
{
    CU_ASSERT_EQUAL(rtcosim("plan '%s/parallel-fast-4.ssp' --candidates "
                            "0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.8,1,1.2,1.5,2,2.5,3,3.5,4,4.5,5,5.5,6",
                            RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "H* = 2 s"));
}

/* ---- validation of bad systems: one FILE:LINE line per problem ---- */

#define SSD_HEAD                                                                                   \
    "<?xml version=\"1.0\"?>\n"                                                                    \
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"t\" "                                  \
    "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "                       \
    "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "                            \
    "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n"                                                      \
    "<ssd:System name=\"s\">\n<ssd:Elements>\n"
#define SSD_TAIL "</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.1\"/>\n" \
                 "</ssd:SystemStructureDescription>\n"
#define COMP(name, model, connectors)                                                              \
    "<ssd:Component name=\"" name "\" source=\"" RTC_TEST_FMU_DIR "/fmi2/" model                   \
    ".fmu\">\n<ssd:Connectors>\n" connectors "</ssd:Connectors>\n</ssd:Component>\n"
#define IN(n) "<ssd:Connector name=\"" n "\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
#define OUT(n) "<ssd:Connector name=\"" n "\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
#define CONN(a, b, c, d)                                                                           \
    "<ssd:Connection startElement=\"" a "\" startConnector=\"" b "\" endElement=\"" c              \
    "\" endConnector=\"" d "\"/>\n"
#define MSD_COMPS COMP("m1", "Mass1", IN("Fe") OUT("x1") OUT("v1")) \
                  COMP("m2", "Mass2", IN("xc") IN("vc") OUT("Fc"))

/* Write an .ssd into the work directory and run `rtcosim check` on it. */
static int check_ssd(const char *name, const char *text, const char *extra)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s.ssd", work, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    return rtcosim("check %s '%s'", extra, path);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void bad_connections_reported_with_file_and_line(void)
{
    /* line 9 is the first connection after the head (6 lines) and the two components... */
    CU_ASSERT_EQUAL(check_ssd("causality", SSD_HEAD MSD_COMPS "</ssd:Elements>\n<ssd:Connections>\n"
                              CONN("m1", "Fe", "m2", "xc") "</ssd:Connections>\n" SSD_TAIL, ""), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "causality.ssd:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "causality mismatch: m1.Fe is input"));
    CU_ASSERT_EQUAL(count(out, "error:"), 1);

    CU_ASSERT_EQUAL(check_ssd("twice", SSD_HEAD MSD_COMPS "</ssd:Elements>\n<ssd:Connections>\n"
                              CONN("m1", "x1", "m2", "xc") CONN("m1", "x1", "m2", "xc")
                              "</ssd:Connections>\n" SSD_TAIL, ""), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "input already connected at"));

    CU_ASSERT_EQUAL(check_ssd("nosuch", SSD_HEAD COMP("m1", "Mass1", IN("Fe") OUT("nosuch"))
                              "</ssd:Elements>\n" SSD_TAIL, ""), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "nosuch.ssd:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Connector nosuch: m1 has no variable of that name"));

    CU_ASSERT_EQUAL(check_ssd("units", SSD_HEAD MSD_COMPS "</ssd:Elements>\n<ssd:Connections>\n"
                              CONN("m1", "x1", "m1", "Fe") "</ssd:Connections>\n"
                              SSD_TAIL, ""), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "unit mismatch: [m] to [N] has no conversion"));
}

static void unit_conversion_and_transformation_applied(void)
{
    /* x1 in m feeds a lag's u1 declared in mm (factor 1000) and, through a linear
     * transformation 2x + 1, its u2. With tau tiny the lag's y follows k1·u1 + k2·u2 + b
     * = 0.5·1000·x1 + 0.5·(2·x1 + 1) + 1 one step later (Jacobi). */
    const char *text =
        SSD_HEAD COMP("m1", "Mass1", IN("Fe") OUT("x1"))
        "<ssd:Component name=\"lag\" source=\"" RTC_TEST_FMU_DIR "/fmi2/Lag.fmu\">\n"
        "<ssd:Connectors>\n<ssd:Connector name=\"u1\" kind=\"input\"><ssc:Real unit=\"mm\"/>"
        "</ssd:Connector>\n" IN("u2") OUT("y") "</ssd:Connectors>\n"
        "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"
        "<ssv:ParameterSet xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\""
        " version=\"1.0\" name=\"p\"><ssv:Parameters><ssv:Parameter name=\"tau\">"
        "<ssv:Real value=\"1e-9\"/></ssv:Parameter></ssv:Parameters></ssv:ParameterSet>"
        "</ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>\n"
        "</ssd:Component>\n</ssd:Elements>\n<ssd:Connections>\n"
        "<ssd:Connection startElement=\"m1\" startConnector=\"x1\" endElement=\"lag\" "
        "endConnector=\"u1\"/>\n"
        "<ssd:Connection startElement=\"m1\" startConnector=\"x1\" endElement=\"lag\" "
        "endConnector=\"u2\" suppressUnitConversion=\"true\"><ssc:LinearTransformation factor=\"2\" "
        "offset=\"1\"/></ssd:Connection>\n</ssd:Connections>\n"
        "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime "
        "baseStep=\"0.01\"/></ssc:Annotation></ssd:Annotations>\n"
        "</ssd:System>\n<ssd:Units><ssc:Unit name=\"m\"><ssc:BaseUnit m=\"1\"/></ssc:Unit>"
        "<ssc:Unit name=\"mm\"><ssc:BaseUnit m=\"1\" factor=\"0.001\"/></ssc:Unit></ssd:Units>\n"
        "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.1\"/>\n"
        "</ssd:SystemStructureDescription>\n";
    CU_ASSERT_EQUAL(check_ssd("conv", text, ""), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/conv.ssd", work);
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --output-dir conv --record m1.x1 --record lag.y", path), 0);
    snprintf(path, sizeof path, "%s/conv/results.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_rows, 11);
    for (size_t r = 0; r + 1 < c.n_rows; r++) {
        double x = tcsv_at(&c, r, 1);
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r + 1, 2), 500 * x + 0.5 * (2 * x + 1) + 1, 1e-9);
    }
    tcsv_free(&c);
}

/* A Decay (x = e^-t) feeds a fast lag through a 50 ms transport delay: with zero-order
 * hold the lag sees x(t − 50 ms); with linear extrapolation it sees the line through the
 * two newest arrived samples, extended to t. The lag follows its input within one step
 * (tau = 1 ns), y = 0.5·u1 + 1. */
static void delayed_connection_with_and_without_estimator(void)
{
    for (int linear = 0; linear < 2; linear++) {
        char text[4096];
        snprintf(text, sizeof text,
                 SSD_HEAD COMP("d", "Decay", OUT("x"))
                 "<ssd:Component name=\"lag\" source=\"" RTC_TEST_FMU_DIR "/fmi2/Lag.fmu\">\n"
                 "<ssd:Connectors>" IN("u1") OUT("y") "</ssd:Connectors>\n"
                 "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"
                 "<ssv:ParameterSet xmlns:ssv=\"http://ssp-standard.org/SSP1/"
                 "SystemStructureParameterValues\" version=\"1.0\" name=\"p\"><ssv:Parameters>"
                 "<ssv:Parameter name=\"tau\"><ssv:Real value=\"1e-9\"/></ssv:Parameter>"
                 "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
                 "</ssd:ParameterBindings>\n</ssd:Component>\n</ssd:Elements>\n<ssd:Connections>\n"
                 "<ssd:Connection startElement=\"d\" startConnector=\"x\" endElement=\"lag\" "
                 "endConnector=\"u1\"><ssd:Annotations><ssc:Annotation "
                 "type=\"org.rtcosim.realtime\"><rtc:Connection delay=\"0.05\" estimator=\"%s\"/>"
                 "</ssc:Annotation></ssd:Annotations></ssd:Connection>\n</ssd:Connections>\n"
                 "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime "
                 "baseStep=\"0.01\"/></ssc:Annotation></ssd:Annotations>\n"
                 "</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>\n"
                 "</ssd:SystemStructureDescription>\n", linear ? "linear" : "zoh");
        CU_ASSERT_EQUAL_FATAL(check_ssd("delay", text, ""), 0);
        char path[700];
        snprintf(path, sizeof path, "%s/delay.ssd", work);
        CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --output-dir delay%d --record lag.y", path, linear), 0);
        snprintf(path, sizeof path, "%s/delay%d/results.csv", work, linear);
        tcsv c;
        CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
        CU_ASSERT_EQUAL(c.n_rows, 101);
        for (size_t r = 10; r + 1 < c.n_rows; r++) {
            double t = 0.01 * (double)r; /* input of the step from t, seen at row r+1 */
            double u = linear ? exp(-(t - 0.05)) + (exp(-(t - 0.05)) - exp(-(t - 0.06))) / 0.01 * 0.05
                              : exp(-(t - 0.05));
            CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r + 1, 1), 0.5 * u + 1, 1e-9);
        }
        tcsv_free(&c);
        snprintf(path, sizeof path, "%s/delay%d/summary.json", work, linear);
        char *sum = rtc_test_slurp(path, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
        /* one connection: its estimator and delay (summary.json is indented, a key a line) */
        CU_ASSERT_PTR_NOT_NULL(strstr(sum, linear ? "\"estimator\": \"linear\","
                                                  : "\"estimator\": \"zoh\","));
        CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"delay_ns\": 50000000,"));
        /* the linear link's monitor compared its extrapolations with the arrived values */
        if (linear)
            CU_ASSERT_PTR_NULL(strstr(sum, "\"samples\": 0,"));
        free(sum);
    }
}

/* x1 of m1 over a 2 s run of the mass-spring-damper (Jacobi, 1 ms) whose force Fc -> Fe
 * is delayed 20 ms and estimated by linear with @p params (NULL: no delay, the lock-step
 * run), into x[2001]; returns the summary.json text (caller frees). */
static char *msd_delayed(const char *name, const char *params, double *x)
{
    char fc[400], text[4096], path[700];
    if (params)
        snprintf(fc, sizeof fc, "<ssd:Connection startElement=\"m2\" startConnector=\"Fc\" "
                 "endElement=\"m1\" endConnector=\"Fe\"><ssd:Annotations><ssc:Annotation "
                 "type=\"org.rtcosim.realtime\"><rtc:Connection delay=\"0.02\" "
                 "estimator=\"linear\" params=\"%s\"/></ssc:Annotation></ssd:Annotations>"
                 "</ssd:Connection>\n", params);
    else
        snprintf(fc, sizeof fc, "%s", CONN("m2", "Fc", "m1", "Fe"));
    snprintf(text, sizeof text, SSD_HEAD MSD_COMPS "</ssd:Elements>\n<ssd:Connections>\n"
             CONN("m1", "x1", "m2", "xc") CONN("m1", "v1", "m2", "vc") "%s"
             "</ssd:Connections>\n<ssd:Annotations><ssc:Annotation "
             "type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.001\" "
             "algorithm=\"jacobi\"/></ssc:Annotation></ssd:Annotations>\n" SSD_TAIL, fc);
    CU_ASSERT_EQUAL_FATAL(check_ssd(name, text, ""), 0);
    snprintf(path, sizeof path, "%s/%s.ssd", work, name);
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --stop 2 --record m1.x1 --output-dir %s", path,
                                  name), 0);
    snprintf(path, sizeof path, "%s/%s/results.csv", work, name);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL_FATAL(c.n_rows, 2001);
    for (size_t r = 0; r < c.n_rows; r++)
        x[r] = tcsv_at(&c, r, 1);
    tcsv_free(&c);
    snprintf(path, sizeof path, "%s/%s/summary.json", work, name);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    return sum;
}

/* The payback element (params payback=2) on the mass-spring-damper's delayed force: the
 * consumer's position follows the lock-step run (no delay) far closer than with the same
 * estimator alone (scripts/bench-estimation, 10 s: x1 RMS 1.5e-6 against 3.8e-5), and
 * summary.json reports the corrections and no interval left unpaid; without payback the
 * connection has no "payback" entry. */
static void payback_restores_the_lock_step_position(void)
{
    static double lock[2001], plain[2001], paid[2001];
    free(msd_delayed("lockstep", NULL, lock));
    char *s0 = msd_delayed("plain", "", plain), *s1 = msd_delayed("paid", "payback=2", paid);
    double e0 = 0.0, e1 = 0.0;
    for (size_t r = 0; r < 2001; r++) {
        e0 += (plain[r] - lock[r]) * (plain[r] - lock[r]);
        e1 += (paid[r] - lock[r]) * (paid[r] - lock[r]);
    }
    e0 = sqrt(e0 / 2001), e1 = sqrt(e1 / 2001);
    printf("\n    x1 RMS against the lock-step run: linear %.3g, with payback %.3g", e0, e1);
    CU_ASSERT(e0 > 1e-6);
    CU_ASSERT(e1 < 0.2 * e0);
    CU_ASSERT_PTR_NULL(strstr(s0, "\"payback\""));
    const char *pb = strstr(s1, "\"payback\": {");
    CU_ASSERT_PTR_NOT_NULL(pb);
    CU_ASSERT_PTR_NOT_NULL(pb ? strstr(pb, "\"unpaid\": 0") : NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(s1, "\"estimator_params\": \"payback=2"));
    free(s0);
    free(s1);
}

static void algebraic_loop_path_printed(void)
{
    /* Passthrough's output follows its input; Mass2's Fc depends on xc: a loop. */
    CU_ASSERT_EQUAL(check_ssd("loop", SSD_HEAD COMP("p", "Passthrough", IN("Real_input")
                                                    OUT("Real_output"))
                              COMP("m2", "Mass2", IN("xc") OUT("Fc")) "</ssd:Elements>\n"
                              "<ssd:Connections>\n" CONN("m2", "Fc", "p", "Real_input")
                              CONN("p", "Real_output", "m2", "xc") "</ssd:Connections>\n"
                              "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
                              "<rtc:RealTime baseStep=\"0.01\"/></ssc:Annotation>"
                              "</ssd:Annotations>\n" SSD_TAIL, ""), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "algebraic loop: "));
    CU_ASSERT(strstr(out, "m2.Fc -> p.Real_input -> p.Real_output -> m2.xc -> m2.Fc") ||
              strstr(out, "p.Real_output -> m2.xc -> m2.Fc -> p.Real_input -> p.Real_output"));
    /* Gauss-Seidel without a named cut: the cut it chose is reported. */
    CU_ASSERT_EQUAL(rtcosim("check --algorithm gauss-seidel '%s/loop.ssd'", work), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "gauss-seidel: loop cut at"));
}

static void step_not_multiple_of_base_step_rejected(void)
{
    CU_ASSERT_EQUAL(check_ssd("steps", SSD_HEAD
                              "<ssd:Component name=\"d\" source=\"" RTC_TEST_FMU_DIR
                              "/fmi2/Decay.fmu\"><ssd:Annotations><ssc:Annotation "
                              "type=\"org.rtcosim.realtime\"><rtc:Component stepSize=\"0.003\"/>"
                              "</ssc:Annotation></ssd:Annotations></ssd:Component>\n"
                              "</ssd:Elements>\n<ssd:Annotations><ssc:Annotation "
                              "type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.002\"/>"
                              "</ssc:Annotation></ssd:Annotations>\n" SSD_TAIL, ""), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "is not a multiple of the base step"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "steps.ssd:"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"msd_jacobi_and_gauss_seidel_are_first_order",
         msd_jacobi_and_gauss_seidel_are_first_order},
        {"msd_strong_coupling_converges_and_beats_explicit",
         msd_strong_coupling_converges_and_beats_explicit},
        {"strong_coupling_iterations_are_microsteps", strong_coupling_iterations_are_microsteps},
        {"same_run_twice_is_byte_identical", same_run_twice_is_byte_identical},
        {"jacobi_on_workers_gives_identical_results", jacobi_on_workers_gives_identical_results},
        {"parallel_fast_syncs_at_the_papers_instants", parallel_fast_syncs_at_the_papers_instants},
        {"plan_recommends_two_seconds_for_the_example",
         plan_recommends_two_seconds_for_the_example},
        {"bad_connections_reported_with_file_and_line", bad_connections_reported_with_file_and_line},
        {"unit_conversion_and_transformation_applied", unit_conversion_and_transformation_applied},
        {"delayed_connection_with_and_without_estimator",
         delayed_connection_with_and_without_estimator},
        {"payback_restores_the_lock_step_position", payback_restores_the_lock_step_position},
        {"algebraic_loop_path_printed", algebraic_loop_path_printed},
        {"step_not_multiple_of_base_step_rejected", step_not_multiple_of_base_step_rejected},
        {NULL, NULL}};
    rtc_test_add_suite("system", setup, teardown, cases);
}
