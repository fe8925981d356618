/*
 * The composition root: the one place that knows every unit factory (FMUs) and every
 * registered driver type, and loads a system with all of them.
 */
#include "rtcosim/assemble.h"
#include "rtcosim/driver.h"
#include "rtcosim/fmu.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/status.h"

/* The one place that knows every component type: FMUs, and the type of every registered
 * driver (rtc_driver_types: no list of names here, so a new driver needs no change; a
 * system naming an unregistered I/O type fails its load with a line saying so). */
int rtc_fmu_load_system(const char *path, const rtc_system_options *opt, const rtc_logger *lg,
                        rtc_system **out)
{
    rtc_unit_factory f[1 + RTC_DRIVER_MAX_TYPES];
    const char *types[RTC_DRIVER_MAX_TYPES];
    size_t n = 0;
    if (!path || !out)
        return RTC_EINVAL;
    if (rtc_fmu_factory(&f[n++]) != RTC_OK)
        return RTC_ENOMEM;
    size_t n_types = rtc_driver_types(types, RTC_DRIVER_MAX_TYPES);
    for (size_t i = 0; i < n_types && i < RTC_DRIVER_MAX_TYPES; i++)
        if (rtc_io_unit_factory(&f[n], types[i]) == RTC_OK)
            n++;
    return rtc_system_load(path, f, n, opt, lg, out);
}
