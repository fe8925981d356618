/*
 * The embedding entry point rtc_load_system() (rtcosim/assemble.h, rtcosim/rtcosim.h):
 * one call registers the built-in drivers and loads a system with every built-in unit
 * factory; rtc_fmu_load_system() is its old name. tests/install checks the same calls from
 * an installed copy.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include "rtcosim/assemble.h"
#include "rtcosim/fmu.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"

#include <math.h>
#include <stdio.h>

static const char *config(const char *name)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s.ssp", RTC_TEST_CONFIG_DIR, name);
    return path;
}

/* mass1.x1 after @p steps ticks of msd-jacobi loaded by @p facade or by hand. */
static double run_msd(bool facade, int steps)
{
    tlog log;
    tlog_init(&log);
    rtc_system *sys = NULL;
    double x = NAN;
    size_t unit, var;
    if (facade) {
        CU_ASSERT_EQUAL_FATAL(rtc_load_system(config("msd-jacobi"), NULL, &log.lg, &sys),
                              RTC_OK);
    } else {
        rtc_unit_factory f;
        CU_ASSERT_EQUAL_FATAL(rtc_fmu_factory(&f), RTC_OK);
        CU_ASSERT_EQUAL_FATAL(rtc_system_load(config("msd-jacobi"), &f, 1, NULL, &log.lg, &sys),
                              RTC_OK);
    }
    CU_ASSERT_EQUAL_FATAL(rtc_system_init(sys), RTC_OK);
    for (int k = 0; k < steps; k++)
        CU_ASSERT_EQUAL_FATAL(rtc_system_step(sys), RTC_OK);
    CU_ASSERT_EQUAL(rtc_system_time_ns(sys), (int64_t)steps * 10000000);
    CU_ASSERT_EQUAL_FATAL(rtc_system_find_var(sys, "mass1.x1", &unit, &var), RTC_OK);
    CU_ASSERT_EQUAL(rtc_system_get_value(sys, unit, var, &x), RTC_OK);
    rtc_system_free(sys);
    CU_ASSERT_EQUAL(log.errors, 0);
    return x;
}

static void load_system_runs_like_the_fmu_factory(void)
{
    double by_facade = run_msd(true, 100), by_hand = run_msd(false, 100);
    CU_ASSERT(isfinite(by_facade) && by_facade != 0.0);
    CU_ASSERT_EQUAL(by_facade, by_hand); /* the same factories: bit-identical */
}

static void load_system_null_arguments_rejected(void)
{
    tlog log;
    tlog_init(&log);
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL(rtc_load_system(NULL, NULL, &log.lg, &sys), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_load_system(config("msd-jacobi"), NULL, &log.lg, NULL), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_load_system_replay(config("msd-jacobi"), NULL, NULL, &log.lg, &sys),
                    RTC_EINVAL);
    CU_ASSERT_PTR_NULL(sys);
}

static void load_system_missing_file_reported_untouched(void)
{
    tlog log;
    tlog_init(&log);
    rtc_system *sys = NULL;
    CU_ASSERT_NOT_EQUAL(rtc_load_system(config("no-such-system"), NULL, &log.lg, &sys), RTC_OK);
    CU_ASSERT_PTR_NULL(sys);
    CU_ASSERT(tlog_has(&log, "no-such-system.ssp"));
}

/* hil-demo has a Modbus client component: the one call registers its driver (opening a
 * Modbus client connects nothing: the I/O thread does, at the run). The old name loads the
 * same system. */
static void load_system_io_components_need_no_setup(void)
{
    tlog log;
    tlog_init(&log);
    rtc_system *sys = NULL;
    CU_ASSERT_EQUAL(rtc_load_system(config("hil-demo"), NULL, &log.lg, &sys), RTC_OK);
    CU_ASSERT_PTR_NOT_NULL(sys);
    CU_ASSERT(sys && rtc_system_has_io(sys));
    rtc_system_free(sys);
    sys = NULL;
    CU_ASSERT_EQUAL(rtc_fmu_load_system(config("hil-demo"), NULL, &log.lg, &sys), RTC_OK);
    CU_ASSERT(sys && rtc_system_has_io(sys));
    rtc_system_free(sys);
    CU_ASSERT_EQUAL(log.errors, 0);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"load_system_runs_like_the_fmu_factory", load_system_runs_like_the_fmu_factory},
        {"load_system_null_arguments_rejected", load_system_null_arguments_rejected},
        {"load_system_missing_file_reported_untouched",
         load_system_missing_file_reported_untouched},
        {"load_system_io_components_need_no_setup", load_system_io_components_need_no_setup},
        {NULL, NULL}};
    rtc_test_add_suite("embed", NULL, NULL, cases);
}
