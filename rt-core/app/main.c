/*
 * rtcosim — real-time hardware-in-the-loop co-simulation engine: command-line entry point.
 * Dispatches to the sub-commands; each prints its own --help.
 */
#include "cli.h"
#include "rt_cli.h"
#include "summary.h"

#include "rtcosim/rtc_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

rtc_logger rtc_cli_log;

static const char usage[] =
    "usage: rtcosim <command> [options] [arguments]\n"
    "\n"
    "Real-time co-simulation of FMI 2.0/3.0 co-simulation FMUs.\n"
    "\n"
    "commands:\n"
    "  info FILE        describe an FMU (version, capabilities, default experiment,\n"
    "                   variables) or a system (.ssd/.ssp or a folder holding a\n"
    "                   SystemStructure.ssd: components, connectors and units, I/O signals\n"
    "                   and their estimators, connections)\n"
    "  run FILE         run an FMU (a system of one unit) or an SSP system (.ssd/.ssp or\n"
    "                   its folder) with a master algorithm, as fast as possible or in real\n"
    "                   time (--realtime: an operator session that 'replay' re-runs)\n"
    "  dcp-slave FILE   run an FMU or a system in real time as a DCP 1.0 slave (UDP):\n"
    "                   its exposed variables are the inputs, its recorded columns the\n"
    "                   outputs; writes the .dcpx; 'run --help' lists the options\n"
    "  check SYSTEM     validate a system: every problem with file:line\n"
    "  plan SYSTEM      Parallel Fast planning: E(H), D(H) and the recommended sync step,\n"
    "                   from real-time factors measured on this machine; with --realtime:\n"
    "                   will the system keep its period here (per unit, per thread, slack,\n"
    "                   verdict, what to change)\n"
    "  bench            timing-jitter benchmark of the real-time loop (vs cyclictest)\n"
    "  replay SESSION   re-run a recorded real-time session offline and compare results\n"
    "  merge DIR...     put a distributed run's node results together (the one-process\n"
    "                   run's results.csv)\n"
    "  plot DIR         draw the plots of a run, a session or a benchmark (gnuplot): its\n"
    "                   signals, the bench values against their estimates, the latency\n"
    "  tune SESSION     evaluate every estimator on a recorded session's late values and\n"
    "                   recommend one per I/O signal or delayed connection\n"
    "\n"
    "Run 'rtcosim <command> --help' for the options of a command.\n"
    "options: --version, --help\n"
    "\n"
    "exit status:\n"
    "  0         completed: the stop time was reached, a unit ended the simulation, or the\n"
    "            control surface stopped the run\n"
    "  1         failed: a unit's Error/Fatal, an I/O failure, the overrun stop policy,\n"
    "            --on-nonfinite stop, a file that does not load, a check that found errors\n"
    "  2         usage error: a bad option or argument; nothing was run\n"
    "  3         the watchdog ended a run whose unit hung in its step\n"
    "  4         a result file could not be written\n"
    "  5         replay: the session ended abnormally; the rows it recorded are identical\n"
    "  6         failed: a required I/O link was not up by its connect_ms deadline (the\n"
    "            run did not start), or a link was lost past its on_loss policy\n"
    "  7         degraded: the stop time was reached, but a required I/O link was lost\n"
    "            and its on_loss=continue kept the run going\n"
    "  8         run --realtime refused before arming, plan --realtime: the system does\n"
    "            not fit its period on this machine (--force runs it anyway)\n"
    "  9         stopped: another node of a distributed real-time run stopped it\n"
    "            (summary.json \"distributed\".\"stopped_by\" names the node and why)\n"
    "  129, 130, 143  stopped by SIGHUP, SIGINT, SIGTERM\n";

int rtc_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rtcosim %s: error: %s (see 'rtcosim %s --help')\n", cmd, msg, cmd);
    return RTC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    rtc_logger err = rtc_logger_stderr(RTC_LOG_WARNING);
    rtc_cli_log = rtc_cli_capture(&err); /* keeps the last error line for summary.json */
    rtc_cli_process_signals();           /* SIGPIPE, SIGXFSZ: write errors, not deaths */
    if (argc < 2) {
        fputs(usage, stderr);
        return RTC_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return RTC_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("rtcosim %s\n", RTC_VERSION);
        return RTC_EXIT_OK;
    }
    if (!strcmp(cmd, "info"))
        return rtc_cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "run") || !strcmp(cmd, "dcp-slave"))
        return rtc_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "replay"))
        return rtc_cmd_replay(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune"))
        return rtc_cmd_tune(argc - 1, argv + 1);
    if (!strcmp(cmd, "check"))
        return rtc_cmd_check(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge"))
        return rtc_cmd_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "plan"))
        return rtc_cmd_plan(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return rtc_cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "plot"))
        return rtc_cmd_plot(argc - 1, argv + 1);
    fprintf(stderr, "rtcosim: error: unknown command '%s' (see 'rtcosim --help')\n", cmd);
    return RTC_EXIT_USAGE;
}
