/*
 * RT hygiene of the run phase (issue 4 item 2, issue 10 item 8): the judge of the
 * real-time rules (README, "Real-time rules"), on real systems run in real time. How each
 * rule is observed:
 *
 * Allocations: this executable defines malloc, calloc, realloc and free itself (they win
 * over libc's at symbol resolution) and forwards them to glibc's __libc_* entry points,
 * counting the calls made on a run-phase thread: rtc_exec_is_rt_thread() (the executive's
 * flag) or a thread bound to an rtlog (a worker or unit thread while it runs a job for the
 * RT thread). Under ASan/TSan, whose allocators must stay in charge, the sanitizers' own
 * malloc/free hooks count instead. A positive control proves the counters are live:
 * clock_nanosleep is interposed too, and the RT thread must be seen sleeping in it.
 * Page faults: the executive reads getrusage(RUSAGE_THREAD) on the RT thread before and
 * after its loop; both counts must be 0 — asserted only when memory could be locked.
 *
 * System calls: at the first loop boundary (exec hook, on the RT thread) the test installs
 * a seccomp filter on the RT thread alone (no root needed: PR_SET_NO_NEW_PRIVS first).
 * It lets through clock_nanosleep and futex (the design: the pacing sleep, the worker and
 * substitute hand-offs of masters/jacobi_workers.c and substitute.c), rt_sigreturn (the return
 * from the tracer's own handler) and what the thread needs to end after its loop
 * (getrusage, exit, munmap, madvise, mprotect, sigaltstack, rt_sigprocmask); every other
 * call traps (SECCOMP_RET_TRAP): the SIGSYS handler records its number in a preallocated
 * atomic array and makes it fail with ENOSYS. A positive control writes on the RT thread
 * and must be caught. x86-64 only (the handler sets the return register). Under ASan/TSan
 * mmap is let through as well: their runtimes map memory on the thread itself.
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "proc_util.h"
#include "rt_hygiene_util.h"

#include "rtcosim/csv.h"
#include "rtcosim/driver.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/exec.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/nodectl.h"
#include "rtcosim/placement.h"
#include "rtcosim/recorder.h"
#include "rtcosim/rtlog.h"
#include "rtcosim/session.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <lo/lo.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char work[512];

static int setup(void)
{
    int rc = rt_watch_setup();
    rtc_test_tmpdir(work, sizeof work);
    return rc;
}

static int teardown(void)
{
    rtc_test_rmtree(work);
    return 0;
}

typedef struct run {
    rtc_system *sys;
    rtc_record *rec;
    rtc_csv *csv;
    rtc_recorder *r;
    rtc_exec *ex;
    tlog log;
} run;

/* Load @p system (default msd-jacobi), record every output, arm the executive at rtf 2. */
static void arm_system(run *x, const char *system)
{
    rtc_unit_factory f;
    char path[700], trace[700];
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
    tlog_init(&x->log);
    x->log.lg.max_level = RTC_LOG_WARNING;
    snprintf(path, sizeof path, "%s", system);
    rtc_system_options so = {.has_stop = true, .stop_ns = INT64_C(2000000000)};
    CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, &f, 1, &so, &x->log.lg, &x->sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_record_new(&x->rec), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_record(x->sys, x->rec, NULL, 0), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(x->sys), RTC_OK);
    snprintf(path, sizeof path, "%s/results.csv", work);
    CU_ASSERT_EQUAL_FATAL(rtc_csv_open(path, &x->csv), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_recorder_start(x->rec, x->csv, &(rtc_recorder_opts){.ring_rows = 65536}, &x->r), RTC_OK);
    rtc_exec_options o;
    rtc_exec_options_init(&o);
    o.rtf = 2; /* 10 ms tick → 5 ms period, 200 steps, 1 s */
    o.recorder = x->r;
    snprintf(trace, sizeof trace, "%s/latency.csv", work);
    o.trace_path = trace;
    o.lg = &x->log.lg;
    CU_ASSERT_EQUAL_FATAL(rtc_exec_new(x->sys, &o, &x->ex), RTC_OK);
}

static void arm(run *x)
{
    char path[700];
    snprintf(path, sizeof path, "%s/msd-jacobi.ssp", RTC_TEST_CONFIG_DIR);
    arm_system(x, path);
}

static void disarm(run *x)
{
    rtc_exec_free(x->ex);
    rtc_recorder_stats rs;
    CU_ASSERT_EQUAL(rtc_recorder_stop(x->r, &rs), RTC_OK);
    CU_ASSERT_EQUAL(rs.rows_written, 201);
    CU_ASSERT_EQUAL(rs.rows_dropped, 0);
    rtc_csv_close(x->csv);
    rtc_system_free(x->sys);
    rtc_record_free(x->rec);
}

/* Run an armed system on the RT thread; no allocation, no page fault when locked. */
static void run_counted(run *x)
{
    /* the counters work: an allocation here (main thread) counts as "any", not as RT */
    unsigned long before = atomic_load(&any_mallocs);
    void *volatile probe = malloc(64);
    free(probe);
    CU_ASSERT(atomic_load(&any_mallocs) > before);
    CU_ASSERT_FALSE(rtc_exec_is_rt_thread());
    atomic_store(&rt_mallocs, 0);
    atomic_store(&rt_frees, 0);
    atomic_store(&rt_sleeps, 0);

    int rc = rtc_exec_run(x->ex);
    if (rc != RTC_OK)
        printf("\n    run failed: %s; log:\n%s", rtc_strerror(rc), x->log.text);
    CU_ASSERT_EQUAL_FATAL(rc, RTC_OK);
    rtc_exec_stats st;
    rtc_exec_stats_get(x->ex, &st);
    printf("\n    %llu steps (%s), RT thread: %lu mallocs, %lu frees, %lu sleeps, "
           "%ld minor / %ld major faults", (unsigned long long)st.steps, st.sched_policy,
           atomic_load(&rt_mallocs), atomic_load(&rt_frees), atomic_load(&rt_sleeps),
           st.minor_faults, st.major_faults);
    CU_ASSERT_EQUAL(st.steps, 200);
    CU_ASSERT_EQUAL(st.stop, RTC_EXEC_END);
    CU_ASSERT(atomic_load(&rt_sleeps) >= 200); /* positive control: the flag was live */
    CU_ASSERT_EQUAL(atomic_load(&rt_mallocs), 0);
    CU_ASSERT_EQUAL(atomic_load(&rt_frees), 0);
    CU_ASSERT_FALSE(rtc_exec_is_rt_thread());
    if (st.rt.memory_locked) {
        CU_ASSERT_EQUAL(st.minor_faults, 0);
        CU_ASSERT_EQUAL(st.major_faults, 0);
    } else {
        rtc_test_skip("rt_thread page-fault assertion",
                      st.rt.sanitizer ? "sanitizer build: memory is not locked"
                                      : "mlockall failed (no privileges): faults are possible");
        CU_ASSERT(st.minor_faults >= 0); /* measured all the same */
    }
    
}

static void rt_thread_allocates_nothing_and_takes_no_page_fault(void)
{
    run x;
    arm(&x);
    run_counted(&x);
    disarm(&x);
}

/* A Model Exchange unit bouncing (state events located, event iterations) on the RT
 * thread: it allocates nothing either (issue 12: buffers are sized at arm). */
static void me_unit_with_events_allocates_nothing(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/me.ssd", work);
    tfmu_write_system(path, tfmu_path(3, "BouncingBall"), "h",
                      "interface=\"me\" solver=\"rk4\" substeps=\"4\"", "2");
    run x;
    arm_system(&x, path);
    run_counted(&x);
    rtc_me_events ev;
    CU_ASSERT_FATAL(rtc_fmu_unit_events(rtc_system_unit(x.sys, 0), &ev));
    CU_ASSERT_EQUAL(ev.state_events, 4); /* bounces at 0.45, 1.08, 1.53, 1.84 s (2.05 after) */
    disarm(&x);
}

/* ---- systems of the cases below ---- */

static const char ssd_head[] =
    "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" name=\"t\" "
    "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
    "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
    "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\" "
    "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n";

/* "f2" (FMI 2) and "f3" (FMI 3): Fault units logging every step (mode 6), input u. */
static void fault_components(FILE *f)
{
    for (int v = 2; v <= 3; v++)
        fprintf(f, "<ssd:Component name=\"f%d\" source=\"%s/fmi%d/Fault.fmu\">\n"
                "<ssd:Connectors><ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/>"
                "</ssd:Connector><ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/>"
                "</ssd:Connector></ssd:Connectors>\n<ssd:ParameterBindings>"
                "<ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" "
                "name=\"p\"><ssv:Parameters><ssv:Parameter name=\"mode\"><ssv:Integer "
                "value=\"6\"/></ssv:Parameter></ssv:Parameters></ssv:ParameterSet>"
                "</ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>\n"
                "</ssd:Component>\n", v, RTC_TEST_FMU_DIR, v);
}

/* Fault units logging every step (mode 6): "f2" FMI 2, "f3" FMI 3, and a Decay unit;
 * tick 10 ms, 1 s. Distinct FMU files: with one worker f2 steps on the RT thread and f3 on
 * the worker (owners round-robin over FMU files). */
static void write_logging_ssd(const char *path)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(ssd_head, f);
    fault_components(f);
    fprintf(f, "<ssd:Component name=\"d\" source=\"%s/fmi2/Decay.fmu\"><ssd:Connectors>"
            "<ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/></ssd:Connector>"
            "</ssd:Connectors></ssd:Component>\n</ssd:Elements>\n<ssd:Annotations>"
            "<ssc:Annotation type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.01\"/>"
            "</ssc:Annotation></ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment "
            "startTime=\"0\" stopTime=\"1\"/>\n</ssd:SystemStructureDescription>\n",
            RTC_TEST_FMU_DIR);
    fclose(f);
}

typedef struct traced_run {
    const char *ssd;          /* NULL: the logging system */
    unsigned workers;
    bool substitute, violation;
    bool bridge;              /* node A of ssd (mass1=A, mass2=B) against node B, an
                                 rtcosim child: the lock-step bridge on the RT thread */
    bool realtime;            /* (bridge) both nodes real time: the bridge on mailboxes,
                                 the start agreed over the control plane */
    int64_t steps;
} traced_run;

static pid_t peer_node; /* the bridge case's node B */
static rtc_nodectl *node_ctl; /* the real-time bridge case's control plane (node A) */

/* Node B of msd-jacobi, fast (lock-step) and paced by node A here, or real time. */
static void start_peer(const char *path, const char *session, int domain, bool realtime)
{
    char dir[600], dom[16], log[700];
    snprintf(dir, sizeof dir, "%s/B", work);
    snprintf(dom, sizeof dom, "%d", domain);
    snprintf(log, sizeof log, "%s/B.log", work);
    peer_node = fork();
    if (peer_node == 0) {
        if (!freopen(log, "w", stdout) || !freopen(log, "a", stderr))
            _exit(126);
        execl(RTCOSIM_EXE, RTCOSIM_EXE, "run", path, "--node", "B", "--place", "mass1=A",
              "--place", "mass2=B", "--stop", "1", "--session", session, "--dds-domain", dom,
              "--output-dir", dir, "-q", "--join-timeout", "30",
              realtime ? "--realtime" : (char *)NULL, (char *)NULL);
        _exit(127);
    }
    CU_ASSERT_FATAL(peer_node > 0);
}

/* Node A's part of the system at @p path, its bridge to node B lock-step or real time
 * (then its control plane, and B there). */
static void load_node_a(const char *path, const rtc_system_options *so, bool realtime,
                        rlog *log, rtc_system **sys)
{
    static const char *const places[] = {"mass1=A", "mass2=B"};
    char session[64];
    int domain = rtc_test_dds_domain(7); /* a domain no other test holds (proc_util.h) */
    snprintf(session, sizeof session, "hyg%ld", (long)getpid());
    start_peer(path, session, domain, realtime);
    rtc_placement_opts po = {.node = "A", .places = places, .n_places = 2,
                             .session = session, .domain = domain, .lockstep = !realtime};
    CU_ASSERT_EQUAL_FATAL(rtc_load_system_node(path, so, &po, &log->lg, sys, NULL), RTC_OK);
    if (!realtime)
        return;
    static const char *const nodes[] = {"A", "B"};
    rtc_nodectl_config c = {.nodes = nodes, .n_nodes = 2, .self = "A",
                            .join_ns = INT64_C(30000000000), .tick_ns = 10000000};
    CU_ASSERT_EQUAL_FATAL(rtc_nodectl_open(&c, &log->lg, &node_ctl), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_nodectl_join(node_ctl, NULL, NULL), RTC_OK);
}

/* The executive's start hook of the real-time bridge case: the agreed epoch. */
static int64_t node_start_at(void *user, rtc_exec *ex)
{
    (void)ex;
    return rtc_nodectl_start(user, NULL, NULL);
}

static void arm_traced(const traced_run *t, rlog *log, rtc_system **sys, rtc_exec **ex)
{
    rtc_unit_factory f;
    char path[700];
    if (!t->bridge) /* (a node's load makes its own factories) */
        CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
    if (t->ssd) {
        snprintf(path, sizeof path, "%s/%s", RTC_TEST_CONFIG_DIR, t->ssd);
    } else {
        snprintf(path, sizeof path, "%s/logging.ssd", work);
        write_logging_ssd(path);
    }
    rtc_system_options so = {.workers = t->workers, .has_stop = true,
                             .stop_ns = INT64_C(1000000000)};
    if (t->bridge)
        load_node_a(path, &so, t->realtime, log, sys);
    else
        CU_ASSERT_EQUAL_FATAL(rtc_system_load(path, &f, 1, &so, &log->lg, sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_set_threads(*sys, 80, -1), RTC_OK);
    if (t->substitute)
        CU_ASSERT_EQUAL_FATAL(rtc_system_use_substitute(*sys), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(*sys), RTC_OK);
    rtc_exec_options o;
    rtc_exec_options_init(&o);
    o.rtf = t->realtime ? 1 : 2; /* a real-time peer runs at its own pace */
    if (t->realtime) {
        o.start_at = node_start_at;
        o.start_user = node_ctl;
    }
    o.lg = &log->lg;
    o.overrun = t->substitute ? RTC_EXEC_SUBSTITUTE : RTC_EXEC_CATCH_UP;
    o.hook = trace_hook;
    CU_ASSERT_EQUAL_FATAL(rtc_exec_new(*sys, &o, ex), RTC_OK);
}

/* One traced real-time run: no allocation, no logger call, no system call outside the
 * design on the run-phase threads. */
static void run_traced(const traced_run *t, rlog *log)
{
    rtc_system *sys = NULL;
    rtc_exec *ex = NULL;
    rlog_init(log);
    arm_traced(t, log, &sys, &ex);
    trace_reset(t->violation);
    atomic_store(&rt_mallocs, 0);
    atomic_store(&rt_frees, 0);
    atomic_store(&rt_sleeps, 0);
    int rc = rtc_exec_run(ex);
    if (rc != RTC_OK)
        printf("\n    run failed: %s; log:\n%s", rtc_strerror(rc), log->text);
    CU_ASSERT_EQUAL(rc, RTC_OK);
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    printf("\n    %llu steps (%s), run-phase threads: %lu mallocs, %lu frees, %lu sleeps; "
           "logger: %u lines, %u on the RT side", (unsigned long long)st.steps,
           st.sched_policy, atomic_load(&rt_mallocs), atomic_load(&rt_frees),
           atomic_load(&rt_sleeps), atomic_load(&log->lines), atomic_load(&log->on_rt));
    CU_ASSERT_EQUAL(st.steps, t->steps);
    CU_ASSERT(atomic_load(&rt_sleeps) >= (unsigned long)t->steps); /* the counters are live */
    CU_ASSERT_EQUAL(atomic_load(&rt_mallocs), 0);
    CU_ASSERT_EQUAL(atomic_load(&rt_frees), 0);
    CU_ASSERT_EQUAL(atomic_load(&log->on_rt), 0);
    CU_ASSERT_EQUAL(st.rtlog_dropped, 0);
    if (!t->violation)
        assert_trace_clean();
    if (node_ctl) /* the stop time, as the CLI tells it */
        rtc_nodectl_stopped(node_ctl, RTC_NODECTL_COMPLETED, (int64_t)st.steps, NULL);
    rtc_exec_free(ex);
    rtc_system_free(sys);
    rtc_nodectl_close(node_ctl);
    node_ctl = NULL;
    if (t->bridge) { /* the peer ran the same ticks and ended well */
        int ws = 0;
        CU_ASSERT_EQUAL(waitpid(peer_node, &ws, 0), peer_node);
        CU_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }
}

static void run_phase_syscalls_are_sleeps_and_futex_only(void)
{
    if (!trace_supported()) {
        rtc_test_skip("rt_hygiene syscall trace", "not x86-64 (the handler sets rax)");
        return;
    }
    rlog log;
    run_traced(&(traced_run){.ssd = "msd-jacobi.ssp", .steps = 100}, &log);
    run_traced(&(traced_run){.ssd = "msd-jacobi.ssp", .workers = 1, .steps = 100}, &log);
}

/* A node of a distributed run: its lock-step bridge hands each tick's values over and
 * waits for the peer's on the RT thread with atomics and futexes only; DDS runs on the
 * bridge's I/O thread and Cyclone's own (issue 22). */
static void lockstep_bridge_on_the_rt_thread_is_clean(void)
{
    if (!trace_supported())
        rtc_test_skip("rt_hygiene syscall trace", "not x86-64 (the handler sets rax)");
    rlog log;
    run_traced(&(traced_run){.ssd = "msd-jacobi.ssp", .bridge = true, .steps = 100}, &log);
}

/* The same with both nodes real time: the bridge meets the RT thread through mailboxes and
 * a futex wake-up of its I/O thread, which sends and receives (dds_rtlink.c). */
static void realtime_bridge_on_the_rt_thread_is_clean(void)
{
    if (!trace_supported())
        rtc_test_skip("rt_hygiene syscall trace", "not x86-64 (the handler sets rax)");
    rlog log;
    run_traced(&(traced_run){.ssd = "msd-jacobi.ssp", .bridge = true, .realtime = true,
                             .steps = 100}, &log);
}

/* The tracer is live: one write() on the RT thread during the run is caught. */
static void syscall_trace_catches_a_write_on_the_rt_thread(void)
{
    if (!trace_supported()) {
        rtc_test_skip("rt_hygiene syscall trace", "not x86-64 (the handler sets rax)");
        return;
    }
    rlog log;
    run_traced(&(traced_run){.ssd = "msd-jacobi.ssp", .violation = true, .steps = 100}, &log);
    if (!atomic_load(&traced)) {
        rtc_test_skip("rt_hygiene syscall trace", "seccomp filter refused by the kernel");
        return;
    }
    CU_ASSERT_EQUAL(atomic_load(&n_traps), 1);
    CU_ASSERT_EQUAL(atomic_load(&traps[0]), SYS_write);
}

/* FMUs logging every step (FMI 2 printf-style, FMI 3 finished text), on the RT thread,
 * a worker, or their own substitute threads: each line arrives, formatted by the monitor,
 * exactly as printf would have made it. */
static void assert_fmu_lines(rlog *log, bool exact)
{
    /* substitute: a unit late at the end of the run is left running, its last steps never
     * come (the policy's point); under a loaded sanitizer run that happens */
    if (exact)
        CU_ASSERT_EQUAL(atomic_load(&log->fmu_lines), 2 * 100);
    CU_ASSERT(atomic_load(&log->fmu_lines) > 2 * 10 && atomic_load(&log->fmu_lines) <= 2 * 100);
    CU_ASSERT_PTR_NOT_NULL(strstr(log->text, "f2 [logStatusWarning]: step 7 from t = 0.070000 "
                                             "s: Fault logs every step (100%)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log->text, "f3 [logStatusWarning]: step 7 from t = 0.070000 "
                                             "s: Fault logs every step (100%)\n"));
}

static void fmus_logging_every_step_do_not_format_on_the_rt_side(void)
{
    bool tr = trace_supported();
    if (!tr)
        rtc_test_skip("rt_hygiene syscall trace", "not x86-64 (the handler sets rax)");
    rlog log;
    run_traced(&(traced_run){.workers = 0, .steps = 100}, &log);
    assert_fmu_lines(&log, true);
    run_traced(&(traced_run){.workers = 1, .steps = 100}, &log);
    assert_fmu_lines(&log, true);
    run_traced(&(traced_run){.substitute = true, .steps = 100}, &log);
    assert_fmu_lines(&log, false);
}

/* ---- a live session with an I/O unit: the session hook, the tap, the events logger ---- */

/* An OSC set-point "op.sp" (port @p port) into f2 (Fault FMI 2, logging every step) and f3. */
static void write_session_ssd(const char *path, int port)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%s<ssd:Component name=\"op\" type=\"application/x-rtcosim-osc\">"
            "<ssd:Connectors><ssd:Connector name=\"sp\" kind=\"output\"><ssc:Real/>"
            "</ssd:Connector></ssd:Connectors><ssd:Annotations><ssc:Annotation "
            "type=\"org.rtcosim.realtime\"><rtc:Component port=\"%d\" priority=\"0\">"
            "<rtc:Signal name=\"sp\" path=\"/sp\"/></rtc:Component></ssc:Annotation>"
            "</ssd:Annotations></ssd:Component>\n", ssd_head, port);
    fault_components(f);
    fprintf(f, "</ssd:Elements>\n<ssd:Connections><ssd:Connection startElement=\"op\" "
            "startConnector=\"sp\" endElement=\"f2\" endConnector=\"u\" suppressUnitConversion=\"true\"/><ssd:Connection "
            "startElement=\"op\" startConnector=\"sp\" endElement=\"f3\" endConnector=\"u\" suppressUnitConversion=\"true\"/>"
            "</ssd:Connections>\n<ssd:Annotations><ssc:Annotation "
            "type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.01\"/></ssc:Annotation></ssd:Annotations>\n</ssd:System>\n"
            "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n");
    fclose(f);
}

/* A UDP port free right now on 127.0.0.1 (the kernel picks it). */
static int free_udp_port(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                       getsockname(fd, (struct sockaddr *)&a, &len) == 0
                   ? ntohs(a.sin_port)
                   : -1;
    if (fd >= 0)
        close(fd);
    return port;
}

static void session_and_trace_hook(void *user, int at, int64_t k)
{
    rtc_session_hook(user, at, k);
    trace_hook(NULL, at, k);
}

typedef struct sender {
    int port;
    _Atomic bool stop;
    _Atomic unsigned sent;
} sender;

/* The bench side: a set-point every 5 ms until the run ends (at most 30 s). */
static void *send_main(void *p)
{
    sender *x = p;
    char port[16];
    snprintf(port, sizeof port, "%d", x->port);
    lo_address a = lo_address_new("127.0.0.1", port);
    for (int i = 0; i < 6000 && !atomic_load(&x->stop); i++) {
        if (lo_send(a, "/sp", "d", (double)(i % 5)) > 0)
            atomic_fetch_add(&x->sent, 1);
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    lo_address_free(a);
    return NULL;
}

typedef struct ses_run {
    rlog log;
    rtc_events *ev;
    rtc_system *sys;
    rtc_session *ses;
    rtc_exec *ex;
    char dir[700];
} ses_run;

static void arm_session(ses_run *r, int port)
{
    char path[700];
    snprintf(path, sizeof path, "%s/io.ssd", work);
    write_session_ssd(path, port);
    rlog_init(&r->log);
    snprintf(r->dir, sizeof r->dir, "%s/ses", work);
    CU_ASSERT_EQUAL_FATAL(mkdir(r->dir, 0700), 0);
    char ev_path[800];
    snprintf(ev_path, sizeof ev_path, "%s/events.log", r->dir);
    /* the units log to events.log (a mutex, fprintf, fflush), teed to the test's logger */
    CU_ASSERT_EQUAL_FATAL(rtc_events_open(ev_path, &r->log.lg, &r->ev), RTC_OK);
    rtc_unit_factory f[2];
    CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f[0]), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_io_unit_factory(&f[1], RTC_DRIVER_TYPE_OSC), RTC_OK);
    rtc_system_options so = {.has_stop = true, .stop_ns = INT64_C(1000000000)};
    int rc = rtc_system_load(path, f, 2, &so, rtc_events_logger(r->ev, "unit"), &r->sys);
    if (rc != RTC_OK)
        printf("\n    load failed: %s\n%s", rtc_strerror(rc), r->log.text);
    CU_ASSERT_EQUAL_FATAL(rc, RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_set_threads(r->sys, 80, -1), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(r->sys), RTC_OK);
    /* an exposed variable: the hook publishes its value and target after every step */
    static const char *const expose[] = {"op.sp:min=-10:max=10"};
    rtc_session_options sopt = {.dir = r->dir, .system_path = path, .expose = expose,
                                .n_expose = 1};
    rc = rtc_session_new(r->sys, &sopt, r->ev, &r->ses);
    if (rc != RTC_OK)
        printf("\n    session failed: %s\n%s", rtc_strerror(rc), r->log.text);
    CU_ASSERT_EQUAL_FATAL(rc, RTC_OK);
    rtc_exec_options o;
    rtc_exec_options_init(&o);
    o.rtf = 2;
    o.lg = rtc_events_logger(r->ev, "rt");
    o.hook = session_and_trace_hook;
    o.hook_user = r->ses;
    CU_ASSERT_EQUAL_FATAL(rtc_exec_new(r->sys, &o, &r->ex), RTC_OK);
    rtc_session_attach(r->ses, r->ex);
}

static void session_with_io_unit_is_clean(void)
{
    if (!trace_supported())
        rtc_test_skip("rt_hygiene syscall trace", "not x86-64 (the handler sets rax)");
    CU_ASSERT_EQUAL_FATAL(rtc_iodrivers_register(), RTC_OK);
    sender x = {.port = free_udp_port()};
    CU_ASSERT_FATAL(x.port > 0);
    static ses_run r; /* large: not on the stack */
    memset(&r, 0, sizeof r);
    arm_session(&r, x.port);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, send_main, &x), 0);
    trace_reset(false);
    atomic_store(&rt_mallocs, 0);
    atomic_store(&rt_frees, 0);
    CU_ASSERT_EQUAL(rtc_exec_run(r.ex), RTC_OK);
    atomic_store(&x.stop, true);
    pthread_join(th, NULL);
    rtc_exec_stats st;
    rtc_exec_stats_get(r.ex, &st);
    rtc_session_stats ss;
    rtc_session_close(r.ses, (int64_t)st.steps, &ss);
    printf("\n    %llu steps, %u datagrams sent, %llu inputs.bin records; run-phase threads: "
           "%lu mallocs, %lu frees; logger: %u lines, %u on the RT side",
           (unsigned long long)st.steps, atomic_load(&x.sent),
           (unsigned long long)ss.inputs_written, atomic_load(&rt_mallocs),
           atomic_load(&rt_frees), atomic_load(&r.log.lines), atomic_load(&r.log.on_rt));
    CU_ASSERT_EQUAL(st.steps, 100);
    CU_ASSERT(ss.inputs_written > 0); /* the tap ran: samples reached inputs.bin */
    CU_ASSERT_EQUAL(atomic_load(&rt_mallocs), 0);
    CU_ASSERT_EQUAL(atomic_load(&rt_frees), 0);
    CU_ASSERT_EQUAL(atomic_load(&r.log.on_rt), 0);
    CU_ASSERT(atomic_load(&r.log.fmu_lines) >= 2 * 100);
    if (trace_supported())
        assert_trace_clean();
    rtc_exec_free(r.ex);
    rtc_system_free(r.sys);
    rtc_events_close(r.ev);
    char ev_path[800];
    snprintf(ev_path, sizeof ev_path, "%s/events.log", r.dir);
    char *text = rtc_test_slurp(ev_path, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "f3 [logStatusWarning]: step 42 from t = "
                                                "0.420000 s: Fault logs every step (100%)"));
    free(text);
}

/* The text queue formats exactly like printf off the RT thread; what capture cannot take
 * safely shows "<?>"; a full queue is counted, never silent. */
static void rtlog_text_formats_like_printf(void)
{
    rlog log;
    rlog_init(&log);
    log.lg.max_level = RTC_LOG_DEBUG;
    rtc_rtlog *rl;
    CU_ASSERT_EQUAL_FATAL(rtc_rtlog_new(16, &log.lg, &rl), RTC_OK);
    rtc_rtlog_bind_thread(rl);
    unsigned char uc = 200;
    short sh = -3;
    size_t z = 123456789;
    const char *volatile nul = NULL; /* volatile: printed as "(null)" at run time */
    int dummy;
    rtc_log(&log.lg, RTC_LOG_INFO, "%d|%5.2f|%-6s|%zu|%lld|%#x|%c|%%|%*d|%.*s|%hhu|%hd|%s|%e",
            -42, 3.14159, "ab", z, (long long)INT64_MIN, 255u, 'Q', 4, 7, 3, "abcdef", uc, sh,
            nul, 1e-300);
    rtc_log(&log.lg, RTC_LOG_INFO, "n=%n after", &dummy);
#pragma GCC diagnostic push /* deliberately hostile formats, as an FMU may send them */
#pragma GCC diagnostic ignored "-Wformat"
    rtc_log(&log.lg, RTC_LOG_INFO, "pos %1$d then %d", 5, 6);
#pragma GCC diagnostic pop
    bool still_bound = rtc_rtlog_thread() == rl;
    unsigned before = atomic_load(&log.lines);
    rtc_rtlog_bind_thread(NULL);
    CU_ASSERT(still_bound);
    CU_ASSERT_EQUAL(before, 0); /* nothing formatted or delivered on the bound thread */
    rtc_rtlog_drain(rl);
    char want[512];
    snprintf(want, sizeof want, "%d|%5.2f|%-6s|%zu|%lld|%#x|%c|%%|%*d|%.*s|%hhu|%hd|%s|%e\n",
             -42, 3.14159, "ab", z, (long long)INT64_MIN, 255u, 'Q', 4, 7, 3, "abcdef", uc, sh,
             "(null)", 1e-300);
    CU_ASSERT_PTR_NOT_NULL(strstr(log.text, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(log.text, "n=<?> after\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(log.text, "pos <?> then <?>\n"));
    if (!strstr(log.text, want))
        printf("\n    got:\n%s    want:\n%s", log.text, want);
    /* a full queue: counted and reported */
    rtc_rtlog_bind_thread(rl);
    for (int i = 0; i < 300; i++)
        rtc_log(&log.lg, RTC_LOG_INFO, "flood %d", i);
    rtc_rtlog_bind_thread(NULL);
    CU_ASSERT(rtc_rtlog_dropped(rl) > 0);
    CU_ASSERT_EQUAL(rtc_rtlog_drain(rl) + rtc_rtlog_dropped(rl), 300);
    rtc_rtlog_report(rl);
    CU_ASSERT_PTR_NOT_NULL(strstr(log.text, "records lost"));
    rtc_rtlog_free(rl);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"rt_thread_allocates_nothing_and_takes_no_page_fault",
         rt_thread_allocates_nothing_and_takes_no_page_fault},
        {"me_unit_with_events_allocates_nothing", me_unit_with_events_allocates_nothing},
        {"rtlog_text_formats_like_printf", rtlog_text_formats_like_printf},
        {"run_phase_syscalls_are_sleeps_and_futex_only",
         run_phase_syscalls_are_sleeps_and_futex_only},
        {"syscall_trace_catches_a_write_on_the_rt_thread",
         syscall_trace_catches_a_write_on_the_rt_thread},
        {"fmus_logging_every_step_do_not_format_on_the_rt_side",
         fmus_logging_every_step_do_not_format_on_the_rt_side},
        {"session_with_io_unit_is_clean", session_with_io_unit_is_clean},
        {"lockstep_bridge_on_the_rt_thread_is_clean", lockstep_bridge_on_the_rt_thread_is_clean},
        {"realtime_bridge_on_the_rt_thread_is_clean", realtime_bridge_on_the_rt_thread_is_clean},
        {NULL, NULL}};
    rtc_test_add_suite("rt_hygiene", setup, teardown, cases);
}
