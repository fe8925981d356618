/*
 * rtcosim/assemble.h — the wiring on top: load a system with every unit factory and every
 * driver this build has.
 *
 * This is the composition root of the engine (the one place that knows the concrete
 * plug-ins): it registers the built-in drivers (rtcosim/iodrivers.h) and makes a unit
 * factory for FMUs (rtcosim/fmu.h) and one for each registered I/O component type
 * (rtcosim/io_unit.h), then loads the system with rtc_system_load(). The layers below never
 * name a plug-in; the CLI and embedding programs call this.
 */
#ifndef RTCOSIM_ASSEMBLE_H
#define RTCOSIM_ASSEMBLE_H

#include "rtcosim/io_unit.h"
#include "rtcosim/log.h"
#include "rtcosim/system.h"

/**
 * Load a system with every built-in unit factory: FMUs
 * (application/x-fmu-sharedlibrary) and the I/O components of every registered driver
 * (application/x-rtcosim-modbus-client, -modbus-server, -osc, ...; the built-in drivers are
 * registered by this call, so a program needs no other set-up). This is the one call an
 * embedding program needs to load an .ssp, an .ssd or a single .fmu; rtcosim/rtcosim.h
 * shows the whole sequence (load, init, step, read, free). A system with I/O components
 * runs only in real time (rtcosim/exec.h).
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
 * RT-safe: no. Thread: the main thread (it registers the drivers), during load.
 */
int rtc_load_system(const char *path, const rtc_system_options *opt, const rtc_logger *lg,
                    rtc_system **out);

/**
 * Load a system for replay: FMUs as for rtc_load_system(), every I/O component as a replay
 * unit fed by @p feed (rtc_io_unit_replay_factory(): no driver is opened, no bench or
 * network is needed). Used by `rtcosim replay` on a session's copy of the system.
 * Returns and errors as rtc_load_system(); RTC_EINVAL also for a NULL @p feed.
 * RT-safe: no. Thread: the main thread, during load.
 */
int rtc_load_system_replay(const char *path, const rtc_system_options *opt,
                           const rtc_io_sample_source *feed, const rtc_logger *lg,
                           rtc_system **out);

/**
 * The name of rtc_load_system() in rtcosim 0.1 (declared in rtcosim/fmu.h then), kept so
 * programs built against it still link: the same function under its old name.
 * RT-safe: no.
 */
int rtc_fmu_load_system(const char *path, const rtc_system_options *opt, const rtc_logger *lg,
                        rtc_system **out);

#endif
