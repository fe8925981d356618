/*
 * rtcosim run FMU|SYSTEM — the options of run (and of check and plan, which take the same)
 * and the --help text. A single FMU is a system of one unit (rtcosim/system.h): it runs
 * through the same path as an SSP system (cmd_system.c), fast or in real time with an
 * operator session, and its results are what `run FMU` always wrote — bare variable names
 * as columns, the FMU's DefaultExperiment, a shorter last step to the stop time when the
 * FMU can vary its step, the row where the FMU ends the simulation itself. What only an
 * FMU run has is its output naming: -o FILE (default results.csv, '-' standard output),
 * --no-output, --summary FILE, and the unit options --interface, --solver, --substeps,
 * --event-mode.
 */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char run_usage[] =
    "usage: rtcosim run [options] FMU|SYSTEM\n"
    "       rtcosim run [options] FMU|SYSTEM --realtime [RTF]\n"
    "\n"
    "Run one FMI 2.0 or 3.0 FMU (Co-Simulation, or Model Exchange integrated by the engine's\n"
    "fixed-step solvers), as a system of one unit, or a system of FMUs and I/O components\n"
    "described in SSP (.ssd, .ssp, a folder holding SystemStructure.ssd) with a master\n"
    "algorithm: as fast as possible, or paced\n"
    "against the wall clock (--realtime, an operator session). One CSV row per\n"
    "communication point (base tick), including the start. Start, stop and step default\n"
    "to the file's DefaultExperiment (an FMU's: else 0, 1 and (stop-start)/500).\n"
    "\n"
    "Options of every run (an FMU or a SYSTEM):\n";

static const char fmu_head[] =
    "\nFMU options (rtcosim run [options] FMU): the result file is results.csv (-o), its\n"
    "columns the FMU's variables (\"time\",\"x\",...), summary.json beside it; with\n"
    "--output-dir or --realtime both go to DIR as for a system. An FMU that can vary its\n"
    "step takes a shorter last step to reach a stop time off its step grid.\n";

static const char fmu_tail[] =
    "  CSV: quoted header \"time\",\"name\",...; booleans 0/1; doubles with 17 significant\n"
    "  digits; arrays as name[1], name[2], ...; the time column is exactly start + k*step.\n";

static const char system_head[] =
    "\nSystem options (rtcosim run [options] SYSTEM): DIR/results.csv has one row per base\n"
    "tick, \"unit.variable\" columns; DIR/summary.json.\n";

static const char node_head[] =
    "\nDistributed runs (README \"Distributed runs\"): every process runs the same SYSTEM\n"
    "file with the same placement, one node each; without --realtime the nodes step in\n"
    "lock-step and DIR/results.csv holds the node's columns of the one-process run's\n"
    "('rtcosim merge' puts them together):\n";

static const char rt_head[] =
    "\nReal-time options (rtcosim run [options] FMU|SYSTEM --realtime; a system with I/O\n"
    "components runs only so; these need --realtime):\n";

static const char rt_tail[] =
    "  Before arming, a run is checked against a plan of this machine: the cached one\n"
    "  for this system, its unit files and options, else a quick profile (0.5 s of\n"
    "  ticks, a copy of the system with its I/O components replayed empty: no bench is\n"
    "  touched). Infeasible: refused, exit status 8, nothing left behind; tight: a\n"
    "  warning ('rtcosim plan --realtime' explains).\n"
    "  SIGINT/SIGTERM/SIGHUP stop a real-time run at the next step; exit status\n"
    "  130/143/129. A unit still inside its step 2 s later is left there: safe state, rows\n"
    "  and summary.json (\"hung_unit\") saved, temporary files removed, same exit status.\n";

static const char session_head[] =
    "\nOperator session options (with --realtime; DIR also gets events.log, inputs.bin,\n"
    "a copy of the FMU or system, fmus.sha256 and session.conf; 'rtcosim replay DIR'\n"
    "re-runs it offline):\n";

static const char common_tail[] =
    "Every option value is checked before anything runs: a bad, missing or out-of-range\n"
    "value, or an option of the other kind of input, is one line naming the option and\n"
    "what it accepts, exit status 2. A run refused before its first step (a file that does\n"
    "not load, a port in use, a token file others can read) says why in one line, exit\n"
    "status 1, and leaves no file or folder it made behind.\n"
    "Progress: on a terminal, a real-time run shows a status line and a fast run longer\n"
    "than a second a progress bar with rate and ETA (stderr; none with -q or when stderr\n"
    "is not a terminal); every run ends with one line on stderr: where the results are,\n"
    "how many rows, how it ended.\n"
    "SIGINT/SIGTERM/SIGHUP stop at the next step: complete rows only, summary.json status\n"
    "\"stopped\", exit status 130/143/129 (without --realtime a second signal ends the\n"
    "process at once; SIGHUP ignored from the start, as under nohup, stays ignored).\n"
    "Exit status: 0 on success (also when a unit ends the simulation itself, even at its\n"
    "initial event, and with non-finite values under --on-nonfinite warn), 1 on error,\n"
    "2 on a usage error, 3 watchdog, 4 when a result file or summary.json could not be\n"
    "written (disk full, a file-size limit such as ulimit -f, a closed output pipe),\n"
    "6 when an I/O link failed its contract (a required link not up within connect_ms, or\n"
    "lost past on_loss), 7 when the run ended degraded (a required link lost under\n"
    "on_loss=continue), 8 when the feasibility check refuses a real-time run (see above),\n"
    "9 when another node of a distributed real-time run stopped it, 129/130/143 when\n"
    "stopped by SIGHUP/SIGINT/SIGTERM (see the README's table).\n";

void rtc_cli_run_help(void)
{
    const rtc_cli_command *cmd = rtc_cli_command_find("run");
    fputs(run_usage, stdout);
    rtc_cli_print_options(cmd, RTC_CLI_G_RUN, stdout);
    fputs(fmu_head, stdout);
    rtc_cli_print_options(cmd, RTC_CLI_G_FMU, stdout);
    fputs(fmu_tail, stdout);
    fputs(system_head, stdout);
    rtc_cli_print_options(cmd, RTC_CLI_G_SYSTEM, stdout);
    fputs(node_head, stdout);
    rtc_cli_print_options(cmd, RTC_CLI_G_NODE, stdout);
    fputs(rt_head, stdout);
    rtc_cli_print_options(cmd, RTC_CLI_G_RT, stdout);
    fputs(rt_tail, stdout);
    fputs(session_head, stdout);
    rtc_cli_print_options(cmd, RTC_CLI_G_SESSION, stdout);
    fputs("\nCommon options:\n", stdout);
    rtc_cli_print_options(cmd, RTC_CLI_G_COMMON, stdout);
    fputs(common_tail, stdout);
}

/* Append a repeatable option's argument (--record, --set) to its list. */
static int push_arg(const char ***list, size_t *n, const char *arg)
{
    const char **r = realloc(*list, (*n + 1) * sizeof *r);
    if (!r)
        return RTC_EXIT_ERROR;
    *list = r;
    r[(*n)++] = arg;
    return RTC_EXIT_OK;
}

/* --interface, --solver, --substeps, --event-mode: the FMU unit's settings, as an SSP component's
 * rtc:Component attributes would give them (checked by the option table already). */
static void unit_setting(rtc_cli_sys *o, const char *key, const char *value)
{
    size_t i = 0;
    while (i < o->so.n_unit_settings && strcmp(o->unit_settings[i].key, key))
        i++;
    o->unit_settings[i] = (rtc_kv){key, value};
    o->so.n_unit_settings += i == o->so.n_unit_settings;
    o->so.unit_settings = o->unit_settings;
}

/* One option of the run table (cli_opts.c) into @p o; plan's own rows are left to plan. */
static int apply(rtc_cli_sys *o, const rtc_cli_arg *a)
{
    const rtc_cli_val *v = &a->v;
    switch (a->opt->id) {
    case RTC_CLI_START: o->so.has_start = true, o->so.start_ns = v->ns; break;
    case RTC_CLI_STOP: o->so.has_stop = true, o->so.stop_ns = v->ns; break;
    case RTC_CLI_STEP: o->so.step_ns = v->ns; break;
    case RTC_CLI_SET:
        if (push_arg(&o->sets, &o->so.n_sets, v->text) != RTC_EXIT_OK)
            return RTC_EXIT_ERROR;
        o->so.sets = o->sets;
        break;
    case RTC_CLI_RECORD: return push_arg(&o->records, &o->n_records, v->text);
    case RTC_CLI_DECIMATION: o->decimation = v->i; break;
    case RTC_CLI_OUTPUT_DIR: o->dir = v->text; break;
    case RTC_CLI_NONFINITE: o->rt.stop_on_nonfinite = v->i != 0; break;
    case RTC_CLI_WRITE_ERROR: o->write_continue = v->i != 0; break;
    case RTC_CLI_FMU_LOGGING: o->so.fmu_logging = true; break;
    case RTC_CLI_OUTPUT: o->output = v->text; break;
    case RTC_CLI_NO_OUTPUT: o->no_output = true; break;
    case RTC_CLI_SUMMARY: o->summary = v->text; break;
    case RTC_CLI_INTERFACE: unit_setting(o, "interface", v->text); break;
    case RTC_CLI_SOLVER: unit_setting(o, "solver", v->text); break;
    case RTC_CLI_SUBSTEPS:
        snprintf(o->substeps, sizeof o->substeps, "%ld", v->i);
        unit_setting(o, "substeps", o->substeps);
        break;
    case RTC_CLI_EVENT_MODE: unit_setting(o, "event_mode", v->text); break;
    case RTC_CLI_ALGORITHM: o->so.has_algorithm = true, o->so.algorithm = (rtc_master)v->i; break;
    case RTC_CLI_SYNC_STEP: o->so.sync_step_ns = v->ns; break;
    case RTC_CLI_WORKERS: o->so.workers = (unsigned)v->i; break;
    case RTC_CLI_ITERATE: o->so.iterate = true; break;
    case RTC_CLI_TOLERANCE: o->so.tolerance = v->d; break;
    case RTC_CLI_MAX_ITERATIONS: o->so.max_iterations = (unsigned)v->i; break;
    case RTC_CLI_NODE: o->place.node = v->text; break;
    case RTC_CLI_PLACE:
        if (push_arg(&o->places, &o->place.n_places, v->text) != RTC_EXIT_OK)
            return RTC_EXIT_ERROR;
        o->place.places = o->places;
        break;
    case RTC_CLI_SESSION_TAG: o->place.session = v->text; break;
    case RTC_CLI_DDS_DOMAIN: o->place.domain = (int)v->i; break;
    case RTC_CLI_JOIN_TIMEOUT: o->place.join_ms = v->d * 1000; break;
    case RTC_CLI_DDS_ADDRESS: o->place.address = v->text; break;
    case RTC_CLI_DDS_PEERS: o->place.peers = v->text; break;
    case RTC_CLI_BRIDGE:
        if (push_arg(&o->bridge_sets, &o->place.n_bridge_sets, v->text) != RTC_EXIT_OK)
            return RTC_EXIT_ERROR;
        o->place.bridge_sets = o->bridge_sets;
        break;
    case RTC_CLI_CLOCK_MAX: o->clock_max_ms = v->d; break;
    case RTC_CLI_VERBOSE: rtc_cli_log.max_level = RTC_LOG_INFO; break;
    case RTC_CLI_QUIET: rtc_cli_quiet = true; break;
    default:
        if (!rtc_cli_rt_option(&o->rt, a->opt->id, v) && a->opt->id == RTC_CLI_EXPOSE)
            return RTC_EXIT_ERROR;
        break;
    }
    return RTC_EXIT_OK;
}

/* What run refuses in the options together (each valid alone): one usage line. `check`
 * refuses the same, under its own name. */
static int combinations(const char *cmd, const rtc_cli_args *a, const rtc_cli_sys *o)
{
    const rtc_cli_rt *rt = &o->rt;
    for (size_t i = 0; i < a->n && !rt->enabled; i++)
        if (a->args[i].opt->flags & RTC_CLI_NEEDS_RT)
            return rtc_cli_usage_error(cmd, "--%s needs --realtime (a real-time run and "
                                       "its operator session)", a->args[i].opt->name);
    if (o->output && (o->dir || rt->enabled))
        return rtc_cli_usage_error(cmd, "-o %s: not with %s: the results are "
                                   "DIR/results.csv", o->output,
                                   o->dir ? "--output-dir" : "--realtime (a session)");
    if (o->no_output && rt->enabled)
        return rtc_cli_usage_error(cmd, "--no-output: not with --realtime (a session "
                                   "records its results for replay)");
    if (rt->control_allow && rt->control_port >= 0 && !rt->control_token)
        return rtc_cli_usage_error(cmd, "--control-allow remote needs --control-token FILE "
                                   "(without a token any host could control the run)");
    if (rt->control_token && rt->control_port < 0)
        return rtc_cli_usage_error(cmd, "--control-token needs a control surface "
                                   "(--control-port)");
    if ((rt->http_token || rt->http_address) && rt->http_port < 0)
        return rtc_cli_usage_error(cmd, "%s needs the panel (--http PORT)",
                                   rt->http_token ? "--http-token" : "--http-address");
    if (rt->http_address && !rt->http_token)
        return rtc_cli_usage_error(cmd, "--http-address needs a token (--http-token: a "
                                   "panel beyond this machine must ask for a secret)");
    if (rt->deadman_ms > 0 && rt->control_port < 0 && rt->http_port < 0)
        return rtc_cli_usage_error(cmd, "--deadman-ms needs a control surface "
                                   "(--control-port or --http)");
    return RTC_EXIT_OK;
}

int rtc_cli_sys_parse(const rtc_cli_command *cmd, int argc, char **argv, rtc_cli_sys *o,
                      rtc_cli_args *a)
{
    *o = (rtc_cli_sys){.decimation = 1};
    rtc_cli_rt_init(&o->rt);
    int st = rtc_cli_parse(cmd, argc, argv, a);
    if (st != RTC_EXIT_OK || a->help)
        return st != RTC_EXIT_OK ? st : -1;
    o->path = a->words[0];
    st = rtc_cli_check_kind(cmd, a, o->path, &o->kind);
    for (size_t i = 0; st == RTC_EXIT_OK && i < a->n; i++)
        st = apply(o, &a->args[i]);
    if (st == RTC_EXIT_OK && !strcmp(cmd->name, "dcp-slave")) {
        o->rt.enabled = true; /* a DCP slave is a real-time session */
        o->rt.dcp_port = o->rt.dcp_port < 0 ? 0 : o->rt.dcp_port;
    }
    if (st == RTC_EXIT_OK && (!strcmp(cmd->name, "run") || !strcmp(cmd->name, "check") ||
                              !strcmp(cmd->name, "dcp-slave")))
        st = combinations(cmd->name, a, o);
    return st;
}

void rtc_cli_sys_clear(rtc_cli_sys *o)
{
    free(o->records);
    free(o->sets);
    free(o->places);
    free(o->bridge_sets);
    rtc_partition_free(o->part);
    rtc_cli_rt_clear(&o->rt);
    o->records = NULL;
    o->sets = NULL;
    o->places = NULL;
    o->bridge_sets = NULL;
    o->part = NULL;
}

int rtc_cmd_run(int argc, char **argv)
{
    rtc_cli_sys o;
    rtc_cli_args a;
    const char *name = !strcmp(argv[0], "dcp-slave") ? "dcp-slave" : "run";
    int st = rtc_cli_sys_parse(rtc_cli_command_find(name), argc, argv, &o, &a);
    if (st < 0)
        rtc_cli_run_help();
    if (st == RTC_EXIT_OK)
        st = rtc_cli_run(&o);
    rtc_cli_args_clear(&a);
    rtc_cli_sys_clear(&o);
    return st < 0 ? RTC_EXIT_OK : st;
}
