/*
 * A broken DCP slave does not reach the real-time loop: a system with a DCP slave component
 * (the master driver on its I/O thread) and a Lag FMU in a loop, run in real time by the
 * executive under the judge of tests/unit/test_rt_hygiene.c (rt_hygiene_util: allocations
 * counted on the RT thread, a seccomp filter letting through only sleeps and futex), once
 * against a slave spraying junk and strangers' datagrams with every output and once against
 * an optional slave (required="false": a required one refuses the run at its connect_ms)
 * that never answers. Either way every tick of the run is executed, the RT thread
 * allocates nothing and makes no other system call, the refusals are counted by the driver,
 * and the stop (safe values, STC_stop, STC_deregister, or giving up on a mute slave) ends.
 *
 * The slave is tests/unit/dcp_peer.c in a thread of this process (real UDP on 127.0.0.1);
 * each case waits for the slave's misbehaviour to have begun (an event) before the run.
 */
#include "cu_main.h"
#include "dcp_peer.h"
#include "io_util.h"
#include "rt_hygiene_util.h"
#include "session_util.h"

#include "rtcosim/driver.h"
#include "rtcosim/exec.h"
#include "rtcosim/fmu.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dcp_peer PEER;

static int setup(void)
{
    int rc = rt_watch_setup();
    return rc != 0 ? rc : session_setup();
}

/* slave (resources/srt_a_y.dcpx at the peer's port, more rtc:Component attributes
 * @p keys) and lag in a loop, 1 s of 10 ms. */
static void write_system(const char *path, const char *keys)
{
    char cmd[2048], fmu[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/resources' && cp '%s/dcpx/srt_a_y.dcpx' "
             "'%s/resources/'", work, RTC_TEST_DATA_DIR, work);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(fmu, sizeof fmu, "%s/Lag.fmu", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(ssd_head, f);
    fprintf(f, "<ssd:Component name=\"slave\" type=\"application/x-dcp-slave\" "
               "source=\"resources/srt_a_y.dcpx\"><ssd:Connectors>"
               "<ssd:Connector name=\"a\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors><ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:Component priority=\"0\" port=\"%d\" "
               "dat_port=\"%d\" timeout_ms=\"50\" retries=\"1\" setup_timeout_ms=\"300\" %s>"
               "<rtc:Signal name=\"a\" safe=\"-1\"/></rtc:Component></ssc:Annotation>"
               "</ssd:Annotations></ssd:Component>\n", PEER.port, PEER.port, keys);
    lag_component(f, "lag", fmu);
    fprintf(f, "</ssd:Elements>\n<ssd:Connections>"
               "<ssd:Connection startElement=\"lag\" startConnector=\"y\" endElement=\"slave\" "
               "endConnector=\"a\"/><ssd:Connection startElement=\"slave\" startConnector=\"y\" "
               "endElement=\"lag\" endConnector=\"u1\"/></ssd:Connections>\n<ssd:Annotations>"
               "<ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.01\"/>"
               "</ssc:Annotation></ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment "
               "startTime=\"0\" stopTime=\"1\"/>\n</ssd:SystemStructureDescription>\n");
    fclose(f);
}

typedef struct armed {
    rlog log;
    rtc_system *sys;
    rtc_exec *ex;
    const rtc_unit *slave;
} armed;

/* Load and initialize the system (the driver's I/O thread starts talking to the slave). */
static void arm(armed *a, const char *keys)
{
    char path[700];
    snprintf(path, sizeof path, "%s/dcp.ssd", work);
    write_system(path, keys);
    rlog_init(&a->log);
    rtc_unit_factory f[2];
    CU_ASSERT_EQUAL_FATAL(rtc_iodrivers_register(), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f[0]), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_io_unit_factory(&f[1], RTC_DRIVER_TYPE_DCP_SLAVE), RTC_OK);
    rtc_system_options so = {.has_stop = true, .stop_ns = INT64_C(1000000000)};
    int rc = rtc_system_load(path, f, 2, &so, &a->log.lg, &a->sys);
    if (rc != RTC_OK)
        printf("\n    load failed: %s\n%s", rtc_strerror(rc), a->log.text);
    CU_ASSERT_EQUAL_FATAL(rc, RTC_OK);
    a->slave = rtc_system_unit(a->sys, 0);
    CU_ASSERT_FATAL(rtc_io_unit_is(a->slave));
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(a->sys), RTC_OK);
    rtc_exec_options o;
    rtc_exec_options_init(&o);
    o.lg = &a->log.lg;
    o.hook = trace_hook;
    CU_ASSERT_EQUAL_FATAL(rtc_exec_new(a->sys, &o, &a->ex), RTC_OK);
}

static uint64_t counter(const armed *a, const char *name)
{
    rtc_driver_stats st = {0};
    uint64_t v = 0;
    if (rtc_io_unit_stats(a->slave, &st) == RTC_OK)
        rtc_driver_stats_counter(&st, name, &v);
    return v;
}

static bool outputs_flowing(void *arg)
{
    (void)arg;
    return atomic_load(&PEER.state) == RTC_DCP_STATE_RUNNING && atomic_load(&PEER.outputs) > 5;
}

static bool asked_in_vain(void *arg)
{
    const armed *a = arg;
    rtc_driver_stats st = {0};
    return rtc_io_unit_stats(a->slave, &st) == RTC_OK && st.timeouts > 0;
}

/* Run the armed system in real time under the judge: every tick, nothing on the RT thread. */
static void run_judged(armed *a)
{
    trace_reset(false);
    atomic_store(&rt_mallocs, 0);
    atomic_store(&rt_frees, 0);
    atomic_store(&rt_sleeps, 0);
    int rc = rtc_exec_run(a->ex);
    if (rc != RTC_OK)
        printf("\n    run failed: %s; log:\n%s", rtc_strerror(rc), a->log.text);
    CU_ASSERT_EQUAL(rc, RTC_OK);
    rtc_exec_stats st;
    rtc_exec_stats_get(a->ex, &st);
    printf("\n    %llu steps, %llu overruns; RT thread: %lu mallocs, %lu frees, %lu sleeps",
           (unsigned long long)st.steps, (unsigned long long)st.overruns,
           atomic_load(&rt_mallocs), atomic_load(&rt_frees), atomic_load(&rt_sleeps));
    CU_ASSERT_EQUAL(st.steps, 100);
    CU_ASSERT_EQUAL(st.stop, RTC_EXEC_END);
    CU_ASSERT(atomic_load(&rt_sleeps) >= 100); /* positive control: the RT flag was live */
    CU_ASSERT_EQUAL(atomic_load(&rt_mallocs), 0);
    CU_ASSERT_EQUAL(atomic_load(&rt_frees), 0);
    CU_ASSERT_EQUAL(atomic_load(&a->log.on_rt), 0);
    if (trace_supported())
        assert_trace_clean();
}

static void disarm(armed *a)
{
    rtc_exec_free(a->ex);
    rtc_system_free(a->sys); /* stops the driver: bounded even against a mute slave */
}

static void junk_spraying_slave_leaves_the_rt_loop_clean(void)
{
    memset(&PEER, 0, sizeof PEER);
    atomic_store(&PEER.evil, true);
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(&PEER), 0);
    static armed a; /* large: not on the stack */
    memset(&a, 0, sizeof a);
    arm(&a, "");
    CU_ASSERT_FATAL(io_wait(outputs_flowing, NULL, 20000));
    run_judged(&a);
    printf("; malformed %llu, wrong_sender %llu, wrong_seq %llu, unexpected %llu",
           (unsigned long long)counter(&a, "malformed"),
           (unsigned long long)counter(&a, "wrong_sender"),
           (unsigned long long)counter(&a, "wrong_seq"),
           (unsigned long long)counter(&a, "unexpected"));
    CU_ASSERT(counter(&a, "malformed") > 0);    /* short, huge, unknown type */
    CU_ASSERT(counter(&a, "wrong_sender") > 0); /* from 127.0.0.2 */
    CU_ASSERT(counter(&a, "wrong_seq") > 0);    /* a late data PDU, an answer to nothing */
    CU_ASSERT(counter(&a, "unexpected") > 0);   /* another slave's notification, a request */
    CU_ASSERT_EQUAL(counter(&a, "life_cycles"), 1);
    disarm(&a);
    dcp_peer_stop(&PEER);
    CU_ASSERT_EQUAL(atomic_load(&PEER.deregisters), 1);
    CU_ASSERT(atomic_load(&PEER.inputs) > 0);
}

static void mute_slave_leaves_the_rt_loop_clean(void)
{
    memset(&PEER, 0, sizeof PEER);
    atomic_store(&PEER.mute, true);
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(&PEER), 0);
    static armed a;
    memset(&a, 0, sizeof a);
    arm(&a, "required=\"false\"");
    CU_ASSERT_FATAL(io_wait(asked_in_vain, &a, 20000));
    run_judged(&a);
    rtc_driver_stats st = {0};
    CU_ASSERT_EQUAL(rtc_io_unit_stats(a.slave, &st), RTC_OK);
    printf("; %llu timeouts, link %s", (unsigned long long)st.timeouts,
           st.link == RTC_LINK_UP ? "up" : "not up");
    CU_ASSERT(st.timeouts > 0);
    CU_ASSERT(st.link != RTC_LINK_UP);
    CU_ASSERT_EQUAL(counter(&a, "life_cycles"), 0);
    disarm(&a);
    dcp_peer_stop(&PEER);
    CU_ASSERT_EQUAL(atomic_load(&PEER.registers), 0);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"junk_spraying_slave_leaves_the_rt_loop_clean",
         junk_spraying_slave_leaves_the_rt_loop_clean},
        {"mute_slave_leaves_the_rt_loop_clean", mute_slave_leaves_the_rt_loop_clean},
        {NULL, NULL}};
    rtc_test_add_suite("dcp_rt", setup, session_teardown, cases);
}
