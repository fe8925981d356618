/*
 * What an operator reads (issue 14): the status reply of scripts/operator is labelled
 * key=value text with the precision each field has, an OSC input nobody has sent to is
 * "connecting" (waiting, not "down"), and once a peer sent to it "up" (a receive-only
 * link, issue 19: not "down" right after it delivered); set-points a peer sends through an
 * OSC I/O component appear in
 * events.log when they change, and a flood of them costs a bounded number of lines;
 * summary.json names the estimator and parameters used on each connection and signal.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"
#include "session_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* scripts/operator as a user runs it, against the operator built with the tests. */
static int operator_run(const char *args, char *out, size_t cap)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cd '%s' && RTCOSIM_BUILD='%s' '%s/scripts/operator' %s", work,
             RTC_OPERATOR_DIR, RTC_SOURCE_DIR, args);
    return rtc_test_run(cmd, out, cap);
}

/* The digits after "key=" up to the next space or quote, or "". */
static void field(const char *out, const char *key, char *val, size_t cap)
{
    const char *p = strstr(out, key);
    size_t n = p ? strcspn(p + strlen(key), " \"\n") : 0;
    snprintf(val, cap, "%.*s", (int)n, p ? p + strlen(key) : "");
}

/* The status reply until it holds @p needle (asked every 20 ms, up to 10 s). */
static bool status_says(int port, const char *needle, char *out, size_t cap)
{
    char args[64];
    snprintf(args, sizeof args, "%d status", port);
    for (int i = 0; i < 500; i++) {
        if (operator_run(args, out, cap) == 0 && strstr(out, needle))
            return true;
        io_sleep_ms(20);
    }
    return false;
}

static void status_is_labelled_and_receive_only_link_is_up_once_heard(void)
{
    char ssd[700], out[4096], args[256], v[64], p[16];
    snprintf(ssd, sizeof ssd, "%s/st.ssd", work);
    int osc_port = io_free_port(SOCK_DGRAM);
    write_osc_system(ssd, osc_port, "0.001", "");
    io_child run;
    int port = start_run(&run, "st.ssd", "st", "");
    snprintf(args, sizeof args, "%d status", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "status: sim_time_s="));
    field(out, "sim_time_s=", v, sizeof v);
    CU_ASSERT(strlen(v) >= 5 && strchr(v, '.') && strlen(strchr(v, '.')) == 4); /* 3 decimals */
    field(out, "rtf=", v, sizeof v);
    CU_ASSERT(strchr(v, '.') && strlen(strchr(v, '.')) == 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, " k="));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, " overruns="));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, " p99_wakeup_us="));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, " paused=no"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "io=\"op: connecting, stale 0"));
    if (!strstr(out, "io=\"op: connecting"))
        printf("\n    status: %s", out);
    /* a set-point arrives: the input's link is up (silence after it is no loss) */
    snprintf(p, sizeof p, "%d", osc_port);
    lo_address to = lo_address_new("127.0.0.1", p);
    CU_ASSERT(lo_send(to, "/sp", "f", 1.5f) > 0);
    lo_address_free(to);
    CU_ASSERT_TRUE(status_says(port, "io=\"op: up, stale 0", out, sizeof out));
    CU_ASSERT_TRUE(events_have("st", "osc 'op': link up after "));
    snprintf(args, sizeof args, "%d stop", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 0);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
}

static void osc_setpoints_in_events_log_rate_limited(void)
{
    char ssd[700], out[4096], args[256], p[16];
    snprintf(ssd, sizeof ssd, "%s/sp.ssd", work);
    int osc_port = io_free_port(SOCK_DGRAM);
    write_osc_system(ssd, osc_port, "0.001", "");
    io_child run;
    int port = start_run(&run, "sp.ssd", "sp", "");
    snprintf(p, sizeof p, "%d", osc_port);
    lo_address to = lo_address_new("127.0.0.1", p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(to);
    CU_ASSERT(lo_send(to, "/sp", "f", 12.5f) > 0);
    for (int i = 0; i < 1500 && !events_have("sp", "op.sp = 12.5 set by the I/O peer"); i++)
        io_sleep_ms(20);
    CU_ASSERT(lo_send(to, "/sp", "f", 12.5f) > 0); /* the same value again */
    io_sleep_ms(100);
    CU_ASSERT_TRUE(events_have("sp", "op.sp = 12.5 set by the I/O peer (applied at step "));
    CU_ASSERT_EQUAL(events_count("sp", "op.sp = 12.5"), 1); /* the repeat is no news */
    for (int i = 0; i < 300; i++) { /* a stream of changes, a few ms apart (each tick
                                       consumes the newest: a burst would collapse) */
        lo_send(to, "/sp", "f", (float)(100 + i));
        io_sleep_ms(3);
    }
    io_sleep_ms(200);
    lo_address_free(to);
    snprintf(args, sizeof args, "%d stop", port);
    CU_ASSERT_EQUAL(operator_run(args, out, sizeof out), 0);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    /* how many changes the run consumed depends on the machine's pace; the log holds at
     * most 10 of them per second and counts the rest, never one line per datagram */
    size_t lines = events_count("sp", "set by the I/O peer");
    bool counted = events_have("sp", "more set-point change(s) from I/O peers");
    CU_ASSERT(lines >= 2 && lines < 100);
    CU_ASSERT(counted || lines <= 20);
    printf("\n    %zu set-point lines%s", lines, counted ? ", the rest counted" : "");
}

/* summary.json names the estimator that really gives each value: a connection fed by an
 * I/O signal is estimated at that signal (kalman-cv here, with its parameters), not "zoh",
 * and shows that estimator's coupling monitor, as the signal does. */
static void summary_names_the_estimators_used(void)
{
    char ssd[700], cmd[2400], path[800];
    snprintf(ssd, sizeof ssd, "%s/est.ssd", work);
    write_osc_system(ssd, io_free_port(SOCK_DGRAM), "0.001", "");
    snprintf(cmd, sizeof cmd, "cd '%s' && sed -i 's|<rtc:Signal name=\"sp\" path=\"/sp\"/>|"
             "<rtc:Signal name=\"sp\" path=\"/sp\" estimator=\"kalman-cv\" "
             "params=\"q=50 r=0.0001\"/>|' est.ssd && grep -q kalman-cv est.ssd && '%s' run "
             "est.ssd --realtime --priority 0 --stop 0.2 --output-dir est -q", work, RTCOSIM_EXE);
    char out[8192];
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/est/summary.json", work);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    const char *link = strstr(sum, "\"link\": \"op.sp -> lag.u1\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(link);
    const char *end = strchr(link, '}');
    CU_ASSERT_PTR_NOT_NULL(strstr(link, "\"estimator\": \"kalman-cv\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(link, "\"estimator_params\": \"q=50 r=0.0001 gate=5 "
                                        "gate_reset=3\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(link, "\"estimated_at\": \"I/O signal op.sp\""));
    const char *ce = strstr(link, "coupling_error");
    CU_ASSERT(ce && ce < end); /* the signal's monitor: its value is estimated there */
    CU_ASSERT_PTR_NOT_NULL(strstr(link, "\"sample_delay_ns\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(link, "\"noise_in_use\"")); /* a Kalman filter's q, r */
    const char *sig = strstr(sum, "\"name\": \"sp\"");
    CU_ASSERT_PTR_NOT_NULL(sig);
    CU_ASSERT_PTR_NOT_NULL(sig ? strstr(sig, "\"estimator\": \"kalman-cv\"") : NULL);
    CU_ASSERT_PTR_NOT_NULL(sig ? strstr(sig, "\"coupling_error\"") : NULL);
    if (!link || !strstr(link, "\"estimated_at\": \"I/O signal op.sp\""))
        printf("\n%s", sum);
    free(sum);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"status_is_labelled_and_receive_only_link_is_up_once_heard",
         status_is_labelled_and_receive_only_link_is_up_once_heard},
        {"osc_setpoints_in_events_log_rate_limited", osc_setpoints_in_events_log_rate_limited},
        {"summary_names_the_estimators_used", summary_names_the_estimators_used},
        {NULL, NULL}};
    rtc_test_add_suite("operator_ux", session_setup, session_teardown, cases);
}
