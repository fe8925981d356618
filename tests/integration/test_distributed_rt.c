/*
 * Distributed real-time runs (issue 22 outcomes 4-7, DESIGN.md T3): nodes as separate
 * rtcosim processes on loopback, each pacing its part with --realtime, meeting over Cyclone
 * DDS. A node's session replays identical; a node killed with SIGKILL makes the other apply
 * its link's on_loss (estimate, then stop with cause "link", rows kept); a Ctrl-C on one
 * node stops the other, whose summary names the node and why, and one while a node waits
 * for another that never joins ends the wait at once; with the engine's own 5 +- 2
 * ms delay and 1 % loss on the link, the Kalman-covered coupling error against the
 * lock-step reference is at most half of the zero-order hold's; node A's panel shows node
 * B running and its link latencies (the control topic's status, through the session).
 *
 * Every case has its own session tag (pid and case) on a DDS domain of this process; every
 * child is bounded (--join-timeout, the stop time, and rtc_test_wait_exit's 60 s).
 */
#include "cu_main.h"
#include "proc_util.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

RTC_TEST_CHILD_FIXTURE

RTC_TEST_NODE_CASES("r", 50) /* not test_distributed's domain at the same pid */

/* Node @p node of @p sys in BASE/<node>, real time, with @p args. */
static pid_t spawn_node(const char *sys, const char *node, const char *sess, const char *args)
{
    char dir[600];
    rtc_test_child c = in_dir(node, dir, sizeof dir);
    return rtc_test_spawn(&c, "run %s --node %s --output-dir . -q --realtime --session %s "
                          "--dds-domain %d --join-timeout 30 %s", sys, node, sess, domain(),
                          args);
}

static char *slurp_in(const char *rel)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", base, rel);
    return rtc_test_slurp(path, NULL);
}

static bool has(const char *rel, const char *text)
{
    char *s = slurp_in(rel);
    bool h = s && strstr(s, text);
    if (!h)
        printf("\n    %s lacks \"%s\":\n%s", rel, text, s ? s : "(none)");
    free(s);
    return h;
}

/* The number after "KEY": in BASE/@p rel (the first one), or NAN. */
static double json_num(const char *rel, const char *key)
{
    char *s = slurp_in(rel), pat[80];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = s ? strstr(s, pat) : NULL;
    double v = p ? strtod(p + strlen(pat), NULL) : NAN;
    free(s);
    return v;
}

#define MSD RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp"
#define PLACE "--place mass1=A --place mass2=B"

static void realtime_nodes_replay_identical_and_report_their_links(void)
{
    const char *s = begin("replay");
    pid_t a = spawn_node(MSD, "A", s, PLACE " --stop 1");
    pid_t b = spawn_node(MSD, "B", s, PLACE " --stop 1");
    CU_ASSERT_EQUAL(rtc_test_wait_exit(a), 0);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(b), 0);
    CU_ASSERT(has("A/summary.json", "\"cause\": \"completed\""));
    CU_ASSERT(has("B/summary.json", "\"measured\": true")); /* B's clock against A's */
    double p99 = json_num("A/summary.json", "latency_p99_ms");
    printf("\n    link latency p99 %.3f ms, B's clock offset %.4f ms", p99,
           json_num("B/summary.json", "offset_ms"));
    CU_ASSERT(p99 > 0 && p99 < 1000);
    CU_ASSERT(fabs(json_num("B/summary.json", "offset_ms")) < 10);
    char dir[600];
    const char *nodes[] = {"A", "B"};
    for (int i = 0; i < 2; i++) {
        rtc_test_child c = in_dir(nodes[i], dir, sizeof dir);
        CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "replay .")), 0);
        char rel[64];
        snprintf(rel, sizeof rel, "%s/child.log", nodes[i]);
        CU_ASSERT(has(rel, "identical"));
    }
}

/* Case @p tag: nodes A (with @p a_args too) and B of msd-jacobi for 600 s, until node
 * @p watch recorded 50 rows. */
static void start_pair(const char *tag, const char *a_args, const char *watch, pid_t *a,
                       pid_t *b)
{
    const char *s = begin(tag);
    char args[256], res[700];
    snprintf(args, sizeof args, PLACE " --stop 600 %s", a_args);
    *a = spawn_node(MSD, "A", s, args);
    *b = spawn_node(MSD, "B", s, PLACE " --stop 600");
    snprintf(res, sizeof res, "%s/%s/results.csv", base, watch);
    CU_ASSERT_FATAL(rtc_test_wait_lines(res, 50));
}

static void a_killed_node_is_estimated_then_the_run_stops_with_rows_kept(void)
{
    pid_t a, b;
    start_pair("kill", "--bridge B:on_loss=estimate:300ms", "B", &a, &b);
    kill(b, SIGKILL);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(b), 1000 + SIGKILL);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(a), 6);
    CU_ASSERT(has("A/summary.json", "\"cause\": \"link\""));
    CU_ASSERT(has("A/summary.json", "node B lost at tick"));
    CU_ASSERT(has("A/summary.json", "on_loss estimate:0.3s stopped the run"));
    CU_ASSERT(has("A/summary.json", "\"lost_because\": \"node B lost at tick"));
    CU_ASSERT(has("A/child.log", "node B lost at tick"));
    /* every recorded row is in the file */
    char *rows = slurp_in("A/results.csv");
    long lines = 0;
    for (const char *p = rows; p && *p; p++)
        lines += *p == '\n';
    free(rows);
    CU_ASSERT_EQUAL((double)(lines - 1), json_num("A/summary.json", "rows_written"));
    CU_ASSERT(lines > 30);
}

static void ctrl_c_on_one_node_stops_every_node(void)
{
    pid_t a, b;
    start_pair("sigint", "", "A", &a, &b);
    kill(a, SIGINT);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(a), 130);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(b), 9); /* RTC_EXIT_NODE */
    CU_ASSERT(has("B/summary.json", "\"cause\": \"node\""));
    CU_ASSERT(has("B/summary.json", "node A stopped the run at its tick"));
    CU_ASSERT(has("B/summary.json", "\"cause\": \"interrupted\""));
    CU_ASSERT(has("A/summary.json", "\"this_node\": true"));
    double ta = json_num("A/summary.json", "last_tick"), tb = json_num("B/summary.json",
                                                                        "last_tick");
    printf("\n    A stopped at tick %.0f, B at tick %.0f (10 ms ticks)", ta, tb);
    CU_ASSERT(tb - ta < 50); /* a few periods and the link's latency, with margin */
}

/* Ctrl-C while a real-time node waits for a node that never joins ends the wait at once,
 * as a signal: exit 130 and the reason on stderr, nothing left behind (a refused run's
 * session folder goes), long before the --join-timeout of 600 s (rtc_test_wait_exit gives
 * up after 60). The signal goes once the node has loaded its part (node.json). */
static void ctrl_c_while_waiting_for_a_node_ends_the_wait(void)
{
    char dir[600], path[700];
    const char *s = begin("joinint");
    rtc_test_child c = in_dir("A", dir, sizeof dir);
    pid_t a = rtc_test_spawn(&c, "run %s --node A %s --output-dir out -q --realtime --session "
                             "%s --dds-domain %d --join-timeout 600", MSD, PLACE, s, domain());
    snprintf(path, sizeof path, "%s/out/node.json", dir);
    CU_ASSERT(rtc_test_wait_lines(path, 1));
    kill(a, SIGINT);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(a), 130);
    CU_ASSERT(has("A/child.log", "stopped by SIGINT before the first tick"));
    snprintf(path, sizeof path, "%s/out", dir);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
}

/* The port of node @p node's panel, from the line it prints (within 30 s; 0: none). */
static int panel_port(const char *node)
{
    char rel[64];
    snprintf(rel, sizeof rel, "%s/child.log", node);
    for (int i = 0; i < 300; i++) {
        char *log = slurp_in(rel), *at = log ? strstr(log, "operator panel on http://") : NULL;
        char *colon = at ? strchr(at + strlen("operator panel on http://"), ':') : NULL;
        int port = colon ? atoi(colon + 1) : 0;
        free(log);
        if (port > 0)
            return port;
        nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
    }
    return 0;
}

/* Read the panel's event stream (within 30 s) until a frame shows node @p peer running
 * with its links' latencies: true when one did. */
static bool stream_shows_node(int port, const char *peer)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        return false;
    char req[160], want[64];
    int n = snprintf(req, sizeof req, "GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n",
                     port);
    if (send(fd, req, (size_t)n, 0) != n) {
        close(fd);
        return false;
    }
    bool seen = false;
    snprintf(want, sizeof want, "{\"name\":\"%s\",\"self\":false", peer);
    size_t cap = 4 << 20, len = 0;
    char *buf = calloc(1, cap);
    for (int i = 0; buf && !seen && i < 300 && len + 1 < cap; i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t got = poll(&p, 1, 100) > 0 ? recv(fd, buf + len, cap - 1 - len, 0) : 0;
        if (got < 0)
            break;
        len += (size_t)(got > 0 ? got : 0);
        buf[len] = '\0';
        /* the last frame that names the peer: running, its link's latency reported */
        char *at = NULL;
        for (char *q = strstr(buf, want); q; q = strstr(q + 1, want))
            at = q;
        seen = at && strstr(at, "\"state\":\"running\"") && strstr(at, "\"p99_ms\":");
    }
    free(buf);
    close(fd);
    return seen;
}

/* What a node printed, for a failure's report. */
static void print_child_log(const char *node)
{
    char rel[64];
    snprintf(rel, sizeof rel, "%s/child.log", node);
    char *log = slurp_in(rel);
    printf("\n    --- %s ---\n%s", rel, log ? log : "(none)");
    free(log);
}

static void a_node_panel_shows_every_node(void)
{
    const char *s = begin("panel");
    pid_t a = spawn_node(MSD, "A", s, PLACE " --stop 60 --http 0");
    pid_t b = spawn_node(MSD, "B", s, PLACE " --stop 60");
    int port = panel_port("A");
    CU_ASSERT(port > 0);
    bool shown = port > 0 && stream_shows_node(port, "B");
    if (!shown)
        printf("\n    node A's panel never showed node B running with its link latencies");
    CU_ASSERT(shown);
    kill(a, SIGINT);
    int ea = rtc_test_wait_exit(a), eb = rtc_test_wait_exit(b);
    CU_ASSERT_EQUAL(ea, 130);
    CU_ASSERT_EQUAL(eb, 9); /* RTC_EXIT_NODE */
    if (!shown || ea != 130 || eb != 9) {
        printf("\n    exit A %d, B %d", ea, eb);
        print_child_log("A");
        print_child_log("B");
    }
}

/* An open-loop mass1 -> mass2 at 1 kHz in BASE/@p name (mass2 reads mass1's position and
 * velocity through estimator @p est): a smooth oscillation to estimate. */
static void write_open_loop(const char *name, const char *est)
{
    char dir[600];
    rtc_test_child c = in_dir(name, dir, sizeof dir);
    (void)c;
    FILE *f = rtc_test_msd_ssd(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char ann[256];
    snprintf(ann, sizeof ann, "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
             "<rtc:Connection estimator=\"%s\"/></ssc:Annotation></ssd:Annotations>", est);
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<ssd:SystemStructureDescription version=\"1.0\" name=\"open\" "
            "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
            "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
            "xmlns:rtc=\"urn:rtcosim:realtime:1\"><ssd:System name=\"open\"><ssd:Elements>"
            "<ssd:Component name=\"mass1\" source=\"resources/Mass1.fmu\"><ssd:Connectors>"
            "<ssd:Connector name=\"x1\" kind=\"output\"><ssc:Real/></ssd:Connector>"
            "<ssd:Connector name=\"v1\" kind=\"output\"><ssc:Real/></ssd:Connector>"
            "</ssd:Connectors></ssd:Component>"
            "<ssd:Component name=\"mass2\" source=\"resources/Mass2.fmu\"><ssd:Connectors>"
            "<ssd:Connector name=\"xc\" kind=\"input\"><ssc:Real/></ssd:Connector>"
            "<ssd:Connector name=\"vc\" kind=\"input\"><ssc:Real/></ssd:Connector>"
            "<ssd:Connector name=\"Fc\" kind=\"output\"><ssc:Real/></ssd:Connector>"
            "</ssd:Connectors></ssd:Component></ssd:Elements><ssd:Connections>"
            "<ssd:Connection startElement=\"mass1\" startConnector=\"x1\" endElement=\"mass2\" "
            "endConnector=\"xc\">%s</ssd:Connection>"
            "<ssd:Connection startElement=\"mass1\" startConnector=\"v1\" endElement=\"mass2\" "
            "endConnector=\"vc\">%s</ssd:Connection></ssd:Connections>"
            "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
            "<rtc:RealTime baseStep=\"0.001\" algorithm=\"jacobi\" record=\"mass2.Fc\"/>"
            "</ssc:Annotation></ssd:Annotations></ssd:System>"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>"
            "</ssd:SystemStructureDescription>\n", ann, ann);
    fclose(f);
}

/* RMS over time of column 2 of BASE/@p a against BASE/@p ref, row by row (same grid). */
static double rms_against(const char *a, const char *ref)
{
    char *x = slurp_in(a), *y = slurp_in(ref);
    double sum = 0;
    long n = 0;
    char *sa = NULL, *sb = NULL;
    char *la = x ? strtok_r(x, "\n", &sa) : NULL, *lb = y ? strtok_r(y, "\n", &sb) : NULL;
    while ((la = strtok_r(NULL, "\n", &sa)) && (lb = strtok_r(NULL, "\n", &sb))) {
        double ta, va, tb, vb;
        if (sscanf(la, "%lf,%lf", &ta, &va) != 2 || sscanf(lb, "%lf,%lf", &tb, &vb) != 2 ||
            fabs(ta - tb) > 1e-9)
            break;
        sum += (va - vb) * (va - vb);
        n++;
    }
    free(x);
    free(y);
    return n > 1000 ? sqrt(sum / (double)n) : NAN;
}

/* The open loop with estimator @p est on the two nodes, real time, B's link delayed
 * 5 +- 2 ms with 1 % loss: B's mass2.Fc error against the one-process reference. */
static double delayed_error(const char *est, const char *tag)
{
    char sys[700], sess[64];
    snprintf(sess, sizeof sess, "%s", begin(tag));
    write_open_loop("sys", est);
    snprintf(sys, sizeof sys, "%s/sys", base);
    /* the reference: the same system in one process, no delay */
    char dir[600];
    rtc_test_child c = in_dir("ref", dir, sizeof dir);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "run %s --output-dir . -q", sys)), 0);
    const char *emu = "--bridge A:emulate_delay_ms=5 --bridge A:emulate_jitter_ms=2 "
                      "--bridge A:emulate_loss=0.01";
    pid_t a = spawn_node(sys, "A", sess, "--place mass1=A --place mass2=B");
    char args[256];
    snprintf(args, sizeof args, "--place mass1=A --place mass2=B %s", emu);
    pid_t b = spawn_node(sys, "B", sess, args);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(a), 0);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(b), 0);
    CU_ASSERT(json_num("B/summary.json", "emulated_dropped") > 0);
    return rms_against("B/results.csv", "ref/results.csv");
}

static void kalman_covers_a_delayed_lossy_link_better_than_zoh(void)
{
    double zoh = delayed_error("zoh", "zoh");
    double kal = delayed_error("kalman-cv", "kalman");
    printf("\n    mass2.Fc RMS against the lock-step reference: zoh %.3g, kalman-cv %.3g", zoh,
           kal);
    CU_ASSERT(isfinite(zoh) && isfinite(kal));
    CU_ASSERT(kal <= 0.5 * zoh);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"realtime_nodes_replay_identical_and_report_their_links",
         realtime_nodes_replay_identical_and_report_their_links},
        {"a_killed_node_is_estimated_then_the_run_stops_with_rows_kept",
         a_killed_node_is_estimated_then_the_run_stops_with_rows_kept},
        {"ctrl_c_on_one_node_stops_every_node", ctrl_c_on_one_node_stops_every_node},
        {"ctrl_c_while_waiting_for_a_node_ends_the_wait",
         ctrl_c_while_waiting_for_a_node_ends_the_wait},
        {"a_node_panel_shows_every_node", a_node_panel_shows_every_node},
        {"kalman_covers_a_delayed_lossy_link_better_than_zoh",
         kalman_covers_a_delayed_lossy_link_better_than_zoh},
        {NULL, NULL}};
    rtc_test_add_suite("distributed_rt", setup, teardown, cases);
}
