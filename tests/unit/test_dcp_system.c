/*
 * A DCP slave as a component of a system, through `rtcosim` itself: `info` and `check`
 * describe it; a malformed .dcpx, or one asking for what the engine cannot do, refuses
 * the load with its file:line and the DCP error code; a real-time session with the slave
 * beside a Modbus server (a PLC's client in the test writes and reads registers) and an OSC
 * input runs values all the way round, stops the slave (safe value first, deregistered)
 * and replays identically without it; a slave spraying junk and strangers' datagrams is
 * counted while the run completes every tick and replays identically.
 *
 * The slave is tests/unit/dcp_peer.c in a thread of this process (real UDP on 127.0.0.1).
 */
#include "cu_main.h"
#include "dcp_peer.h"
#include "io_util.h"
#include "session_util.h"

#include "rtcosim/status.h"

#include <jansson.h>
#include <modbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static dcp_peer PEER;
static char out[65536];

static void copy_dcpx(const char *name)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/resources' && cp '%s/dcpx/%s' '%s/resources/'",
             work, RTC_TEST_DATA_DIR, name, work);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
}

/* <ssd:Component name="slave" ...> on resources/@p dcpx, its keys @p keys (attributes of
 * rtc:Component), connectors a (in, safe -1) and y (out). */
static void slave_component(FILE *f, const char *dcpx, const char *keys)
{
    fprintf(f, "<ssd:Component name=\"slave\" type=\"application/x-dcp-slave\" "
               "source=\"resources/%s\"><ssd:Connectors>"
               "<ssd:Connector name=\"a\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors><ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:Component priority=\"0\" %s>"
               "<rtc:Signal name=\"a\" safe=\"-1\"/></rtc:Component></ssc:Annotation>"
               "</ssd:Annotations></ssd:Component>\n", dcpx, keys);
}

static void tail(FILE *f, const char *connections, const char *stop)
{
    fprintf(f, "</ssd:Elements>\n<ssd:Connections>%s</ssd:Connections>\n<ssd:Annotations>"
               "<ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.01\"/>"
               "</ssc:Annotation></ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment "
               "startTime=\"0\" stopTime=\"%s\"/>\n</ssd:SystemStructureDescription>\n",
            connections, stop);
    fclose(f);
}

#define CONN(a, ac, b, bc)                                                                   \
    "<ssd:Connection startElement=\"" a "\" startConnector=\"" ac "\" endElement=\"" b       \
    "\" endConnector=\"" bc "\"/>"

/* slave and lag in a loop: lag.y -> slave.a, slave.y -> lag.u1. */
static void write_loop(const char *dcpx, const char *keys, const char *stop)
{
    char path[700], fmu[700];
    snprintf(path, sizeof path, "%s/sys.ssd", work);
    snprintf(fmu, sizeof fmu, "%s/Lag.fmu", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(ssd_head, f);
    slave_component(f, dcpx, keys);
    lag_component(f, "lag", fmu);
    tail(f, CONN("lag", "y", "slave", "a") CONN("slave", "y", "lag", "u1"), stop);
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

static void has(const char *needle)
{
    if (!strstr(out, needle))
        fprintf(stderr, "  expected \"%s\" in:\n%s\n", needle, out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, needle));
}

static void info_and_check_describe_the_slave(void)
{
    char keys[64];
    copy_dcpx("srt_a_y.dcpx");
    snprintf(keys, sizeof keys, "port=\"%d\"", 9); /* nothing connects: load only */
    write_loop("srt_a_y.dcpx", keys, "1");
    CU_ASSERT_EQUAL(rtcosim("info sys.ssd"), 0);
    has("DCP slave 'dcpslave' (DCP 1.0, uuid b5279485-1a2b-4c3d-8e9f-0a1b2c3d4e5f) from ");
    has("op modes SRT, runs SRT; time resolution 1/100 s (fixed); communication step 1 x "
        "1/100 s = 0.01 s");
    has("UDP_IPv4: control 127.0.0.1:9, data 127.0.0.1:8080, max PDU 65507 bytes; "
        "heartbeat none");
    has("a Input float64 vr 2 start 0 (connected)");
    has("y Output float64 vr 1 (connected)");
    CU_ASSERT_EQUAL(rtcosim("check sys.ssd --realtime"), 0);
    has("slave                    io       step 0.01 s  (slave)");
    has("      op modes SRT, runs SRT;");
}

static void bad_descriptions_refused_with_line_and_code(void)
{
    copy_dcpx("bad_many.dcpx");
    write_loop("bad_many.dcpx", "port=\"9\"", "1");
    CU_ASSERT_EQUAL(rtcosim("check sys.ssd --realtime"), 1);
    has("resources/bad_many.dcpx:16: Float64 start: missing (required for an Input)");
    has("resources/bad_many.dcpx:18: Variable 'a': name already used at line 16");
    has("cannot use the slave description");
    copy_dcpx("tcp_only.dcpx");
    write_loop("tcp_only.dcpx", "", "1");
    CU_ASSERT_EQUAL(rtcosim("check sys.ssd --realtime"), 1);
    has("resources/tcp_only.dcpx:10: the slave offers TCP_IPv4; this engine speaks DCP over "
        "UDP_IPv4 only (NOT_SUPPORTED_TRANSPORT_PROTOCOL)");
    copy_dcpx("srt_a_y.dcpx");
    write_loop("srt_a_y.dcpx", "op_mode=\"hrt\"", "1");
    CU_ASSERT_EQUAL(rtcosim("check sys.ssd --realtime"), 1);
    has("OpMode: the slave does not offer HRT (op_mode=hrt); it offers SRT (INVALID_OP_MODE)");
}

/* ---- sessions ---- */

static bool peer_running(void *arg)
{
    (void)arg;
    return atomic_load(&PEER.state) == RTC_DCP_STATE_RUNNING;
}

static bool peer_a_positive(void *arg)
{
    (void)arg;
    return atomic_load(&PEER.last_a) > 0.5;
}

static float read_speed(modbus_t *mb)
{
    uint16_t r[2] = {0};
    if (modbus_read_input_registers(mb, 0, 2, r) != 2)
        return -1000;
    uint32_t u = (uint32_t)r[0] << 16 | r[1];
    float v;
    memcpy(&v, &u, 4);
    return v;
}

typedef struct speed_wait {
    modbus_t *mb;
} speed_wait;

static bool speed_positive(void *arg)
{
    return read_speed(((speed_wait *)arg)->mb) > 1.0f;
}

/* The bench: plc.setpoint (Modbus) -> lag.u1, op.sp (OSC) -> lag.u2, lag.y -> slave.a,
 * slave.y -> plc.speed (the PLC reads what the DCP slave made). */
static void write_bench(int mb_port, int osc_port)
{
    char path[700], fmu[700], keys[96];
    snprintf(path, sizeof path, "%s/sys.ssd", work);
    snprintf(fmu, sizeof fmu, "%s/Lag.fmu", work);
    snprintf(keys, sizeof keys, "port=\"%d\" dat_port=\"%d\"", PEER.port, PEER.port);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(ssd_head, f);
    slave_component(f, "srt_a_y.dcpx", keys);
    lag_component(f, "lag", fmu);
    osc_op_component(f, osc_port, NULL);
    fprintf(f, "<ssd:Component name=\"plc\" type=\"application/x-rtcosim-modbus-server\">"
               "<ssd:Connectors>"
               "<ssd:Connector name=\"setpoint\" kind=\"output\"><ssc:Real/></ssd:Connector>"
               "<ssd:Connector name=\"speed\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors><ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:Component port=\"%d\" priority=\"0\">"
               "<rtc:Signal name=\"setpoint\" table=\"holding\" address=\"10\" "
               "type=\"float32\"/><rtc:Signal name=\"speed\" table=\"input\" address=\"0\" "
               "type=\"float32\"/></rtc:Component></ssc:Annotation></ssd:Annotations>"
               "</ssd:Component>\n", mb_port);
    tail(f, CONN("lag", "y", "slave", "a") CONN("slave", "y", "plc", "speed")
                CONN("plc", "setpoint", "lag", "u1") CONN("op", "sp", "lag", "u2"), "600");
}

static json_t *slave_summary(const char *dir)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s/summary.json", work, dir);
    json_t *root = json_load_file(path, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *io = json_object_get(root, "io"), *u;
    size_t i;
    json_array_foreach(io, i, u)
        if (!strcmp(json_string_value(json_object_get(u, "unit")), "slave")) {
            json_t *m = json_deep_copy(json_object_get(u, "dcp_master"));
            json_decref(root);
            return m;
        }
    json_decref(root);
    CU_FAIL("no io entry for the slave");
    return json_object();
}

static long counter(json_t *m, const char *name)
{
    return (long)json_integer_value(json_object_get(m, name));
}

static void session_with_modbus_osc_and_dcp_replays_identical(void)
{
    memset(&PEER, 0, sizeof PEER);
    PEER.sync_needs_run = true; /* as DCPLib's slaves */
    copy_dcpx("srt_a_y.dcpx");
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(&PEER), 0);
    int mb_port = io_free_port(SOCK_STREAM), osc_port = io_free_port(SOCK_DGRAM);
    write_bench(mb_port, osc_port);
    io_child run;
    int ctl = start_run(&run, "sys.ssd", "s1", "");
    CU_ASSERT(io_wait(peer_running, NULL, 10000));
    char port[16];
    snprintf(port, sizeof port, "%d", osc_port);
    lo_address to = lo_address_new("127.0.0.1", port);
    CU_ASSERT(lo_send(to, "/sp", "f", 1.0f) > 0);
    lo_address_free(to);
    modbus_t *mb = io_mb_client(mb_port, 500);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mb);
    uint16_t r[2] = {0x4000, 0x0000}; /* 2.0f */
    CU_ASSERT_EQUAL(modbus_write_registers(mb, 10, 2, r), 2);
    CU_ASSERT(io_wait(peer_a_positive, NULL, 10000)); /* lag.y reached the slave */
    CU_ASSERT(io_wait(speed_positive, &(speed_wait){mb}, 10000)); /* its y reached the PLC */
    io_mb_client_free(mb);
    client c;
    client_open(&c, ctl);
    CU_ASSERT(call(&c, "/rtcosim/stop", lo_message_new()) && reply_ok(&c, "stop"));
    client_close(&c);
    CU_ASSERT_EQUAL(wait_run(&run), 0);
    dcp_peer_stop(&PEER);
    CU_ASSERT_EQUAL(atomic_load(&PEER.state), RTC_DCP_STATE_ALIVE); /* deregistered */
    CU_ASSERT_EQUAL(atomic_load(&PEER.deregisters), 1);
    CU_ASSERT_EQUAL(atomic_load(&PEER.last_a), -1.0); /* its safe value came first */
    CU_ASSERT(events_have("s1", "is RUNNING (SRT, communication step 1 x 1/100 s)"));
    json_t *m = slave_summary("s1");
    CU_ASSERT_EQUAL(counter(m, "life_cycles"), 1);
    CU_ASSERT_EQUAL(counter(m, "nacks"), 0);
    json_decref(m);
    CU_ASSERT_EQUAL(rtcosim("replay s1"), 0); /* without the slave, the PLC or the operator */
    has("identical");
}

static void hostile_slave_counted_run_completes(void)
{
    memset(&PEER, 0, sizeof PEER);
    atomic_store(&PEER.evil, true);
    copy_dcpx("srt_a_y.dcpx");
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(&PEER), 0);
    char keys[96];
    snprintf(keys, sizeof keys, "port=\"%d\" dat_port=\"%d\"", PEER.port, PEER.port);
    write_loop("srt_a_y.dcpx", keys, "1");
    CU_ASSERT_EQUAL(rtcosim("run sys.ssd --realtime --priority 0 --output-dir s2"), 0);
    dcp_peer_stop(&PEER);
    has("101 row(s)");
    json_t *m = slave_summary("s2");
    CU_ASSERT(counter(m, "malformed") > 0);    /* short, huge, unknown */
    CU_ASSERT(counter(m, "wrong_sender") > 0); /* 127.0.0.2 */
    CU_ASSERT(counter(m, "wrong_seq") > 0);    /* answers to nothing */
    CU_ASSERT(counter(m, "unexpected") > 0);   /* others' notifications, requests */
    CU_ASSERT_EQUAL(counter(m, "life_cycles"), 1);
    json_decref(m);
    CU_ASSERT_EQUAL(atomic_load(&PEER.deregisters), 1);
    CU_ASSERT_EQUAL(rtcosim("replay s2"), 0);
    has("identical");
}

/* The link contract: a slave that falls into its Error state mid-run (NTF_state_changed to
 * ERRORHANDLING) loses its link; under the default on_loss (estimate:0.5s) the run goes on
 * on the estimate, then stops with exit 6, the reason naming the component, the slave's
 * address and why; events.log has the slave, the states and the PDU that told; the slave
 * is deregistered on the way out. (The walk again from ALIVE waits 5 s: after the stop.) */
static void slave_error_stops_the_run_by_its_loss_policy(void)
{
    memset(&PEER, 0, sizeof PEER);
    atomic_store(&PEER.error_after, 30);
    copy_dcpx("srt_a_y.dcpx");
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(&PEER), 0);
    char keys[160];
    snprintf(keys, sizeof keys, "port=\"%d\" dat_port=\"%d\" reconnect_min_ms=\"5000\" "
             "reconnect_max_ms=\"5000\"", PEER.port, PEER.port);
    write_loop("srt_a_y.dcpx", keys, "30");
    int rc = rtcosim("run sys.ssd --realtime --priority 0 --output-dir s3");
    dcp_peer_stop(&PEER);
    CU_ASSERT_EQUAL(rc, 6);
    char path[800], want[160];
    snprintf(path, sizeof path, "%s/s3/summary.json", work);
    json_t *sum = json_load_file(path, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    const char *reason = json_string_value(json_object_get(sum, "reason"));
    snprintf(want, sizeof want, "I/O component slave (dcp-master 127.0.0.1:%d) lost its link "
             "(the DCP slave is in an error state", PEER.port);
    CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
    if (!strstr(reason, want))
        printf("\n    reason: %s", reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "on_loss estimate:0.5s stopped the run"));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(sum, "cause")), "link");
    json_decref(sum);
    CU_ASSERT(events_have("s3", "slave 'dcpslave' at 127.0.0.1:"));
    CU_ASSERT(events_have("s3", "went from RUNNING to ERRORHANDLING (NTF_state_changed)"));
    json_t *m = slave_summary("s3");
    CU_ASSERT(counter(m, "slave_errors") >= 1);
    json_decref(m);
    CU_ASSERT_EQUAL(atomic_load(&PEER.deregisters), 1);
    CU_ASSERT_EQUAL(atomic_load(&PEER.state), RTC_DCP_STATE_ALIVE);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"info_and_check_describe_the_slave", info_and_check_describe_the_slave},
        {"bad_descriptions_refused_with_line_and_code",
         bad_descriptions_refused_with_line_and_code},
        {"session_with_modbus_osc_and_dcp_replays_identical",
         session_with_modbus_osc_and_dcp_replays_identical},
        {"hostile_slave_counted_run_completes", hostile_slave_counted_run_completes},
        {"slave_error_stops_the_run_by_its_loss_policy",
         slave_error_stops_the_run_by_its_loss_policy},
        {NULL, NULL}};
    rtc_test_add_suite("dcp_system", session_setup, session_teardown, cases);
}
