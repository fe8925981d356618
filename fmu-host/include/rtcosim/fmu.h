/*
 * rtcosim/fmu.h — FMU packages: open (extract + parse), describe, create units, close.
 *
 * An rtc_fmu owns a private temporary directory holding the extracted archive, the parsed
 * modelDescription and, once a unit is created, the loaded shared library. Units created
 * from it implement rtc_unit_ops (FMI 2.0 or FMI 3.0 co-simulation) and must be freed
 * before the FMU is closed.
 */
#ifndef RTCOSIM_FMU_H
#define RTCOSIM_FMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/model.h"
#include "rtcosim/rtsafe.h"
#include "rtcosim/unit.h"

typedef struct rtc_fmu rtc_fmu;

typedef struct rtc_fmu_options {
    uint64_t max_unzip_bytes; /**< limit on the total extracted size; 0: RTC_MAX_UNZIP_BYTES */
    const char *display;      /**< how messages name the archive (e.g. "sys.ssp/resources/
                                   a.fmu" for one inside a package); NULL: the path */
} rtc_fmu_options;

/**
 * Extract @p path (a .fmu archive, or a directory that already holds an extracted FMU) into
 * a private temporary directory and parse its modelDescription.xml.
 *
 * @param opt  NULL for defaults.
 * @param lg   receives one error line naming the file and the reason on failure.
 * @param out  the new FMU on success; untouched on failure.
 * Returns: RTC_OK; RTC_EIO / RTC_EUNSAFE / RTC_ELIMIT / RTC_EPARSE / RTC_ENOTFOUND.
 * On failure nothing is left behind (the temporary directory is removed).
 * RT-safe: no. Thread: any, one call per FMU.
 */
int rtc_fmu_open(const char *path, const rtc_fmu_options *opt, const rtc_logger *lg,
                 rtc_fmu **out);

/** The parsed description, valid until rtc_fmu_close(). RT-safe: yes. */
RTC_RT_SAFE const rtc_model_desc *rtc_fmu_model(const rtc_fmu *fmu);

/** The directory the archive was extracted into (no trailing slash). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_fmu_dir(const rtc_fmu *fmu);

/**
 * rtc_fmu_unit_new_opts() with the default options: Co-Simulation when the FMU has it, else
 * Model Exchange (RK4, one substep per communication step). Loads the binary for this
 * platform (FMI 2: binaries/linux64/<id>.so, FMI 3: binaries/x86_64-linux/<id>.so,
 * RTLD_LOCAL) if not loaded yet, binds every function the standard requires for that
 * interface, and creates an uninstantiated unit.
 *
 * @param instance_name copied; non-empty.
 * @param lg  the unit's log lines (and the FMU's own logger messages, prefixed by the
 *            instance name) go here; must outlive the unit.
 * @param out the unit; free with out->ops->free(out->self).
 * An FMI 3 FMU with only a ScheduledExecution element gives an "fmi3-se" unit that runs its
 * model partitions on the clock schedule (fmu-host/src/fmi3_se.c).
 * Returns: RTC_OK; RTC_EUNSUPPORTED (no CoSimulation, ModelExchange or FMI 3
 * ScheduledExecution element, FMI version, no binary for this platform, Model Exchange and
 * Co-Simulation binaries that differ, an input clock of a co-simulation or model-exchange
 * FMU or a clock the schedule cannot run); RTC_ESYMBOL (a required function is missing; the
 * message names it); RTC_EIO (dlopen failed).
 * RT-safe: no.
 */
int rtc_fmu_unit_new(rtc_fmu *fmu, const char *instance_name, const rtc_logger *lg,
                     rtc_unit **out);

/** Which FMI interface a unit uses. */
typedef enum {
    RTC_FMU_IFACE_AUTO = 0, /**< Co-Simulation when the FMU has it, else Model Exchange */
    RTC_FMU_IFACE_CS,
    RTC_FMU_IFACE_ME,
} rtc_fmu_iface;

/** Fixed-step solver of a Model Exchange unit. */
typedef enum {
    RTC_ME_RK4 = 0,   /**< classic Runge-Kutta, order 4, 4 derivative evaluations (default) */
    RTC_ME_EULER,     /**< explicit Euler, order 1, 1 evaluation */
    RTC_ME_HEUN,      /**< Heun (explicit trapezoid), order 2, 2 evaluations */
    RTC_ME_IMPLICIT,  /**< linearly implicit Euler (backward Euler with one Newton step from
                           the current state), order 1, 1 evaluation plus the Jacobian: the
                           FMU's directional derivatives (nx calls) when it provides them,
                           else forward differences (nx evaluations); for stiff models */
} rtc_me_solver;

/**
 * Whether an FMI 3 Co-Simulation unit is instantiated with eventModeUsed (the importer
 * then handles the events fmi3DoStep reports, in Event Mode, counted per unit). Without
 * it the FMU handles its events inside fmi3DoStep, as fmusim runs it by default.
 */
typedef enum {
    RTC_FMU_EVENT_MODE_AUTO = 0, /**< only for an FMU with clocks (FMI 3 requires it then) */
    RTC_FMU_EVENT_MODE_ON,       /**< whenever the FMU declares hasEventMode */
    RTC_FMU_EVENT_MODE_OFF,      /**< never (refused for an FMU with clocks) */
} rtc_fmu_event_mode;

/** How a unit is created; zero-initialised = defaults. */
typedef struct rtc_fmu_unit_opts {
    rtc_fmu_iface iface;
    rtc_me_solver solver; /**< Model Exchange only */
    unsigned substeps;    /**< Model Exchange: fixed solver steps per communication step (0: 1) */
    rtc_fmu_event_mode event_mode; /**< FMI 3 Co-Simulation only */
} rtc_fmu_unit_opts;

/** Most substeps per communication step (bounds the work of one step). */
#define RTC_ME_MAX_SUBSTEPS 100000u

/**
 * Set one option from text: @p key "interface" (auto|cs|me), "solver"
 * (euler|heun|rk4|implicit), "substeps" (1..RTC_ME_MAX_SUBSTEPS) or "event_mode"
 * (auto|on|off, rtc_fmu_event_mode). The same keys are the FMU component settings of a
 * system (rtc:Component attributes).
 * Returns RTC_OK; RTC_ENOTFOUND for another key (@p opt unchanged); RTC_EINVAL for a bad
 * value, with the reason in @p err. RT-safe: no.
 */
int rtc_fmu_unit_opt_set(rtc_fmu_unit_opts *opt, const char *key, const char *value, char *err,
                         size_t err_cap);

/** "euler", "heun", "rk4", "implicit". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_me_solver_name(rtc_me_solver s);

/**
 * rtc_fmu_unit_new() with options: the interface (a Model Exchange unit integrates the FMU
 * over each communication step with opt->substeps fixed steps of opt->solver and handles
 * its time, state and step events; see rtc_fmu_unit_events()), and for FMI 3 Co-Simulation
 * whether Event Mode is requested (an FMU that then refuses to instantiate is instantiated
 * again without it, with one warning per FMU). NULL @p opt = defaults.
 * Returns as rtc_fmu_unit_new(); RTC_EUNSUPPORTED also when the interface is absent, or for
 * event_mode off on an FMU with clocks.
 * RT-safe: no.
 */
int rtc_fmu_unit_new_opts(rtc_fmu *fmu, const char *instance_name, const rtc_fmu_unit_opts *opt,
                          const rtc_logger *lg, rtc_unit **out);

/** Events a Model Exchange unit handled (superdense: one instant may take several
 *  iterations). Counted on the stepping thread; read after the run. */
typedef struct rtc_me_events {
    uint64_t time_events;      /**< nextEventTime reached */
    uint64_t state_events;     /**< event indicator domain changes, located inside a substep */
    uint64_t step_events;      /**< CompletedIntegratorStep asked for Event Mode */
    uint64_t input_events;     /**< discrete inputs or tunable parameters set while running */
    uint64_t iterations;       /**< event iterations (UpdateDiscreteStates calls) in all */
    uint64_t substeps;         /**< accepted solver steps */
    bool terminated;           /**< the FMU asked to end the simulation */
} rtc_me_events;

/** The event counts of @p unit if it is a Model Exchange unit of this module (false
 *  otherwise). RT-safe: yes. Thread: after the stepping thread is done, or on it. */
RTC_RT_SAFE bool rtc_fmu_unit_events(const rtc_unit *unit, rtc_me_events *out);

/** The solver and substeps per communication step of @p unit if it is a Model Exchange
 *  unit of this module (false otherwise): what a planner scales when it proposes fewer
 *  substeps or a cheaper solver. RT-safe: yes. */
RTC_RT_SAFE bool rtc_fmu_unit_solver(const rtc_unit *unit, rtc_me_solver *solver,
                                     unsigned *substeps);

/** Unload the library and remove the temporary directory. NULL is a no-op. RT-safe: no. */
void rtc_fmu_close(rtc_fmu *fmu);

/**
 * The unit factory for SSP components of type "application/x-fmu-sharedlibrary": each
 * distinct FMU file is opened (extracted) once and shared by all its instances; the
 * factory's release() closes them. Fills @p out; the factory owns its state until
 * release() is called (rtc_system_free() does).
 * Returns RTC_OK or RTC_ENOMEM. RT-safe: no.
 */
int rtc_fmu_factory(rtc_unit_factory *out);

/**
 * Parse an FMI 2.0 or 3.0 modelDescription.xml file (XML_PARSE_NONET, no entity
 * expansion, no DTD loading).
 *
 * Every error is logged as one line "FILE:LINE: <Element> <attribute>: reason"; what is
 * refused, accepted and warned about follows the conformance policy in fmu_md.c.
 * Returns: RTC_OK and *out; RTC_EPARSE, RTC_EUNSUPPORTED (fmiVersion), RTC_EIO, RTC_ENOMEM.
 * RT-safe: no.
 */
int rtc_fmu_md_read(const char *xml_path, const rtc_logger *lg, rtc_model_desc **out);

/** Free a description from rtc_fmu_md_read(). NULL is a no-op. RT-safe: no. */
void rtc_fmu_md_free(rtc_model_desc *md);

#endif
