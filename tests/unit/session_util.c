/*
 * Helpers of the operator-session tests (session_util.h).
 */
#include "session_util.h"

#include "cu_main.h"
#include "fmu_util.h"
#include "rtcosim/osc_args.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char work[512];

static int on_msg(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
                  void *user)
{
    (void)m;
    client *c = user;
    if (!strcmp(path, "/rtcosim/value")) {
        c->values++;
        return 0;
    }
    memset(&c->last, 0, sizeof c->last);
    snprintf(c->last.path, sizeof c->last.path, "%s", path);
    snprintf(c->last.types, sizeof c->last.types, "%s", types);
    for (int i = 0; i < argc && i < 8; i++) {
        if (types[i] == LO_STRING)
            snprintf(c->last.s[i], sizeof c->last.s[i], "%s", (const char *)argv[i]);
        else if (types[i] == LO_DOUBLE)
            c->last.d[i] = rtc_osc_f64(argv[i]);
        else if (types[i] == LO_INT32)
            c->last.d[i] = rtc_osc_i32(argv[i]);
        else if (types[i] == LO_INT64)
            c->last.d[i] = (double)rtc_osc_i64(argv[i]);
    }
    c->got = true;
    return 0;
}

void client_open(client *c, int port)
{
    memset(c, 0, sizeof *c);
    c->srv = lo_server_new("0", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->srv);
    lo_server_add_method(c->srv, NULL, NULL, on_msg, c);
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    c->ctl = lo_address_new("127.0.0.1", p);
}

void client_close(client *c)
{
    lo_address_free(c->ctl);
    lo_server_free(c->srv);
}

/* Receive for up to ms milliseconds (all messages, replies and values). */
void pump(client *c, int ms)
{
    for (int i = 0; i < ms / 5; i++)
        lo_server_recv_noblock(c->srv, 5);
}

/* Send @p m to the control port and wait up to 30 s for a reply or an error. */
bool call(client *c, const char *path, lo_message m)
{
    c->got = false;
    lo_send_message_from(c->ctl, c->srv, path, m);
    lo_message_free(m);
    /* under TSan on a loaded machine the surface may still be working through a flood's
     * backlog; the loop ends at the reply */
    for (int i = 0; i < 6000 && !c->got; i++)
        lo_server_recv_noblock(c->srv, 5);
    return c->got;
}

bool call_status(client *c)
{
    for (int t = 0; t < 30; t++) {
        c->got = false;
        lo_message m = lo_message_new();
        lo_send_message_from(c->ctl, c->srv, "/rtcosim/status", m);
        lo_message_free(m);
        for (int i = 0; i < 200 && !c->got; i++)
            lo_server_recv_noblock(c->srv, 5);
        if (c->got)
            return true;
    }
    return false;
}

lo_message msg(const char *types, ...)
{
    lo_message m = lo_message_new();
    va_list ap;
    va_start(ap, types);
    for (const char *t = types; *t; t++) {
        if (*t == 's')
            lo_message_add_string(m, va_arg(ap, const char *));
        else if (*t == 'd')
            lo_message_add_double(m, va_arg(ap, double));
        else if (*t == 'f')
            lo_message_add_float(m, (float)va_arg(ap, double));
        else if (*t == 'i')
            lo_message_add_int32(m, va_arg(ap, int));
    }
    va_end(ap);
    return m;
}

bool reply_ok(client *c, const char *what)
{
    return !strcmp(c->last.path, "/rtcosim/reply") && !strcmp(c->last.s[0], what) &&
           !strcmp(c->last.s[1], "ok");
}

/* status until pred on the reply holds (polling every 20 ms, up to 5 s) */
bool status_until(client *c, int paused, double min_k)
{
    for (int i = 0; i < 250; i++) {
        if (call(c, "/rtcosim/status", lo_message_new()) && c->last.d[6] == paused &&
            c->last.d[3] >= min_k)
            return true;
        io_sleep_ms(20);
    }
    return false;
}

/* ---- systems and processes ---- */

const char ssd_head[] =
    "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"op\" "
    "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
    "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
    "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n";

void lag_component(FILE *f, const char *name, const char *fmu)
{
    fprintf(f, "<ssd:Component name=\"%s\" source=\"%s\"><ssd:Connectors>"
               "<ssd:Connector name=\"u1\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "<ssd:Connector name=\"u2\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors></ssd:Component>\n", name, fmu);
}

void osc_op_component(FILE *f, int osc_port, const char *unit)
{
    char unit_attr[64] = "";
    if (unit)
        snprintf(unit_attr, sizeof unit_attr, " unit=\"%s\"", unit);
    fprintf(f, "<ssd:Component name=\"op\" type=\"application/x-rtcosim-osc\">"
               "<ssd:Connectors><ssd:Connector name=\"sp\" kind=\"output\"><ssc:Real%s/>"
               "</ssd:Connector></ssd:Connectors><ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:Component port=\"%d\" priority=\"0\">"
               "<rtc:Signal name=\"sp\" path=\"/sp\"/></rtc:Component></ssc:Annotation>"
               "</ssd:Annotations></ssd:Component>\n", unit_attr, osc_port);
}

void write_osc_system(const char *path, int osc_port, const char *base_step, const char *rt)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char fmu[700];
    snprintf(fmu, sizeof fmu, "%s/Lag.fmu", work);
    fputs(ssd_head, f);
    osc_op_component(f, osc_port, NULL);
    lag_component(f, "lag", fmu);
    lag_component(f, "lag2", fmu);
    fprintf(f, "</ssd:Elements>\n<ssd:Connections><ssd:Connection startElement=\"op\" "
               "startConnector=\"sp\" endElement=\"lag\" endConnector=\"u1\"/>"
               "</ssd:Connections>\n<ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"%s\" "
               "record=\"lag.y lag2.y op.sp\" %s/></ssc:Annotation></ssd:Annotations>\n"
               "</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" stopTime=\"30\"/>\n"
               "</ssd:SystemStructureDescription>\n", base_step, rt);
    fclose(f);
}

/* Start `rtcosim run SYSTEM --realtime ... --output-dir DIR`; returns the control port. */
int start_run(io_child *run, const char *system_file, const char *dir, const char *extra)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' run '%s' --realtime --priority 0 "
             "--control-port 0 --output-dir '%s' %s", work, RTCOSIM_EXE, system_file, dir,
             extra);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    CU_ASSERT_EQUAL_FATAL(io_child_spawn(run, argv, true), 0);
    char line[256] = "";
    CU_ASSERT_TRUE_FATAL(io_child_line(run, "rtcosim: control surface listening on", line,
                                       sizeof line, 10000));
    return atoi(strrchr(line, ':') + 1);
}

int start_panel_run(io_child *run, const char *system_file, const char *dir,
                    const char *extra, int *osc_port)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' run '%s' --realtime --priority 0 --stop 600 "
             "--http 0 --output-dir '%s' %s %s", work, RTCOSIM_EXE, system_file, dir,
             osc_port ? "--control-port 0" : "", extra);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    CU_ASSERT_EQUAL_FATAL(io_child_spawn(run, argv, true), 0);
    char line[256] = "";
    CU_ASSERT_TRUE_FATAL(io_child_line(run, "rtcosim: operator panel on http://127.0.0.1:",
                                       line, sizeof line, 30000));
    int port = atoi(strrchr(line, ':') + 1);
    if (osc_port) {
        CU_ASSERT_TRUE_FATAL(io_child_line(run, "rtcosim: control surface listening on", line,
                                           sizeof line, 30000));
        *osc_port = atoi(strrchr(line, ':') + 1);
    }
    return port;
}

/* Wait (up to 15 s) for the run to exit; returns its exit status. */
int wait_run(io_child *run)
{
    return io_child_wait(run, 15000);
}

static char *events_text(const char *dir)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s/events.log", work, dir);
    return rtc_test_slurp(path, NULL);
}

long event_k(const char *dir, const char *needle)
{
    char *text = events_text(dir);
    char *p = text ? strstr(text, needle) : NULL;
    long k = -1;
    if (p) {
        while (p > text && p[-1] != '\n')
            p--;
        k = strtol(p, NULL, 10);
    }
    free(text);
    return k;
}

bool events_have(const char *dir, const char *needle)
{
    return events_count(dir, needle) > 0;
}

size_t events_count(const char *dir, const char *needle)
{
    char *text = events_text(dir);
    size_t n = 0;
    for (char *p = text; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    free(text);
    return n;
}

int session_setup(void)
{
    rtc_test_tmpdir(work, sizeof work);
    char cmd[1200];
    /* a private copy of the FMU, so a test can change it without touching the build */
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/Lag.fmu'", tfmu_path(2, "Lag"), work);
    return system(cmd) == 0 ? 0 : -1;
}

int session_teardown(void)
{
    rtc_test_rmtree(work);
    return 0;
}
