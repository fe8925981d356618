/*
 * The option tables of every sub-command (cli.h): one row per option with the kind and
 * range of its value, the inputs it applies to and its --help text. cli_args.c reads command
 * lines and prints --help from these rows; the commands only switch on the row's id. A new
 * option is a new row here (and a case in its command's switch).
 *
 * Words an option accepts come from the library that owns them (master algorithms, overrun
 * policies, Model Exchange solvers, operator capabilities), through the small adapters
 * below, so a master added to the library is a value of --algorithm without an edit here.
 */
#include "cli.h"

#include "rtcosim/exec.h"
#include "rtcosim/fmu.h"
#include "rtcosim/nonfinite.h"
#include "rtcosim/rt.h"
#include "rtcosim/session.h"
#include "rtcosim/ssp.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the words of the choices ---- */

/* @p n words of @p name(i) joined: "a, b or c" (sep ", ", last " or "). */
static const char *join(char *buf, size_t cap, const char *sep, const char *last, size_t n,
                        const char *(*name)(size_t))
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s",
                                i == 0 ? "" : i + 1 == n ? last : sep, name(i));
    return buf;
}

/* fn(buf, cap, sep, last): the @p n words name(0) .. name(n - 1) joined */
#define WORDS(fn, n, name)                                                                   \
    static const char *fn(char *buf, size_t cap, const char *sep, const char *last)         \
    {                                                                                        \
        return join(buf, cap, sep, last, (n), (name));                                      \
    }

static const char *master_name(size_t i) { return rtc_master_name((rtc_master)i); }
WORDS(algorithms, rtc_master_count(), master_name)
static int algorithm(const char *text, long *code)
{
    rtc_master m;
    int rc = rtc_master_parse(text, &m);
    *code = (long)m;
    return rc == RTC_OK ? 0 : -1;
}

/* the policies in the order the help explains them */
static const char *overrun_name(size_t i)
{
    static const rtc_exec_overrun order[] = {RTC_EXEC_CATCH_UP, RTC_EXEC_SKIP, RTC_EXEC_STOP,
                                             RTC_EXEC_SUBSTITUTE};
    return rtc_exec_overrun_name(order[i]);
}
WORDS(overruns, 4, overrun_name)
static int overrun(const char *text, long *code)
{
    rtc_exec_overrun p;
    int rc = rtc_exec_overrun_parse(text, &p);
    *code = (long)p;
    return rc == RTC_OK ? 0 : -1;
}

static const char *solver_name(size_t i) { return rtc_me_solver_name((rtc_me_solver)i); }
WORDS(solvers, RTC_ME_IMPLICIT + 1, solver_name)
/* The FMU host decides: the words are its rtc_fmu_unit_opt_set() keys' values. */
static int unit_word(const char *key, const char *text)
{
    rtc_fmu_unit_opts o = {0};
    char err[160];
    return rtc_fmu_unit_opt_set(&o, key, text, err, sizeof err) == RTC_OK ? 0 : -1;
}
static int solver(const char *text, long *code)
{
    *code = 0;
    return unit_word("solver", text);
}

static const char *iface_name(size_t i) { return (const char *[]){"auto", "cs", "me"}[i]; }
WORDS(interfaces, 3, iface_name)
static int interface(const char *text, long *code)
{
    *code = 0;
    return unit_word("interface", text);
}

static const char *event_mode_name(size_t i) { return (const char *[]){"auto", "on", "off"}[i]; }
WORDS(event_modes, 3, event_mode_name)
static int event_mode(const char *text, long *code)
{
    *code = 0;
    return unit_word("event_mode", text);
}

static const char *nonfinite_name(size_t i) { return i ? "stop" : "warn"; }
WORDS(nonfinites, 2, nonfinite_name)
static int nonfinite(const char *text, long *code)
{
    rtc_nonfinite_policy p;
    int rc = rtc_nonfinite_policy_parse(text, &p);
    *code = p == RTC_NONFINITE_STOP;
    return rc == RTC_OK ? 0 : -1;
}

static const char *write_error_name(size_t i) { return i ? "continue" : "stop"; }
WORDS(write_errors, 2, write_error_name)
static int write_error(const char *text, long *code)
{
    *code = !strcmp(text, "continue");
    return *code || !strcmp(text, "stop") ? 0 : -1;
}

static const char *capabilities(char *buf, size_t cap, const char *sep, const char *last)
{
    (void)sep, (void)last;
    snprintf(buf, cap, "a comma-separated list of set, pause, step, stop, mark, remote, "
             "all, none");
    return buf;
}
static int capability(const char *text, long *code)
{
    unsigned caps = 0;
    char err[256];
    int rc = rtc_session_caps_parse(text, &caps, err, sizeof err);
    *code = (long)caps;
    return rc == RTC_OK ? 0 : -1;
}

static const char *ipv4(const char *text)
{
    struct in_addr a;
    return inet_pton(AF_INET, text, &a) == 1 ? NULL : "not an IPv4 address";
}

/* An IPv4 or IPv6 address, as DDS names an interface or a peer. */
static bool ip_address(const char *text)
{
    unsigned char a[16];
    return inet_pton(AF_INET, text, a) == 1 || inet_pton(AF_INET6, text, a) == 1;
}

static const char *dds_address(const char *text)
{
    return ip_address(text) ? NULL : "not an IPv4 or IPv6 address";
}

static const char *dds_peers(const char *text)
{
    char copy[1024], *save = NULL;
    if (strlen(text) >= sizeof copy || text[0] == ',' || text[strlen(text) - 1] == ',' ||
        strstr(text, ",,"))
        return "not a comma-separated list of addresses";
    snprintf(copy, sizeof copy, "%s", text);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!ip_address(t))
            return "not a comma-separated list of IPv4 or IPv6 addresses";
    return NULL;
}

/* A session tag names the DDS discovery tag and partition: a plain word. */
static const char *session_tag(const char *text)
{
    if (strlen(text) > 64)
        return "a session tag has at most 64 characters";
    for (const char *p = text; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return "a session tag has only letters, digits, '_' and '-'";
    return NULL;
}

static const char *dcp_mode_name(size_t i) { return (const char *[]){"srt", "nrt", "both"}[i]; }
WORDS(dcp_modes, 3, dcp_mode_name)
static int dcp_mode(const char *text, long *code)
{
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(text, dcp_mode_name(i))) {
            *code = (long)i + 1; /* RTC_DCP_SLAVE_SRT, _NRT, both */
            return 0;
        }
    return -1;
}

static long last_cpu(void)
{
    return rtc_rt_cpu_count() - 1;
}

/* ---- the rows ---- */

#define FMU RTC_CLI_FOR_FMU
#define SYS RTC_CLI_FOR_SYSTEM
#define RT RTC_CLI_NEEDS_RT
#define OPEN RTC_CLI_LO_OPEN
#define CHOICE(f, l) .kind = RTC_CLI_CHOICE, .choose = (f), .choices = (l)

static const rtc_cli_opt common_rows[] = {
    {"quiet", 'q', RTC_CLI_QUIET, RTC_CLI_FLAG, .group = RTC_CLI_G_COMMON,
     .help = "no progress line or bar (the final one-line summary stays)"},
    {"verbose", 'v', RTC_CLI_VERBOSE, RTC_CLI_FLAG, .group = RTC_CLI_G_COMMON,
     .help = "progress information"},
    {"help", 'h', RTC_CLI_HELP, RTC_CLI_FLAG, .group = RTC_CLI_G_COMMON, .help = "this text"},
    {0}};

/* run, check and plan: one table; .kinds says which input each option is for. */
static const rtc_cli_opt run_rows[] = {
    /* every run */
    {"start", 0, RTC_CLI_START, RTC_CLI_TIME, .group = RTC_CLI_G_RUN, .meta = "T",
     .help = "start time in seconds"},
    {"stop", 0, RTC_CLI_STOP, RTC_CLI_TIME, .group = RTC_CLI_G_RUN, .meta = "T",
     .help = "stop time in seconds (not before the start)"},
    {"step", 0, RTC_CLI_STEP, RTC_CLI_TIME, .flags = OPEN, .group = RTC_CLI_G_RUN, .meta = "H",
     .help = "communication step in seconds (of every unit of a system), a whole\n"
             "number of nanoseconds"},
    {"set", 0, RTC_CLI_SET, RTC_CLI_ASSIGN, .group = RTC_CLI_G_RUN, .meta = "NAME=VALUE",
     .help = "set a parameter or input before initialization and again in\n"
             "Initialization Mode (repeatable): an FMU's variable (NAME may be an\n"
             "FMI 3 alias), a system's unit.variable or input connector (every\n"
             "component input it feeds); arrays: space-separated values;\n"
             "enumerations: number or item; binaries: hex digits"},
    {"record", 0, RTC_CLI_RECORD, RTC_CLI_TEXT, .group = RTC_CLI_G_RUN, .meta = "NAME",
     .help = "record this variable (repeatable; an FMU's variable, a system's\n"
             "unit.variable or connector; default: every output, or the system\n"
             "file's selection)"},
    {"decimation", 0, RTC_CLI_DECIMATION, RTC_CLI_INT, 1, 1000000000, .group = RTC_CLI_G_RUN,
     .meta = "N", .help = "record every N-th step (base tick) (default 1)"},
    {"output-dir", 0, RTC_CLI_OUTPUT_DIR, RTC_CLI_TEXT, .group = RTC_CLI_G_RUN, .meta = "DIR",
     .help = "where results.csv and summary.json go (and a real-time run's\n"
             "session files), created with its parents (default: .)"},
    {"on-nonfinite", 0, RTC_CLI_NONFINITE, CHOICE(nonfinite, nonfinites),
     .group = RTC_CLI_G_RUN, .meta = "P",
     .help = "{}: what an output or coupled signal that becomes NaN or Inf\n"
             "does (default warn: one line per variable, status\n"
             "completed-nonfinite, exit 0; stop: the run ends at that step,\n"
             "status failed, exit 1)"},
    {"on-write-error", 0, RTC_CLI_WRITE_ERROR, CHOICE(write_error, write_errors),
     .group = RTC_CLI_G_RUN, .meta = "P",
     .help = "{}: what a failed write of the recording (disk full, file\n"
             "too large, I/O error) does; stop (default) ends the run through the\n"
             "stop path, continue keeps running and loses rows; either way the\n"
             "error is reported at once and the exit status is 4"},
    {"fmu-logging", 0, RTC_CLI_FMU_LOGGING, RTC_CLI_FLAG, .group = RTC_CLI_G_RUN,
     .help = "turn on the FMUs' own debug logging"},
    {"fast", 0, RTC_CLI_FAST, RTC_CLI_FLAG, .group = RTC_CLI_G_RUN,
     .help = "as fast as possible (the default without --realtime)"},
    /* FMU runs */
    {"output", 'o', RTC_CLI_OUTPUT, RTC_CLI_TEXT, .kinds = FMU, .group = RTC_CLI_G_FMU,
     .meta = "FILE",
     .help = "result file (default results.csv; '-' for standard output); not\n"
             "with --output-dir or --realtime (their results are DIR/results.csv)"},
    {"no-output", 0, RTC_CLI_NO_OUTPUT, RTC_CLI_FLAG, .kinds = FMU, .group = RTC_CLI_G_FMU,
     .help = "write no result file"},
    {"summary", 0, RTC_CLI_SUMMARY, RTC_CLI_TEXT, .kinds = FMU, .group = RTC_CLI_G_FMU,
     .meta = "FILE",
     .help = "how the run ended, as JSON (default: summary.json beside the\n"
             "result file; none with '-o -', --no-output, or a result file that\n"
             "is a device or a pipe, e.g. -o /dev/null)"},
    {"interface", 0, RTC_CLI_INTERFACE, CHOICE(interface, interfaces), .kinds = FMU,
     .group = RTC_CLI_G_FMU, .meta = "I",
     .help = "{}: the FMU's Co-Simulation or Model Exchange\n"
             "interface (default auto: Co-Simulation when the FMU has it)"},
    {"solver", 0, RTC_CLI_SOLVER, CHOICE(solver, solvers), .kinds = FMU,
     .group = RTC_CLI_G_FMU, .meta = "S",
     .help = "Model Exchange solver: {} (linearly\n"
             "implicit Euler for stiff models; default rk4)"},
    {"substeps", 0, RTC_CLI_SUBSTEPS, RTC_CLI_INT, 1, RTC_ME_MAX_SUBSTEPS, .kinds = FMU,
     .group = RTC_CLI_G_FMU, .meta = "N",
     .help = "Model Exchange: fixed solver steps per communication step\n"
             "(default 1); time and state events are located inside them"},
    {"event-mode", 0, RTC_CLI_EVENT_MODE, CHOICE(event_mode, event_modes), .kinds = FMU,
     .group = RTC_CLI_G_FMU, .meta = "M",
     .help = "{}: FMI 3 Co-Simulation Event Mode (on: the engine\n"
             "handles the events fmi3DoStep reports, counted; default auto: only\n"
             "for an FMU with clocks, else the FMU handles them itself; a system's\n"
             "components: rtc:Component event_mode=)"},
    /* system runs */
    {"algorithm", 0, RTC_CLI_ALGORITHM, CHOICE(algorithm, algorithms), .kinds = SYS,
     .group = RTC_CLI_G_SYSTEM, .meta = "A",
     .help = "{}\n(default: the file's, else jacobi)"},
    {"sync-step", 0, RTC_CLI_SYNC_STEP, RTC_CLI_TIME, .flags = OPEN, .kinds = SYS,
     .group = RTC_CLI_G_SYSTEM, .meta = "H", .help = "Parallel Fast synchronization step, seconds"},
    {"workers", 0, RTC_CLI_WORKERS, RTC_CLI_INT, 0, 256, .kinds = SYS,
     .group = RTC_CLI_G_SYSTEM, .meta = "N",
     .help = "jacobi: step the units on N extra threads in parallel (every\n"
             "FMU instance is always called from the same thread)"},
    {"iterate", 0, RTC_CLI_ITERATE, RTC_CLI_FLAG, .kinds = SYS, .group = RTC_CLI_G_SYSTEM,
     .help = "strong coupling: iterate algebraic loops to a fixed point"},
    {"tolerance", 0, RTC_CLI_TOLERANCE, RTC_CLI_REAL, 0, 1, OPEN, SYS, RTC_CLI_G_SYSTEM, "X",
     .help = "relative convergence tolerance of --iterate (default 1e-10)"},
    {"max-iterations", 0, RTC_CLI_MAX_ITERATIONS, RTC_CLI_INT, 1, 1000000, .kinds = SYS,
     .group = RTC_CLI_G_SYSTEM, .meta = "N",
     .help = "iteration cap per step of --iterate (default 50)"},
    /* distributed runs */
    {"node", 0, RTC_CLI_NODE, RTC_CLI_TEXT, .kinds = SYS, .group = RTC_CLI_G_NODE,
     .meta = "NAME", .check = rtc_ssp_node_name_check,
     .help = "run node NAME's components (and a bridge to every other node)"},
    {"place", 0, RTC_CLI_PLACE, RTC_CLI_ASSIGN, .kinds = SYS, .group = RTC_CLI_G_NODE,
     .meta = "C=NODE",
     .help = "place component C on NODE (repeatable; wins over the file's\n"
             "rtc:Component node=\"...\")"},
    {"session", 0, RTC_CLI_SESSION_TAG, RTC_CLI_TEXT, .kinds = SYS, .group = RTC_CLI_G_NODE,
     .meta = "TAG", .check = session_tag,
     .help = "session tag: nodes of different sessions never meet (default\n"
             "rtcosim)"},
    {"dds-domain", 0, RTC_CLI_DDS_DOMAIN, RTC_CLI_INT, 0, 230, .kinds = SYS,
     .group = RTC_CLI_G_NODE, .meta = "N", .help = "DDS domain id (default 0)"},
    {"join-timeout", 0, RTC_CLI_JOIN_TIMEOUT, RTC_CLI_REAL, 0.001, 86400, .kinds = SYS,
     .group = RTC_CLI_G_NODE, .meta = "S",
     .help = "how long a node waits for the others to start, seconds\n"
             "(default 30)"},
    {"dds-address", 0, RTC_CLI_DDS_ADDRESS, RTC_CLI_TEXT, .kinds = SYS,
     .group = RTC_CLI_G_NODE, .meta = "A", .check = dds_address,
     .help = "across machines: this node's network interface address\n"
             "(default: loopback only, or CYCLONEDDS_URI when it is set)"},
    {"dds-peers", 0, RTC_CLI_DDS_PEERS, RTC_CLI_TEXT, .kinds = SYS, .group = RTC_CLI_G_NODE,
     .meta = "A,B,...", .check = dds_peers,
     .help = "the other nodes' addresses (unicast discovery, no multicast)"},
    {"bridge", 0, RTC_CLI_BRIDGE, RTC_CLI_ASSIGN, .kinds = SYS, .group = RTC_CLI_G_NODE,
     .meta = "NODE:KEY=V",
     .help = "a key of this node's bridge to NODE (repeatable): on_loss,\n"
             "loss_ms, emulate_delay_ms, emulate_jitter_ms, emulate_loss,\n"
             "emulate_seed (README \"Distributed runs\")"},
    {"clock-offset-max", 0, RTC_CLI_CLOCK_MAX, RTC_CLI_REAL, 0.001, 3600000, RT, .kinds = SYS,
     .group = RTC_CLI_G_NODE, .meta = "MS",
     .help = "refuse to start when this node's clock is further than MS\n"
             "from the leader's (default 10; a tenth of it warns)"},
    /* real time */
    {"realtime", 0, RTC_CLI_REALTIME, RTC_CLI_FACTOR, .group = RTC_CLI_G_RT, .meta = "[RTF]",
     .help = "pace the run against the wall clock (SCHED_FIFO thread), RTF\n"
             "simulated seconds per wall second (default 1); DIR also gets\n"
             "timing.json, histogram.txt (cyclictest -h layout), latency.csv"},
    {"priority", 0, RTC_CLI_PRIORITY, RTC_CLI_INT, 0, 99, RT, .group = RTC_CLI_G_RT,
     .meta = "N",
     .help = "SCHED_FIFO priority 1..99 of the RT thread (default 80; 0:\n"
             "SCHED_OTHER); refused without privileges: one warning, SCHED_OTHER"},
    {"cpu", 0, RTC_CLI_CPU, RTC_CLI_INT, 0, 0, RT, .group = RTC_CLI_G_RT, .meta = "N",
     .help = "pin the RT thread to CPU N (one of this machine's)", .hi_fn = last_cpu},
    {"spin-us", 0, RTC_CLI_SPIN_US, RTC_CLI_INT, 0, 1000000, RT, .group = RTC_CLI_G_RT,
     .meta = "N", .help = "busy-wait the last N us before each deadline (default 0)"},
    {"overrun", 0, RTC_CLI_OVERRUN, CHOICE(overrun, overruns), .flags = RT,
     .group = RTC_CLI_G_RT, .meta = "P",
     .help = "{} (substitute: late units keep\n"
             "running on their own thread, their outputs extrapolated meanwhile):\n"
             "what a step finishing after the next deadline does (default\n"
             "catch-up)"},
    {"max-overruns", 0, RTC_CLI_MAX_OVERRUNS, RTC_CLI_INT, 1, 1000000, RT,
     .group = RTC_CLI_G_RT, .meta = "N",
     .help = "stop policy: consecutive overruns that stop the run (default 3)"},
    {"watchdog-ms", 0, RTC_CLI_WATCHDOG_MS, RTC_CLI_INT, 0, 3600000, RT, .group = RTC_CLI_G_RT,
     .meta = "N",
     .help = "exit (status 3) with the safe state applied when one tick takes\n"
             "longer than N ms (e.g. an FMU call that hangs); default\n"
             "max(1000, 100 periods) ms, 0: off"},
    {"test-safe-file", 0, RTC_CLI_SAFE_FILE, RTC_CLI_TEXT, .flags = RT, .group = RTC_CLI_G_RT,
     .meta = "F", .help = "testing: the safe-state callback writes F on every stop"},
    {"force", 0, RTC_CLI_FORCE, RTC_CLI_FLAG, .flags = RT, .group = RTC_CLI_G_RT,
     .help = "arm even a system the feasibility check finds infeasible (its\n"
             "verdict and options become warnings)"},
    {"plan", 0, RTC_CLI_PLAN, RTC_CLI_TEXT, .flags = RT, .group = RTC_CLI_G_RT, .meta = "FILE",
     .help = "judge with this plan.json ('rtcosim plan --realtime'), not the\n"
             "cached plan or a quick profile"},
    {"reprofile", 0, RTC_CLI_REPROFILE, RTC_CLI_FLAG, .flags = RT, .group = RTC_CLI_G_RT,
     .help = "profile again before arming (plan: measure again), whatever the\n"
             "cache holds"},
    /* operator session */
    {"expose", 0, RTC_CLI_EXPOSE, RTC_CLI_TEXT, .flags = RT, .group = RTC_CLI_G_SESSION,
     .meta = "NAME[:OPT]",
     .help = "let the operator set this variable (repeatable; also\n"
             "rtc:RealTime expose=); OPT: min=X, max=X (clamp), rate=R\n"
             "(units per second), safe=X (dead-man value), ':'-separated"},
    {"control-port", 0, RTC_CLI_CONTROL_PORT, RTC_CLI_INT, 0, 65535, RT,
     .group = RTC_CLI_G_SESSION, .meta = "N",
     .help = "OSC control surface on UDP 127.0.0.1:N (0: ephemeral, printed):\n"
             "/rtcosim/pause, resume, step, stop, set, get, subscribe,\n"
             "unsubscribe, status, mark (see the README)"},
    {"control-allow", 0, RTC_CLI_CONTROL_ALLOW, CHOICE(capability, capabilities), .flags = RT,
     .group = RTC_CLI_G_SESSION, .meta = "LIST",
     .help = "what the control surface may do beyond reading, comma-\n"
             "separated: set, pause (and resume), step, stop, mark, remote\n"
             "(other hosts: binds 0.0.0.0; needs --control-token), all (the\n"
             "first five), none; default: set,stop,mark with I/O components (a\n"
             "bench is not paused or stepped unless allowed), else all"},
    {"control-token", 0, RTC_CLI_CONTROL_TOKEN, RTC_CLI_TEXT, .flags = RT,
     .group = RTC_CLI_G_SESSION, .meta = "FILE",
     .help = "every control message must start with the secret in FILE (a\n"
             "string argument; 16..255 bytes); FILE must not be readable by\n"
             "other users"},
    {"deadman-ms", 0, RTC_CLI_DEADMAN_MS, RTC_CLI_INT, 1, 3600000, RT,
     .group = RTC_CLI_G_SESSION, .meta = "N",
     .help = "when the control surface is silent N ms, exposed variables\n"
             "with a safe value fall back to it (logged)"},
    {"http", 0, RTC_CLI_HTTP, RTC_CLI_INT, 0, 65535, RT, .group = RTC_CLI_G_SESSION,
     .meta = "PORT",
     .help = "browser operator panel on http://127.0.0.1:PORT/ (0: ephemeral,\n"
             "printed): live plots, status, I/O health, events, controls;\n"
             "its commands obey --control-allow like OSC's"},
    {"http-address", 0, RTC_CLI_HTTP_ADDRESS, RTC_CLI_TEXT, .flags = RT,
     .group = RTC_CLI_G_SESSION, .meta = "ADDR", .check = ipv4,
     .help = "bind the panel to IPv4 ADDR instead (needs --http-token)"},
    {"http-token", 0, RTC_CLI_HTTP_TOKEN, RTC_CLI_TEXT, .flags = RT,
     .group = RTC_CLI_G_SESSION, .meta = "FILE",
     .help = "every panel request must carry the secret in FILE (open\n"
             "http://HOST:PORT/?token=SECRET; 16..255 bytes); FILE not\n"
             "readable by others"},
    {"dcp-port", 0, RTC_CLI_DCP_PORT, RTC_CLI_INT, 0, 65535, RT, .group = RTC_CLI_G_SESSION,
     .meta = "PORT",
     .help = "the session is a DCP 1.0 slave on UDP PORT (0: ephemeral,\n"
             "printed): exposed variables are its inputs, recorded columns\n"
             "its outputs (rtcosim dcp-slave implies it)"},
    {"dcp-host", 0, RTC_CLI_DCP_HOST, RTC_CLI_TEXT, .flags = RT, .group = RTC_CLI_G_SESSION,
     .meta = "ADDR", .check = ipv4,
     .help = "bind the DCP slave to IPv4 ADDR (default 127.0.0.1)"},
    {"dcp-op-mode", 0, RTC_CLI_DCP_OP_MODE, CHOICE(dcp_mode, dcp_modes), .flags = RT,
     .group = RTC_CLI_G_SESSION, .meta = "M",
     .help = "{}: the op modes the slave offers (default: srt, and nrt\n"
             "without I/O components); nrt: paused, stepped by STC_do_step"},
    {"dcpx", 0, RTC_CLI_DCPX, RTC_CLI_TEXT, .flags = RT, .group = RTC_CLI_G_SESSION,
     .meta = "FILE",
     .help = "write the slave description there (default DIR/slave.dcpx)"},
    {"dcp-heartbeat-ms", 0, RTC_CLI_DCP_HEARTBEAT_MS, RTC_CLI_INT, 0, 3600000, RT,
     .group = RTC_CLI_G_SESSION, .meta = "N",
     .help = "a master silent N ms (no INF_state nor other request) is lost:\n"
             "safe values, run stopped (default 3000; 0: not watched)"},
    {0}};

static const rtc_cli_opt plan_rows[] = {
    {"candidates", 0, RTC_CLI_CANDIDATES, RTC_CLI_TIMES, .meta = "LIST",
     .help = "comma-separated H values in seconds (default: a grid derived\n"
             "from the units' steps)"},
    {"rtf", 0, RTC_CLI_RTF, RTC_CLI_REALS, 1e-9, 1e9, .meta = "LIST",
     .help = "comma-separated real-time factors d_i of the units, in order\n"
             "(wall seconds per simulated second; default: measured here)"},
    {"receiver", 0, RTC_CLI_RECEIVER, RTC_CLI_FLAG,
     .help = "evaluate Q from the receiver's perspective"},
    {"ticks", 0, RTC_CLI_TICKS, RTC_CLI_INT, 10, 10000000, .meta = "N",
     .help = "ticks to profile (default 3000)"},
    {"seconds", 0, RTC_CLI_SECONDS, RTC_CLI_REAL, 0.1, 3600, .meta = "S",
     .help = "wall-time budget of the profile (default 6)"},
    {"percentile", 0, RTC_CLI_PERCENTILE, RTC_CLI_REAL, 50, 99.9999, .meta = "P",
     .help = "judge at this percentile, e.g. 99 or 99.9 (default 99.9)"},
    {"margin", 0, RTC_CLI_MARGIN, RTC_CLI_REAL, 1, 99, .meta = "PCT",
     .help = "headroom below which a plan is tight (default 20)"},
    {"inputs", 0, RTC_CLI_INPUTS, RTC_CLI_TEXT, .meta = "SESSION",
     .help = "feed the I/O units a recorded session's inputs (inputs.bin)"},
    {"nodes", 0, RTC_CLI_NODES, RTC_CLI_TEXT, .kinds = SYS, .meta = "LIST",
     .help = "with --realtime: propose a placement of the components on\n"
             "these nodes (comma-separated names) that fits every node's\n"
             "period and cuts the fewest connections, as --place options"},
    {"place", 0, RTC_CLI_PIN, RTC_CLI_ASSIGN, .kinds = SYS, .meta = "C=NODE",
     .help = "keep component C on NODE in that placement (repeatable; e.g.\n"
             "an I/O component on the node wired to its bench)"},
    {0}};

static const rtc_cli_opt info_rows[] = {
    {"place", 0, RTC_CLI_PLACE, RTC_CLI_ASSIGN, .meta = "C=NODE",
     .help = "place component C on NODE (repeatable; over the file's): list\n"
             "the nodes and the connections between them"},
    {"units", 0, RTC_CLI_UNITS, RTC_CLI_FLAG,
     .help = "only \"name<TAB>unit\" per variable, as results.csv names them\n"
             "(rtcosim plot reads it)"},
    {"samples", 0, RTC_CLI_SAMPLES, RTC_CLI_FLAG,
     .help = "the argument is a real-time session (its folder or inputs.bin):\n"
             "print every bench sample it consumed, one line each, tab-\n"
             "separated: I/O signal, step k that consumed it, the time the value\n"
             "was true and its arrival (s, on the run's time axis), the value"},
    {"verbose", 'v', RTC_CLI_VERBOSE, RTC_CLI_FLAG,
     .help = "also print warnings about the modelDescription as info"},
    {"help", 'h', RTC_CLI_HELP, RTC_CLI_FLAG, .help = "this text"},
    {0}};

static const rtc_cli_opt replay_rows[] = {
    {"output-dir", 0, RTC_CLI_OUTPUT_DIR, RTC_CLI_TEXT, .meta = "DIR",
     .help = "where the replay's results.csv goes, created with its parents\n"
             "(default SESSION_DIR/replay)"},
    {"verbose", 'v', RTC_CLI_VERBOSE, RTC_CLI_FLAG, .help = "progress information"},
    {"help", 'h', RTC_CLI_HELP, RTC_CLI_FLAG, .help = "this text"},
    {0}};

static const rtc_cli_opt bench_rows[] = {
    {"period", 0, RTC_CLI_PERIOD, RTC_CLI_INT, 10, 10000000, .meta = "US",
     .help = "loop period in microseconds (default 1000; with --system it\n"
             "becomes the step of every unit without its own)"},
    {"duration", 0, RTC_CLI_DURATION, RTC_CLI_INT, 1, 86400, .meta = "S",
     .help = "seconds per side (default 10)"},
    {"system", 0, RTC_CLI_SYSTEM, RTC_CLI_TEXT, .meta = "FILE",
     .help = "step this system (.ssd/.ssp) instead of the bare loop"},
    {"priority", 0, RTC_CLI_PRIORITY, RTC_CLI_INT, 0, 99, .meta = "N",
     .help = "SCHED_FIFO priority (default 80)"},
    {"cpu", 0, RTC_CLI_CPU, RTC_CLI_INT, 0, 0, .meta = "N", .hi_fn = last_cpu,
     .help = "CPU of the measuring thread (default: the last CPU)"},
    {"spin-us", 0, RTC_CLI_SPIN_US, RTC_CLI_INT, 0, 1000000, .meta = "N",
     .help = "busy-wait the last N us before each deadline (default 0)"},
    {"load", 0, RTC_CLI_LOAD, RTC_CLI_FLAG,
     .help = "spin a CPU hog on every other CPU during the benchmark"},
    {"compare-cyclictest", 0, RTC_CLI_COMPARE, RTC_CLI_FLAG,
     .help = "alternate runs with 'cyclictest -m -q -p PRIO -i US -D S -a CPU\n"
             "-h 10000' and print both sides and the ratios, and rtcosim's\n"
             "overruns against cyclictest's wake-ups later than the period\n"
             "less rtcosim's median step (the rate holds when the first\n"
             "share is at most the second)"},
    {"rounds", 0, RTC_CLI_ROUNDS, RTC_CLI_INT, 1, 1000, .meta = "N",
     .help = "alternations when comparing (default 2; each run: S/N s)"},
    {"output-dir", 0, RTC_CLI_OUTPUT_DIR, RTC_CLI_TEXT, .meta = "DIR",
     .help = "histogram.txt and latency.csv of rtcosim over every round\n"
             "(what the table covers), timing.json of its last round;\n"
             "cyclictest-histogram.txt (every round) and compare.txt when\n"
             "comparing; created with its parents; rtcosim plot DIR draws them"},
    {"verbose", 'v', RTC_CLI_VERBOSE, RTC_CLI_FLAG, .help = "progress information"},
    {"help", 'h', RTC_CLI_HELP, RTC_CLI_FLAG, .help = "this text"},
    {0}};

static const rtc_cli_opt tune_rows[] = {
    {"all", 0, RTC_CLI_ALL, RTC_CLI_FLAG, .help = "every candidate in the tables"},
    {"verbose", 'v', RTC_CLI_VERBOSE, RTC_CLI_FLAG, .help = "progress information"},
    {"help", 'h', RTC_CLI_HELP, RTC_CLI_FLAG, .help = "this text"},
    {0}};

static const char *format_name(size_t i) { return i ? "svg" : "png"; }
WORDS(formats, 2, format_name)
static int format(const char *text, long *code)
{
    *code = !strcmp(text, "svg");
    return *code || !strcmp(text, "png") ? 0 : -1;
}

/* plot: checked here, drawn by the rtcosim-plot script (cmd_plot.c), which reads them too */
static const rtc_cli_opt plot_rows[] = {
    {"signals", 0, RTC_CLI_SIGNALS, RTC_CLI_TEXT, .meta = "A,B,...",
     .help = "the columns of signals.png (default: every column, at most 12)"},
    {"output", 0, RTC_CLI_PLOT_OUTPUT, RTC_CLI_TEXT, .meta = "FILE",
     .help = "write only the signals plot, to FILE"},
    {"system", 0, RTC_CLI_SYSTEM, RTC_CLI_TEXT, .meta = "FILE",
     .help = "the system or FMU whose units label the axes (default: the\n"
             "session's, or summary.json's)"},
    {"format", 0, RTC_CLI_FORMAT, CHOICE(format, formats), .meta = "F",
     .help = "{}: the files' format (default png)"},
    {"help", 'h', RTC_CLI_HELP, RTC_CLI_FLAG, .help = "this text"},
    {0}};

static const rtc_cli_opt merge_rows[] = {
    {"output", 'o', RTC_CLI_MERGE_OUTPUT, RTC_CLI_TEXT, .meta = "FILE",
     .help = "the merged file (default results.csv; '-' for standard output)"},
    {"help", 'h', RTC_CLI_HELP, RTC_CLI_FLAG, .help = "this text"},
    {0}};

static const rtc_cli_opt *const run_tables[] = {run_rows, common_rows, NULL};
static const rtc_cli_opt *const plan_tables[] = {plan_rows, run_rows, common_rows, NULL};
static const rtc_cli_opt *const info_tables[] = {info_rows, NULL};
static const rtc_cli_opt *const replay_tables[] = {replay_rows, NULL};
static const rtc_cli_opt *const bench_tables[] = {bench_rows, NULL};
static const rtc_cli_opt *const tune_tables[] = {tune_rows, NULL};
static const rtc_cli_opt *const plot_tables[] = {plot_rows, NULL};
static const rtc_cli_opt *const merge_tables[] = {merge_rows, NULL};

const rtc_cli_command rtc_cli_commands[] = {
    {"run", run_tables, RTC_CLI_FOR_ANY, 1, NULL},
    {"check", run_tables, RTC_CLI_FOR_ANY, 1, NULL},
    {"dcp-slave", run_tables, RTC_CLI_FOR_ANY, 1, NULL},
    {"plan", plan_tables, RTC_CLI_FOR_ANY, 1, NULL},
    {"info", info_tables, RTC_CLI_FOR_ANY, 1, NULL},
    {"replay", replay_tables, 0, 1, "a SESSION_DIR"},
    {"tune", tune_tables, 0, 1, "a SESSION_DIR"},
    {"bench", bench_tables, 0, 0, NULL},
    {"plot", plot_tables, 0, 1, "a DIR or a results.csv"},
    {"merge", merge_tables, 0, -1, "the output directories of the nodes"},
    {NULL, NULL, 0, 0, NULL}};

const rtc_cli_command *rtc_cli_command_find(const char *name)
{
    for (const rtc_cli_command *c = rtc_cli_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}
