/*
 * JSON through libjansson: the helpers of internal/json_util.h, and the files the CLI
 * writes and reads with them — summary.json and timing.json stay valid JSON whatever the
 * system path and the unit names hold (quote, backslash, control character), reals
 * round-trip, non-finite reals are null, and `rtcosim replay` refuses a tampered
 * summary.json with one line naming the file and the key.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "json_util.h"
#include "rtcosim/status.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

RTC_TEST_RTCOSIM_FIXTURE

/* @p rel (under the work directory) parsed with jansson; NULL (and the parser's reason
 * printed) when it is not valid JSON. */
static json_t *load(const char *rel)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j)
        printf("\n    %s: line %d: %s", rel, e.line, e.text);
    return j;
}

static const char *str_at(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* ---- helpers ---- */

static char *round_trip_text(const char *s)
{
    json_t *a = json_array();
    json_array_append_new(a, rtc__json_str(s));
    char *text = json_dumps(a, RTC__JSON_FLAGS);
    json_decref(a);
    json_t *back = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    const char *v = json_string_value(json_array_get(back, 0));
    char *copy = v ? strdup(v) : NULL;
    json_decref(back);
    return copy;
}

static void str_escapes_and_replaces_invalid_utf8(void)
{
    static const struct { const char *in, *want; } cases[] = {
        {"a\"b\\c\x01" "d\te", "a\"b\\c\x01" "d\te"},   /* escaped, read back as written */
        {"caf\xe9", "caf\xEF\xBF\xBD"},                   /* Latin-1 byte: U+FFFD */
        {"\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},         /* overlong '/' */
        {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* a surrogate */
        {"x\xF0\x9F\x98\x80y", "x\xF0\x9F\x98\x80y"},     /* a valid 4-byte sequence */
        {"\xF0\x9F\x98", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* cut short */
        {NULL, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = round_trip_text(cases[i].in);
        CU_ASSERT_PTR_NOT_NULL(got);
        CU_ASSERT_STRING_EQUAL(got ? got : "(null)", cases[i].want);
        free(got);
    }
}

static void reals_round_trip_nonfinite_null_counts_integers(void)
{
    const double v[] = {0.1, 1.0 / 3, 5.0, 1e-300, DBL_MAX, -2.5e-7, 5.000000001};
    const size_t n = sizeof v / sizeof v[0];
    json_t *doc = json_object(), *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, rtc__json_real(v[i]));
    json_object_set_new(doc, "reals", a);
    json_object_set_new(doc, "nan", rtc__json_real(NAN));
    json_object_set_new(doc, "inf", rtc__json_real(INFINITY));
    json_object_set_new(doc, "ninf", rtc__json_real(-INFINITY));
    json_object_set_new(doc, "negzero", rtc__json_real(-0.0));
    json_object_set_new(doc, "big", rtc__json_uint(UINT64_MAX));
    json_object_set_new(doc, "count", rtc__json_uint(42));
    char path[700], err[1400] = "";
    snprintf(path, sizeof path, "%s/reals.json", work);
    CU_ASSERT_EQUAL_FATAL(rtc__json_write(doc, path), RTC_OK);
    json_decref(doc);
    json_t *back = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc__json_read(path, &back, err, sizeof err), RTC_OK);
    const json_t *r = json_object_get(back, "reals");
    CU_ASSERT_EQUAL(json_array_size(r), n);
    for (size_t i = 0; i < n && i < json_array_size(r); i++) {
        CU_ASSERT_TRUE(json_is_real(json_array_get(r, i))); /* 5.0 stays a real */
        CU_ASSERT_TRUE(json_real_value(json_array_get(r, i)) == v[i]); /* bit for bit */
    }
    CU_ASSERT_TRUE(json_is_null(json_object_get(back, "nan")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(back, "inf")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(back, "ninf")));
    char *text = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "\"negzero\": 0.0,")); /* zero without a sign */
    free(text);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(back, "big")), INT64_MAX);
    CU_ASSERT_TRUE(json_is_integer(json_object_get(back, "count")));
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(back, "count")), 42);
    json_decref(back);
}

static void read_names_file_and_key_on_bad_input(void)
{
    char path[700], err[1400] = "";
    snprintf(path, sizeof path, "%s/bad.json", work);
    json_t *j = (json_t *)1;
    CU_ASSERT_EQUAL(rtc__json_read(path, &j, err, sizeof err), RTC_ENOTFOUND);
    CU_ASSERT_PTR_NULL(j);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"a\": 1, \"a\": 2}", f); /* a duplicate key: which one would a reader take? */
    fclose(f);
    CU_ASSERT_EQUAL(rtc__json_read(path, &j, err, sizeof err), RTC_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad.json: line 1"));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
    json_t *o = json_pack("{s:s, s:i, s:{}}", "s", "x", "n", -3, "o");
    uint64_t u = 7;
    CU_ASSERT_PTR_NULL(rtc__json_need_str(o, "n", "F", err, sizeof err));
    CU_ASSERT_STRING_EQUAL(err, "F: key \"n\": expected a string, found an integer");
    CU_ASSERT_FALSE(rtc__json_need_uint(o, "n", "F", &u, err, sizeof err));
    CU_ASSERT_STRING_EQUAL(err, "F: key \"n\": expected a count, found -3");
    CU_ASSERT_FALSE(rtc__json_need_uint(o, "zz", "F", &u, err, sizeof err));
    CU_ASSERT_STRING_EQUAL(err, "F: key \"zz\": missing");
    CU_ASSERT_PTR_NULL(rtc__json_need_obj(o, "s", "F", err, sizeof err));
    CU_ASSERT_STRING_EQUAL(err, "F: key \"s\": expected an object, found a string");
    CU_ASSERT_STRING_EQUAL(rtc__json_need_str(o, "s", "F", err, sizeof err), "x");
    CU_ASSERT_PTR_NOT_NULL(rtc__json_need_obj(o, "o", "F", err, sizeof err));
    json_decref(o);
}

/* ---- the files of a run ---- */

/* A directory and a unit whose names need escaping: a quote, a backslash and a control
 * character (U+0001 in the directory; a tab, kept by the XML reference &#9;, in the unit). */
#define ODD_DIR "we\"ird\\d\001ir"
#define ODD_UNIT "m\"1\\\tx"
#define ODD_UNIT_XML "m&quot;1\\&#9;x"

static void write_odd_system(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/" ODD_DIR, work);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/" ODD_DIR "/sys.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char m1[600], m2[600]; /* tfmu_path's buffer is static */
    snprintf(m1, sizeof m1, "%s", tfmu_path(2, "Mass1"));
    snprintf(m2, sizeof m2, "%s", tfmu_path(2, "Mass2"));
    fprintf(f,
        "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"t\" "
        "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
        "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
        "<ssd:System name=\"s\">\n<ssd:Elements>\n"
        "<ssd:Component name=\"" ODD_UNIT_XML "\" source=\"%s\"><ssd:Connectors>"
        "<ssd:Connector name=\"Fe\" kind=\"input\"><ssc:Real/></ssd:Connector>"
        "<ssd:Connector name=\"x1\" kind=\"output\"><ssc:Real/></ssd:Connector>"
        "<ssd:Connector name=\"v1\" kind=\"output\"><ssc:Real/></ssd:Connector>"
        "</ssd:Connectors></ssd:Component>\n"
        "<ssd:Component name=\"m2\" source=\"%s\"><ssd:Connectors>"
        "<ssd:Connector name=\"xc\" kind=\"input\"><ssc:Real/></ssd:Connector>"
        "<ssd:Connector name=\"vc\" kind=\"input\"><ssc:Real/></ssd:Connector>"
        "<ssd:Connector name=\"Fc\" kind=\"output\"><ssc:Real/></ssd:Connector>"
        "</ssd:Connectors></ssd:Component>\n</ssd:Elements>\n<ssd:Connections>\n"
        "<ssd:Connection startElement=\"" ODD_UNIT_XML "\" startConnector=\"x1\" "
        "endElement=\"m2\" endConnector=\"xc\"/>\n"
        "<ssd:Connection startElement=\"" ODD_UNIT_XML "\" startConnector=\"v1\" "
        "endElement=\"m2\" endConnector=\"vc\"/>\n"
        "<ssd:Connection startElement=\"m2\" startConnector=\"Fc\" "
        "endElement=\"" ODD_UNIT_XML "\" endConnector=\"Fe\"/>\n"
        "</ssd:Connections>\n</ssd:System>\n"
        "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.1\"/>\n"
        "</ssd:SystemStructureDescription>\n", m1, m2);
    fclose(f);
}

/* The names of a system run's summary.json, read back as they were. */
static void assert_odd_summary(const char *rel)
{
    json_t *s = load(rel);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(str_at(s, "system"), ODD_DIR "/sys.ssd");
    CU_ASSERT_STRING_EQUAL(str_at(s, "status"), "completed");
    const json_t *units = json_object_get(s, "units");
    CU_ASSERT_EQUAL(json_array_size(units), 2);
    CU_ASSERT_STRING_EQUAL(str_at(json_array_get(units, 0), "name"), ODD_UNIT);
    const json_t *links = json_object_get(s, "connections");
    CU_ASSERT_EQUAL(json_array_size(links), 3);
    CU_ASSERT_STRING_EQUAL(str_at(json_array_get(links, 0), "link"), ODD_UNIT ".x1 -> m2.xc");
    CU_ASSERT_TRUE(json_is_integer(json_object_get(s, "last_tick")));
    CU_ASSERT_TRUE(json_is_real(json_object_get(s, "last_time_s")));
    json_decref(s);
}

static void summary_and_timing_keep_quotes_backslashes_control_chars(void)
{
    write_odd_system();
    int rc = rtcosim("run '" ODD_DIR "/sys.ssd' --output-dir '" ODD_DIR "/fast'");
    if (rc != 0)
        printf("\n    %s", out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    assert_odd_summary(ODD_DIR "/fast/summary.json");
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '" ODD_DIR "/sys.ssd' --realtime --output-dir '" ODD_DIR
                                  "/rt'"), 0);
    assert_odd_summary(ODD_DIR "/rt/summary.json");
    json_t *t = load(ODD_DIR "/rt/timing.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const json_t *u = json_object_get(json_object_get(t, "units"), ODD_UNIT);
    CU_ASSERT_PTR_NOT_NULL(u); /* the unit's name is the key, as written */
    CU_ASSERT_TRUE(json_is_integer(json_object_get(json_object_get(u, "do_step_ns"), "count")));
    CU_ASSERT_TRUE(json_is_real(json_object_get(t, "rtf")));
    json_decref(t);
    /* run FMU: the FMU path and the summary path hold the same characters */
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.1 -o '" ODD_DIR "/fmu.csv'",
                            tfmu_path(2, "Mass1")), 0);
    json_t *f = load(ODD_DIR "/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(str_at(f, "status"), "completed");
    CU_ASSERT_TRUE(json_is_integer(json_object_get(f, "rows_written")));
    json_decref(f);
}

/* A time with ten significant digits: the summary reads back the very double. */
static void summary_times_round_trip(void)
{
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s/msd-jacobi.ssp' --start 5 --stop 5.000000001 "
                                  "--step 1e-9 --output-dir t10", RTC_TEST_CONFIG_DIR), 0);
    json_t *s = load("t10/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "last_tick")), 1);
    double want = (double)5000000001LL / 1e9;
    CU_ASSERT_TRUE(json_real_value(json_object_get(s, "last_time_s")) == want);
    CU_ASSERT_TRUE(json_real_value(json_object_get(s, "end_time_s")) == want);
    CU_ASSERT_TRUE(json_real_value(json_object_get(s, "start_time_s")) == 5.0);
    json_decref(s);
}

/* ---- replay reads the session's summary.json with a parser ---- */

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* Write @p text as the session's summary.json, replay, and expect exit 1 with exactly one
 * line, naming the file and @p want. */
static void replay_refuses(const char *text, const char *want)
{
    char path[700];
    snprintf(path, sizeof path, "%s/sess/summary.json", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    int rc = rtcosim("replay sess --output-dir rep");
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "sess/summary.json: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
    CU_ASSERT_EQUAL(count(out, "\n"), 1);
    if (rc != 1 || !strstr(out, want))
        printf("\n    expected \"%s\", got (exit %d): %s", want, rc, out);
}

static void replay_refuses_tampered_summary_with_one_line(void)
{
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s/msd-jacobi.ssp' --realtime --stop 0.2 "
                                  "--output-dir sess", RTC_TEST_CONFIG_DIR), 0);
    CU_ASSERT_EQUAL(rtcosim("replay sess --output-dir rep"), 0); /* untouched: it replays */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "identical"));
    replay_refuses("{\"cause\": \"end\", \"rows_dropped\": 0}\n", "key \"status\": missing");
    replay_refuses("{\"status\": 3, \"cause\": \"end\", \"rows_dropped\": 0}\n",
                   "key \"status\": expected a string, found an integer");
    replay_refuses("{\"status\": \"completed\", \"cause\": \"end\", \"rows_dropped\": \"0\"}\n",
                   "key \"rows_dropped\": expected an integer, found a string");
    replay_refuses("{\"status\": \"completed\", \"cause\": \"end\", \"rows_dropped\": 0, "
                   "\"session\": {\"inputs_dropped\": 0, \"commands_dropped\": -1}}\n",
                   "key \"commands_dropped\": expected a count, found -1");
    replay_refuses("{\"status\": \"completed\", \"cause\": \"end\", \"rows_dropped\": 0, "
                   "\"session\": [0]}\n", "key \"session\": expected an object, found an array");
    replay_refuses("{\"status\": \"compl", "line 1");
    replay_refuses("[1, 2]\n", "the top level is not an object");
}

void rtc_test_register(void)
{
    static const rtc_test_case helpers[] = {
        {"str_escapes_and_replaces_invalid_utf8", str_escapes_and_replaces_invalid_utf8},
        {"reals_round_trip_nonfinite_null_counts_integers",
         reals_round_trip_nonfinite_null_counts_integers},
        {"read_names_file_and_key_on_bad_input", read_names_file_and_key_on_bad_input},
        {NULL, NULL},
    };
    static const rtc_test_case files[] = {
        {"summary_and_timing_keep_quotes_backslashes_control_chars",
         summary_and_timing_keep_quotes_backslashes_control_chars},
        {"summary_times_round_trip", summary_times_round_trip},
        {"replay_refuses_tampered_summary_with_one_line",
         replay_refuses_tampered_summary_with_one_line},
        {NULL, NULL},
    };
    rtc_test_add_suite("json_util", setup, teardown, helpers);
    rtc_test_add_suite("json_files", setup, teardown, files);
}
