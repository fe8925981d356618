/*
 * Commands on systems (SSP files, or a single FMU, a system of one unit):
 *   rtcosim run FMU|SYSTEM  the run itself (its options: cmd_run.c): load, initialize,
 *                           step as fast as possible or hand over to the real-time path
 *                           (cmd_rt.c), results.csv + summary.json; a run refused before
 *                           its first step takes away the folders and files it made
 *   rtcosim check SYSTEM    load and validate, print every problem with file:line
 *   rtcosim plan SYSTEM     Parallel Fast planning and real-time feasibility (cmd_plan.c)
 */
#include "cli.h"
#include "plan_cli.h"
#include "cli_nodes.h"
#include "rt_cli.h"
#include "summary.h"

#include "rtcosim/csv.h"
#include "rtcosim/archive.h"
#include "rtcosim/assemble.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/numparse.h"
#include "rtcosim/ofile.h"
#include "rtcosim/placement.h"
#include "rtcosim/recorder.h"
#include "rtcosim/ssp.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Units come from FMUs and from the built-in I/O drivers (rtcosim/assemble.h). */
int rtc_cli_load_system(const char *path, const rtc_system_options *so, const rtc_logger *lg,
                        rtc_system **sys)
{
    return rtc_load_system(path, so, lg, sys);
}

static int add_setting(rtc_ssp_component *c, unsigned group, const char *element,
                       const char *key, const char *value)
{
    rtc_ssp_setting *n = realloc(c->settings, (c->n_settings + 1) * sizeof *n);
    if (!n)
        return RTC_ENOMEM;
    c->settings = n;
    n += c->n_settings++;
    *n = (rtc_ssp_setting){.group = group, .element = strdup(element), .key = strdup(key),
                           .value = strdup(value)};
    return n->element && n->key && n->value ? RTC_OK : RTC_ENOMEM;
}

/* The value of @p key in settings group @p group of @p c, or NULL. */
static const char *group_get(const rtc_ssp_component *c, unsigned group, const char *key)
{
    for (size_t k = 0; k < c->n_settings; k++)
        if (c->settings[k].group == group && !strcmp(c->settings[k].key, key))
            return c->settings[k].value;
    return NULL;
}

/* Lock-step: each of the slave's outputs arrives as the value at its tick; a zero-order
 * hold hands it over unchanged (the default estimator would not), unless its rtc:Signal
 * names another estimator. */
static int dcp_fast_zoh(rtc_ssp_component *c)
{
    unsigned groups = 0;
    for (size_t k = 0; k < c->n_settings; k++)
        groups = c->settings[k].group > groups ? c->settings[k].group : groups;
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < c->n_connectors; i++) {
        const char *name = c->connectors[i].name;
        unsigned g = 0;
        for (unsigned k = 1; !g && k <= groups; k++) {
            const char *n = group_get(c, k, "name");
            g = n && !strcmp(n, name) ? k : 0;
        }
        if (c->connectors[i].kind != RTC_SSP_KIND_OUTPUT || (g && group_get(c, g, "estimator")))
            continue;
        if (!g && (rc = add_setting(c, g = ++groups, "Signal", "name", name)) != RTC_OK)
            break;
        rc = add_setting(c, g, "Signal", "estimator", "zoh");
    }
    return rc;
}

/* A fast run: every DCP slave component is stepped in lock-step (its driver's key
 * lockstep, io-drivers/src/dcp_master.c), unless its rtc:Component says otherwise. */
static int dcp_fast_hook(void *user, rtc_ssp *ssp)
{
    (void)user;
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < ssp->n_components; i++) {
        rtc_ssp_component *c = &ssp->components[i];
        if (!c->type || strcmp(c->type, "application/x-dcp-slave") != 0 ||
            group_get(c, 0, "lockstep"))
            continue;
        rc = add_setting(c, 0, "", "lockstep", "true");
        if (rc == RTC_OK)
            rc = dcp_fast_zoh(c);
    }
    return rc;
}

/* The whole system, or with --node that node's part (rtcosim/placement.h). */
static int load(rtc_cli_sys *o, const rtc_logger *lg, rtc_system **sys)
{
    if (!o->place.node && !o->rt.enabled && !o->so.ssp_hook) {
        rtc_system_options so = o->so;
        so.ssp_hook = dcp_fast_hook;
        return rtc_cli_load_system(o->path, &so, lg, sys);
    }
    if (!o->place.node)
        return rtc_cli_load_system(o->path, &o->so, lg, sys);
    o->place.lockstep = !o->rt.enabled;
    o->place.records = o->records;
    o->place.n_records = o->n_records;
    int rc = rtc_load_system_node(o->path, &o->so, &o->place, lg, sys, &o->part);
    if (rc == RTC_OK && o->part)
        o->n_records = 0; /* the node's columns of the whole run's selection, in the file */
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
static bool fast_stop(rtc_system *sys, rtc_cli_sys *o, size_t *nf_seen)
{
    rtc_cli_end *e = &o->rt.end;
    size_t before = *nf_seen;
    if (rtc_nonfinite_count(rtc_system_nonfinite(sys)) != before) /* new ones: name them */
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

/* A fast run whose lock-step tick failed because an I/O component lost its link (a DCP
 * slave that went silent), or (@p running false) whose initialization failed because one
 * was not up within connect_ms: the run stops there, cause "link" (exit 6), one line
 * naming the component, its address and why; on_loss cannot estimate without a clock. */
static void fast_link_lost(const rtc_system *sys, rtc_cli_end *e, bool running)
{
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        rtc_driver_stats st = {0};
        if (!rtc_io_unit_contract(u) || rtc_io_unit_stats(u, &st) != RTC_OK ||
            st.link == RTC_LINK_UP)
            continue;
        const rtc_link_info *c = &st.contract;
        if (st.link != RTC_LINK_LOST && !c->lost_why && !c->error)
            continue; /* (a link being made that has not failed) */
        e->cause = "link";
        e->link = u->name;
        if (!running) { /* never up: refused at its connect_ms */
            rtc_cli_link_reason(sys, (long)i, 0, e->reason, sizeof e->reason);
            return;
        }
        snprintf(e->reason, sizeof e->reason, "I/O component %s (%s %s) lost its link (%s) "
                 "at tick %lld; a fast run waits for it in lock-step and stops", u->name,
                 rtc_io_unit_driver(u), c->address, c->lost_why ? c->lost_why : c->error ?
                 c->error : "no answer", (long long)rtc_system_tick_index(sys));
        return;
    }
}

/* A row at absolute time @p t_ns, when the run keeps rows (not --no-output). */
static int push_row(rtc_recorder *rec, int64_t t_ns)
{
    return rec ? rtc_recorder_push(rec, t_ns) : RTC_OK;
}

/* Between rows (all ticks without recording, decimation - 1 ticks with it), the loop hands
 * the system batches of ticks (rtc_system_step_n), so that a cheap step does not pay a
 * call, a signal check and a progress update each; a batch takes about a millisecond of
 * wall time, so Ctrl-C and the progress bar still answer at once, however slow the units
 * are. At most 4096 ticks: a unit that turns a thousand times slower inside a batch (an
 * event storm) still leaves Ctrl-C a few seconds at worst, and 4096 ticks already make
 * the per-call cost vanish. */
static int64_t next_batch(int64_t batch, int64_t took_ns)
{
    if (took_ns < 500000 && batch < 4096)
        return batch * 2;
    return took_ns > 2000000 && batch > 1 ? batch / 2 : batch;
}

/* Step to the stop time, queueing a row every `decimation` ticks; with --realtime the
 * executive paces the same steps and rows against the wall clock (cmd_rt.c). */
static int run_ticks(rtc_system *sys, rtc_recorder *rec, long decimation, rtc_cli_sys *o,
                     rtc_csv *csv, const char *dir)
{
    if (o->rt.enabled)
        return rtc_cli_rt_run(sys, rec, csv, decimation, dir, &o->rt);
    o->rt.started = true;
    int64_t start = rtc_system_start_ns(sys), stop = rtc_system_stop_ns(sys);
    size_t nf_seen = 0;
    rtc_cli_progress bar;
    rtc_cli_progress_start(&bar, start, stop == INT64_MAX ? start : start + stop);
    int64_t t0 = rtc_time_now_ns();
    int rc = push_row(rec, start);
    bool halt = rc == RTC_OK && fast_stop(sys, o, &nf_seen);
    /* ticks per call, up to the next row (next_batch); a row every tick: one */
    bool batching = !rec || decimation > 1;
    int64_t batch = 1;
    const rtc_nonfinite *nf = rtc_system_nonfinite(sys); /* made by the init: the run's */
    while (rc == RTC_OK && !halt && !rtc_system_finished(sys)) {
        int64_t k = rtc_system_tick_index(sys), w0 = batching ? rtc_time_now_ns() : 0;
        int64_t to_row = rec ? decimation - k % decimation : batch;
        rc = rtc_system_step_n(sys, to_row < batch ? to_row : batch);
        int64_t t = start + rtc_system_time_ns(sys);
        if (rc == RTC_OK && (decimation == 1 || rtc_system_tick_index(sys) % decimation == 0))
            rc = push_row(rec, t);
        /* fast_stop() only when it has something to look at (a new non-finite value, a
         * stop signal): two loads per step instead of a call that finds nothing */
        halt = rc == RTC_OK && (rtc_nonfinite_count(nf) != nf_seen || rtc_cli_stop_signal()) &&
               fast_stop(sys, o, &nf_seen);
        rtc_cli_progress_tick(&bar, t);
        if (batching)
            batch = next_batch(batch, rtc_time_now_ns() - w0);
    }
    rtc_cli_progress_end(&bar);
    rtc_system_nonfinite_report(sys, nf_seen, &rtc_cli_log); /* a failed step's */
    if (rc != RTC_OK && rc != RTC_ETERMINATED && !strcmp(o->rt.end.cause, "end"))
        fast_link_lost(sys, &o->rt.end, true);
    int64_t k = rtc_system_tick_index(sys);
    double dt = rtc_time_to_s(rtc_time_now_ns() - t0);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    rtc_log(&rtc_cli_log, RTC_LOG_INFO, "%lld steps in %.6f s (%.1f ns/step), max RSS %ld KiB",
            (long long)k, dt, k ? dt / (double)k * 1e9 : 0.0, ru.ru_maxrss);
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
        char t[32];
        rtc_time_format_s(e->last_time_ns, t, sizeof t);
        snprintf(e->reason, sizeof e->reason, "a unit ended the simulation at t=%s s (tick "
                 "%lld%s)", t, (long long)e->last_tick, e->last_tick ? "" : ": its initial event");
    } else if (ended && !e->reason[0]) {
        snprintf(e->reason, sizeof e->reason, "reached the stop time%s", e->nonfinite ?
                 "; values became non-finite (--on-nonfinite warn)" : "");
    }
}

/* Where a run's files go. An FMU run without --output-dir and --realtime names its result
 * file itself (-o, default results.csv) and puts summary.json beside it; every other run
 * writes DIR/results.csv and DIR/summary.json, and a real-time run its session files. */
typedef struct run_files {
    bool in_dir;         /* the run writes into dir (created with its parents) */
    char dir[4096];
    char results[4096];  /* "" none (--no-output), "-" standard output */
    char summary[4200];  /* "" none */
} run_files;

/* A result file that is a device, a pipe or a socket (-o /dev/null): nothing goes beside
 * it (a summary beside /dev/null would be /dev/summary.json). */
static bool special_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static void place(const rtc_cli_sys *o, run_files *f)
{
    *f = (run_files){.in_dir = o->kind != RTC_CLI_FOR_FMU || o->dir || o->rt.enabled};
    snprintf(f->dir, sizeof f->dir, "%s", o->dir ? o->dir : ".");
    if (o->no_output)
        f->results[0] = '\0';
    else if (f->in_dir)
        snprintf(f->results, sizeof f->results, "%.4000s/results.csv", f->dir);
    else
        snprintf(f->results, sizeof f->results, "%s", o->output ? o->output : "results.csv");
    if (o->summary) {
        snprintf(f->summary, sizeof f->summary, "%s", o->summary);
    } else if (f->in_dir) {
        snprintf(f->summary, sizeof f->summary, "%.4000s/summary.json", f->dir);
    } else if (f->results[0] && strcmp(f->results, "-") && !special_file(f->results)) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", f->results);
        snprintf(f->summary, sizeof f->summary, "%.4000s/summary.json", dirname(copy));
    }
}

/* After the run (@p rc): flush the rows, settle how it ended, write summary.json. A run
 * refused before its first step leaves no summary (its one error line says why). */
static void conclude(rtc_cli_sys *o, const rtc_system *sys, rtc_recorder *r, rtc_csv *csv,
                     const run_files *f, int rc)
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
    if (!o->rt.started)
        return;
    /* one that was due and could not be written turns a success into a write error */
    if (!rtc_cli_write_summary(sys, o->path, e, rtc_cli_now_s() - o->rt.t0_wall_s, &rs,
                               &o->rt, true)) {
        o->summary_failed = true;
        rtc_cli_summary_failed(e, f->summary);
    }
    /* the final line comes after the units' last words (rtc_system_free) */
    o->rows = rs.rows_written;
    o->lost = rs.rows_dropped + rs.rows_lost;
    if (sys && r)
        rtc_log(&rtc_cli_log, RTC_LOG_INFO, "%lld ticks in %.3f s; %llu rows in %s",
                (long long)e->last_tick, rtc_cli_now_s() - o->rt.t0_wall_s,
                (unsigned long long)rs.rows_written, f->results);
}

/* Every check `run` makes between the load and the initialization, and the only ones
 * `check` makes after the load: one function, so that `check` refuses exactly what `run`
 * would. Each problem is logged to @p lg; all are checked. @p rec (NULL: a run that keeps
 * no rows — then the names are not looked up) receives the recording selection (the
 * --record names, else the file's). */
static int validate_run(rtc_system *sys, rtc_cli_sys *o, rtc_record *rec, const rtc_logger *lg)
{
    int rc = RTC_OK, r;
    if (rtc_system_has_io(sys) && !o->rt.enabled && !io_lockstep(sys)) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: the system has I/O components (bench "
                "drivers): run it against the wall clock with --realtime", o->path);
        rc = RTC_EINVAL;
    }
    if (o->rt.enabled && (r = rtc_cli_rt_prepare(sys, &o->rt)) != RTC_OK)
        rc = rc == RTC_OK ? r : rc;
    if (rec && (r = rtc_system_record(sys, rec, o->records, o->n_records)) != RTC_OK)
        rc = rc == RTC_OK ? r : rc;
    char err[512] = "";
    if ((r = rtc_session_check_expose(sys, o->rt.expose, o->rt.n_expose, err, sizeof err))) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: %s", o->path, err[0] ? err : rtc_strerror(r));
        rc = rc == RTC_OK ? r : rc;
    }
    return rc;
}

/* Load, check and initialize the system, open the CSV and start the recorder. */
static int prepare(rtc_cli_sys *o, const rtc_logger *lg, const run_files *f, rtc_system **sys,
                   rtc_record **rec, rtc_csv **csv, rtc_recorder **r)
{
    int rc = load(o, lg, sys);
    if (rc == RTC_OK && o->part && rtc_partition_write_node(o->part, f->dir) != RTC_OK)
        rtc_log(lg, RTC_LOG_WARNING, "%s/node.json: cannot write it ('rtcosim merge' needs "
                "it)", f->dir);
    /* without a result file, a summary still lists the outputs that became non-finite */
    bool record = f->results[0] || f->summary[0];
    if (rc == RTC_OK && record)
        rc = rtc_record_new(rec);
    if (rc == RTC_OK)
        rc = validate_run(*sys, o, *rec, lg); /* a session's events.log gets the reasons */
    /* a real-time node: the control plane, and every node there before the initialization */
    if (rc == RTC_OK && o->rt.enabled && o->part) {
        rc = rtc_cli_nodes_open(&o->nodes, o->part, &o->place, rtc_system_tick_ns(*sys),
                                o->clock_max_ms);
        o->rt.nodes = &o->nodes;
    }
    bool loaded = rc == RTC_OK;
    if (rc == RTC_OK)
        rc = rtc_cli_nodes_join(&o->nodes);
    if (rc == RTC_OK && (rc = rtc_system_init(*sys)) != RTC_OK && !o->rt.enabled &&
        !rtc_cli_stop_signal())
        fast_link_lost(*sys, &o->rt.end, false); /* a lock-step link not up in time */
    int sig = rtc_cli_stop_signal();
    if (loaded && rc != RTC_OK && sig) { /* Ctrl-C while the nodes or links were being
                                            waited for: that is the end */
        o->rt.end.cause = "signal";
        o->rt.end.signo = sig;
        snprintf(o->rt.end.reason, sizeof o->rt.end.reason, "stopped by %s before the "
                 "first tick", rtc_cli_signal_name(sig));
    }
    if (loaded && rc != RTC_OK && strcmp(o->rt.end.cause, "end"))
        rtc_log(lg, RTC_LOG_ERROR, "%s", o->rt.end.reason);
    /* real time: never wait, count drops */
    rtc_recorder_opts ro = {.ring_rows = o->rt.enabled ? RTC_CLI_RT_RING_ROWS
                                                       : RTC_RECORDER_ROWS,
                            .lossless = !o->rt.enabled, .continue_on_error = o->write_continue};
    if (rc == RTC_OK && f->results[0])
        rc = rtc_cli_recording_open(f->results, *rec, &ro, csv, r);
    return rc;
}

/* The files a run may make (in a folder that existed before): noted now, removed if the run
 * is refused before its first step. */
static void note_outputs(rtc_cli_made *m, const rtc_cli_sys *o, const run_files *f)
{
    static const char *const session[] = {"events.log", "inputs.bin", "session.conf",
                                          "fmus.sha256", "system.ssd", "system.ssp",
                                          "system.fmu", "latency.csv", "timing.json",
                                          "histogram.txt"};
    if (f->results[0] && strcmp(f->results, "-"))
        rtc_cli_made_note(m, f->results);
    if (f->summary[0])
        rtc_cli_made_note(m, f->summary);
    if (o->place.node) { /* a node's part of a distributed run: what 'rtcosim merge' reads */
        char path[4200];
        snprintf(path, sizeof path, "%.4000s/node.json", f->dir);
        rtc_cli_made_note(m, path);
    }
    for (size_t i = 0; o->rt.enabled && i < sizeof session / sizeof *session; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%.4000s/%s", f->dir, session[i]);
        rtc_cli_made_note(m, path);
    }
}

/* Make the run's folder (with its parents) and note what the run may create there. */
static int make_room(const rtc_cli_sys *o, const run_files *f, rtc_cli_made *m)
{
    if (f->in_dir && rtc_cli_make_dir(f->dir, m) != RTC_OK)
        return RTC_EIO;
    note_outputs(m, o, f);
    /* a failing run must not leave an older run's outcome */
    if (f->in_dir)
        rtc_cli_remove_stale(f->dir);
    else if (f->summary[0])
        unlink(f->summary);
    return RTC_OK;
}

int rtc_cli_run(rtc_cli_sys *o)
{
    run_files f;
    place(o, &f);
    o->rt.fmu_run = o->kind == RTC_CLI_FOR_FMU;
    o->rt.summary_path = f.summary[0] ? f.summary : NULL;
    int st = o->rt.enabled ? rtc_cli_session_check(&o->rt) : RTC_EXIT_OK;
    if (st != RTC_EXIT_OK)
        return st; /* nothing exists yet */
    rtc_cli_made made;
    rtc_cli_made_init(&made);
    if (make_room(o, &f, &made) != RTC_OK)
        return RTC_EXIT_ERROR;
    rtc_cli_stop_signals(true); /* the real-time path hands them to the executive */
    o->rt.end.cause = "end";
    rtc_system *sys = NULL;
    rtc_record *rec = NULL;
    rtc_csv *csv = NULL;
    rtc_recorder *r = NULL;
    /* a real-time run is an operator session: its events.log exists before the load, so
     * the units' (FMUs', drivers') log lines reach it */
    rtc_events *ev = NULL;
    char evpath[4200];
    snprintf(evpath, sizeof evpath, "%.4000s/events.log", f.dir);
    int rc = o->rt.enabled ? rtc_events_open(evpath, &rtc_cli_log, &ev) : RTC_OK;
    const rtc_logger *lg = ev ? rtc_events_logger(ev, "unit") : &rtc_cli_log;
    if (rc == RTC_OK && o->rt.enabled) /* before anything is loaded, started or written */
        rc = rtc_cli_rt_guard(o->path, &o->so, &o->rt, o->records, o->n_records,
                              ev ? rtc_events_logger(ev, "plan") : &rtc_cli_log);
    if (rc == RTC_OK)
        rc = prepare(o, lg, &f, &sys, &rec, &csv, &r);
    o->rt.events = ev;
    o->rt.write_continue = o->write_continue;
    o->rt.record = rec;
    o->rt.system_path = o->path;
    o->rt.sys_options = &o->so;
    o->rt.record_names = o->records;
    o->rt.n_record_names = o->n_records;
    o->rt.node = o->part ? o->place.node : NULL;
    o->rt.places = o->place.places;
    o->rt.n_places = o->place.n_places;
    o->rt.t0_wall_s = rtc_cli_now_s();
    if (rc == RTC_OK)
        rc = run_ticks(sys, r, o->decimation, o, csv, f.dir);
    conclude(o, sys, r, csv, &f, rc);
    rtc_system_free(sys); /* the units terminate: what they say precedes the final line */
    rtc_cli_nodes_close(&o->nodes);
    if (o->rt.started) /* a failure before it is its one error line */
        rtc_cli_final_line(f.results[0] ? f.results : NULL, o->rows, o->lost,
                           f.summary[0] && !o->summary_failed ? f.summary : NULL, &o->rt.end);
    rtc_events_close(ev); /* after the units: they may log while terminating */
    rtc_record_free(rec);
    if (!o->rt.started) /* refused: what this run made goes (files, then folders) */
        rtc_cli_made_undo(&made);
    rtc_cli_made_clear(&made);
    rtc_cli_stop_signals(false);
    return rtc_cli_end_exit(&o->rt.end);
}

static const char check_help[] =
    "usage: rtcosim check [options] FMU|SYSTEM\n"
    "\n"
    "Load and validate a system (SSP .ssd/.ssp or a single .fmu) without running it: every\n"
    "problem is printed as FILE:LINE: reason — unknown components or connectors, causality\n"
    "and type mismatches, inputs connected twice, units without a conversion, step sizes,\n"
    "algebraic loops (with their path), parameter values. Exit status 0 when the system can\n"
    "run. It runs exactly the checks 'rtcosim run' makes before initializing the units,\n"
    "with the same options: the --record names (or the file's selection), the exposed\n"
    "variables (rtc:RealTime expose= and --expose), the token files and the option\n"
    "combinations run refuses, and that a system with I/O components is run with\n"
    "--realtime (but for NRT DCP slaves, which a fast run steps in lock-step). Accepts\n"
    "the options of 'rtcosim run' (--algorithm, --step, --sync-step, --start, --stop,\n"
    "--iterate, --set, --record, --expose, --realtime, ...).\n";

static int print_check(const rtc_system *sys, rtc_cli_sys *o);

int rtc_cmd_check(int argc, char **argv)
{
    rtc_cli_sys o;
    rtc_cli_args a;
    int st = rtc_cli_sys_parse(rtc_cli_command_find("check"), argc, argv, &o, &a);
    rtc_cli_args_clear(&a);
    if (st != RTC_EXIT_OK) {
        rtc_cli_sys_clear(&o);
        if (st < 0)
            fputs(check_help, stdout);
        return st < 0 ? RTC_EXIT_OK : st;
    }
    /* the token files as run reads them: a check that passes is a run that starts */
    st = o.rt.enabled ? rtc_cli_session_check(&o.rt) : RTC_EXIT_OK;
    if (st != RTC_EXIT_OK) {
        rtc_cli_sys_clear(&o);
        return st;
    }
    rtc_system *sys = NULL;
    rtc_record *rec = NULL;
    int lrc = load(&o, &rtc_cli_log, &sys);
    if (lrc == RTC_OK)
        lrc = rtc_record_new(&rec);
    if (lrc == RTC_OK)
        lrc = validate_run(sys, &o, rec, &rtc_cli_log);
    rtc_record_free(rec);
    if (lrc == RTC_OK)
        lrc = print_check(sys, &o);
    rtc_system_free(sys);
    rtc_cli_sys_clear(&o);
    if (lrc != RTC_OK)
        fprintf(stderr, "%s: not valid\n", o.path);
    return lrc == RTC_OK ? RTC_EXIT_OK : RTC_EXIT_ERROR;
}

/* check's report of a valid system: its units, and its nodes when it places any. */
static int print_check(const rtc_system *sys, rtc_cli_sys *o)
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
        rtc_cli_print_io_description(u, "      ");
    }
    if (rtc_partition_node_count(p))
        rtc_cli_print_partition(p);
    if (p != o->part)
        rtc_partition_free(p);
    return RTC_OK;
}
