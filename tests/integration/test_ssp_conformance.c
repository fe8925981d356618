/*
 * SSP conformance corpus: the systems under tests/data/conformance/ssp1/ and ssp2/ (one
 * directory per construct, the same construct spelled in SSP 1.0 and in SSP 2.0), run
 * through the rtcosim executable against the project's test FMUs, with the values the
 * standard implies. Each case's SystemStructure.ssd says in a comment what it checks.
 * Component sources are written as "fmi2/X.fmu" / "fmi3/X.fmu": each case is copied into a
 * work directory next to links to the built FMUs.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS RTC_TEST_DATA_DIR "/conformance"

static char work[512];
static char out[65536];

static int setup(void)
{
    rtc_test_tmpdir(work, sizeof work);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "ln -s '%s/fmi2' '%s/fmi2' && ln -s '%s/fmi3' '%s/fmi3'",
             RTC_TEST_FMU_DIR, work, RTC_TEST_FMU_DIR, work);
    return rtc_test_run(cmd, out, sizeof out) == 0 ? 0 : -1;
}

static int teardown(void)
{
    rtc_test_rmtree(work);
    return 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return rtc_test_run(cmd, out, sizeof out);
}

/* Copy case @p name of SSP version @p v beside the FMU links; *dir receives its path. */
static void stage(int v, const char *name, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/ssp%d-%s", work, v, name);
    CU_ASSERT_EQUAL_FATAL(sh("rm -rf '%s' && cp -r '%s/ssp%d/%s' '%s' && ln -s ../fmi2 '%s/fmi2' "
                             "&& ln -s ../fmi3 '%s/fmi3'", dir, CORPUS, v, name, dir, dir, dir),
                          0);
}

/* `rtcosim run` on a staged case with extra options; 0 on success (output in `out`). */
static int run_case(const char *dir, const char *tag, const char *extra)
{
    return sh("'%s' run '%s/SystemStructure.ssd' --output-dir '%s/out-%s' %s 2>&1", RTCOSIM_EXE,
              dir, dir, tag, extra);
}

/* Value of column @p col in the last row of a run's results.csv (NAN when missing). */
static double last(const char *dir, const char *tag, const char *col)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/out-%s/results.csv", dir, tag);
    tcsv c;
    if (!tcsv_read(path, &c))
        return NAN;
    long k = tcsv_col(&c, col);
    double v = k >= 0 && c.n_rows ? tcsv_at(&c, c.n_rows - 1, (size_t)k) : NAN;
    tcsv_free(&c);
    if (isnan(v))
        printf("\n    %s: no column \"%s\"", path, col);
    return v;
}

/* True if the summary.json of a run contains @p needle. */
static bool summary_has(const char *dir, const char *tag, const char *needle)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/out-%s/summary.json", dir, tag);
    char *s = rtc_test_slurp(path, NULL);
    bool found = s && strstr(s, needle);
    if (!found)
        printf("\n    %s: no %s", path, needle);
    free(s);
    return found;
}

static const char *in_name(int v)
{
    return v == 1 ? "Real_input" : "Float64_input";
}

static const char *out_col(int v, const char *comp, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s.%s", comp, v == 1 ? "Real_output" : "Float64_output");
    return buf;
}

/* startElement="" and an absent endElement are the system's own connectors; the value
 * bound to the system input reaches the component, the system output is a column. */
static void system_connectors_bound_set_and_recorded(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700], col[64];
        stage(v, "system_ports", dir, sizeof dir);
        CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", "y"), 4.25, 0); /* copied, never computed */
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "pt", col, sizeof col)), 4.25, 0);
        CU_ASSERT_PTR_NULL(strstr(out, "warning")); /* nothing about the system connectors */
        CU_ASSERT_EQUAL(run_case(dir, "b", "--set u=7 --record y"), 0);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "b", "y"), 7, 0);
        CU_ASSERT_EQUAL(run_case(dir, "c", "--set y=1"), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "--set y=1: the variable cannot be set"));
        CU_ASSERT_EQUAL(run_case(dir, "d", "--set nosuch=1"), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "--set nosuch=1: no unit.variable or input"));
        char set[64];
        snprintf(set, sizeof set, "--set pt.%s=2.5", in_name(v));
        CU_ASSERT_EQUAL(run_case(dir, "e", set), 0);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "e", "y"), 2.5, 0);
    }
    /* the operator may be given the system input by its name (a short real-time run) */
    char dir[700];
    stage(1, "system_ports", dir, sizeof dir);
    CU_ASSERT_EQUAL(run_case(dir, "rt", "--realtime --expose u --set u=6 --stop 0.2"), 0);
    CU_ASSERT_TRUE(summary_has(dir, "rt", "\"exposed\": 1,"));
    CU_ASSERT_DOUBLE_EQUAL(last(dir, "rt", "y"), 6, 0);
    /* and its replay repeats the --set (session.conf) */
    CU_ASSERT_EQUAL(sh("'%s' replay '%s/out-rt' --output-dir '%s/out-rep' 2>&1", RTCOSIM_EXE, dir,
                       dir), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
    CU_ASSERT_DOUBLE_EQUAL(last(dir, "rep", "y"), 6, 0);
}

/* Values bound to system connectors flow through two levels of connections (with their
 * linear transformation) and win over the component's own binding: x(1) = 6 exp(-2);
 * Decay is exact per step, so only rounding separates the result from the formula. */
static void system_connector_values_flow_into_components(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700];
        stage(v, "nested_params", dir, sizeof dir);
        CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
        CU_ASSERT_PTR_NULL(strstr(out, "ignored"));
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", "sub.dec.x"), 6 * exp(-2), 1e-12);
        /* a --set of the top-level connector goes through the same transformation */
        CU_ASSERT_EQUAL(run_case(dir, "b", "--set x0s=1"), 0);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "b", "sub.dec.x"), 2 * exp(-2), 1e-12);
    }
}

/* unit="" is dimensionless of unknown unit: connected to bar unchanged, one warning. */
static void empty_unit_connects_without_conversion(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700], col[64];
        stage(v, "units_empty", dir, sizeof dir);
        CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "SystemStructure.ssd:23: Connection"));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "one end has no unit, the other [bar]"));
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "b", col, sizeof col)), 1.5, 0);
    }
}

/* Offsets (degC, degF against K), factors with exponents (bar against Pa), a parameter
 * value in another unit than its connector's, and a linear transformation applied after
 * the unit conversion (on a connection, and on a value bound to a system input).
 * Tolerance: a few ulp of the 1e5 and 5/9 factors. */
static void unit_conversions_factor_offset_exponents(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700], col[64];
        stage(v, "units_convert", dir, sizeof dir);
        CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "t1", col, sizeof col)), 20, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "t2", col, sizeof col)), 293.15, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "t3", col, sizeof col)), 68, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "p2", col, sizeof col)), 2e5, 1e-6);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "p3", col, sizeof col)), 201, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "t4", col, sizeof col)), 40, 1e-9);
    }
}

/* A parameter value in a unit neither the file nor the FMU defines ("[1/s]", "[m]", as
 * OMSimulator's test systems write them) is used as written, with one warning each
 * naming the .ssv line: x(1) = 3 exp(-2), Decay exact per step. */
static void undefined_parameter_units_used_as_written(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700];
        stage(v, "param_units_undefined", dir, sizeof dir);
        CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "values.ssv:5: parameter dec.k: unit \"[1/s]\" is "
                                           "not defined"));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "values.ssv:6: parameter dec.x0: unit \"[m]\" is "
                                           "not defined"));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "the value 3 is used as written"));
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", "dec.x"), 3 * exp(-2), 1e-12);
    }
}

/* One .ssm source, two targets (one through a LinearTransformation): both are set,
 * k = 2 and x0 = 3, so x(1) = 3 exp(-2) (with only the last target: 3 exp(-1)). */
static void mapping_source_feeds_every_target(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700];
        stage(v, "mapping_targets", dir, sizeof dir);
        CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
        CU_ASSERT_PTR_NULL(strstr(out, "warning"));
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", "dec.x"), 3 * exp(-2), 1e-12);
    }
}

/* Zero is printed without a sign: x0 = -0 makes x = -0 exp(-kt) = -0 at every step, and
 * results.csv shows 0 (as summary.json and info do; rtc_fmt_double, rtc__json_real). */
static void negative_zero_printed_as_zero(void)
{
    char dir[700], path[800];
    stage(1, "mapping_targets", dir, sizeof dir);
    CU_ASSERT_EQUAL_FATAL(run_case(dir, "z", "--set dec.x0=-0"), 0);
    snprintf(path, sizeof path, "%s/out-z/results.csv", dir);
    char *csv = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n1,0,0\n"));
    CU_ASSERT_PTR_NULL(strstr(csv, "-0"));
    free(csv);
}

/* `check` runs the validations `run` runs, with the same options: a parameter value the
 * initialization would refuse (odd hex digits, an Integer for a Boolean) is refused by
 * both at its line; a system with a bench link needs --realtime for both. */
static void check_refuses_what_run_refuses(void)
{
    char dir[700];
    stage(1, "bad_values", dir, sizeof dir);
    static const char *const lines[] = {
        "SystemStructure.ssd:14: parameter pt.Binary_input: \"abc\": not a Binary value",
        "SystemStructure.ssd:15: parameter pt.Boolean_input: \"7\": not a valid value of the "
        "variable's type (Boolean)"};
    for (int cmd = 0; cmd < 2; cmd++) {
        int rc = cmd ? run_case(dir, "a", "")
                     : sh("'%s' check '%s/SystemStructure.ssd' 2>&1", RTCOSIM_EXE, dir);
        CU_ASSERT_EQUAL(rc, 1);
        for (size_t i = 0; i < 2; i++)
            CU_ASSERT_PTR_NOT_NULL(strstr(out, lines[i]));
    }
    stage(1, "io_fast", dir, sizeof dir);
    static const char *const modes[] = {"", "--fast"};
    for (int m = 0; m < 2; m++) {
        CU_ASSERT_EQUAL(sh("'%s' check '%s/SystemStructure.ssd' %s 2>&1", RTCOSIM_EXE, dir,
                           modes[m]), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "the system has I/O components (bench drivers): run "
                                           "it against the wall clock with --realtime"));
        CU_ASSERT_EQUAL(run_case(dir, "f", modes[m]), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "run it against the wall clock with --realtime"));
    }
    CU_ASSERT_EQUAL(sh("'%s' check '%s/SystemStructure.ssd' --realtime 2>&1", RTCOSIM_EXE, dir),
                    0);
}

/* One writer, two readers through references at two levels; inline and .ssb content. */
static void signal_dictionary_entries_connect_writer_to_readers(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700], col[64];
        stage(v, "signal_dictionary", dir, sizeof dir);
        CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
        CU_ASSERT_PTR_NULL(strstr(out, "not supported"));
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "sub.rd", col, sizeof col)), 3.5, 0);
        CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", out_col(v, "rd2", col, sizeof col)), 3.5, 0);
    }
}

/* SSP 2.0 array connectors element by element: FMI 2 scalars "y[i]" into an FMI 3 array,
 * FMI 3 array to FMI 3 array, FMI 3 array into FMI 2 scalars "u[i]" (of three numeric
 * types: the Integer and Boolean elements show their defaults, -123456 and true, were
 * replaced). The two FMI 2 FMUs are the staged Mass2 and Passthrough with those variables
 * renamed, as an FMI 2 exporter names array elements. */
static void array_connectors_connect_element_wise(void)
{
    char dir[700];
    stage(2, "arrays", dir, sizeof dir);
    const char *st = RTC_TEST_FMU_DIR "/stage/fmi2";
    CU_ASSERT_EQUAL_FATAL(sh("cp -r '%s/Mass2' '%s/m2s' && sed -i -e 's/name=\"x2\"/name=\"y[1]\"/' "
                             "-e 's/name=\"v2\"/name=\"y[2]\"/' -e 's/name=\"Fc\"/name=\"y[3]\"/' "
                             "'%s/m2s/modelDescription.xml'", st, dir, dir), 0);
    CU_ASSERT_EQUAL_FATAL(sh("cp -r '%s/Passthrough' '%s/pts' && sed -i -e "
                             "'s/name=\"Real_input\"/name=\"u[1]\"/' -e "
                             "'s/name=\"Integer_input\"/name=\"u[2]\"/' -e "
                             "'s/name=\"Boolean_input\"/name=\"u[3]\"/' "
                             "'%s/pts/modelDescription.xml'", st, dir, dir), 0);
    CU_ASSERT_EQUAL_FATAL(run_case(dir, "a", ""), 0);
    static const char *const comps[] = {"p", "q"};
    for (int c = 0; c < 2; c++) {
        for (int e = 1; e <= 3; e++) {
            char name[64];
            snprintf(name, sizeof name, "%s.Float64_array_output[%d]", comps[c], e);
            CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", name), e == 1 ? 0.25 : 0, 0);
        }
    }
    CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", "s.Real_output"), 0.25, 0);
    CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", "s.Integer_output"), 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(last(dir, "a", "s.Boolean_output"), 0, 0);
    stage(2, "bad_array", dir, sizeof dir);
    CU_ASSERT_EQUAL(run_case(dir, "a", ""), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "SystemStructure.ssd:20: Connection: connector "
                                       "p.Float64_array_output declares 4 element(s), the "
                                       "variable has 3"));
    /* 9 x 12297829382473034411 wraps around to 3 in 64 bits: refused, not taken for 3 */
    stage(2, "bad_array_size", dir, sizeof dir);
    CU_ASSERT_EQUAL(run_case(dir, "a", ""), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "SystemStructure.ssd:21: Connection: connector "
                                       "p.Float64_array_output: the product of its Dimension "
                                       "sizes overflows"));
}

/* Refusals name the file, the line and the reason, and nothing is run. */
static void refusals_name_file_line_and_reason(void)
{
    for (int v = 1; v <= 2; v++) {
        char dir[700];
        stage(v, "bad_dictionary", dir, sizeof dir);
        CU_ASSERT_EQUAL(run_case(dir, "a", ""), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "SystemStructure.ssd:16: SignalDictionaryReference "
                                           "dictionary: no signal dictionary \"nope\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "SystemStructure.ssd:20: Connection endConnector: "
                                           "no entry \"nospeed\" in signal dictionary \"bus\""));
        stage(v, "bad_units", dir, sizeof dir);
        CU_ASSERT_EQUAL(run_case(dir, "a", ""), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "SystemStructure.ssd:22: Connection"));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "unit mismatch: [m] to [s]"));
    }
}

/* A stop time before the start time is refused as on a single FMU, whether --stop or the
 * file's stopTime is the earlier one; never taken for "no stop time" (a 1 s run). */
static void stop_before_start_refused(void)
{
    char dir[700];
    stage(1, "units_convert", dir, sizeof dir);
    CU_ASSERT_EQUAL(run_case(dir, "s", "--start 5 --stop 2"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "SystemStructure.ssd: stop time 2 s (--stop) is before "
                                       "start time 5 s (--start)"));
    CU_ASSERT_PTR_NULL(strstr(out, "running 1 s"));
    CU_ASSERT_EQUAL(run_case(dir, "t", "--start 1.5"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "stop time 1 s (DefaultExperiment stopTime) is before "
                                       "start time 1.5 s (--start)"));
    CU_ASSERT_EQUAL(sh("'%s' check '%s/SystemStructure.ssd' --stop -1 2>&1", RTCOSIM_EXE, dir), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "stop time -1 s (--stop) is before start time 0 s "
                                       "(DefaultExperiment startTime)"));
    CU_ASSERT_EQUAL(run_case(dir, "u", "--start 1 --stop 1"), 0); /* empty, not refused */
}

/* summary.json reports the run's own start and end, not the elapsed time. */
static void summary_reports_the_runs_own_times(void)
{
    char dir[700];
    stage(1, "units_convert", dir, sizeof dir);
    CU_ASSERT_EQUAL_FATAL(run_case(dir, "t", "--start 5 --stop 6"), 0);
    /* reals, 17 significant digits (round-trip) */
    CU_ASSERT_TRUE(summary_has(dir, "t", "\"start_time_s\": 5.0,"));
    CU_ASSERT_TRUE(summary_has(dir, "t", "\"end_time_s\": 6.0,"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"system_connectors_bound_set_and_recorded", system_connectors_bound_set_and_recorded},
        {"system_connector_values_flow_into_components",
         system_connector_values_flow_into_components},
        {"empty_unit_connects_without_conversion", empty_unit_connects_without_conversion},
        {"unit_conversions_factor_offset_exponents", unit_conversions_factor_offset_exponents},
        {"undefined_parameter_units_used_as_written", undefined_parameter_units_used_as_written},
        {"mapping_source_feeds_every_target", mapping_source_feeds_every_target},
        {"negative_zero_printed_as_zero", negative_zero_printed_as_zero},
        {"check_refuses_what_run_refuses", check_refuses_what_run_refuses},
        {"stop_before_start_refused", stop_before_start_refused},
        {"signal_dictionary_entries_connect_writer_to_readers",
         signal_dictionary_entries_connect_writer_to_readers},
        {"array_connectors_connect_element_wise", array_connectors_connect_element_wise},
        {"refusals_name_file_line_and_reason", refusals_name_file_line_and_reason},
        {"summary_reports_the_runs_own_times", summary_reports_the_runs_own_times},
        {NULL, NULL}};
    rtc_test_add_suite("ssp_conformance", setup, teardown, cases);
}
