/*
 * I/O components inside a system: a Modbus server component (rtcosim as the simulated
 * plant a PLC polls) wired to a Lag FMU with ordinary SSP connections. A real libmodbus
 * client in the test plays the PLC: it writes a set-point register and reads the plant's
 * output register, while the test steps the system against the wall clock. (A bench that
 * dies mid-run: test_io_contract.c.)
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"

#include "rtcosim/driver.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <modbus.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char work[512];

static int setup(void)
{
    rtc_test_tmpdir(work, sizeof work);
    return rtc_iodrivers_register() == RTC_OK ? 0 : -1;
}

static int teardown(void)
{
    rtc_test_rmtree(work);
    return 0;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void write_ssd(const char *path, int port)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"io\" "
            "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n"
            "<ssd:Component name=\"plc\" type=\"application/x-rtcosim-modbus-server\">\n"
            "<ssd:Connectors>\n"
            "<ssd:Connector name=\"setpoint\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
            "<ssd:Connector name=\"speed\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
            "</ssd:Connectors>\n<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
            "<rtc:Component port=\"%d\" priority=\"0\">"
            "<rtc:Signal name=\"setpoint\" table=\"holding\" address=\"10\" type=\"float32\"/>"
            "<rtc:Signal name=\"speed\" table=\"input\" address=\"0\" type=\"float32\" safe=\"-1\"/>"
            "</rtc:Component></ssc:Annotation></ssd:Annotations>\n</ssd:Component>\n"
            "<ssd:Component name=\"lag\" source=\"%s/fmi2/Lag.fmu\">\n<ssd:Connectors>\n"
            "<ssd:Connector name=\"u1\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
            "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
            "</ssd:Connectors>\n</ssd:Component>\n</ssd:Elements>\n<ssd:Connections>\n"
            "<ssd:Connection startElement=\"plc\" startConnector=\"setpoint\" endElement=\"lag\" "
            "endConnector=\"u1\"/>\n"
            "<ssd:Connection startElement=\"lag\" startConnector=\"y\" endElement=\"plc\" "
            "endConnector=\"speed\"/>\n</ssd:Connections>\n"
            "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime "
            "baseStep=\"0.001\"/></ssc:Annotation></ssd:Annotations>\n</ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"100\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            port, RTC_TEST_FMU_DIR);
    fclose(f);
}

/* Step the system on the wall clock (1 ms ticks) for @p ms milliseconds. */
static void run_ms(rtc_system *sys, int64_t t0, int ms)
{
    for (int i = 0; i < ms; i++) {
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
        int64_t next = t0 + rtc_system_time_ns(sys);
        struct timespec ts = {next / 1000000000, next % 1000000000};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}

/* float32 in two registers, most significant word first ("ABCD", the driver's default);
 * spelled out rather than through libmodbus's modbus_{get,set}_float_* helpers, whose
 * byte-order names changed meaning between libmodbus releases. */
static void float_to_regs(float f, uint16_t r[2])
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    r[0] = (uint16_t)(b >> 16);
    r[1] = (uint16_t)b;
}

static float read_speed(modbus_t *mb)
{
    uint16_t r[2] = {0};
    CU_ASSERT_EQUAL(modbus_read_input_registers(mb, 0, 2, r), 2);
    uint32_t b = (uint32_t)r[0] << 16 | r[1];
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static void plc_sets_point_and_reads_plant_output(void)
{
    int port = io_free_port(SOCK_STREAM);
    CU_ASSERT_FATAL(port > 0);
    char path[700];
    snprintf(path, sizeof path, "%s/io.ssd", work);
    write_ssd(path, port);
    rtc_unit_factory f[2];
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f[0]), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_io_unit_factory(&f[1], RTC_DRIVER_TYPE_MODBUS_SERVER), RTC_OK);
    tlog log;
    tlog_init(&log);
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, f, 2, NULL, &log.lg, &sys), RTC_OK);
    CU_ASSERT_TRUE(rtc_system_has_io(sys));
    int64_t t0 = mono_ns();
    rtc_system_set_time_base(sys, t0, 1.0);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    run_ms(sys, t0, 200);
    modbus_t *mb = modbus_new_tcp("127.0.0.1", port);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mb);
    CU_ASSERT_EQUAL_FATAL(modbus_connect(mb), 0);
    /* lag: tau 1 s, y = target + (y − target)·e^(−h/tau) with target = 0.5·u1 + 1 */
    float y0 = read_speed(mb);
    CU_ASSERT(y0 > 0.1f && y0 < 0.3f); /* ~1 − e^(−0.2) after 0.2 s with u1 = 0 */
    uint16_t r[2];
    float_to_regs(4.0f, r);
    CU_ASSERT_EQUAL(modbus_write_registers(mb, 10, 2, r), 2);
    run_ms(sys, t0, 3000);
    float y1 = read_speed(mb); /* heading to 0.5·4 + 1 = 3 */
    CU_ASSERT(y1 > 2.5f && y1 < 3.0f);
    /* the safe value replaces the plant output on the stop path */
    CU_ASSERT_EQUAL(rtc_system_write_safe(sys), RTC_OK);
    usleep(20000);
    CU_ASSERT_DOUBLE_EQUAL(read_speed(mb), -1.0, 0.0);
    modbus_close(mb);
    modbus_free(mb);
    rtc_system_free(sys);
}

/* ---- summary.json: each I/O unit shows only its own driver's counters ---- */

/* The "io" entry of unit @p name in a parsed summary.json, or NULL. */
static json_t *io_entry(json_t *sum, const char *name)
{
    json_t *io = json_object_get(sum, "io");
    for (size_t i = 0; i < json_array_size(io); i++) {
        json_t *u = json_array_get(io, i);
        if (json_is_string(json_object_get(u, "unit")) &&
            strcmp(json_string_value(json_object_get(u, "unit")), name) == 0)
            return u;
    }
    return NULL;
}

/* A Modbus server "plc" and an OSC component "op" (both on ephemeral ports) driving a Lag. */
static void write_kinds_ssd(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/kinds.ssd", work);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"k\" "
            "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n"
            "<ssd:Component name=\"plc\" type=\"application/x-rtcosim-modbus-server\">"
            "<ssd:Connectors><ssd:Connector name=\"setpoint\" kind=\"output\"><ssc:Real/>"
            "</ssd:Connector></ssd:Connectors><ssd:Annotations><ssc:Annotation "
            "type=\"org.rtcosim.realtime\"><rtc:Component port=\"0\" priority=\"0\" "
            "required=\"false\">" /* no PLC comes: the run must not wait for one */
            "<rtc:Signal name=\"setpoint\" table=\"holding\" address=\"0\" type=\"float32\"/>"
            "</rtc:Component></ssc:Annotation></ssd:Annotations></ssd:Component>\n"
            "<ssd:Component name=\"op\" type=\"application/x-rtcosim-osc\"><ssd:Connectors>"
            "<ssd:Connector name=\"gain\" kind=\"output\"><ssc:Real/></ssd:Connector>"
            "</ssd:Connectors><ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
            "<rtc:Component port=\"0\" priority=\"0\"><rtc:Signal name=\"gain\" path=\"/gain\"/>"
            "</rtc:Component></ssc:Annotation></ssd:Annotations></ssd:Component>\n"
            "<ssd:Component name=\"lag\" source=\"%s/fmi2/Lag.fmu\"><ssd:Connectors>"
            "<ssd:Connector name=\"u1\" kind=\"input\"><ssc:Real/></ssd:Connector>"
            "<ssd:Connector name=\"u2\" kind=\"input\"><ssc:Real/></ssd:Connector>"
            "</ssd:Connectors></ssd:Component>\n</ssd:Elements>\n<ssd:Connections>\n"
            "<ssd:Connection startElement=\"plc\" startConnector=\"setpoint\" endElement=\"lag\" "
            "endConnector=\"u1\"/>\n<ssd:Connection startElement=\"op\" startConnector=\"gain\" "
            "endElement=\"lag\" endConnector=\"u2\"/>\n</ssd:Connections>\n"
            "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime "
            "baseStep=\"0.001\"/></ssc:Annotation></ssd:Annotations>\n</ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.2\"/>\n"
            "</ssd:SystemStructureDescription>\n", RTC_TEST_FMU_DIR);
    fclose(f);
}

static void summary_io_counters_only_for_their_driver(void)
{
    write_kinds_ssd();
    char path[700], cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run kinds.ssd --realtime --priority 0 "
             "--output-dir kinds", work, RTCOSIM_EXE);
    int rc = rtc_test_run(cmd, out, sizeof out);
    if (rc != 0)
        printf("\n    rtcosim run: %s", out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    snprintf(path, sizeof path, "%s/kinds/summary.json", work);
    json_error_t err;
    json_t *sum = json_load_file(path, 0, &err);
    if (!sum)
        printf("\n    %s: %s (line %d)", path, err.text, err.line);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    json_t *plc = io_entry(sum, "plc"), *op = io_entry(sum, "op");
    CU_ASSERT_PTR_NOT_NULL(plc);
    CU_ASSERT_PTR_NOT_NULL(op);
    /* the generic part for both */
    CU_ASSERT_TRUE(json_is_integer(json_object_get(plc, "requests")));
    CU_ASSERT_TRUE(json_is_integer(json_object_get(op, "requests")));
    CU_ASSERT_TRUE(json_is_array(json_object_get(op, "signals")));
    /* a Modbus server's own counters only under the Modbus server */
    json_t *ms = json_object_get(plc, "modbus_server");
    CU_ASSERT_TRUE(json_is_object(ms));
    CU_ASSERT_TRUE(json_is_integer(json_object_get(ms, "write_refused")));
    CU_ASSERT_TRUE(json_is_integer(json_object_get(ms, "clients_max")));
    CU_ASSERT_PTR_NULL(json_object_get(op, "modbus_server"));
    CU_ASSERT_PTR_NULL(json_object_get(plc, "osc"));
    /* and OSC's under OSC */
    json_t *osc = json_object_get(op, "osc");
    CU_ASSERT_TRUE(json_is_object(osc));
    CU_ASSERT_TRUE(json_is_integer(json_object_get(osc, "timetags_clamped")));
    CU_ASSERT_PTR_NULL(json_object_get(op, "timetags_clamped"));
    /* "links": both waited for a peer that never came; optional, so the run went on */
    json_t *links = json_object_get(sum, "links");
    CU_ASSERT_EQUAL(json_array_size(links), 2);
    for (size_t i = 0; i < json_array_size(links); i++) {
        json_t *l = json_array_get(links, i);
        CU_ASSERT_TRUE(json_is_false(json_object_get(l, "required")));
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(l, "state")), "connecting");
        CU_ASSERT_TRUE(json_is_null(json_object_get(l, "first_connect_s")));
    }
    json_decref(sum);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"plc_sets_point_and_reads_plant_output", plc_sets_point_and_reads_plant_output},
        {"summary_io_counters_only_for_their_driver", summary_io_counters_only_for_their_driver},
        {NULL, NULL}};
    rtc_test_add_suite("io_system", setup, teardown, cases);
}
