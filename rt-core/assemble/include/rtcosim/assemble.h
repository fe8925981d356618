/*
 * rtcosim/assemble.h — the wiring on top: load a system with every unit factory and every
 * driver this build has.
 */
#ifndef RTCOSIM_ASSEMBLE_H
#define RTCOSIM_ASSEMBLE_H

#include "rtcosim/log.h"
#include "rtcosim/system.h"

/**
 * Load a system with every built-in unit factory: rtc_system_load() (rtcosim/system.h)
 * with the FMU factory above and, for each I/O component type whose driver is registered,
 * rtc_io_unit_factory() (rtcosim/io_unit.h). This is the one call an embedding program
 * needs to load an .ssp, an .ssd or a single .fmu; rtcosim/rtcosim.h shows the whole
 * sequence (load, init, step, read, free).
 *
 * Systems with Modbus or OSC components (application/x-rtcosim-modbus-client, -server,
 * -osc) need their drivers registered first: call rtc_iodrivers_register()
 * (rtcosim/iodrivers.h) once before; without it such a system fails to load with one line
 * naming the component and its type. Such a system then runs only in real time
 * (rtcosim/exec.h).
 *
 * @param path  .ssp, .ssd or .fmu file; relative FMU sources of an .ssd are resolved
 *              against its directory (or opt->source_dir).
 * @param opt   overrides of the file's settings (stop time, master algorithm, step,
 *              "unit.var=value" start values, ...); NULL for the file's own.
 * @param lg    receives every problem as one line "FILE:LINE: reason"; NULL drops them.
 * @param out   the loaded, not yet initialized system; free it with rtc_system_free().
 * Returns: RTC_OK; RTC_EINVAL (NULL @p path or @p out); RTC_EPARSE (invalid system: see
 * the log); RTC_EIO; RTC_ENOMEM; a factory's error (e.g. RTC_EUNSUPPORTED for an FMU
 * without a binary for this platform). On failure *out is untouched and nothing is left
 * behind (extracted FMUs are removed).
 * RT-safe: no. Thread: any, but drivers are registered on the main thread.
 */
int rtc_fmu_load_system(const char *path, const rtc_system_options *opt, const rtc_logger *lg,
                        rtc_system **out);

#endif
