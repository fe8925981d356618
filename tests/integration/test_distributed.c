/*
 * Distributed runs (issue 22, DESIGN.md T3): the nodes of a system as separate rtcosim
 * processes on loopback, talking over Cyclone DDS, against the same system run in one
 * process. Without --realtime the nodes step in lock-step and `rtcosim merge` of their
 * results.csv must equal the one-process file byte for byte: Jacobi, Gauss-Seidel, and
 * four nodes of a multi-rate system. A node started with another placement is refused in a
 * line naming both nodes; a program written against the documented IDL and topic names
 * only (node_subscriber, which does not link rtcosim) receives a running session's
 * samples; a lock-step node whose peer is killed ends instead of waiting forever, and one
 * whose peer never joins ends at once at a Ctrl-C.
 *
 * Every case runs in its own session (tag from the pid and the case) on a DDS domain of
 * this process, so two test runs at once (ctest -j2, or two checkouts) never meet; every
 * child is bounded (--join-timeout, and the 60 s of rtc_test_wait_exit).
 */
#include "cu_main.h"
#include "proc_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

RTC_TEST_CHILD_FIXTURE

#define MAX_NODES 4

RTC_TEST_NODE_CASES("t", 0) /* base, domain(), begin(), in_dir(): proc_util.h */

/* A child in BASE itself (merge). */
static rtc_test_child in_base(void)
{
    return (rtc_test_child){.work = base, .tmpdir = tmp, .out_fd = -1};
}

/* Run every node of @p nodes (space-separated) of @p system with @p args, at once; their
 * exit statuses into @p st. */
static void run_nodes(const char *system, const char *nodes, const char *args,
                      const char *sess, int st[MAX_NODES])
{
    char list[128], dirs[MAX_NODES][600];
    pid_t pid[MAX_NODES];
    int n = 0;
    snprintf(list, sizeof list, "%s", nodes);
    for (char *save = NULL, *t = strtok_r(list, " ", &save); t && n < MAX_NODES;
         t = strtok_r(NULL, " ", &save), n++) {
        rtc_test_child c = in_dir(t, dirs[n], sizeof dirs[n]);
        pid[n] = rtc_test_spawn(&c, "run %s --node %s --output-dir . -q --session %s "
                                "--dds-domain %d --join-timeout 30 %s", system, t, sess,
                                domain(), args);
    }
    for (int i = 0; i < n; i++)
        st[i] = rtc_test_wait_exit(pid[i]);
}

/* The one-process run of @p system with @p args into WORK/single/results.csv. */
static int run_single(const char *system, const char *args)
{
    char dir[640];
    rtc_test_child c = in_dir("single", dir, sizeof dir);
    return rtc_test_wait_exit(rtc_test_spawn(&c, "run %s --output-dir . -q %s", system, args));
}

/* The bytes of BASE/@p a and BASE/@p b are the same (and there are some); says so when
 * not and @p want_same. */
static bool same_bytes(const char *a, const char *b, bool want_same)
{
    char pa[700], pb[700];
    size_t la = 0, lb = 0;
    snprintf(pa, sizeof pa, "%s/%s", base, a);
    snprintf(pb, sizeof pb, "%s/%s", base, b);
    char *x = rtc_test_slurp(pa, &la), *y = rtc_test_slurp(pb, &lb);
    bool same = x && y && la > 0 && la == lb && !memcmp(x, y, la);
    if (!same && want_same)
        printf("\n    %s (%zu bytes) and %s (%zu bytes) differ", a, la, b, lb);
    free(x);
    free(y);
    return same;
}

static bool same_file(const char *a, const char *b)
{
    return same_bytes(a, b, true);
}

/* The child log of node @p name contains @p text. */
static bool log_has(const char *name, const char *text)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/child.log", base, name);
    char *s = rtc_test_slurp(path, NULL);
    bool has = s && strstr(s, text);
    if (!has)
        printf("\n    %s/child.log lacks \"%s\":\n%s", name, text, s ? s : "(none)");
    free(s);
    return has;
}

/* Run @p system on nodes @p nodes and in one process, merge, compare. */
static void check_equal(const char *system, const char *nodes, const char *places,
                        const char *args, const char *tag)
{
    char node_args[512], merge_args[128] = "merge";
    int st[MAX_NODES] = {0}, n = 0;
    snprintf(node_args, sizeof node_args, "%s %s", places, args);
    const char *sess = begin(tag);
    CU_ASSERT_EQUAL_FATAL(run_single(system, args), 0);
    run_nodes(system, nodes, node_args, sess, st);
    char list[128];
    snprintf(list, sizeof list, "%s", nodes);
    for (char *save = NULL, *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        CU_ASSERT_EQUAL(st[n], 0);
        if (st[n++] != 0)
            log_has(t, "(the log)");
        strcat(merge_args, " ");
        strcat(merge_args, t);
    }
    strcat(merge_args, " -o merged.csv");
    child = in_base();
    CU_ASSERT_EQUAL_FATAL(rtc_test_wait_exit(rtc_test_spawn(&child, "%s", merge_args)), 0);
    CU_ASSERT(same_file("merged.csv", "single/results.csv"));
    /* each node recorded only its own columns: fewer bytes than the whole */
    CU_ASSERT_FALSE(same_bytes("A/results.csv", "single/results.csv", false));
}

static void jacobi_two_nodes_merge_equals_one_process(void)
{
    check_equal(RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp", "A B", "--place mass1=A --place mass2=B",
                "--stop 3", "jacobi");
}

static void gauss_seidel_two_nodes_merge_equals_one_process(void)
{
    /* mass1 steps first: node B reads its values of the same tick */
    check_equal(RTC_TEST_CONFIG_DIR "/msd-gauss-seidel.ssp", "A B",
                "--place mass1=A --place mass2=B", "--stop 3", "gs");
}

static void multirate_four_nodes_merge_equals_one_process(void)
{
    /* steps 2, 3, 1 and 2 s on a 1 s base tick, each unit on its own node */
    check_equal(RTC_TEST_CONFIG_DIR "/parallel-fast-4.ssp", "A B C D",
                "--place A=A --place B=B --place C=C --place D=D",
                "--algorithm jacobi --stop 40", "multirate");
    /* A crosses connections with B and D, none with C: no bridge to C, whose rounds would
     * only cost every tick samples, wake-ups and a wait */
    char path[700];
    snprintf(path, sizeof path, "%s/A/summary.json", base);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"bridge@B\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(sum, "\"bridge@D\""));
    CU_ASSERT_PTR_NULL(strstr(sum, "bridge@C"));
    free(sum);
}

/* A copy of msd-jacobi in WORK/placed whose .ssd places mass1 on node A, mass2 on B. */
static void write_placed_system(void)
{
    char path[700], dir[600];
    snprintf(path, sizeof path, "%s/stage/msd-jacobi/SystemStructure.ssd", RTC_TEST_CONFIG_DIR);
    char *ssd = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ssd);
    rtc_test_child c = in_dir("placed", dir, sizeof dir);
    (void)c;
    FILE *f = rtc_test_msd_ssd(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    const char *nodes[] = {"A", "B"};
    char *p = ssd;
    for (int i = 0; i < 2; i++) {
        char *end = strstr(p, "</ssd:Connectors>");
        CU_ASSERT_PTR_NOT_NULL_FATAL(end);
        end += strlen("</ssd:Connectors>");
        fwrite(p, 1, (size_t)(end - p), f);
        fprintf(f, "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
                   "<rtc:Component node=\"%s\"/></ssc:Annotation></ssd:Annotations>", nodes[i]);
        p = end;
    }
    fputs(p, f);
    fclose(f);
    free(ssd);
}

static void file_annotation_places_and_the_command_line_wins(void)
{
    const char *sess = begin("annot");
    write_placed_system();
    char dir[640], path[700];
    rtc_test_child c = in_dir("check", dir, sizeof dir);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check ../placed")), 0);
    CU_ASSERT(log_has("check", "A            mass1"));
    CU_ASSERT(log_has("check", "mass1.x1 -> mass2.xc  A->B [0]"));
    CU_ASSERT(log_has("check", "mass2.Fc -> mass1.Fe  B->A [0]"));
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check ../placed --place mass2=C")),
                    0);
    CU_ASSERT(log_has("check", "C            mass2"));
    /* info shows the same partition, the file's and with --place */
    rtc_test_child i = in_dir("info", dir, sizeof dir);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&i, "info ../placed")), 0);
    CU_ASSERT(log_has("info", "mass2.Fc -> mass1.Fe  B->A [0]"));
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&i, "info ../placed --place mass1=D")), 0);
    CU_ASSERT(log_has("info", "D            mass1"));
    /* and the nodes of the file's placement give the one-process results */
    int st[MAX_NODES] = {0};
    snprintf(path, sizeof path, "%s/placed", base);
    CU_ASSERT_EQUAL_FATAL(run_single(path, "--stop 1"), 0);
    run_nodes(path, "A B", "--stop 1", sess, st);
    CU_ASSERT_EQUAL(st[0], 0);
    CU_ASSERT_EQUAL(st[1], 0);
    child = in_base();
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&child, "merge A B -o m.csv")), 0);
    CU_ASSERT(same_file("m.csv", "single/results.csv"));
}

static void another_placement_is_refused_naming_both_nodes(void)
{
    const char *sys = RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp";
    char da[640], db[640];
    const char *s = begin("refuse");
    rtc_test_child a = in_dir("A", da, sizeof da), b = in_dir("B", db, sizeof db);
    pid_t pa = rtc_test_spawn(&a, "run %s --node A --place mass1=A --place mass2=B --stop 1 "
                              "--output-dir . -q --session %s --dds-domain %d "
                              "--join-timeout 20", sys, s, domain());
    pid_t pb = rtc_test_spawn(&b, "run %s --node B --place mass1=B --place mass2=A --stop 1 "
                              "--output-dir . -q --session %s --dds-domain %d "
                              "--join-timeout 20", sys, s, domain());
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pa), 1);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pb), 1);
    CU_ASSERT(log_has("A", "node B runs another system or placement than node A"));
    CU_ASSERT(log_has("B", "node A runs another system or placement than node B"));
}

/* Node A of msd-jacobi alone (node B never starts), waiting @p join_s s for it, in
 * BASE/A (into @p dir) with its output in BASE/A/out. */
static pid_t spawn_alone(const char *tag, int join_s, char *dir, size_t cap)
{
    const char *s = begin(tag);
    rtc_test_child a = in_dir("A", dir, cap);
    return rtc_test_spawn(&a, "run %s --node A --place mass1=A --place mass2=B --stop 1 "
                          "--output-dir out -q --session %s --dds-domain %d --join-timeout %d",
                          RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp", s, domain(), join_s);
}

/* A node whose peer never starts is a required link not up in time: exit 6 at its
 * --join-timeout, one line naming the missing node, nothing left behind. */
static void a_missing_node_fails_its_link_at_the_join_timeout(void)
{
    char dir[640];
    pid_t pa = spawn_alone("missing", 1, dir, sizeof dir);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pa), 6);
    CU_ASSERT(log_has("A", "node B did not join within 1 s"));
    CU_ASSERT(log_has("A", "not up within connect_ms=1000: the node did not join"));
    char out[700];
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
}

/* Ctrl-C while a node waits for a peer that never joins ends the wait at once: exit 130,
 * the signal named, nothing left behind. --join-timeout is 600 s and rtc_test_wait_exit
 * gives up after 60: only a wait that the signal ends passes. The signal goes once the
 * node has loaded its part (node.json, written before the initialization that waits). */
static void ctrl_c_ends_the_wait_for_a_missing_node(void)
{
    char dir[640], node_json[700];
    pid_t pa = spawn_alone("interrupt", 600, dir, sizeof dir);
    snprintf(node_json, sizeof node_json, "%s/out/node.json", dir);
    CU_ASSERT(rtc_test_wait_lines(node_json, 1));
    kill(pa, SIGINT);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pa), 130);
    CU_ASSERT(log_has("A", "stopped by SIGINT before the first tick"));
    char *log = NULL, path[700];
    snprintf(path, sizeof path, "%s/child.log", dir);
    CU_ASSERT_PTR_NULL(strstr((log = rtc_test_slurp(path, NULL)) ? log : "", "cannot start"));
    free(log);
    snprintf(path, sizeof path, "%s/out", dir);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
}

static void placement_errors_are_one_line_each(void)
{
    const char *sys = RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp";
    char dir[640];
    begin("errors");
    rtc_test_child c = in_dir("err", dir, sizeof dir);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s --place mass1=A", sys)), 1);
    CU_ASSERT(log_has("err", "Component mass2 is not placed on a node"));
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s --place mass1=A "
                                                      "--place mass2=B --node C", sys)), 1);
    CU_ASSERT(log_has("err", "--node C: no component of"));
    CU_ASSERT(log_has("err", "(nodes: A, B)"));
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s --place mass3=A", sys)), 1);
    CU_ASSERT(log_has("err", "has no component mass3"));
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s --place mass1=A "
                                                      "--place mass2=B --iterate", sys)), 1);
    CU_ASSERT(log_has("err", "an iterated loop (--iterate) cannot span nodes"));
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s --place mass1=A/x", sys)), 1);
    CU_ASSERT(log_has("err", "only letters, digits"));
}

/* A system that places nothing (here a single FMU, a system of one unit) is checked and
 * run as before: the placement is looked for, not required. */
static void a_single_fmu_places_nothing(void)
{
    char dir[640];
    begin("fmu");
    rtc_test_child c = in_dir("fmu", dir, sizeof dir);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s/fmi2/Decay.fmu",
                                                      RTC_TEST_FMU_DIR)), 0);
    CU_ASSERT(log_has("fmu", "1 unit(s)"));
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s/msd-jacobi.ssp",
                                                      RTC_TEST_CONFIG_DIR)), 0);
}

/* node_subscriber (beside this test) with the documented loopback configuration:
 * listening to A -> B, or (@p inject) writing a stranger's samples on B -> A. */
static pid_t spawn_subscriber(const char *sess, const char *run_id, const char *out_path,
                              bool inject)
{
    int dom_id = domain();
    char part[128];
    snprintf(part, sizeof part, "%s/%s", sess, run_id ? run_id : "");
    pid_t pid = fork();
    if (pid == 0) {
        char cfg[1024], dom[16];
        snprintf(cfg, sizeof cfg,
                 "<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface "
                 "name=\"lo\"/></Interfaces><AllowMulticast>false</AllowMulticast></General>"
                 "<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>"
                 "40</MaxAutoParticipantIndex><Peers><Peer Address=\"127.0.0.1\"/></Peers>"
                 "<SPDPInterval>1s</SPDPInterval><Tag>rtc/%s</Tag></Discovery></Domain>"
                 "</CycloneDDS>", sess);
        snprintf(dom, sizeof dom, "%d", dom_id);
        setenv("CYCLONEDDS_URI", cfg, 1);
        if (!freopen(out_path, "w", stdout))
            _exit(126);
        if (inject)
            execl(RTC_NODE_SUBSCRIBER_EXE, RTC_NODE_SUBSCRIBER_EXE, "--inject", dom, part, "B",
                  "A", "100000", "50", (char *)NULL);
        else
            execl(RTC_NODE_SUBSCRIBER_EXE, RTC_NODE_SUBSCRIBER_EXE, dom, sess, "A", "B",
                  "200000", "60", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void documented_subscriber_receives_the_samples(void)
{
    const char *sess = begin("sub");
    char out_path[700];
    snprintf(out_path, sizeof out_path, "%s/subscriber.txt", base);
    pid_t sub = spawn_subscriber(sess, NULL, out_path, false);
    CU_ASSERT_FATAL(sub > 0);
    CU_ASSERT_FATAL(rtc_test_wait_lines(out_path, 1)); /* "ready" */
    int st[MAX_NODES] = {0};
    /* the subscriber is ready before the nodes start, and the nodes wait for each other
     * (discovery) before their first tick: 10000 ticks leave it time to match, and stay
     * well inside the children's 60 s bound on a loaded machine (100000 ticks took over
     * 60 s at 2.6 ms a tick under a full suite beside other builds) */
    run_nodes(RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp", "A B",
              "--place mass1=A --place mass2=B --stop 100", sess, st);
    CU_ASSERT_EQUAL(st[0], 0);
    CU_ASSERT_EQUAL(st[1], 0);
    int sst = rtc_test_wait_exit(sub);
    CU_ASSERT_EQUAL(sst, 0);
    /* every tick sample it got carries the values A recorded at that tick: line k + 1
     * of A's results.csv (line 0 is the header) */
    char res[700];
    snprintf(res, sizeof res, "%s/A/results.csv", base);
    size_t len = 0;
    char *rows = rtc_test_slurp(res, &len), *sub_out = rtc_test_slurp(out_path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sub_out);
    size_t n_lines = 0, cap = 1024;
    char **line = malloc(cap * sizeof *line);
    for (char *save = NULL, *t = strtok_r(rows, "\n", &save); t && line;
         t = strtok_r(NULL, "\n", &save)) {
        if (n_lines == cap)
            line = realloc(line, (cap *= 2) * sizeof *line);
        line[n_lines++] = t;
    }
    long checked = 0, bad = 0;
    for (char *save = NULL, *t = strtok_r(sub_out, "\n", &save); t && line;
         t = strtok_r(NULL, "\n", &save)) {
        unsigned kind, round, count;
        long long tns;
        double v0, v1, tt, x1, vv1;
        if (sscanf(t, "%u %u %lld %u %lf %lf", &kind, &round, &tns, &count, &v0, &v1) != 6 ||
            kind != 1)
            continue;
        checked++;
        if (round + 1 >= n_lines ||
            sscanf(line[round + 1], "%lf,%lf,%lf", &tt, &x1, &vv1) != 3 || count != 2 ||
            tns != (long long)round * 10000000LL || x1 != v0 || vv1 != v1)
            bad++;
    }
    free(line);
    free(rows);
    free(sub_out);
    printf("\n    the subscriber got %ld tick samples of A -> B, %ld not as recorded", checked,
           bad);
    CU_ASSERT(checked > 0);
    CU_ASSERT_EQUAL(bad, 0);
}

/* A stranger writing on the topic of node B to node A (another run id): A counts its
 * samples as unexpected, drops them, and the run stays the one-process run. */
static void stranger_samples_are_counted_and_ignored(void)
{
    const char *sys = RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp", *sess = begin("stranger");
    char out_path[700], path[700];
    snprintf(out_path, sizeof out_path, "%s/injector.txt", base);
    CU_ASSERT_EQUAL_FATAL(run_single(sys, "--stop 300"), 0);
    /* the run id, as check shows it: the stranger writes in the run's partition */
    char dir[640], run_id[32] = "";
    rtc_test_child c = in_dir("check", dir, sizeof dir);
    CU_ASSERT_EQUAL_FATAL(rtc_test_wait_exit(rtc_test_spawn(&c, "check %s --place mass1=A "
                                                            "--place mass2=B --stop 300", sys)),
                          0);
    snprintf(path, sizeof path, "%s/child.log", dir);
    char *log = rtc_test_slurp(path, NULL), *id = log ? strstr(log, "run id ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(id);
    sscanf(id + strlen("run id "), "%16[0-9a-f]", run_id);
    free(log);
    pid_t inj = spawn_subscriber(sess, run_id, out_path, true);
    CU_ASSERT_FATAL(inj > 0);
    /* (it writes once node A's reader matched: while A starts and runs) */
    int st[MAX_NODES] = {0};
    run_nodes(sys, "A B", "--place mass1=A --place mass2=B --stop 300", sess, st);
    kill(inj, SIGTERM);
    rtc_test_wait_exit(inj);
    CU_ASSERT_EQUAL(st[0], 0);
    CU_ASSERT_EQUAL(st[1], 0);
    child = in_base();
    CU_ASSERT_EQUAL(rtc_test_wait_exit(rtc_test_spawn(&child, "merge A B -o m.csv")), 0);
    CU_ASSERT(same_file("m.csv", "single/results.csv"));
    snprintf(path, sizeof path, "%s/A/summary.json", base);
    char *sum = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    const char *u = strstr(sum, "\"unexpected\": ");
    CU_ASSERT_PTR_NOT_NULL(u);
    long n = u ? atol(u + strlen("\"unexpected\": ")) : 0;
    printf("\n    node A counted %ld unexpected samples", n);
    CU_ASSERT(n > 0);
    free(sum);
}

static void lockstep_node_ends_when_its_peer_is_killed(void)
{
    const char *sys = RTC_TEST_CONFIG_DIR "/msd-jacobi.ssp";
    char da[640], db[640];
    const char *s = begin("kill");
    rtc_test_child a = in_dir("A", da, sizeof da), b = in_dir("B", db, sizeof db);
    /* a run far longer than the test: it can only end through the peer's loss */
    const char *args = "--place mass1=A --place mass2=B --stop 1000000000 --output-dir . -q "
                       "--join-timeout 20";
    pid_t pa = rtc_test_spawn(&a, "run %s --node A %s --session %s --dds-domain %d", sys, args,
                              s, domain());
    pid_t pb = rtc_test_spawn(&b, "run %s --node B %s --session %s --dds-domain %d", sys, args,
                              s, domain());
    char res[700];
    snprintf(res, sizeof res, "%s/results.csv", db);
    CU_ASSERT_FATAL(rtc_test_wait_lines(res, 1000)); /* B has run a thousand ticks */
    kill(pb, SIGKILL);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pb), 1000 + SIGKILL);
    CU_ASSERT_EQUAL(rtc_test_wait_exit(pa), 1);
    CU_ASSERT(log_has("A", "the peer node left"));
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"jacobi_two_nodes_merge_equals_one_process", jacobi_two_nodes_merge_equals_one_process},
        {"gauss_seidel_two_nodes_merge_equals_one_process",
         gauss_seidel_two_nodes_merge_equals_one_process},
        {"multirate_four_nodes_merge_equals_one_process",
         multirate_four_nodes_merge_equals_one_process},
        {"file_annotation_places_and_the_command_line_wins",
         file_annotation_places_and_the_command_line_wins},
        {"another_placement_is_refused_naming_both_nodes",
         another_placement_is_refused_naming_both_nodes},
        {"a_missing_node_fails_its_link_at_the_join_timeout",
         a_missing_node_fails_its_link_at_the_join_timeout},
        {"ctrl_c_ends_the_wait_for_a_missing_node", ctrl_c_ends_the_wait_for_a_missing_node},
        {"placement_errors_are_one_line_each", placement_errors_are_one_line_each},
        {"a_single_fmu_places_nothing", a_single_fmu_places_nothing},
        {"documented_subscriber_receives_the_samples", documented_subscriber_receives_the_samples},
        {"stranger_samples_are_counted_and_ignored", stranger_samples_are_counted_and_ignored},
        {"lockstep_node_ends_when_its_peer_is_killed", lockstep_node_ends_when_its_peer_is_killed},
        {NULL, NULL}};
    rtc_test_add_suite("distributed", setup, teardown, cases);
}
