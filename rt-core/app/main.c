/*
 * rtcosim — real-time hardware-in-the-loop co-simulation engine: command-line entry point.
 * Dispatches to the sub-commands; each prints its own --help.
 */
#include "cli.h"

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
    "  info FMU         describe an FMU: version, capabilities, default experiment, variables\n"
    "  run FMU          simulate an FMU and write its outputs to a CSV file\n"
    "\n"
    "Run 'rtcosim <command> --help' for the options of a command.\n"
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
    rtc_cli_log = rtc_logger_stderr(RTC_LOG_WARNING);
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
    fprintf(stderr, "rtcosim: error: unknown command '%s' (see 'rtcosim --help')\n", cmd);
    return RTC_EXIT_USAGE;
}
