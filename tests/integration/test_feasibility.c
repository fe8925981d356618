/*
 * Know before going live (issue 24): `rtcosim plan --realtime` and the check before
 * `rtcosim run --realtime` arms, end to end — the main job's system planned in one
 * command, an infeasible system (a Burn FMU whose step burns 1.5 ms at a 1 kHz period)
 * refused before its Modbus bench is ever contacted, the same run with --force overrunning
 * as predicted, a tight one warned, a unit that never returns from its step refused,
 * summary.json's predicted beside measured, the plan cache, a recorded session's inputs
 * feeding the profile, and Parallel Fast planned from measured real-time factors.
 *
 * The suite has its own cache (RTCOSIM_CACHE_DIR=cache, relative: in the work folder),
 * so what a case finds cached is what an earlier command of this suite put there.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* work, out, setup(), teardown() and rtcosim(): the commands run in work, where the
 * relative RTCOSIM_CACHE_DIR set in rtc_test_register() puts the plans */
RTC_TEST_RTCOSIM_FIXTURE

static bool has(const char *needle)
{
    bool yes = strstr(out, needle) != NULL;
    if (!yes)
        fprintf(stderr, "\n  missing \"%s\" in:\n%s\n", needle, out);
    return yes;
}

/* The number in the output right after @p key (0 when @p key is missing). */
static double num_after(const char *key)
{
    const char *p = strstr(out, key);
    if (!p) {
        fprintf(stderr, "\n  missing \"%s\" in:\n%s\n", key, out);
        return 0.0;
    }
    return strtod(p + strlen(key), NULL);
}

/* A plan of the hil-demo ended as it may on this machine: exit 0 with a verdict, or exit 8
 * with "infeasible" — on this kernel the scheduling's tail reaches milliseconds even at load
 * 1, inside a tick's measured work too (under a sanitizer, in CI), so the verdict is the
 * machine's; what the system needs, microseconds per unit, is checked in plan.json. */
static bool demo_plan_ok(int rc)
{
    bool infeasible = strstr(out, "verdict: infeasible: ") != NULL;
    bool ok = (rc == 0 && (infeasible || strstr(out, "verdict: feasible with ") ||
                           strstr(out, "verdict: tight: "))) ||
              (rc == 8 && infeasible);
    if (!ok)
        printf("\n    plan exit %d:\n%s", rc, out);
    return ok;
}

static json_t *read_json(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, rel);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j)
        fprintf(stderr, "%s: %s\n", path, e.text);
    return j;
}

static const char ssd_head[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"burn\" "
    "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
    "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
    "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\" "
    "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"burn\">\n<ssd:Elements>\n";

/* A Burn FMU "burn" burning @p burn_s per step at base step @p tick; with @p bench_port > 0
 * a Modbus client "bench" at 127.0.0.1:port in the loop (burn.y to its holding register,
 * its input register to burn.u). Written to WORK/NAME.ssd. */
static void write_burn(const char *name, const char *tick, const char *burn_s, int bench_port)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.ssd", work, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%s<ssd:Component name=\"burn\" source=\"%s\"><ssd:Connectors>"
               "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors><ssd:ParameterBindings><ssd:ParameterBinding>"
               "<ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\">"
               "<ssv:Parameters><ssv:Parameter name=\"burn_s\"><ssv:Real value=\"%s\"/>"
               "</ssv:Parameter></ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>"
               "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:Component>\n",
            ssd_head, tfmu_path(2, "Burn"), burn_s);
    if (bench_port > 0)
        fprintf(f, "<ssd:Component name=\"bench\" type=\"application/x-rtcosim-modbus-client\">"
                   "<ssd:Connectors><ssd:Connector name=\"voltage\" kind=\"input\"><ssc:Real/>"
                   "</ssd:Connector><ssd:Connector name=\"speed\" kind=\"output\"><ssc:Real/>"
                   "</ssd:Connector></ssd:Connectors><ssd:Annotations><ssc:Annotation "
                   "type=\"org.rtcosim.realtime\"><rtc:Component host=\"127.0.0.1\" port=\"%d\" "
                   "poll_ms=\"5\" timeout_ms=\"4\" write_mode=\"cycle\" priority=\"0\">"
                   "<rtc:Signal name=\"voltage\" table=\"holding\" address=\"0\" type=\"float32\" "
                   "safe=\"0\"/><rtc:Signal name=\"speed\" table=\"input\" address=\"0\" "
                   "type=\"float32\"/></rtc:Component></ssc:Annotation></ssd:Annotations>"
                   "</ssd:Component>\n", bench_port);
    fprintf(f, "</ssd:Elements>\n<ssd:Connections>");
    if (bench_port > 0)
        fprintf(f, "<ssd:Connection startElement=\"burn\" startConnector=\"y\" "
                   "endElement=\"bench\" endConnector=\"voltage\"/><ssd:Connection "
                   "startElement=\"bench\" startConnector=\"speed\" endElement=\"burn\" "
                   "endConnector=\"u\"/>");
    fprintf(f, "</ssd:Connections>\n<ssd:Annotations><ssc:Annotation type=\"org.rtcosim."
               "realtime\"><rtc:RealTime baseStep=\"%s\" algorithm=\"jacobi\"/></ssc:Annotation>"
               "</ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" "
               "stopTime=\"10\"/>\n</ssd:SystemStructureDescription>\n", tick);
    fclose(f);
}

/* The main job's system: per-unit figures, per-thread utilisation, slack and a verdict in
 * one command; the plan is kept, found again, and measured anew on --reprofile. */
static void plan_realtime_hil_demo_prints_and_caches(void)
{
    int rc = rtcosim("plan --realtime %s/hil-demo.ssp", RTC_TEST_CONFIG_DIR);
    CU_ASSERT_TRUE(demo_plan_ok(rc));
    int first_rc = rc;
    bool first_infeasible = strstr(out, "verdict: infeasible: ") != NULL;
    CU_ASSERT_TRUE(has("samples"));
    CU_ASSERT_TRUE(has("  bench "));
    CU_ASSERT_TRUE(has("  controller "));
    CU_ASSERT_TRUE(has("  twin "));
    CU_ASSERT_TRUE(has("  engine "));
    CU_ASSERT_TRUE(has("wake-up latency"));
    CU_ASSERT_TRUE(has("per thread: RT thread "));
    CU_ASSERT_TRUE(has("slack at p99.9: "));
    CU_ASSERT_TRUE(has("profile of 3000 ticks paced at 1.000 ms"));
    CU_ASSERT_PTR_NULL(strstr(out, "(cached)"));
    const char *at = strstr(out, "plan: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char plan[1024];
    snprintf(plan, sizeof plan, "%s/%.*s", work, (int)strcspn(at + 6, "\n"), at + 6);
    json_error_t e;
    json_t *j = json_load_file(plan, 0, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    json_t *prof = json_object_get(j, "profile");
    /* the profile kept its budget: the command as a whole stays within seconds */
    CU_ASSERT_TRUE(json_number_value(json_object_get(prof, "wall_s")) <= 6.5);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(prof, "ticks")), 3000);
    /* the file holds the verdict printed */
    CU_ASSERT_EQUAL(strcmp(json_string_value(json_object_get(j, "verdict")), "infeasible") == 0,
                    first_infeasible);
    json_t *units = json_object_get(j, "units");
    CU_ASSERT_EQUAL(json_array_size(units), 4);
    for (size_t i = 0; i < json_array_size(units); i++) /* microseconds of work per tick */
        CU_ASSERT_TRUE(json_number_value(json_object_get(
                           json_object_get(json_array_get(units, i), "work"), "p50_s")) < 1e-4);
    json_decref(j);
    rc = rtcosim("plan --realtime %s/hil-demo.ssp", RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL(rc, first_rc); /* the same plan, the same verdict */
    CU_ASSERT_EQUAL(strstr(out, "verdict: infeasible: ") != NULL, first_infeasible);
    CU_ASSERT_TRUE(has("(cached)"));
    rc = rtcosim("plan --realtime --reprofile --ticks 200 %s/hil-demo.ssp", RTC_TEST_CONFIG_DIR);
    CU_ASSERT_TRUE(demo_plan_ok(rc));
    CU_ASSERT_PTR_NULL(strstr(out, "(cached)"));
    CU_ASSERT_TRUE(has("profile of 200 ticks"));
    /* another option is another plan: 2 workers is measured, not taken from the cache */
    rc = rtcosim("plan --realtime --workers 1 --ticks 200 %s/hil-demo.ssp", RTC_TEST_CONFIG_DIR);
    CU_ASSERT_TRUE(demo_plan_ok(rc));
    CU_ASSERT_PTR_NULL(strstr(out, "(cached)"));
    CU_ASSERT_TRUE(has("per thread: RT thread "));
    CU_ASSERT_TRUE(has(", worker "));
}

/* 1.5 ms of work per 1 ms tick: `plan` names the unit and an option that fixes it; `run`
 * is refused before any bench value is written — the bench never sees a connection. */
static void infeasible_run_refused_before_the_bench(void)
{
    plain_srv srv;
    CU_ASSERT_EQUAL_FATAL(plain_srv_start(&srv), 0);
    write_burn("burn", "0.001", "0.0015", srv.port);
    int rc = rtcosim("plan --realtime --ticks 300 burn.ssd");
    CU_ASSERT_EQUAL(rc, 8);
    /* The figures are measured: at least the 150 % the unit burns; the option proposes a
     * step of at least two ticks (three when this machine's load stretched the p99.9). */
    CU_ASSERT_TRUE(num_after("verdict: infeasible: the real-time thread is busy ") >= 150);
    CU_ASSERT_TRUE(has("unit burn works 1.50"));
    CU_ASSERT_TRUE(num_after("\n  stepSize=\"") >= 0.002);
    CU_ASSERT_TRUE(has("\" on burn (rtc:Component) and --overrun substitute"));
    CU_ASSERT_TRUE(has("feasible ("));
    rc = rtcosim("run burn.ssd --realtime --stop 1 --output-dir refused -q");
    CU_ASSERT_EQUAL(rc, 8);
    CU_ASSERT_TRUE(has("infeasible"));
    CU_ASSERT_TRUE(has("unit burn"));
    CU_ASSERT_TRUE(num_after("option: stepSize=\"") >= 0.002);
    CU_ASSERT_TRUE(has("\" on burn (rtc:Component) and --overrun substitute"));
    CU_ASSERT_TRUE(has("refusing to arm: nothing was started, no bench value written"));
    CU_ASSERT_EQUAL(atomic_load(&srv.accepted), 0);
    CU_ASSERT_EQUAL(atomic_load(&srv.served), 0);
    /* as every refusal before the first step: nothing left behind, not even the folder */
    char made[1024];
    snprintf(made, sizeof made, "%s/refused", work);
    CU_ASSERT_NOT_EQUAL(access(made, F_OK), 0);
    plain_srv_stop(&srv);
}

/* The same system with --force: armed anyway, and it overruns as the plan predicted —
 * every tick; summary.json sets the prediction beside the measurement per unit. */
static void forced_run_overruns_as_predicted(void)
{
    write_burn("burn", "0.001", "0.0015", 0);
    int rc = rtcosim("run burn.ssd --realtime --force --stop 0.2 --output-dir run -q");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(has("--force: arming it anyway; expect overruns"));
    json_t *s = read_json("run/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    json_t *f = json_object_get(s, "feasibility");
    CU_ASSERT_TRUE(json_is_true(json_object_get(f, "forced")));
    json_t *rate = json_object_get(f, "overrun_rate");
    double predicted = json_number_value(json_object_get(rate, "predicted"));
    double measured = json_number_value(json_object_get(rate, "measured"));
    CU_ASSERT_TRUE(predicted > 0.95);
    CU_ASSERT_TRUE(measured > 0.9);
    json_t *u = json_array_get(json_object_get(f, "units"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(u, "name")), "burn");
    double p50_pred = json_number_value(json_object_get(json_object_get(u, "predicted"), "p50_s"));
    double p50_meas = json_number_value(json_object_get(json_object_get(u, "measured"), "p50_s"));
    CU_ASSERT_TRUE(p50_pred >= 0.0015 && p50_pred < 0.002);
    CU_ASSERT_TRUE(p50_meas >= 0.0015 && p50_meas < 0.002);
    json_t *tick = json_object_get(f, "tick");
    CU_ASSERT_TRUE(json_number_value(json_object_get(json_object_get(tick, "measured"),
                                                     "p50_s")) >= 0.0015);
    json_decref(s);
}

/* 8.5 ms of work in a 10 ms period: it fits, below the 20 % margin — a warning, and the
 * run goes on. */
static void tight_run_is_warned(void)
{
    write_burn("tight", "0.01", "0.0085", 0);
    int rc = rtcosim("run tight.ssd --realtime --stop 0.05 --output-dir run");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(has("warning: "));
    CU_ASSERT_TRUE(has("tight"));
    json_t *s = read_json("run/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "status")), "completed");
    json_t *f = json_object_get(s, "feasibility");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "verdict")), "tight");
    json_decref(s);
}

/* A unit that does not come back from its step (Fault: sleep 60 s in the first one) is
 * named and refused once the profile's budget and grace are spent — never waited for. */
static void hung_unit_refused(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/hang.ssd", work);
    tfmu_write_param_system(path, "stuck", tfmu_path(2, "Fault"), "y", "Real",
                            "<ssv:Parameter name=\"mode\"><ssv:Integer value=\"5\"/>"
                            "</ssv:Parameter><ssv:Parameter name=\"t_fault\"><ssv:Real "
                            "value=\"0\"/></ssv:Parameter><ssv:Parameter name=\"sleep_s\">"
                            "<ssv:Real value=\"60\"/></ssv:Parameter>",
                            "<ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime "
                            "baseStep=\"0.001\"/></ssc:Annotation>", "1");
    int rc = rtcosim("run hang.ssd --realtime --output-dir run -q");
    CU_ASSERT_EQUAL(rc, 8);
    CU_ASSERT_TRUE(has("unit stuck did not return from its step within the feasibility "
                       "profile's"));
    CU_ASSERT_TRUE(has("refusing to arm"));
}

/* A feasible run: each unit's predicted and measured step times side by side. */
static void summary_sets_prediction_beside_measurement(void)
{
    int rc = rtcosim("run %s/controller-plant.ssp --realtime --stop 0.3 --output-dir run -q",
                     RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    json_t *s = read_json("run/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    json_t *f = json_object_get(s, "feasibility");
    /* feasible on a quiet machine; a loaded one's wake-up tail may leave less than the
     * margin, or miss the period (the work of these units is microseconds): then the plan
     * says it is the scheduling, and the run was armed all the same */
    const char *v = json_string_value(json_object_get(f, "verdict"));
    CU_ASSERT_TRUE(v && (!strcmp(v, "feasible") || !strcmp(v, "tight") ||
                         json_is_true(json_object_get(f, "scheduling_only"))));
    CU_ASSERT_TRUE(json_is_string(json_object_get(f, "plan")));
    json_t *units = json_object_get(f, "units");
    CU_ASSERT_EQUAL_FATAL(json_array_size(units), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *u = json_array_get(units, i);
        json_t *p = json_object_get(u, "predicted"), *m = json_object_get(u, "measured");
        CU_ASSERT_TRUE(json_integer_value(json_object_get(p, "samples")) > 0);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(m, "samples")), 300);
        CU_ASSERT_TRUE(json_number_value(json_object_get(m, "p99_s")) > 0);
    }
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(units, 1), "name")),
                           "plant");
    json_t *rate = json_object_get(f, "overrun_rate");
    CU_ASSERT_TRUE(json_is_real(json_object_get(rate, "predicted")));
    CU_ASSERT_TRUE(json_is_real(json_object_get(rate, "measured")));
    json_decref(s);
}

/* A profile in which this machine woke the thread 1.5 ms late at every tick (a machine
 * busy while it was profiled, made so by rewriting the wake-up column of the plan's
 * samples) while the units work microseconds: `plan` says infeasible because of the
 * scheduling, and `run --realtime` with that plan warns and arms instead of refusing. */
static void busy_machine_warned_not_refused(void)
{
    int rc = rtcosim("plan --realtime --ticks 200 %s/controller-plant.ssp", RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL(rc, 0); /* microseconds of work: never refused */
    const char *at = strstr(out, "plan: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char dir[1024], cmd[2400], res[64];
    snprintf(dir, sizeof dir, "%s/%.*s", work, (int)(strcspn(at + 6, "\n") - 10), at + 6);
    snprintf(cmd, sizeof cmd, "cd '%s' && awk -F, -v OFS=, '/^[0-9]/ && $2 >= 0 { $2 = 1500000 }"
             " { print }' samples.csv > s.tmp && mv s.tmp samples.csv && echo ok", dir);
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, res, sizeof res), 0);
    rc = rtcosim("plan --realtime --plan %s %s/controller-plant.ssp", dir, RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL(rc, 0); /* infeasible, but the run would arm it: not exit 8 */
    CU_ASSERT_TRUE(has("verdict: infeasible: "));
    CU_ASSERT_TRUE(has("this machine's scheduling, not the system's work"));
    rc = rtcosim("run %s/controller-plant.ssp --realtime --plan %s --stop 0.1 --output-dir busy",
                 RTC_TEST_CONFIG_DIR, dir);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(has("the system's work fits the period, this machine's wake-up latency does "
                       "not: arming it anyway"));
    CU_ASSERT_PTR_NULL(strstr(out, "refusing to arm"));
    json_t *s = read_json("busy/summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "status")), "completed");
    json_t *f = json_object_get(s, "feasibility");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "verdict")), "infeasible");
    CU_ASSERT_TRUE(json_is_true(json_object_get(f, "scheduling_only")));
    CU_ASSERT_TRUE(json_is_false(json_object_get(f, "forced")));
    json_decref(s);
}

/* --inputs SESSION: the profile's I/O units replay a recorded session (here an operator
 * set-point over OSC), and the plan says which session fed it. */
static void profile_replays_a_session(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/osc.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%s<ssd:Component name=\"op\" type=\"application/x-rtcosim-osc\"><ssd:Connectors>"
               "<ssd:Connector name=\"sp\" kind=\"output\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors><ssd:Annotations><ssc:Annotation type=\"org.rtcosim."
               "realtime\"><rtc:Component port=\"%d\" priority=\"0\"><rtc:Signal name=\"sp\" "
               "path=\"/sp\"/></rtc:Component></ssc:Annotation></ssd:Annotations>"
               "</ssd:Component><ssd:Component name=\"burn\" source=\"%s\"><ssd:Connectors>"
               "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors></ssd:Component></ssd:Elements><ssd:Connections>"
               "<ssd:Connection startElement=\"op\" startConnector=\"sp\" endElement=\"burn\" "
               "endConnector=\"u\"/></ssd:Connections><ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.001\"/>"
               "</ssc:Annotation></ssd:Annotations></ssd:System><ssd:DefaultExperiment "
               "startTime=\"0\" stopTime=\"10\"/></ssd:SystemStructureDescription>\n",
            ssd_head, io_free_port(SOCK_DGRAM), tfmu_path(2, "Burn"));
    fclose(f);
    int rc = rtcosim("run osc.ssd --realtime --stop 0.2 --output-dir session -q");
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    rc = rtcosim("plan --realtime --ticks 150 --inputs session osc.ssd");
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(has("  op "));
    const char *at = strstr(out, "plan: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char plan[1024];
    snprintf(plan, sizeof plan, "%s/%.*s", work, (int)strcspn(at + 6, "\n"), at + 6);
    json_error_t e;
    json_t *j = json_load_file(plan, 0, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(j, "profile"),
                                                             "inputs")), "session");
    json_decref(j);
    /* a damaged session is one clear line */
    rc = rtcosim("plan --realtime --inputs nowhere osc.ssd");
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_TRUE(has("--inputs nowhere: "));
}

/* Parallel Fast planned from what this machine does: measured d_i and the paced H*; --rtf
 * stays an override. */
static void parallel_fast_uses_measured_factors(void)
{
    int rc = rtcosim("plan --ticks 100 %s/parallel-fast-4.ssp", RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(has("(measured)"));
    CU_ASSERT_TRUE(has("H* = 2 s (argmin of E_hat"));
    CU_ASSERT_TRUE(has("paced: H* = "));
    rc = rtcosim("plan --rtf 1.6,1,1,1 %s/parallel-fast-4.ssp", RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(has("d = 1.6 (given)"));
    CU_ASSERT_TRUE(has("paced: no H keeps up"));
    CU_ASSERT_TRUE(has("unit A alone has d = 1.6"));
}

/* Two units of 8.8 ms each cannot share a 20 ms node (16 ms with the margin): on two
 * nodes each gets one, and the one connection between them is cut; as --place options. A
 * pin is kept, a wrong one is a clear error. (20 ms: a loaded machine's wake-up spikes,
 * milliseconds, leave each node its margin; one node busy 88 % stays below the kernel's
 * real-time throttling.) */
static void placement_on_nodes(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/two.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%s", ssd_head);
    for (int i = 1; i <= 2; i++)
        fprintf(f, "<ssd:Component name=\"b%d\" source=\"%s\"><ssd:Connectors>"
                   "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/></ssd:Connector>"
                   "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
                   "</ssd:Connectors><ssd:ParameterBindings><ssd:ParameterBinding>"
                   "<ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\">"
                   "<ssv:Parameters><ssv:Parameter name=\"burn_s\"><ssv:Real value=\"0.0088\"/>"
                   "</ssv:Parameter></ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>"
                   "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:Component>\n",
                i, tfmu_path(2, "Burn"));
    fprintf(f, "</ssd:Elements><ssd:Connections><ssd:Connection startElement=\"b1\" "
               "startConnector=\"y\" endElement=\"b2\" endConnector=\"u\"/></ssd:Connections>"
               "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime "
               "baseStep=\"0.02\"/></ssc:Annotation></ssd:Annotations></ssd:System>"
               "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"10\"/>"
               "</ssd:SystemStructureDescription>\n");
    fclose(f);
    int rc = rtcosim("plan --realtime --ticks 60 --nodes A,B two.ssd");
    CU_ASSERT_TRUE(rc == 0 || rc == 8); /* one node: tight or infeasible, never feasible */
    CU_ASSERT_PTR_NULL(strstr(out, "verdict: feasible"));
    CU_ASSERT_TRUE(has("placement on 2 nodes: 1 connection crosses nodes; every node fits"));
    CU_ASSERT_TRUE(strstr(out, "--place b1=B --place b2=A") ||
                   has("--place b1=A --place b2=B"));
    rc = rtcosim("plan --realtime --ticks 60 --nodes A,B --place b1=B two.ssd");
    CU_ASSERT_TRUE(has("(cached)")); /* a placement is an analysis: no new profile */
    CU_ASSERT_TRUE(has("--place b1=B --place b2=A"));
    rc = rtcosim("plan --realtime --ticks 60 --nodes A,B --place b9=B two.ssd");
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_TRUE(has("--place b9=B: expected COMPONENT=NODE, a component of two.ssd"));
    rc = rtcosim("plan --nodes A,B two.ssd");
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_TRUE(has("--nodes and --place need --realtime"));
}

/* With a Jacobi worker, the unit it steps is measured too (the system's unit clock), and
 * timing.json has the tick's work (step + hand-off): what a plan is checked against. */
static void worker_units_are_measured(void)
{
    int rc = rtcosim("run %s/msd-jacobi.ssp --realtime --workers 1 --stop 0.2 --output-dir w -q",
                     RTC_TEST_CONFIG_DIR);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_t *t = read_json("w/timing.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    json_t *units = json_object_get(t, "units");
    for (size_t i = 0; i < 2; i++) { /* mass1 on the RT thread, mass2 on the worker */
        json_t *u = json_object_get(units, i ? "mass2" : "mass1");
        json_t *h = json_object_get(u, "do_step_ns");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(h, "count")), 20);
        CU_ASSERT_TRUE(json_integer_value(json_object_get(h, "p50")) > 0);
    }
    json_t *busy = json_object_get(t, "busy_ns");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(busy, "count")), 20);
    json_decref(t);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"plan_realtime_hil_demo_prints_and_caches", plan_realtime_hil_demo_prints_and_caches},
        {"infeasible_run_refused_before_the_bench", infeasible_run_refused_before_the_bench},
        {"forced_run_overruns_as_predicted", forced_run_overruns_as_predicted},
        {"tight_run_is_warned", tight_run_is_warned},
        {"hung_unit_refused", hung_unit_refused},
        {"summary_sets_prediction_beside_measurement", summary_sets_prediction_beside_measurement},
        {"busy_machine_warned_not_refused", busy_machine_warned_not_refused},
        {"profile_replays_a_session", profile_replays_a_session},
        {"parallel_fast_uses_measured_factors", parallel_fast_uses_measured_factors},
        {"worker_units_are_measured", worker_units_are_measured},
        {"placement_on_nodes", placement_on_nodes},
        {NULL, NULL}};
    setenv("RTCOSIM_CACHE_DIR", "cache", 1); /* relative: the work folder's */
    rtc_test_add_suite("feasibility", setup, teardown, cases);
}
