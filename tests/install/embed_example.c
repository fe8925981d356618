/*
 * embed_example — a program that embeds the rtcosim engine through its installed C API
 * (the README's example; tests/install/install_test.sh builds it against an installed
 * copy with `cc embed_example.c $(pkg-config --cflags --libs rtcosim)` and runs it).
 *
 * usage: embed_example SYSTEM STEPS VARIABLE
 *
 * Loads SYSTEM (.ssp, .ssd or .fmu), initializes it, advances it STEPS base ticks as fast
 * as possible, reads VARIABLE ("unit.variable" or a top-level connector) and stops,
 * printing "VARIABLE t=<seconds> value=<value>". Exit status 0 on success, 1 on any
 * failure (the reason is printed on stderr), 2 on a usage error.
 */
#include <rtcosim/rtcosim.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4 || atol(argv[2]) < 0) {
        fprintf(stderr, "usage: embed_example SYSTEM STEPS VARIABLE\n");
        return 2;
    }
    const char *path = argv[1], *name = argv[3];
    long steps = atol(argv[2]);

    /* 1. Errors and warnings of the engine and the FMUs go to stderr. */
    rtc_logger log = rtc_logger_stderr(RTC_LOG_WARNING);
    rtc_system *sys = NULL;
    size_t unit, var;
    double value = 0.0;

    /* 2. Load (FMUs are extracted and their binaries loaded), 3. initialize. */
    int rc = rtc_load_system(path, NULL, &log, &sys);
    if (rc != RTC_OK)
        goto out;
    rc = rtc_system_init(sys);
    if (rc != RTC_OK)
        goto out;

    /* 4. Step: one call advances one base tick (rtc_system_tick_ns()). */
    for (long k = 0; k < steps && rc == RTC_OK; k++)
        rc = rtc_system_step(sys);
    if (rc != RTC_OK)
        goto out;

    /* 5. Read a variable between steps. */
    rc = rtc_system_find_var(sys, name, &unit, &var);
    if (rc == RTC_OK)
        rc = rtc_system_get_value(sys, unit, var, &value);
    if (rc == RTC_OK)
        printf("%s t=%.9g value=%.17g\n", name, rtc_time_to_s(rtc_system_time_ns(sys)), value);

out:
    if (rc != RTC_OK)
        fprintf(stderr, "embed_example: %s: %s\n", path, rtc_strerror(rc));
    /* 6. Stop: the units terminate, the FMUs are unloaded and their files removed. */
    rtc_system_free(sys);
    return rc == RTC_OK ? 0 : 1;
}
