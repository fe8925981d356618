/*
 * `rtcosim plot DIR|results.csv [options]`: the plots of a run, a session or a benchmark.
 *
 * The drawing is done by rtcosim-plot, a gnuplot script installed beside this executable
 * (the build puts a copy beside build/rtcosim; in the source tree it is scripts/plot).
 * This command finds it next to its own executable, so an installed rtcosim uses the
 * installed script and a build tree its own, hands it this executable (RTCOSIM) for the
 * `info --units` and `info --samples` it reads, and lets its messages say "rtcosim plot".
 * Its options are rows of the option table (cli_opts.c), checked before the script runs;
 * its --help is the script's (what each picture shows).
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rtc_cmd_plot(int argc, char **argv)
{
    /* the options are checked by the one option checker (cli_opts.c) before anything
     * runs; the script reads the same words (its --help is the long text) */
    rtc_cli_args a;
    int st = rtc_cli_parse(rtc_cli_command_find("plot"), argc, argv, &a);
    rtc_cli_args_clear(&a);
    if (st != RTC_EXIT_OK)
        return st;
    char self[PATH_MAX], script[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "rtcosim plot: error: cannot find the rtcosim executable: %s\n",
                strerror(errno));
        return RTC_EXIT_ERROR;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    snprintf(script, sizeof script, "%.*s/rtcosim-plot", (int)(slash ? slash - self : 1),
             slash ? self : ".");
    if (access(script, X_OK) != 0) {
        fprintf(stderr, "rtcosim plot: error: %s: %s (the plot script is installed beside "
                "rtcosim; in a source tree run scripts/plot)\n", script, strerror(errno));
        return RTC_EXIT_ERROR;
    }
    if (setenv("RTCOSIM", self, 1) != 0 || setenv("RTCOSIM_PLOT_NAME", "rtcosim plot", 1) != 0) {
        fprintf(stderr, "rtcosim plot: error: %s\n", strerror(errno));
        return RTC_EXIT_ERROR;
    }
    argv[0] = script; /* argv is NULL-terminated: main's own */
    execv(script, argv);
    fprintf(stderr, "rtcosim plot: error: cannot run %s: %s\n", script, strerror(errno));
    return RTC_EXIT_ERROR;
}
