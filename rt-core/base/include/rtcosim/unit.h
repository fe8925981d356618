/*
 * rtcosim/unit.h — the Unit plug-in interface: anything that steps in simulated time.
 *
 * rt-core declares it; fmu-host implements it for FMI 2.0 and FMI 3.0 co-simulation FMUs
 * (and built-in blocks may implement it too). The engine drives a unit through the fixed
 * life cycle
 *
 *     instantiate → set start values → enter_init → exit_init
 *         → (set inputs → do_step → get outputs)* → terminate → free
 *
 * Values cross this interface as typed arrays, one element type per rtc_type
 * (rtc_type_size()). Time crosses it as double seconds because that is what FMI needs;
 * callers compute it as t0 + k·h from an integer step count, never as a running sum.
 */
#ifndef RTCOSIM_UNIT_H
#define RTCOSIM_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/model.h"
#include "rtcosim/rtsafe.h"

/** One key=value setting (from the system file's annotations; strings owned by the
 *  caller, valid while the unit is being created). */
typedef struct rtc_kv {
    const char *key;
    const char *value;
} rtc_kv;

/** Value of @p key in @p kv[0..n) (the last one wins), or NULL. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_kv_get(const rtc_kv *kv, size_t n, const char *key);

/** A connector a unit is created with (I/O components take their signals from these). */
typedef struct rtc_unit_port {
    const char *name;
    rtc_causality causality; /**< INPUT (the system writes it) or OUTPUT (it produces it) */
    rtc_type type;
    const char *unit;        /**< or NULL */
    const rtc_kv *settings;  /**< per-port settings (e.g. an I/O signal's register map) */
    size_t n_settings;
} rtc_unit_port;

/** What a unit factory is asked to create: one component of the system file. */
typedef struct rtc_unit_spec {
    const char *name;        /**< instance (component) name; NULL: the factory names the
                                  unit (an FMU after its model: a single .fmu run) */
    const char *type;        /**< component type (MIME) */
    const char *source;      /**< file (FMU) or NULL */
    const char *file;        /**< system file, for diagnostics */
    unsigned line;           /**< line of the component in it */
    const rtc_kv *settings;  /**< component settings */
    size_t n_settings;
    const rtc_unit_port *ports;
    size_t n_ports;
    const char *source_display; /**< source as messages name it ("sys.ssp/resources/a.fmu"
                                     for a file inside a package), or NULL: source */
} rtc_unit_spec;

/** Capability flags of a unit instance. */
enum {
    RTC_UNIT_CAN_GET_SET_STATE = 1u << 0,
    RTC_UNIT_CAN_VARY_STEP = 1u << 1,
    RTC_UNIT_CAN_SERIALIZE_STATE = 1u << 2,
    RTC_UNIT_CAN_INTERPOLATE_INPUTS = 1u << 3,
};

/** Why a do_step ended differently from "step completed". */
typedef enum {
    RTC_STEP_DONE = 0,   /**< step completed, continue */
    RTC_STEP_TERMINATE,  /**< the unit asked to end the simulation (FMI 2 Discard+terminated,
                              FMI 3 terminateSimulation); outputs at last_time_s are valid */
    RTC_STEP_DISCARD,    /**< FMI 2 Discard without termination: the step was not completed */
    RTC_STEP_EARLY,      /**< FMI 3 earlyReturn: stopped at last_time_s */
} rtc_step_outcome;

/** What a do_step did. Callers zero it before the call; a unit sets what applies. */
typedef struct rtc_step_result {
    rtc_step_outcome outcome;
    double last_time_s;  /**< time the unit actually reached (= t + h when DONE) */
    bool event_needed;   /**< FMI 3 eventHandlingNeeded */
    /* Events the unit handled inside the step (FMI 3 co-simulation with event mode): the
     * step still ends at t + h, on the engine's grid; these only count what happened. */
    unsigned events;        /**< event instants handled (Event Mode entered) */
    unsigned early_returns; /**< early returns resumed to t + h within this step */
    unsigned microsteps;    /**< most event iterations at one instant (superdense index
                                 reached + 1; 0 without events) */
} rtc_step_result;

/** Settings for instantiation and initialization. */
typedef struct rtc_unit_setup {
    const char *instance_name;
    bool logging_on;        /**< enable the unit's debug logging */
    double start_time_s;
    bool stop_time_defined; /**< false for open-ended real-time runs */
    double stop_time_s;
    bool tolerance_defined;
    double tolerance;
    bool may_rollback; /**< the master may restore a state saved before the current step
                            (FMI noSetFMUStatePriorToCurrentPoint = !may_rollback) */
} rtc_unit_setup;

/**
 * Operations of one unit kind. Every function returns RTC_OK or a negative rtc_status;
 * a Warning from the unit is logged and counts as success. Errors are logged with the
 * instance name before returning, so callers only need to stop.
 *
 * RT-safe: set, get and do_step are called from the RT thread in the run phase; an
 * implementation must not allocate or lock in them (FMU code itself may).
 */
typedef struct rtc_unit_ops {
    const char *kind; /**< e.g. "fmi2-cs", "fmi3-cs" */
    int (*instantiate)(void *self, const rtc_unit_setup *setup);
    int (*enter_init)(void *self);
    /** RTC_ETERMINATED: the unit ended the simulation at its initial event (FMI 3
     *  terminateSimulation; a request, logged as a warning, not an error): its outputs at
     *  the start are valid and terminate is still due. */
    int (*exit_init)(void *self);
    /** Set @p n_vr variables of @p type. @p values holds @p n_values elements (more than
     *  n_vr when arrays are set) of the C type given by rtc_type_size(). */
    int (*set)(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, const void *values,
               size_t n_values);
    int (*get)(void *self, rtc_type type, const uint32_t *vr, size_t n_vr, void *values,
               size_t n_values);
    /** Advance from @p t_s by @p h_s. */
    int (*do_step)(void *self, double t_s, double h_s, rtc_step_result *result);
    /** Save the unit's complete state into *state (allocated by the unit on first use and
     *  reused when *state is not NULL). NULL when unsupported. */
    int (*get_state)(void *self, void **state);
    int (*set_state)(void *self, void *state);
    int (*free_state)(void *self, void **state);
    int (*terminate)(void *self);
    /** Free the instance; safe in any state and after failures. */
    void (*free)(void *self);

    /* ---- units that exchange with the outside world (I/O components); NULL otherwise ---- */

    /** Make the outputs valid at logical time @p t_ns (read what arrived, estimate at t).
     *  Such a unit never steps: the master refreshes it at the start of every tick, before
     *  the other units read it, and sets its inputs (what goes out) at the same time.
     *  RT-safe: yes. */
    int (*refresh)(void *self, int64_t t_ns);
    /** The wall clock of a real-time run: logical t corresponds to CLOCK_MONOTONIC
     *  t0_mono_ns + t / rtf. Called when a run is anchored and on every re-anchoring. */
    void (*set_time_base)(void *self, int64_t t0_mono_ns, double rtf);
    /** Put the outside world in its safe state now (any non-RT thread, any time). */
    int (*write_safe)(void *self);
} rtc_unit_ops;

/** A unit: operations, instance data and its description. */
typedef struct rtc_unit {
    const rtc_unit_ops *ops;
    void *self;
    const rtc_model_desc *md; /**< owned by the provider; valid until free */
    unsigned caps;            /**< RTC_UNIT_* flags */
    const char *name;         /**< instance name (owned by the provider) */
} rtc_unit;

/** A way to create units of one SSP component type (MIME type). */
typedef struct rtc_unit_factory {
    const char *type; /**< e.g. "application/x-fmu-sharedlibrary" */
    /** Create an uninstantiated unit for one component of the system file. Problems are
     *  logged as "FILE:LINE: ..." with the spec's file and line. */
    int (*create)(void *ctx, const rtc_unit_spec *spec, const rtc_logger *lg, rtc_unit **out);
    /** Release what the factory shares between its units (called once, after every unit of
     *  the system is freed). May be NULL. */
    void (*release)(void *ctx);
    void *ctx;
} rtc_unit_factory;

#endif
