/*
 * rtcosim/rtcosim.h — the embeddable engine: one header for a program that loads a
 * co-simulation system, steps it and reads its variables.
 *
 * Build against an installed copy with pkg-config:
 *
 *     cc my_program.c $(pkg-config --cflags --libs rtcosim)
 *
 * (If the prefix is not a system one, point PKG_CONFIG_PATH at <prefix>/lib/pkgconfig —
 * or <prefix>/lib/<multiarch>/pkgconfig. The --libs carry an rpath to that directory, so
 * the program finds librtcosim.so.0 when it runs.) Every function returns an rtc_status (rtcosim/status.h): RTC_OK (0) or a
 * negative RTC_E* code whose text rtc_strerror() gives; the reason in words goes to the
 * logger you pass.
 *
 * ---- The entry points, in order ----
 *
 *  1. A logger (rtcosim/log.h). rtc_logger_stderr(RTC_LOG_WARNING) prints errors and
 *     warnings to stderr; or fill an rtc_logger with your own callback. The system keeps
 *     a pointer to it: it must outlive the system.
 *  2. rtc_load_system(path, opt, &log, &sys) (rtcosim/assemble.h): loads an SSP system
 *     (.ssp archive or .ssd file) or a single FMU (.fmu, a system of one unit named after
 *     its model). FMUs are extracted into a private temporary directory. Pass an
 *     rtc_system_options (rtcosim/system.h) to override the file's stop time, master
 *     algorithm, step size or start values ("unit.variable=value"), or NULL.
 *  3. rtc_system_init(sys): instantiates every unit, applies parameters and start values,
 *     runs the FMUs' initialization and makes the coupling consistent.
 *  4. rtc_system_step(sys), as often as you like: advances by one base tick
 *     (rtc_system_tick_ns(); the GCD of every unit's step). It runs as fast as the
 *     computer can; rtc_system_time_ns() is the logical time reached, in ns from the
 *     start time. RTC_ETERMINATED means a unit ended the simulation. Nothing stops the
 *     caller at the file's stop time: compare rtc_system_time_ns() with
 *     rtc_system_stop_ns() if it should. For stepping paced to the wall clock on a
 *     real-time thread use rtcosim/exec.h instead; for result files rtcosim/recorder.h.
 *     With nothing to do between ticks, rtc_system_step_n(sys, n) takes up to n of them
 *     in one call (it returns early where a caller would act: a failure, the stop, a
 *     unit's end, a new non-finite value).
 *  5. Between steps, on the thread that steps: rtc_system_find_var(sys, "unit.variable",
 *     &unit, &var) — or the name of a connector of the top-level SSP system — then
 *     rtc_system_get_value(sys, unit, var, &value) reads it as a double;
 *     rtc_system_set_value() writes an input or tunable parameter
 *     (rtc_system_check_settable() says which may be written and why not).
 *  6. rtc_system_free(sys): terminates the units (fmi2Terminate/fmi3Terminate), frees
 *     them, unloads the FMUs and removes their temporary directories. The stop.
 *
 * ---- Example (error handling shortened to one check per call) ----
 *
 * msd-jacobi.ssp is one of the example systems installed under
 * <prefix>/share/rtcosim/examples/ (two coupled mass-spring-damper FMUs, 10 ms step):
 *
 *     #include <rtcosim/rtcosim.h>
 *     #include <stdio.h>
 *
 *     int main(void)
 *     {
 *         rtc_logger log = rtc_logger_stderr(RTC_LOG_WARNING);
 *         rtc_system *sys = NULL;
 *         size_t unit, var;
 *         double x;
 *         int rc = rtc_load_system("msd-jacobi.ssp", NULL, &log, &sys);
 *         if (rc == RTC_OK)
 *             rc = rtc_system_init(sys);
 *         for (int k = 0; rc == RTC_OK && k < 100; k++)
 *             rc = rtc_system_step(sys);
 *         if (rc == RTC_OK)
 *             rc = rtc_system_find_var(sys, "mass1.x1", &unit, &var);
 *         if (rc == RTC_OK)
 *             rc = rtc_system_get_value(sys, unit, var, &x);
 *         if (rc == RTC_OK)
 *             printf("mass1.x1 = %.17g at t = %g s\n", x,
 *                    rtc_time_to_s(rtc_system_time_ns(sys)));
 *         else
 *             fprintf(stderr, "failed: %s\n", rtc_strerror(rc));
 *         rtc_system_free(sys);
 *         return rc == RTC_OK ? 0 : 1;
 *     }
 *
 * ---- Threads, time and ownership ----
 *
 * A system is used by one thread at a time (load, init, step, get/set, free). Logical
 * time is an int64_t count of nanoseconds; rtc_time_to_s() converts. Strings passed in
 * are copied; pointers returned (names, descriptions) stay valid until rtc_system_free().
 * Capacities fixed when the library was built are in rtcosim/rtc_config.h
 * (RTC_VERSION is the library's version).
 *
 * The other installed headers are the engine's layers, usable one by one: base
 * (status.h, log.h, time.h, model.h, unit.h, driver.h, ring.h, mailbox.h, rtlog.h, ...),
 * load (ssp.h), est (estimate.h), system (system.h, io_unit.h, pfast.h, nonfinite.h), exec
 * (exec.h, recorder.h), session (session.h), assemble (assemble.h), FMU packages (fmu.h)
 * and the I/O drivers (iodrivers.h).
 * The operator surfaces of the rtcosim command (OSC control, HTTP panel) are not part of
 * the library; session.h is what a surface of one's own is built on.
 */
#ifndef RTCOSIM_RTCOSIM_H
#define RTCOSIM_RTCOSIM_H

/* C++ programs get the declarations with C linkage (include this header first: the
 * headers it pulls in are then already included inside the block). */
#ifdef __cplusplus
extern "C" {
#endif

#include "rtcosim/assemble.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
}
#endif

#endif
