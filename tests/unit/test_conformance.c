/*
 * FMI conformance corpus (tests/data/conformance/fmi2/, fmi3/): one small
 * modelDescription.xml per construct of the conformance policy (fmu_md.c), read with
 * rtc_fmu_md_read. Accepted cases name the number of warnings and check the parsed
 * result; refused cases name the status and a substring of the one error line. Every
 * folder of the corpus must be listed here, so a fixture cannot be skipped silently.
 *
 * Then the runs (rtcosim driven as a user would): the test FMUs with the interfaces of the
 * FMI 3 Reference FMUs Feedthrough and Roberts against their expected CSVs, parameters set
 * again in Initialization Mode (InitOnly), and what rtcosim says about aliases and clocks.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/fmu.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONF_DIR RTC_TEST_DATA_DIR "/conformance"

typedef struct capture {
    char text[8192];
    size_t len;
    unsigned n_error, n_warning;
} capture;

static void capture_log(void *user, int level, const char *msg)
{
    capture *c = user;
    c->n_error += level == RTC_LOG_ERROR;
    c->n_warning += level == RTC_LOG_WARNING;
    int n = snprintf(c->text + c->len, sizeof c->text - c->len, "%s\n", msg);
    if (n > 0 && c->len + (size_t)n < sizeof c->text)
        c->len += (size_t)n;
}

static const rtc_var *var(const rtc_model_desc *md, const char *name)
{
    long i = rtc_model_find_var(md, name);
    CU_ASSERT_FATAL(i >= 0);
    return &md->vars[i];
}

/* ---- checkers of accepted cases ---- */

static void check_fmi2_input_initial(const rtc_model_desc *md)
{
    const rtc_var *u = var(md, "u");
    CU_ASSERT_EQUAL(u->initial, RTC_INITIAL_NONE); /* FMI 2.0: inputs have no initial */
    CU_ASSERT_EQUAL(u->n_start, 1);
    CU_ASSERT_DOUBLE_EQUAL(u->start[0].f64, 1.25, 0);
    CU_ASSERT_TRUE(rtc_var_settable_at_init(u));
}

static void check_fmi2_independent(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL(var(md, "time")->initial, RTC_INITIAL_NONE);
}

static void check_param_fixed(const rtc_model_desc *md)
{
    const rtc_var *k = var(md, "k");
    CU_ASSERT_EQUAL(k->variability, RTC_VARIABILITY_FIXED);
    CU_ASSERT_EQUAL(k->initial, RTC_INITIAL_EXACT);
    CU_ASSERT_TRUE(rtc_var_settable_at_init(k));
}

static void check_fmi3_input_exact(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL(var(md, "u")->initial, RTC_INITIAL_EXACT);
    CU_ASSERT_EQUAL(var(md, "i")->initial, RTC_INITIAL_EXACT); /* the default for inputs */
    CU_ASSERT_EQUAL(var(md, "i")->variability, RTC_VARIABILITY_DISCRETE);
    CU_ASSERT_EQUAL(var(md, "y")->initial, RTC_INITIAL_CALCULATED);
}

static void check_no_start(const rtc_model_desc *md)
{
    const rtc_var *u = var(md, "u");
    CU_ASSERT_EQUAL(u->n_start, 0);
    CU_ASSERT_TRUE(rtc_var_settable_at_init(u));
}

static void check_fmi3_input_calculated(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL(var(md, "u")->initial, RTC_INITIAL_EXACT);
}

static void check_alias(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL_FATAL(md->n_aliases, 3);
    CU_ASSERT_EQUAL(rtc_model_find_var(md, "position"), rtc_model_find_var(md, "x"));
    CU_ASSERT_EQUAL(rtc_model_find_var(md, "x_mm"), rtc_model_find_var(md, "x"));
    CU_ASSERT_EQUAL(rtc_model_find_var(md, "gain"), rtc_model_find_var(md, "k"));
    CU_ASSERT_EQUAL(rtc_model_find_var(md, "nothing"), -1);
    CU_ASSERT_STRING_EQUAL(md->aliases[0].description, "same as x");
    CU_ASSERT_STRING_EQUAL(md->aliases[1].display_unit, "mm");
    CU_ASSERT_PTR_NULL(md->aliases[2].description);
}

static void check_structural(const rtc_model_desc *md)
{
    const rtc_var *a = var(md, "A"), *u = var(md, "u"), *y = var(md, "y"), *n = var(md, "n");
    CU_ASSERT_EQUAL(rtc_var_count(a), 6);
    CU_ASSERT_EQUAL(a->n_start, 6);
    CU_ASSERT_DOUBLE_EQUAL(a->start[5].f64, 6.0, 0);
    CU_ASSERT_EQUAL(rtc_var_count(u), 3);
    CU_ASSERT_EQUAL(rtc_var_count(y), 2);
    CU_ASSERT_EQUAL(n->variability, RTC_VARIABILITY_FIXED);
    CU_ASSERT_EQUAL(n->initial, RTC_INITIAL_EXACT);
    /* only Configuration Mode may change a structural parameter (not supported) */
    CU_ASSERT_FALSE(rtc_var_settable_at_init(n));
    CU_ASSERT_TRUE(rtc_var_settable_at_init(a));
}

static void check_single_start(const rtc_model_desc *md)
{
    const rtc_var *u = var(md, "u"), *k = var(md, "k");
    CU_ASSERT_EQUAL(rtc_var_count(u), 4);
    CU_ASSERT_EQUAL(u->n_start, 1);
    CU_ASSERT_DOUBLE_EQUAL(u->start[0].f64, 0.5, 0);
    CU_ASSERT_EQUAL(rtc_var_count(k), 6);
    CU_ASSERT_EQUAL(k->n_start, 1);
    CU_ASSERT_EQUAL(k->start[0].i64, 7);
}

static void check_clock_tunable(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL(var(md, "tick")->variability, RTC_VARIABILITY_TUNABLE);
    CU_ASSERT_EQUAL(var(md, "count")->variability, RTC_VARIABILITY_TUNABLE);
    CU_ASSERT_EQUAL(var(md, "gain")->initial, RTC_INITIAL_EXACT);
}

static void check_clocks(const rtc_model_desc *md)
{
    const rtc_var *in = var(md, "in_clock"), *s = var(md, "sampled"), *c = var(md, "count");
    CU_ASSERT_EQUAL(in->type, RTC_TYPE_CLOCK);
    CU_ASSERT_EQUAL(in->initial, RTC_INITIAL_NONE);
    CU_ASSERT_FALSE(rtc_var_settable_at_init(in));
    CU_ASSERT_EQUAL(var(md, "out_clock")->type, RTC_TYPE_CLOCK);
    CU_ASSERT_EQUAL_FATAL(s->n_clocks, 1);
    CU_ASSERT_EQUAL(s->clocks[0], 1);
    CU_ASSERT_EQUAL_FATAL(c->n_clocks, 2);
    CU_ASSERT_EQUAL(c->clocks[1], 2);
    CU_ASSERT_EQUAL(var(md, "in_clock")->n_clocks, 0);
}

/* ---- the table ---- */

typedef struct conf_case {
    const char *dir;       /* below tests/data/conformance */
    int rc;                /* expected status */
    unsigned warnings;     /* expected warning lines */
    const char *message;   /* substring of the log, or NULL */
    void (*check)(const rtc_model_desc *md);
} conf_case;

static const conf_case cases[] = {
    {"fmi2/input_initial_exact", RTC_OK, 1,
     "initial: \"exact\" is not defined for causality \"input\" in FMI 2.0 (allowed: none); "
     "ignored",
     check_fmi2_input_initial},
    {"fmi2/independent_initial", RTC_OK, 1, "for causality \"independent\"",
     check_fmi2_independent},
    {"fmi2/parameter_no_variability", RTC_OK, 1,
     "variability: missing for a parameter (the default \"continuous\" is not allowed); read "
     "as \"fixed\"",
     check_param_fixed},
    {"fmi2/parameter_initial_calculated", RTC_EPARSE, 0,
     "initial: \"calculated\" is not allowed with causality \"parameter\" and variability "
     "\"fixed\" (allowed: exact)",
     NULL},
    {"fmi3/input_initial_exact", RTC_OK, 0, NULL, check_fmi3_input_exact},
    {"fmi3/input_initial_calculated", RTC_OK, 1,
     "\"calculated\" is not defined for causality \"input\" in FMI 3.0 (allowed: exact)",
     check_fmi3_input_calculated},
    {"fmi2/input_without_start", RTC_OK, 1,
     "Real start: missing for an input (required by FMI 2.0); the FMU's own value holds",
     check_no_start},
    {"fmi3/input_without_start", RTC_OK, 1,
     "Float64 start: missing for an input (required by FMI 3.0); the FMU's own value holds",
     check_no_start},
    {"fmi3/alias", RTC_OK, 0, NULL, check_alias},
    {"fmi3/alias_duplicate_name", RTC_EPARSE, 0,
     ":6: Alias name: duplicate name \"k\" (first defined on line 8)", NULL},
    {"fmi3/structural_dimension", RTC_OK, 1, ":18: UInt64 variability: missing for a "
     "structuralParameter", check_structural},
    {"fmi3/clocks", RTC_OK, 0, NULL, check_clocks},
    {"fmi3/array_single_start", RTC_OK, 0, NULL, check_single_start},
    {"fmi3/clock_tunable", RTC_OK, 0, NULL, check_clock_tunable},
    {"fmi3/clocks_not_a_clock", RTC_EPARSE, 0,
     "clocks: \"x\" (value reference 1) is not a Clock", NULL},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static void run_case(const conf_case *k)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/modelDescription.xml", CONF_DIR, k->dir);
    capture cap = {0};
    rtc_logger lg = {.log = capture_log, .user = &cap, .max_level = RTC_LOG_DEBUG};
    rtc_model_desc *md = NULL;
    int rc = rtc_fmu_md_read(path, &lg, &md);
    bool ok = rc == k->rc && cap.n_warning == k->warnings &&
              cap.n_error == (k->rc == RTC_OK ? 0u : 1u) &&
              (!k->message || strstr(cap.text, k->message));
    if (!ok)
        printf("\n%s: rc=%d (%s), %u error(s), %u warning(s):\n%s", k->dir, rc, rtc_strerror(rc),
               cap.n_error, cap.n_warning, cap.text);
    CU_ASSERT_EQUAL(rc, k->rc);
    CU_ASSERT_EQUAL(cap.n_warning, k->warnings);
    CU_ASSERT_EQUAL(cap.n_error, k->rc == RTC_OK ? 0u : 1u);
    if (k->message) {
        /* every line names the file and line: FILE:LINE: ... */
        CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, k->message));
        CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "modelDescription.xml:"));
    }
    if (rc == RTC_OK && md && k->check)
        k->check(md);
    rtc_fmu_md_free(md);
}

static void test_corpus_cases(void)
{
    for (size_t i = 0; i < N_CASES; i++)
        run_case(&cases[i]);
}

/* Every folder of the corpus is a listed case. */
static void test_corpus_complete(void)
{
    static const char *const versions[] = {"fmi2", "fmi3"};
    size_t seen = 0;
    for (size_t v = 0; v < 2; v++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", CONF_DIR, versions[v]);
        DIR *d = opendir(dir);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            char name[512];
            snprintf(name, sizeof name, "%s/%s", versions[v], e->d_name);
            bool listed = false;
            for (size_t i = 0; i < N_CASES; i++)
                listed = listed || strcmp(cases[i].dir, name) == 0;
            if (!listed)
                printf("\nconformance fixture %s is not listed in test_conformance.c\n", name);
            CU_ASSERT_TRUE(listed);
            seen++;
        }
        closedir(d);
    }
    CU_ASSERT_EQUAL(seen, N_CASES);
}

/* ---- runs ---- */

RTC_TEST_RTCOSIM_FIXTURE

/* The whole file as a malloc'd string (NULL if unreadable). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = f ? calloc(1, 65536) : NULL;
    if (buf)
        fread(buf, 1, 65535, f);
    if (f)
        fclose(f);
    return buf;
}

/* Every output is its input: the expected CSV holds, in every row, the values set here
 * (extremes of every integer type, a Binary, an Enumeration item given by name). The FMI
 * 3 Reference FMU Feedthrough was refused before (initial="exact" on an input). */
static void feedthrough_matches_expected(void)
{
    int rc = rtcosim(
        "run '%s' --stop 1 --step 0.5 -o ft.csv --set Float32_continuous_input=1.5 "
        "--set Float32_discrete_input=-2.25 --set Float64_continuous_input=3.125 "
        "--set Float64_discrete_input=-4.5 --set Int8_input=-128 --set UInt8_input=255 "
        "--set Int16_input=-32768 --set UInt16_input=65535 --set Int32_input=-2147483648 "
        "--set UInt32_input=4294967295 --set Int64_input=-9223372036854775808 "
        "--set UInt64_input=18446744073709551615 --set Boolean_input=true "
        "--set Binary_input=0102ff --set 'Enumeration_input=Option 2' "
        "--set Float64_tunable_parameter=7 --set String_parameter=abc",
        tfmu_path(3, "Feedthrough"));
    if (rc != 0)
        printf("\n%s", out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/ft.csv", work);
    char *got = slurp(path);
    char *want = slurp(RTC_TEST_FMU_SRC "/Feedthrough/Feedthrough_expected.csv");
    CU_ASSERT_TRUE(got && want && strcmp(got, want) == 0);
    free(got);
    free(want);
}

/* Robertson's kinetics against the expected CSV (the t = 40 row is the published
 * high-accuracy reference solution), and y1 + y2 + y3 = 1 in every row. The archive holds
 * every file of extra/ twice, as the Reference FMU's does (refused before: File exists). */
static void roberts_matches_expected(void)
{
    int rc = rtcosim("run '%s' --start 0 --stop 40 --step 0.4 -o rob.csv", tfmu_path(3, "Roberts"));
    if (rc != 0)
        printf("\n%s", out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/rob.csv", work);
    tcsv got, exp;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &got));
    CU_ASSERT_TRUE_FATAL(tcsv_read(RTC_TEST_FMU_SRC "/Roberts/Roberts_expected.csv", &exp));
    CU_ASSERT_EQUAL(got.n_rows, 101);
    for (size_t r = 0; r < got.n_rows; r++)
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&got, r, 1) + tcsv_at(&got, r, 2) + tcsv_at(&got, r, 3),
                               1.0, 1e-12);
    size_t matched = 0;
    for (size_t e = 0; e < exp.n_rows; e++) {
        for (size_t r = 0; r < got.n_rows; r++) {
            if (fabs(tcsv_at(&got, r, 0) - tcsv_at(&exp, e, 0)) > 1e-9)
                continue;
            double tol = tcsv_at(&exp, e, 4);
            for (size_t k = 1; k <= 3; k++) {
                double want = tcsv_at(&exp, e, k);
                CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&got, r, k), want, tol * fabs(want));
            }
            matched++;
        }
    }
    CU_ASSERT_EQUAL(matched, exp.n_rows);
    tcsv_free(&got);
    tcsv_free(&exp);
}

/*
 * Roberts declares hasEventMode and refuses eventModeUsed, as the Reference binary does
 * (its run above, with the default event mode, never asks). Asked for Event Mode, its
 * refusal is retried without it and said once per FMU, quoting the FMU's reason — one
 * warning for two components made from it — and the results are the same.
 */
static void event_mode_refusal_retried_and_said_once(void)
{
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --start 0 --stop 4 --step 0.4 -o a.csv",
                                  tfmu_path(3, "Roberts")), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "Event Mode"));
    CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --start 0 --stop 4 --step 0.4 --event-mode on "
                                  "-o b.csv", tfmu_path(3, "Roberts")), 0);
    const char *w = strstr(out, "warning: Roberts: the FMU declares hasEventMode but refused to "
                                "instantiate with eventModeUsed (\"");
    CU_ASSERT_PTR_NOT_NULL(w);
    CU_ASSERT_PTR_NULL(strstr(out, "error"));
    char path[1024], path_b[1024];
    snprintf(path, sizeof path, "%s/a.csv", work);
    snprintf(path_b, sizeof path_b, "%s/b.csv", work);
    char *a = rtc_test_slurp(path, NULL), *b = rtc_test_slurp(path_b, NULL);
    CU_ASSERT_TRUE(a && b && !strcmp(a, b)); /* the same run */
    free(a);
    free(b);
    snprintf(path, sizeof path, "%s/two.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
            "name=\"t\" xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\"><ssd:Elements>");
    for (int i = 1; i <= 2; i++)
        fprintf(f, "<ssd:Component name=\"r%d\" source=\"%s\"><ssd:Annotations>"
                "<ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:Component "
                "event_mode=\"on\"/></ssc:Annotation></ssd:Annotations></ssd:Component>", i,
                tfmu_path(3, "Roberts"));
    fprintf(f, "</ssd:Elements></ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" "
            "stopTime=\"0.8\"/>\n</ssd:SystemStructureDescription>\n");
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(rtcosim("run two.ssd --step 0.4 --output-dir two"), 0);
    w = strstr(out, "refused to instantiate with eventModeUsed");
    CU_ASSERT_PTR_NOT_NULL(w);
    CU_ASSERT_PTR_NULL(w ? strstr(w + 1, "refused to instantiate") : NULL);
}

/* Write <work>/<file>: a system of one component @p comp made from @p fmu with the output
 * connector @p output and, when @p param is not NULL, one parameter binding
 * <ssv:Parameter name=param>value_xml</ssv:Parameter>. */
static void write_ssd(const char *file, const char *comp, const char *fmu, const char *output,
                      const char *param, const char *value_xml)
{
    char path[1024], binding[1024] = "";
    if (param)
        snprintf(binding, sizeof binding,
                 "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"
                 "<ssv:ParameterSet xmlns:ssv=\"http://ssp-standard.org/SSP1/"
                 "SystemStructureParameterValues\" version=\"1.0\" name=\"p\"><ssv:Parameters>"
                 "<ssv:Parameter name=\"%s\">%s</ssv:Parameter></ssv:Parameters>"
                 "</ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
                 "</ssd:ParameterBindings>",
                 param, value_xml);
    snprintf(path, sizeof path, "%s/%s", work, file);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
            "name=\"t\" xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
            "<ssd:System name=\"s\"><ssd:Elements><ssd:Component name=\"%s\" source=\"%s\">"
            "<ssd:Connectors><ssd:Connector name=\"%s\" kind=\"output\"><ssc:Real/>"
            "</ssd:Connector></ssd:Connectors>%s</ssd:Component></ssd:Elements></ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            comp, fmu, output, binding);
    fclose(f);
}

/* InitOnly copies its start values on entering Initialization Mode, so a parameter set
 * only before initialization is lost (y = 1, what libcosim's 20-sim crane showed). Set
 * before AND in Initialization Mode, as FMI 2.0 and 3.0 allow, y is the value set: through
 * --set and through an SSP parameter binding (FMI 3: binding, connector and recorded name
 * are the aliases gain = k, out = y). */
static void parameters_set_again_in_initialization_mode(void)
{
    for (int v = 2; v <= 3; v++) {
        CU_ASSERT_EQUAL_FATAL(rtcosim("run '%s' --set k=69 -o -", tfmu_path(v, "InitOnly")), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n0,69\n0.5,69\n1,69\n"));
        char file[32], path[1024];
        snprintf(file, sizeof file, "initonly%d.ssd", v);
        write_ssd(file, "c", tfmu_path(v, "InitOnly"), v == 3 ? "out" : "y",
                  v == 3 ? "gain" : "k", "<ssv:Real value=\"69\"/>");
        int rc = rtcosim("run initonly%d.ssd --step 0.5 --output-dir io%d --record c.%s", v, v,
                         v == 3 ? "out" : "y");
        if (rc != 0)
            printf("\n%s", out);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        snprintf(path, sizeof path, "%s/io%d/results.csv", work, v);
        tcsv c;
        CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
        CU_ASSERT_TRUE(c.n_rows >= 2);
        for (size_t r = 0; r < c.n_rows; r++)
            CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, r, 1), 69.0, 0);
        tcsv_free(&c);
    }
}

/* rtcosim info names aliases and clocked variables; aliases work in --set and --record; a
 * run refuses an FMU with an input clock (the engine cannot tick it) with one line naming
 * file, line and clock. */
static void info_and_run_on_aliases_and_clocks(void)
{
    CU_ASSERT_EQUAL(rtcosim("info '%s/fmi3/alias'", CONF_DIR), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Aliases (3):"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  position                         = x\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  gain                             = k\n"));
    CU_ASSERT_EQUAL(rtcosim("info '%s/fmi3/clocks'", CONF_DIR), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Clocks and clocked variables (4;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "in_clock                         clock (input): needs "
                                       "clock support, refused by run"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "count                            clocked by in_clock "
                                       "out_clock\n"));
    /* an alias works where the variable's name does: --set and --record */
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set gain=7 --record out -o -", tfmu_path(3, "InitOnly")),
                    0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"time\",\"y\"\n0,7\n0.5,7\n1,7\n"));
    CU_ASSERT_EQUAL(rtcosim("run '%s/fmi3/clocks' -o -", CONF_DIR), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "clocks/modelDescription.xml:9: input clock \"in_clock\" "
                                       "needs clock support"));
}

/* A structural parameter may size arrays; setting it outside Configuration Mode (which the
 * engine does not drive) would leave the engine's buffers of the old size, so --set and an
 * SSP parameter binding are refused with one line naming it. */
static void structural_parameter_set_refused(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set dae=true --stop 1 -o -", tfmu_path(3, "Roberts")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--set dae=true: a structural parameter changes only in "
                                       "Configuration Mode, which is not supported"));
    write_ssd("dae.ssd", "r", tfmu_path(3, "Roberts"), "y1", "dae",
              "<ssv:Boolean value=\"true\"/>");
    CU_ASSERT_EQUAL(rtcosim("run dae.ssd --step 0.5 --output-dir dae"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "dae.ssd:3: parameter r.dae: a structural parameter "
                                       "changes only in Configuration Mode"));
}

/* A tunable parameter changes between steps through the operator's path (the session's
 * set command and --expose use rtc_system_check_settable / rtc_system_set_value), in FMI 2
 * and FMI 3 alike; the effect is visible at once (PI's u = kp e + ki I is recomputed). */
static void tunable_parameter_set_between_steps(void)
{
    for (int v = 2; v <= 3; v++) {
        char file[32], path[1024];
        snprintf(file, sizeof file, "pi%d.ssd", v);
        write_ssd(file, "pi", tfmu_path(v, "PI"), "u", NULL, NULL);
        snprintf(path, sizeof path, "%s/%s", work, file);
        rtc_unit_factory fac;
        CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&fac), RTC_OK);
        tlog log;
        tlog_init(&log);
        rtc_system_options o = {.step_ns = 500000000};
        rtc_system *sys = NULL;
        CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, &fac, 1, &o, &log.lg, &sys), RTC_OK);
        CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
        size_t u = 0, kp = 0, r = 0, vu = 0;
        CU_ASSERT_EQUAL_FATAL(rtc_system_find_var(sys, "pi.kp", &u, &kp), RTC_OK);
        CU_ASSERT_EQUAL_FATAL(rtc_system_find_var(sys, "pi.r", &u, &r), RTC_OK);
        CU_ASSERT_EQUAL_FATAL(rtc_system_find_var(sys, "pi.u", &u, &vu), RTC_OK);
        CU_ASSERT_EQUAL(rtc_system_set_value(sys, u, r, 1.0), RTC_OK);
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK); /* I = 0.5 */
        char why[256] = "";
        CU_ASSERT_EQUAL(rtc_system_check_settable(sys, u, kp, why, sizeof why), RTC_OK);
        CU_ASSERT_EQUAL(rtc_system_set_value(sys, u, kp, 3.0), RTC_OK);
        double y = 0;
        CU_ASSERT_EQUAL(rtc_system_get_value(sys, u, vu, &y), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(y, 3.0 * 1.0 + 1.0 * 0.5, 1e-12);
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK); /* I = 1 */
        CU_ASSERT_EQUAL(rtc_system_get_value(sys, u, vu, &y), RTC_OK);
        CU_ASSERT_DOUBLE_EQUAL(y, 3.0 * 1.0 + 1.0 * 1.0, 1e-12);
        rtc_system_free(sys);
    }
}

void rtc_test_register(void)
{
    static const rtc_test_case tcs[] = {
        {"corpus_cases", test_corpus_cases},
        {"corpus_complete", test_corpus_complete},
        {NULL, NULL},
    };
    static const rtc_test_case runs[] = {
        {"feedthrough_matches_expected", feedthrough_matches_expected},
        {"roberts_matches_expected", roberts_matches_expected},
        {"event_mode_refusal_retried_and_said_once", event_mode_refusal_retried_and_said_once},
        {"parameters_set_again_in_initialization_mode",
         parameters_set_again_in_initialization_mode},
        {"info_and_run_on_aliases_and_clocks", info_and_run_on_aliases_and_clocks},
        {"structural_parameter_set_refused", structural_parameter_set_refused},
        {"tunable_parameter_set_between_steps", tunable_parameter_set_between_steps},
        {NULL, NULL},
    };
    rtc_test_add_suite("conformance", NULL, NULL, tcs);
    rtc_test_add_suite("conformance_runs", setup, teardown, runs);
}
