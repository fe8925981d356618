/*
 * The composition root: the one place that knows every unit factory (FMUs) and every
 * built-in driver, registers the drivers and loads a system with all of them. A new driver
 * is registered in io-drivers (rtc_iodrivers_register) and found here through the driver
 * registry (rtc_driver_types): no list of component types in this file.
 */
#include "rtcosim/assemble.h"
#include "rtcosim/driver.h"
#include "rtcosim/fmu.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"

/* The FMU factory and one I/O factory per registered driver type: live ones, or replay
 * units fed by @p feed. Returns how many of @p f are filled, 0 on failure. */
static size_t make_factories(rtc_unit_factory *f, const rtc_io_sample_source *feed)
{
    const char *types[RTC_DRIVER_MAX_TYPES];
    size_t n = 0;
    if (rtc_iodrivers_register() != RTC_OK || rtc_fmu_factory(&f[n++]) != RTC_OK)
        return 0;
    size_t n_types = rtc_driver_types(types, RTC_DRIVER_MAX_TYPES);
    for (size_t i = 0; i < n_types && i < RTC_DRIVER_MAX_TYPES; i++) {
        int rc = feed ? rtc_io_unit_replay_factory(&f[n], types[i], feed)
                      : rtc_io_unit_factory(&f[n], types[i]);
        n += rc == RTC_OK;
    }
    return n;
}

int rtc_load_system(const char *path, const rtc_system_options *opt, const rtc_logger *lg,
                    rtc_system **out)
{
    rtc_unit_factory f[1 + RTC_DRIVER_MAX_TYPES];
    if (!path || !out)
        return RTC_EINVAL;
    size_t n = make_factories(f, NULL);
    return n ? rtc_system_load(path, f, n, opt, lg, out) : RTC_ENOMEM;
}

int rtc_load_system_replay(const char *path, const rtc_system_options *opt,
                           const rtc_io_sample_source *feed, const rtc_logger *lg,
                           rtc_system **out)
{
    rtc_unit_factory f[1 + RTC_DRIVER_MAX_TYPES];
    if (!path || !out || !feed)
        return RTC_EINVAL;
    size_t n = make_factories(f, feed);
    return n ? rtc_system_load(path, f, n, opt, lg, out) : RTC_ENOMEM;
}

int rtc_fmu_load_system(const char *path, const rtc_system_options *opt, const rtc_logger *lg,
                        rtc_system **out)
{
    return rtc_load_system(path, opt, lg, out);
}
