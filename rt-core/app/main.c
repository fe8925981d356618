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
    "                   variables) or a system (.ssd/.ssp: components, connectors and\n"
    "                   units, I/O signals and their estimators, connections)\n"
    "  run FILE         run an FMU (a system of one unit) or an SSP system (.ssd/.ssp)\n"
    "                   with a master algorithm, as fast as possible or in real time\n"
    "                   (--realtime: an operator session that 'replay' re-runs)\n"
    "  check SYSTEM     validate a system: every problem with file:line\n"
    "  plan SYSTEM      Parallel Fast planning: E(H), D(H) and the recommended sync step\n"
    "  bench            timing-jitter benchmark of the real-time loop (vs cyclictest)\n"
    "  replay SESSION   re-run a recorded real-time session offline and compare results\n"
    "\n"
    "Run 'rtcosim <command> --help' for the options of a command; plots of a run, a\n"
    "session or a benchmark: scripts/plot DIR (see the README).\n"
    "options: --version, --help\n";

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
    if (!strcmp(cmd, "run"))
        return rtc_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "replay"))
        return rtc_cmd_replay(argc - 1, argv + 1);
    if (!strcmp(cmd, "check"))
        return rtc_cmd_check(argc - 1, argv + 1);
    if (!strcmp(cmd, "plan"))
        return rtc_cmd_plan(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return rtc_cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "rtcosim: error: unknown command '%s' (see 'rtcosim --help')\n", cmd);
    return RTC_EXIT_USAGE;
}
