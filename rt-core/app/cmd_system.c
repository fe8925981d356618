/*
 * Commands on systems (SSP files, or a single FMU treated as a system of one unit):
 *   rtcosim run SYSTEM    as fast as possible, results.csv + summary.json in a directory
 *   rtcosim check SYSTEM  load and validate, print every problem with file:line
 *   rtcosim plan SYSTEM   Parallel Fast planning: Ê(H), D̂(H) and the recommended H*
 */
#include "cli.h"
#include "cli_nodes.h"
#include "rt_cli.h"
#include "summary.h"

#include "rtcosim/csv.h"
#include "rtcosim/archive.h"
#include "rtcosim/assemble.h"
#include "rtcosim/numparse.h"
#include "rtcosim/ofile.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/pfast.h"
#include "rtcosim/placement.h"
#include "rtcosim/recorder.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char run_usage[] =
    "usage: rtcosim run [options] FMU\n"
    "       rtcosim run [options] SYSTEM   (SSP: .ssd, .ssp, a folder with SystemStructure.ssd)\n"
    "       rtcosim run [options] SYSTEM --realtime [RTF]\n"
    "\n";

static const char run_help[] =
    "System options (rtcosim run [options] SYSTEM): run a system of FMUs and I/O\n"
    "components described in SSP (.ssd, .ssp) as fast as possible with a master algorithm\n"
    "and write DIR/results.csv (one row per base tick, \"unit.variable\" columns) and\n"
"DIR/summary.json.\n";

/* the options after --algorithm, whose values come from the library (algorithm_list) */
static const char run_help_options[] =
    "  --step H             communication step of every unit, seconds\n"
    "  --sync-step H        Parallel Fast synchronization step, seconds\n"
    "  --start T --stop T   times in seconds (default: DefaultExperiment)\n"
    "  --workers N          jacobi: step the units on N extra threads in parallel (every\n"
    "                       FMU instance is always called from the same thread)\n"
    "  --iterate            strong coupling: iterate algebraic loops to a fixed point\n"
    "  --tolerance X        relative convergence tolerance of --iterate (default 1e-10)\n"
    "  --max-iterations N   iteration cap per step of --iterate (default 50)\n"
    "  --set NAME=VALUE     set unit.variable, or an input connector of the top-level\n"
    "                       system (every component input it feeds), before initialization,\n"
    "                       over the file's parameter values (repeatable)\n"
    "  --record NAME        record unit.variable or a connector of the top-level system\n"
    "                       (repeatable; default: the file's selection, else every output\n"
    "                       and every output connector of the top-level system)\n"
    "  --decimation N       record every N-th base tick (default 1)\n"
    "  --output-dir DIR     where results.csv and summary.json go (default: .)\n"
    "  --on-nonfinite P     warn | stop: what a unit output or coupled signal that becomes\n"
    "                       NaN or Inf does (default warn: one line per variable, status\n"
    "                       completed-nonfinite, exit 0; stop: the run ends at that step,\n"
    "                       status failed, exit 1)\n"
    "  --fast               as fast as possible (the default)\n"
    "Distributed runs (README \"Distributed runs\"): every process runs the same SYSTEM\n"
    "file with the same placement, one node each; without --realtime the nodes step in\n"
    "lock-step and DIR/results.csv holds the node's columns of the one-process run's\n"
    "('rtcosim merge' puts them together):\n"
    "  --node NAME          run node NAME's components (and a bridge to every other node)\n"
    "  --place C=NODE       place component C on NODE (repeatable; wins over the file's\n"
    "                       rtc:Component node=\"...\")\n"
    "  --session TAG        session tag: nodes of different sessions never meet (default\n"
    "                       rtcosim)\n"
    "  --dds-domain N       DDS domain id 0..230 (default 0)\n"
    "  --join-timeout S     how long a node waits for the others to start (default 30)\n"
    "  --dds-address A      across machines: this node's network interface address\n"
    "                       (default: loopback only, or CYCLONEDDS_URI when it is set)\n"
    "  --dds-peers A,B,...  the other nodes' addresses (unicast discovery, no multicast)\n"
    "  --bridge NODE:KEY=V  a key of this node's bridge to NODE (repeatable): on_loss,\n"
    "                       loss_ms, emulate_delay_ms, emulate_jitter_ms, emulate_loss,\n"
    "                       emulate_seed (README \"Distributed runs\")\n"
    "  --clock-offset-max MS  with --realtime: refuse to start when this node's clock is\n"
    "                       further than MS from the leader's (default 10; a tenth warns)\n";

static const char run_common_help[] =
    "Common options:\n"
    "  -q, --quiet          no progress line or bar (the final one-line summary stays)\n"
    "  -v, --verbose        progress information\n"
    "  -h, --help           this text\n"
    "Progress: on a terminal, a real-time run shows a status line and a fast run longer\n"
    "than a second a progress bar with rate and ETA (stderr; none with -q or when stderr\n"
    "is not a terminal); every run ends with one line on stderr: where the results are,\n"
    "how many rows, how it ended.\n"
    "SIGINT/SIGTERM/SIGHUP stop at the next step: complete rows only, summary.json status\n"
    "\"stopped\", exit status 130/143/129 (without --realtime a second signal ends the\n"
    "process at once; SIGHUP ignored from the start, as under nohup, stays ignored).\n"
    "Exit status: 0 on success (also when a unit ends the simulation itself, even at its\n"
    "initial event, and with non-finite values under --on-nonfinite warn), 1 on error,\n"
    "2 on a usage error, 3 watchdog, 4 when a result file could not be written (disk full,\n"
    "a file-size limit such as ulimit -f, a closed output pipe), 129/130/143 when stopped\n"
    "by SIGHUP/SIGINT/SIGTERM (see the README's table).\n";

/* The master algorithms the library has: "jacobi | gauss-seidel | parallel-fast" with
 * @p sep " | ", or "jacobi, gauss-seidel or parallel-fast" with ", " and @p last " or ". */
static const char *algorithm_list(char *buf, size_t cap, const char *sep, const char *last)
{
    size_t n = rtc_master_count(), len = 0;
    buf[0] = '\0';
    for (size_t m = 0; m < n && len < cap; m++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s",
                                m == 0 ? "" : m + 1 == n ? last : sep,
                                rtc_master_name((rtc_master)m));
    return buf;
}

void rtc_cli_run_help(void)
{
    char algos[256];
    fputs(run_usage, stdout);
    fputs(rtc_cli_fmu_help, stdout);
    fputs("\n", stdout);
    fputs(run_help, stdout);
    printf("  --algorithm A        %s\n"
           "                       (default: the file's, else %s)\n",
           algorithm_list(algos, sizeof algos, " | ", " | "), rtc_master_name(RTC_MASTER_JACOBI));
    fputs(run_help_options, stdout);
    fputs("\nReal-time options (rtcosim run [options] SYSTEM --realtime):\n", stdout);
    fputs(rtc_cli_rt_help, stdout);
    fputs("\nOperator session options (with --realtime; DIR also gets events.log, inputs.bin,\n"
          "a copy of the system, fmus.sha256 and session.conf; 'rtcosim replay DIR' re-runs\n"
          "it offline):\n", stdout);
    fputs(rtc_cli_session_help, stdout);
    fputs("\n", stdout);
    fputs(rtc_cli_on_write_error_help, stdout);
    fputs(run_common_help, stdout);
}

typedef struct sys_opts {
    rtc_system_options so;
    const char *path, *dir;
    const char **records;
    size_t n_records;
    const char **sets; /* --set, handed to the system as so.sets */
    long decimation;
    bool write_continue; /* --on-write-error continue */
    bool started;        /* the stepping began: the run ends with its final line */
    unsigned long long rows, lost; /* rows written and lost, for the final line */
    bool summary_saved;  /* summary.json was written: the final line may name it */
    rtc_cli_rt rt; /* --realtime and its options (cmd_rt.c) */
    rtc_placement_opts place; /* --node, --place, --session, --dds-domain, --join-timeout */
    const char **places;
    rtc_partition *part; /* a node's run: the partition it belongs to */
    const char **bridge_sets; /* --bridge */
    double clock_max_ms;      /* --clock-offset-max */
    rtc_cli_nodes nodes;      /* a node of a real-time distributed run */
} sys_opts;

enum { O_ALGO = 300, O_STEP, O_SYNC, O_START, O_STOP, O_ITER, O_TOL, O_MAXIT, O_RECORD, O_DEC,
       O_DIR, O_FAST, O_WORKERS, O_NONFINITE, O_ON_WRITE_ERROR, O_SET, O_NODE, O_PLACE,
       O_SESSION, O_DOMAIN, O_JOIN, O_DDS_ADDR, O_DDS_PEERS, O_BRIDGE, O_CLOCK_MAX };

static int time_opt(const char *name, const char *text, int64_t *ns)
{
    int rc = rtc_parse_seconds(text, ns);
    if (rc != RTC_OK)
        return rtc_cli_usage_error("run", "--%s %s: %s", name, text,
                                   rc == RTC_ETIME ? "not a whole number of nanoseconds"
                                                   : "not a number of seconds");
    return RTC_EXIT_OK;
}

static int nonfinite_opt(const char *cmd, const char *arg, rtc_cli_rt *rt)
{
    rtc_nonfinite_policy p = RTC_NONFINITE_WARN;
    if (rtc_nonfinite_policy_parse(arg, &p) != RTC_OK)
        return rtc_cli_usage_error(cmd, "--on-nonfinite %s: expected warn or stop", arg);
    rt->stop_on_nonfinite = p == RTC_NONFINITE_STOP;
    return RTC_EXIT_OK;
}

/* Append a repeatable option's argument (--record, --set) to its list. */
static int push_arg(const char ***list, size_t *n, const char *arg)
{
    const char **r = realloc(*list, (*n + 1) * sizeof *r);
    if (!r)
        return RTC_ENOMEM;
    *list = r;
    r[(*n)++] = arg;
    return RTC_OK;
}

static int parse_sys_args(int argc, char **argv, sys_opts *o, const char *cmd)
{
    static const struct option base[] = {
        {"algorithm", required_argument, NULL, O_ALGO}, {"step", required_argument, NULL, O_STEP},
        {"sync-step", required_argument, NULL, O_SYNC}, {"start", required_argument, NULL, O_START},
        {"stop", required_argument, NULL, O_STOP},      {"iterate", no_argument, NULL, O_ITER},
        {"tolerance", required_argument, NULL, O_TOL},
        {"max-iterations", required_argument, NULL, O_MAXIT},
        {"record", required_argument, NULL, O_RECORD},
        {"decimation", required_argument, NULL, O_DEC},
        {"output-dir", required_argument, NULL, O_DIR}, {"fast", no_argument, NULL, O_FAST},
        {"workers", required_argument, NULL, O_WORKERS}, {"set", required_argument, NULL, O_SET},
        {"on-nonfinite", required_argument, NULL, O_NONFINITE},
        {"on-write-error", required_argument, NULL, O_ON_WRITE_ERROR},
        {"node", required_argument, NULL, O_NODE},      {"place", required_argument, NULL, O_PLACE},
        {"session", required_argument, NULL, O_SESSION},
        {"dds-domain", required_argument, NULL, O_DOMAIN},
        {"join-timeout", required_argument, NULL, O_JOIN},
        {"dds-address", required_argument, NULL, O_DDS_ADDR},
        {"dds-peers", required_argument, NULL, O_DDS_PEERS},
        {"bridge", required_argument, NULL, O_BRIDGE},
        {"clock-offset-max", required_argument, NULL, O_CLOCK_MAX},
        {"verbose", no_argument, NULL, 'v'},            {"help", no_argument, NULL, 'h'},
        {"quiet", no_argument, NULL, 'q'},              {0}};
    static struct option opts[64]; /* base + the real-time options of cmd_rt.c */
    size_t n_opts = 0;
    for (size_t i = 0; base[i].name; i++)
        opts[n_opts++] = base[i];
    for (size_t i = 0; rtc_cli_rt_longopts[i].name; i++)
        opts[n_opts++] = rtc_cli_rt_longopts[i];
    rtc_cli_rt_init(&o->rt);
    int c, st = RTC_EXIT_OK;
    optind = 1;
    while (st == RTC_EXIT_OK && (c = getopt_long(argc, argv, ":qvh", opts, NULL)) != -1) {
        long v = 0;
        switch (c) {
        case O_ALGO: {
            char algos[256];
            o->so.has_algorithm = true;
            if (rtc_master_parse(optarg, &o->so.algorithm) != RTC_OK)
                st = rtc_cli_usage_error(cmd, "--algorithm %s: expected %s", optarg,
                                         algorithm_list(algos, sizeof algos, ", ", " or "));
            break;
        }
        case O_STEP: st = time_opt("step", optarg, &o->so.step_ns); break;
        case O_SYNC: st = time_opt("sync-step", optarg, &o->so.sync_step_ns); break;
        case O_START: o->so.has_start = true; st = time_opt("start", optarg, &o->so.start_ns); break;
        case O_STOP: o->so.has_stop = true; st = time_opt("stop", optarg, &o->so.stop_ns); break;
        case O_ITER: o->so.iterate = true; break;
        case O_TOL:
            st = rtc_cli_parse_double(cmd, "tolerance", optarg, 0, 1, &o->so.tolerance);
            break;
        case O_MAXIT:
            st = rtc_cli_parse_long(cmd, "max-iterations", optarg, 1, 1000000, &v);
            o->so.max_iterations = (unsigned)v;
            break;
        case O_RECORD:
            if (push_arg(&o->records, &o->n_records, optarg) != RTC_OK)
                return RTC_EXIT_ERROR;
            break;
        case O_SET:
            if (push_arg(&o->sets, &o->so.n_sets, optarg) != RTC_OK)
                return RTC_EXIT_ERROR;
            o->so.sets = o->sets;
            break;
        case O_DEC:
            st = rtc_cli_parse_long(cmd, "decimation", optarg, 1, 1000000000, &o->decimation);
            break;
        case O_DIR: o->dir = optarg; break;
        case O_FAST: break;
        case O_WORKERS:
            st = rtc_cli_parse_long(cmd, "workers", optarg, 0, 256, &v);
            o->so.workers = (unsigned)v;
            break;
        case O_NONFINITE: st = nonfinite_opt(cmd, optarg, &o->rt); break;
        case O_ON_WRITE_ERROR: st = rtc_cli_on_write_error(cmd, optarg, &o->write_continue); break;
        case O_NODE: o->place.node = optarg; break;
        case O_PLACE:
            if (push_arg(&o->places, &o->place.n_places, optarg) != RTC_OK)
                return RTC_EXIT_ERROR;
            o->place.places = o->places;
            break;
        case O_SESSION: o->place.session = optarg; break;
        case O_DDS_ADDR: o->place.address = optarg; break;
        case O_DDS_PEERS: o->place.peers = optarg; break;
        case O_DOMAIN:
            st = rtc_cli_parse_long(cmd, "dds-domain", optarg, 0, 230, &v);
            o->place.domain = (int)v;
            break;
        case O_BRIDGE:
            if (push_arg(&o->bridge_sets, &o->place.n_bridge_sets, optarg) != RTC_OK)
                return RTC_EXIT_ERROR;
            o->place.bridge_sets = o->bridge_sets;
            break;
        case O_CLOCK_MAX:
            st = rtc_cli_parse_double(cmd, "clock-offset-max", optarg, 0.001, 3600000,
                                      &o->clock_max_ms);
            break;
        case O_JOIN:
            st = rtc_cli_parse_double(cmd, "join-timeout", optarg, 0.001, 86400,
                                      &o->place.join_ms);
            o->place.join_ms *= 1000;
            break;
        case 'v': rtc_cli_log.max_level = RTC_LOG_INFO; break;
        case 'q': rtc_cli_quiet = true; break;
        case 'h': return -1;
        default:
            if (c >= RTC_CLI_RT_OPT_FIRST && c <= RTC_CLI_RT_OPT_LAST) {
                st = rtc_cli_rt_option(&o->rt, c, optarg, argc, argv, cmd);
                break;
            }
            return rtc_cli_getopt_error(cmd, c, argc, argv);
        }
    }
    if (st == RTC_EXIT_OK && optind != argc - 1)
        st = rtc_cli_usage_error(cmd, "expected exactly one SYSTEM file");
    if (st == RTC_EXIT_OK && o->rt.http_port >= 0 && !o->rt.enabled)
        st = rtc_cli_usage_error(cmd, "--http needs --realtime (the panel belongs to a live "
                                 "session)");
    if (st == RTC_EXIT_OK && o->rt.enabled)
        st = rtc_cli_session_check(&o->rt, cmd);
    o->path = optind < argc ? argv[optind] : NULL;
    return st;
}

/* Units come from FMUs and from the built-in I/O drivers (rtcosim/assemble.h). */
int rtc_cli_load_system(const char *path, const rtc_system_options *so, const rtc_logger *lg,
                        rtc_system **sys)
{
    return rtc_load_system(path, so, lg, sys);
}

/* The whole system, or with --node that node's part (rtcosim/placement.h). */
static int load(sys_opts *o, const rtc_logger *lg, rtc_system **sys)
{
    if (!o->place.node)
        return rtc_cli_load_system(o->path, &o->so, lg, sys);
    o->place.lockstep = !o->rt.enabled;
    o->place.records = o->records;
    o->place.n_records = o->n_records;
    int rc = rtc_load_system_node(o->path, &o->so, &o->place, lg, sys, &o->part);
    if (rc == RTC_OK && o->part) {
        o->n_records = 0; /* the node's columns of the whole run's selection, in the file */
        if (rtc_partition_write_node(o->part, o->dir) != RTC_OK)
            rtc_log(lg, RTC_LOG_WARNING, "%s/node.json: cannot write it ('rtcosim merge' "
                    "needs it)", o->dir);
    }
    return rc;
}

/* Every I/O component exchanges lock-step rounds (a node's bridges in a fast run): the
 * run needs no wall clock. */
static bool io_lockstep(const rtc_system *sys)
{
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        if (rtc_io_unit_is(u) && !rtc_io_unit_lockstep(u))
            return false;
    }
    return true;
}

double rtc_cli_now_s(void)
{
    return rtc_time_to_s(rtc_time_now_ns());
}

/* After a step of the fast run: report new non-finite values, and whether the run stops
 * (for one of them, or for SIGINT/SIGTERM/SIGHUP). */
static bool fast_stop(rtc_system *sys, sys_opts *o, size_t *nf_seen)
{
    rtc_cli_end *e = &o->rt.end;
    size_t before = *nf_seen;
    *nf_seen = rtc_system_nonfinite_report(sys, before, &rtc_cli_log);
    if (*nf_seen > before && o->rt.stop_on_nonfinite) {
        e->cause = "nonfinite";
        snprintf(e->reason, sizeof e->reason, "a value became non-finite at t = %.9g s "
                 "(--on-nonfinite stop)", (double)(rtc_system_start_ns(sys) +
                                                    rtc_system_time_ns(sys)) / 1e9);
        return true;
    }
    int sig = rtc_cli_stop_signal();
    if (sig) {
        e->cause = "signal";
        e->signo = sig;
        snprintf(e->reason, sizeof e->reason, "stopped by %s at tick %lld",
                 rtc_cli_signal_name(sig), (long long)rtc_system_tick_index(sys));
    }
    return sig != 0;
}

/* Step to the stop time, queueing a row every `decimation` ticks; with --realtime the
 * executive paces the same steps and rows against the wall clock (cmd_rt.c). */
static int run_ticks(rtc_system *sys, rtc_recorder *rec, long decimation, sys_opts *o,
                     rtc_csv *csv)
{
    o->started = true;
    if (o->rt.enabled)
        return rtc_cli_rt_run(sys, rec, csv, decimation, o->dir, &o->rt);

    int64_t start = rtc_system_start_ns(sys), stop = rtc_system_stop_ns(sys);
    size_t nf_seen = 0;
    rtc_cli_progress bar;
    rtc_cli_progress_start(&bar, start, stop == INT64_MAX ? start : start + stop);
    int rc = rtc_recorder_push(rec, start);
    bool halt = rc == RTC_OK && fast_stop(sys, o, &nf_seen);
    while (rc == RTC_OK && !halt && rtc_system_time_ns(sys) + rtc_system_tick_ns(sys) <= stop) {
        rc = rtc_system_step(sys);
        if (rc == RTC_OK && rtc_system_tick_index(sys) % decimation == 0)
            rc = rtc_recorder_push(rec, start + rtc_system_time_ns(sys));
        halt = rc == RTC_OK && fast_stop(sys, o, &nf_seen);
        rtc_cli_progress_tick(&bar, start + rtc_system_time_ns(sys));
    }
    rtc_cli_progress_end(&bar);
    rtc_system_nonfinite_report(sys, nf_seen, &rtc_cli_log); /* a failed step's */
    return rc;
}

/* The end of a run that returned @p rc (the real-time path may have set the cause). */
static void settle_end(rtc_cli_end *e, const rtc_system *sys, int rc)
{
    e->nonfinite = rtc_nonfinite_count(rtc_system_nonfinite(sys));
    if (sys && !e->hung_unit) {
        e->last_tick = rtc_system_tick_index(sys);
        e->last_time_ns = rtc_system_start_ns(sys) + rtc_system_time_ns(sys);
    }
    bool ended = !strcmp(e->cause, "end");
    if (ended && rc != RTC_OK && rc != RTC_ETERMINATED) {
        e->cause = "error";
        snprintf(e->reason, sizeof e->reason, "%s", *rtc_cli_last_error() ? rtc_cli_last_error()
                                                                          : rtc_strerror(rc));
    } else if (ended && rc == RTC_ETERMINATED && !e->reason[0]) {
        snprintf(e->reason, sizeof e->reason, "a unit ended the simulation at tick %lld%s",
                 (long long)e->last_tick, e->last_tick ? "" : " (its initial event)");
    } else if (ended && !e->reason[0]) {
        snprintf(e->reason, sizeof e->reason, "reached the stop time%s", e->nonfinite ?
                 "; values became non-finite (--on-nonfinite warn)" : "");
    }
}

/* After the run (@p rc): flush the rows, settle how it ended, write summary.json. */
static void conclude(sys_opts *o, const rtc_system *sys, rtc_recorder *r, rtc_csv *csv,
                     const char *file, int rc)
{
    rtc_recorder_stats rs = {0};
    char werr[sizeof o->rt.end.reason] = "";
    int wst = rtc_cli_recording_close(r, csv, &rs, werr, sizeof werr); /* reported */
    if (wst != RTC_OK)
        rc = rc == RTC_OK ? wst : rc;
    else if (o->rt.has_session && o->rt.session.write_error[0]) /* inputs.bin, events.log */
        snprintf(werr, sizeof werr, "%.500s", o->rt.session.write_error);
    if (werr[0]) {
        rc = rc == RTC_OK ? RTC_EIO : rc;
        o->rt.end.cause = "write";
        snprintf(o->rt.end.reason, sizeof o->rt.end.reason, "%s", werr);
    }
    rtc_cli_end *e = &o->rt.end;
    settle_end(e, sys, rc);
    /* every attempt replaces summary.json: an older run's never stays beside this one */
    o->summary_saved = rtc_cli_write_summary(o->dir, sys, o->path, e,
                                             rtc_cli_now_s() - o->rt.t0_wall_s, &rs, &o->rt,
                                             true);
    if (!o->summary_saved) {
        char summary[4200];
        snprintf(summary, sizeof summary, "%s/summary.json", o->dir);
        rtc_cli_summary_failed(e, summary);
    }
    /* the final line comes after the units' last words (rtc_system_free) */
    o->rows = rs.rows_written;
    o->lost = rs.rows_dropped + rs.rows_lost;
    if (sys && r)
        rtc_log(&rtc_cli_log, RTC_LOG_INFO, "%lld ticks in %.3f s; %llu rows in %s",
                (long long)e->last_tick, rtc_cli_now_s() - o->rt.t0_wall_s,
                (unsigned long long)rs.rows_written, file);
}

/* Every check `run` makes between the load and the initialization, and the only ones
 * `check` makes after the load: one function, so that `check` refuses exactly what `run`
 * would. Each problem is logged to @p lg; all are checked. @p rec receives the recording
 * selection (the --record names, else the file's). */
static int validate_run(rtc_system *sys, sys_opts *o, rtc_record *rec, const rtc_logger *lg)
{
    int rc = RTC_OK, r;
    if (rtc_system_has_io(sys) && !o->rt.enabled && !io_lockstep(sys)) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: the system has I/O components (bench "
                "drivers): run it against the wall clock with --realtime", o->path);
        rc = RTC_EINVAL;
    }
    if (o->rt.enabled && (r = rtc_cli_rt_prepare(sys, &o->rt)) != RTC_OK)
        rc = rc == RTC_OK ? r : rc;
    if ((r = rtc_system_record(sys, rec, o->records, o->n_records)) != RTC_OK)
        rc = rc == RTC_OK ? r : rc;
    char err[512] = "";
    if ((r = rtc_session_check_expose(sys, o->rt.expose, o->rt.n_expose, err, sizeof err))) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: %s", o->path, err[0] ? err : rtc_strerror(r));
        rc = rc == RTC_OK ? r : rc;
    }
    return rc;
}

/* Load, check and initialize the system, open the CSV and start the recorder. */
static int prepare(sys_opts *o, const rtc_logger *lg, const char *file, rtc_system **sys,
                   rtc_record **rec, rtc_csv **csv, rtc_recorder **r)
{
    int rc = load(o, lg, sys);
    if (rc == RTC_OK)
        rc = rtc_record_new(rec);
    if (rc == RTC_OK)
        rc = validate_run(*sys, o, *rec, lg); /* a session's events.log gets the reasons */
    /* a real-time node: the control plane, and every node there before the initialization */
    if (rc == RTC_OK && o->rt.enabled && o->part) {
        rc = rtc_cli_nodes_open(&o->nodes, o->part, &o->place, rtc_system_tick_ns(*sys),
                                o->clock_max_ms);
        o->rt.nodes = &o->nodes;
    }
    if (rc == RTC_OK)
        rc = rtc_cli_nodes_join(&o->nodes);
    if (rc == RTC_OK)
        rc = rtc_system_init(*sys);
    /* real time: never wait, count drops */
    rtc_recorder_opts ro = {.ring_rows = o->rt.enabled ? RTC_CLI_RT_RING_ROWS
                                                       : RTC_RECORDER_ROWS,
                            .lossless = !o->rt.enabled, .continue_on_error = o->write_continue};
    if (rc == RTC_OK)
        rc = rtc_cli_recording_open(file, *rec, &ro, csv, r);
    return rc;
}

int rtc_cmd_run_system(int argc, char **argv)
{
    sys_opts o = {.dir = ".", .decimation = 1};
    int st = parse_sys_args(argc, argv, &o, "run");
    if (st != RTC_EXIT_OK) {
        if (st < 0)
            rtc_cli_run_help();
        free(o.records);
        free(o.sets);
        free(o.places);
        free(o.bridge_sets);
    free(o.bridge_sets);
        rtc_partition_free(o.part);
        rtc_cli_rt_clear(&o.rt);
        return st < 0 ? RTC_EXIT_OK : st;
    }
    rtc_cli_stop_signals(true); /* the real-time path hands them to the executive */
    o.rt.end.cause = "end";
    rtc_system *sys = NULL;
    rtc_record *rec = NULL;
    rtc_csv *csv = NULL;
    rtc_recorder *r = NULL;
    char file[4096];
    snprintf(file, sizeof file, "%s/results.csv", o.dir);
    mkdir(o.dir, 0755);
    rtc_cli_remove_stale(o.dir); /* a failing run must not leave an older run's outcome */
    /* a real-time run is an operator session: its events.log exists before the load, so
     * the units' (FMUs', drivers') log lines reach it */
    rtc_events *ev = NULL;
    char evpath[4096];
    snprintf(evpath, sizeof evpath, "%s/events.log", o.dir);
    int rc = o.rt.enabled ? rtc_events_open(evpath, &rtc_cli_log, &ev) : RTC_OK;
    const rtc_logger *lg = ev ? rtc_events_logger(ev, "unit") : &rtc_cli_log;
    if (rc == RTC_OK)
        rc = prepare(&o, lg, file, &sys, &rec, &csv, &r);
    o.rt.events = ev;
    o.rt.write_continue = o.write_continue;
    o.rt.record = rec;
    o.rt.system_path = o.path;
    o.rt.sys_options = &o.so;
    o.rt.record_names = o.records;
    o.rt.n_record_names = o.n_records;
    o.rt.node = o.part ? o.place.node : NULL;
    o.rt.places = o.place.places;
    o.rt.n_places = o.place.n_places;
    o.rt.t0_wall_s = rtc_cli_now_s();
    if (rc == RTC_OK)
        rc = run_ticks(sys, r, o.decimation, &o, csv);
    conclude(&o, sys, r, csv, file, rc);
    rtc_system_free(sys); /* the units terminate: what they say precedes the final line */
    rtc_cli_nodes_close(&o.nodes);
    if (o.started) { /* a failure before it is its one error line */
        char summary[4200];
        snprintf(summary, sizeof summary, "%s/summary.json", o.dir);
        rtc_cli_final_line(file, o.rows, o.lost, o.summary_saved ? summary : NULL, &o.rt.end);
    }
    rtc_events_close(ev); /* after the units: they may log while terminating */
    rtc_record_free(rec);
    free(o.records);
    free(o.sets);
    free(o.places);
    free(o.bridge_sets);
    rtc_partition_free(o.part);
    rtc_cli_rt_clear(&o.rt);
    rtc_cli_stop_signals(false);
    return rtc_cli_end_exit(&o.rt.end);
}

static const char check_help[] =
    "usage: rtcosim check [options] SYSTEM\n"
    "\n"
    "Load and validate a system (SSP .ssd/.ssp or a single .fmu) without running it: every\n"
    "problem is printed as FILE:LINE: reason — unknown components or connectors, causality\n"
    "and type mismatches, inputs connected twice, units without a conversion, step sizes,\n"
    "algebraic loops (with their path), parameter values. Exit status 0 when the system can\n"
    "run. It runs exactly the checks 'rtcosim run' makes before initializing the units,\n"
    "with the same options: the --record names (or the file's selection), the exposed\n"
    "variables (rtc:RealTime expose= and --expose), and that a system with I/O components\n"
    "is run with --realtime. Accepts the options of 'rtcosim run' (--algorithm, --step,\n"
    "--sync-step, --start, --stop, --iterate, --set, --record, --expose, --realtime, ...).\n";

static int print_check(const rtc_system *sys, sys_opts *o);

int rtc_cmd_check(int argc, char **argv)
{
    sys_opts o = {.dir = ".", .decimation = 1};
    int st = parse_sys_args(argc, argv, &o, "check");
    if (st != RTC_EXIT_OK) {
        free(o.records);
        rtc_cli_rt_clear(&o.rt);
        free(o.sets);
        free(o.places);
        free(o.bridge_sets);
    free(o.bridge_sets);
        rtc_partition_free(o.part);
        if (st < 0)
            fputs(check_help, stdout);
        return st < 0 ? RTC_EXIT_OK : st;
    }
    rtc_system *sys = NULL;
    rtc_record *rec = NULL;
    int lrc = load(&o, &rtc_cli_log, &sys);
    if (lrc == RTC_OK)
        lrc = rtc_record_new(&rec);
    if (lrc == RTC_OK)
        lrc = validate_run(sys, &o, rec, &rtc_cli_log);
    rtc_record_free(rec);
    free(o.records);
    rtc_cli_rt_clear(&o.rt);
    if (lrc == RTC_OK)
        lrc = print_check(sys, &o);
    rtc_system_free(sys);
    free(o.sets);
    free(o.places);
    free(o.bridge_sets);
    rtc_partition_free(o.part);
    if (lrc != RTC_OK)
        fprintf(stderr, "%s: not valid\n", o.path);
    return lrc == RTC_OK ? RTC_EXIT_OK : RTC_EXIT_ERROR;
}

/* check's report of a valid system: its units, and its nodes when it places any. */
static int print_check(const rtc_system *sys, sys_opts *o)
{
    rtc_placement_opts whole = o->place;
    whole.lockstep = !o->rt.enabled;
    rtc_partition *p = o->part;
    int rc = p ? RTC_OK : rtc_partition_new(o->path, &o->so, &whole, &rtc_cli_log, &p);
    if (rc != RTC_OK)
        return rc;
    size_t n = rtc_system_unit_count(sys);
    char tick[32], stop[32];
    rtc_time_format_s(rtc_system_tick_ns(sys), tick, sizeof tick);
    rtc_time_format_s(rtc_system_stop_ns(sys), stop, sizeof stop);
    printf("%s: %zu unit(s), %s, base tick %s s, stop after %s s, %u warning(s): OK\n", o->path, n,
           rtc_master_name(rtc_system_algorithm(sys)), tick, stop, rtc_system_warnings(sys));
    for (size_t i = 0; i < n; i++) {
        char h[32];
        rtc_time_format_s(rtc_system_unit_step_ns(sys, i), h, sizeof h);
        const rtc_unit *u = rtc_system_unit(sys, i);
        printf("  %-24s %-8s step %s s  (%s)\n", u->name, u->ops->kind, h, u->md->model_name);
    }
    if (rtc_partition_node_count(p))
        rtc_cli_print_partition(p);
    if (p != o->part)
        rtc_partition_free(p);
    return RTC_OK;
}

static const char plan_help[] =
    "usage: rtcosim plan [options] SYSTEM\n"
    "\n"
    "Parallel Fast planning (Holzinger et al.): for candidate synchronization steps H,\n"
    "print the extrapolation-error estimate E(H) and the real-time-factor estimate D(H) of\n"
    "the system's units and connections, and the recommended H* = argmin E(H).\n"
    "\n"
    "options:\n"
    "  --candidates LIST    comma-separated H values in seconds (default: a grid derived\n"
    "                       from the units' steps)\n"
    "  --rtf LIST           comma-separated real-time factors d_i of the units, in order\n"
    "                       (wall seconds per simulated second; default 1 each)\n"
    "  --receiver           evaluate Q from the receiver's perspective\n"
    "  plus the options of 'rtcosim check' (--step, ...)\n";

/* Split "a,b,c" and parse each item; returns the count or -1. */
static long parse_list(const char *text, bool times, int64_t *ns, double *d, size_t cap)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text);
    long n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if ((size_t)n >= cap)
            return -1;
        if (times ? rtc_parse_seconds(tok, &ns[n]) != RTC_OK
                  : rtc_cli_num_double(tok, 1e-9, 1e9, &d[n]) != NULL)
            return -1;
        n++;
    }
    return n;
}

static int plan_system(rtc_system *sys, const int64_t *cand, long n_cand, const double *rtf,
                       long n_rtf, bool receiver)
{
    size_t m = rtc_system_unit_count(sys);
    int64_t *h = calloc(m, sizeof *h);
    double *conn = calloc(m * m, sizeof *conn);
    int rc = h && conn ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK && n_rtf > 0 && (size_t)n_rtf != m) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--rtf: %ld values for %zu units", n_rtf, m);
        rc = RTC_EINVAL;
    }
    for (size_t i = 0; rc == RTC_OK && i < m; i++)
        h[i] = rtc_system_unit_step_ns(sys, i);
    for (size_t i = 0; rc == RTC_OK && i < rtc_system_link_count(sys); i++) {
        size_t a, b;
        rtc_system_link_ends(sys, i, &a, &b);
        if (a != b)
            conn[a * m + b] = 1; /* A_ij = 1: unit i feeds unit j (Eq. 6) */
    }
    rtc_pf_system ps = {.m = m, .h_ns = h, .d = n_rtf > 0 ? rtf : NULL, .conn = conn};
    rtc_pf_plan *plan = NULL;
    char err[256] = "";
    if (rc == RTC_OK)
        rc = rtc_pf_plan_new(&ps, n_cand > 0 ? cand : NULL, n_cand > 0 ? (size_t)n_cand : 0,
                             receiver ? RTC_PF_RECEIVER : RTC_PF_LITERAL, &plan, err, sizeof err);
    if (rc == RTC_OK) {
        for (size_t i = 0; i < m; i++) {
            char hs[32];
            rtc_time_format_s(h[i], hs, sizeof hs);
            printf("unit %-20s h = %s s  d = %g\n", rtc_system_unit(sys, i)->name, hs,
                   n_rtf > 0 ? rtf[i] : 1.0);
        }
        rc = rtc_pf_plan_print(plan, stdout);
    } else if (err[0]) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "plan: %s", err);
    }
    rtc_pf_plan_free(plan);
    free(h);
    free(conn);
    return rc;
}

int rtc_cmd_plan(int argc, char **argv)
{
    const char *cands = NULL, *rtf = NULL;
    bool receiver = false;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int n = 0;
    if (!rest)
        return RTC_EXIT_ERROR;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--candidates") && i + 1 < argc)
            cands = argv[++i];
        else if (!strcmp(argv[i], "--rtf") && i + 1 < argc)
            rtf = argv[++i];
        else if (!strcmp(argv[i], "--receiver"))
            receiver = true;
        else if (!strcmp(argv[i], "--candidates") || !strcmp(argv[i], "--rtf")) {
            free(rest);
            return rtc_cli_usage_error("plan", "%s: missing value", argv[i]);
        } else
            rest[n++] = argv[i];
    }
    sys_opts o = {.dir = ".", .decimation = 1};
    int st = parse_sys_args(n, rest, &o, "plan");
    free(o.records);
    free(rest);
    free(o.sets); /* plan does not initialize: values set before it change nothing */
    free(o.places);
    free(o.bridge_sets);
    rtc_partition_free(o.part);
    o.so.sets = NULL;
    o.so.n_sets = 0;
    if (st != RTC_EXIT_OK) {
        if (st < 0)
            fputs(plan_help, stdout);
        return st < 0 ? RTC_EXIT_OK : st;
    }
    int64_t cand[256];
    double d[256];
    long n_cand = cands ? parse_list(cands, true, cand, NULL, 256) : 0;
    long n_rtf = rtf ? parse_list(rtf, false, NULL, d, 256) : 0;
    if (n_cand < 0 || n_rtf < 0)
        return rtc_cli_usage_error("plan", "%s: expected a comma-separated list of numbers",
                                   n_cand < 0 ? "--candidates" : "--rtf");
    rtc_system *sys = NULL;
    if (load(&o, &rtc_cli_log, &sys) != RTC_OK)
        return RTC_EXIT_ERROR;
    int rc = plan_system(sys, cand, n_cand, d, n_rtf, receiver);
    rtc_system_free(sys);
    return rc == RTC_OK ? RTC_EXIT_OK : RTC_EXIT_ERROR;
}
