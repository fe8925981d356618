/*
 * model.h — the small interface between one test model (tests/fmus/<Model>/<model>.c) and
 * the two generic FMI wrappers (common/fmi2_wrap.c, common/fmi3_wrap.c).
 *
 * A model is a plain C struct plus a table describing its variables. Each model source
 * defines exactly one `const rtc_tm_model rtc_tm_model_def`; it is linked with ONE wrapper
 * into <modelIdentifier>.so, once for FMI 2.0 and once for FMI 3.0. The wrappers own the
 * FMI state machine, time keeping, argument checks, logging and FMU state; a model only
 * computes.
 *
 * Rules for models (the RT hygiene test depends on them):
 *   - `step` and `outputs` never allocate, never do I/O and never call stdio;
 *   - the struct holds no pointers (FMU state get/set and serialization are memcpy);
 *   - value references are dense: vars[i].vr == i, with vr 0 the independent `time`.
 *
 * The FMI 2 wrapper reaches only F64 (Real), I32 and ENUM (Integer), BOOL (Boolean) and
 * STR (String) scalars; the FMI 3 wrapper reaches every type, arrays included.
 */
#ifndef RTC_TM_MODEL_H
#define RTC_TM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Capacity of a String variable in bytes, terminating NUL included (longer: truncated). */
#define RTC_TM_STR_CAP 256
/** Capacity of a Binary variable in bytes (longer values are rejected). */
#define RTC_TM_BIN_CAP 256

/** Storage of a Binary variable. */
typedef struct rtc_tm_binary {
    size_t size;
    uint8_t data[RTC_TM_BIN_CAP];
} rtc_tm_binary;

/** Storage type of a variable; the C type in the model struct is given per value. */
typedef enum {
    RTC_TM_F64,  /**< double */
    RTC_TM_F32,  /**< float */
    RTC_TM_I8,   /**< int8_t */
    RTC_TM_U8,   /**< uint8_t */
    RTC_TM_I16,  /**< int16_t */
    RTC_TM_U16,  /**< uint16_t */
    RTC_TM_I32,  /**< int32_t */
    RTC_TM_U32,  /**< uint32_t */
    RTC_TM_I64,  /**< int64_t */
    RTC_TM_U64,  /**< uint64_t */
    RTC_TM_BOOL, /**< bool */
    RTC_TM_STR,  /**< char[RTC_TM_STR_CAP] */
    RTC_TM_BIN,  /**< rtc_tm_binary */
    RTC_TM_ENUM  /**< int64_t (FMI 3 Int64 access, FMI 2 Integer access) */
} rtc_tm_type;

/** Causality as in the modelDescription. */
typedef enum {
    RTC_TM_PARAMETER,
    RTC_TM_INPUT,
    RTC_TM_OUTPUT,
    RTC_TM_LOCAL,
    RTC_TM_INDEPENDENT /**< `time`: read from the wrapper, not from the struct */
} rtc_tm_causality;

/** Variability; only FIXED vs TUNABLE matters to the wrappers (when a parameter may be set). */
typedef enum {
    RTC_TM_FIXED,
    RTC_TM_TUNABLE,
    RTC_TM_DISCRETE,
    RTC_TM_CONTINUOUS
} rtc_tm_variability;

/** One row of a model's variable table. */
typedef struct rtc_tm_var {
    const char *name; /**< FMI 3 name (FMI 2 names may differ, see the modelDescription) */
    uint32_t vr;
    rtc_tm_type type;
    rtc_tm_causality causality;
    rtc_tm_variability variability;
    size_t offset; /**< offsetof the value in the model struct */
    uint32_t n;    /**< number of elements (1 for scalars) */
} rtc_tm_var;

/** Table row for a scalar field `f` of struct type `S`. */
#define RTC_TM_VAR(S, f, vr, type, caus, var)                                                      \
    {                                                                                              \
#f, (vr), (type), (caus), (var), offsetof(S, f), 1                                         \
    }
/** Table row for an array field `f` of `n` elements. */
#define RTC_TM_ARR(S, f, vr, type, caus, var, n)                                                   \
    {                                                                                              \
#f, (vr), (type), (caus), (var), offsetof(S, f), (n)                                       \
    }
/** Table row for the independent variable `time` (always vr 0). */
#define RTC_TM_TIME                                                                                \
    {                                                                                              \
        "time", 0, RTC_TM_F64, RTC_TM_INDEPENDENT, RTC_TM_CONTINUOUS, 0, 1                         \
    }

/** Status, same order and values as fmi2Status / fmi3Status up to Fatal. */
typedef enum {
    RTC_TM_OK,
    RTC_TM_WARNING,
    RTC_TM_DISCARD,
    RTC_TM_ERROR,
    RTC_TM_FATAL
} rtc_tm_status;

/** What a step reports besides its status. */
typedef struct rtc_tm_step_info {
    bool terminate;   /**< model asks the host to stop (set by the model) */
    double t_reached; /**< with terminate or event: time the model actually reached */
    bool event;       /**< has_event_mode models: the step stopped at an event at t_reached
                           (time or state event, located by the model); the wrapper then
                           runs the model's `update` iterations there */
} rtc_tm_step_info;

/** What one event iteration (FMI 2 NewDiscreteStates / FMI 3 UpdateDiscreteStates) reports;
 *  the wrapper zeroes it before calling the model. */
typedef struct rtc_tm_event_info {
    bool again;          /**< another iteration at the same instant is needed */
    bool values_changed; /**< continuous states were changed (the host re-reads them) */
    bool next_defined;   /**< next_time is a time event */
    double next_time;
    bool terminate; /**< the model asks the host to stop */
} rtc_tm_event_info;
/** What one event iteration reports (FMI 3 fmi3UpdateDiscreteStates). */
typedef struct rtc_tm_update {
    bool by_host;     /**< set by the wrapper: the host runs this iteration in Event Mode
                           (false: the FMU handles the event inside fmi3DoStep) */
    bool need_update; /**< another iteration is needed at this instant (superdense time) */
    bool terminate;
} rtc_tm_update;

/** A clock of a Scheduled Execution model (FMI 3 Clock variable, not in the vars table). */
typedef struct rtc_tm_clock {
    uint32_t vr;
    bool output;    /**< output clock (read with fmi3GetClock), else an input clock */
    bool countdown; /**< input clock whose interval the model sets (fmi3GetIntervalDecimal) */
} rtc_tm_clock;

/** The wrapper's instance, opaque to models; used for logging. */
typedef struct rtc_tm_inst rtc_tm_ctx;

/** Log categories (declared as LogCategories in every modelDescription). */
#define RTC_TM_LOG_EVENTS "logEvents"
#define RTC_TM_LOG_WARNING "logStatusWarning"
#define RTC_TM_LOG_DISCARD "logStatusDiscard"
#define RTC_TM_LOG_ERROR "logStatusError"
#define RTC_TM_LOG_FATAL "logStatusFatal"

/**
 * Model Exchange part of a model (NULL: Co-Simulation only). States and their derivatives
 * are Float64 variables of the table; the wrapper reads and writes them by value reference,
 * so a model only computes. Everything here is RT-safe (no allocation, no I/O).
 */
typedef struct rtc_tm_me {
    size_t nx;              /**< continuous states (0 allowed) */
    const uint32_t *x_vr;   /**< value references of the states */
    const uint32_t *dx_vr;  /**< value references of their derivatives, same order */
    size_t nz;              /**< event indicators */
    /** Indicators at the current states and inputs (time t); NULL when nz = 0. */
    void (*indicators)(const void *m, double t, double z[]);
    /** One event iteration at time t (Event Mode): update discrete states, reinitialize
     *  continuous ones, schedule the next time event. NULL: no events. */
    rtc_tm_status (*event)(void *m, rtc_tm_ctx *ctx, double t, rtc_tm_event_info *info);
    /** d(derivatives)/d(states) at the current point, row-major nx*nx, for
     *  fmiXGetDirectionalDerivative; NULL: the FMU does not provide directional derivatives. */
    void (*jacobian)(const void *m, double t, double jac[]);
    /** CompletedIntegratorStep at time t: true asks the host for Event Mode (a step event).
     *  NULL: never. */
    bool (*completed)(void *m, double t);
} rtc_tm_me;

/** A model: its table and its four functions. */
typedef struct rtc_tm_model {
    const char *name;  /**< modelName, for messages */
    const char *token; /**< FMI 2 guid = FMI 3 instantiationToken, exact */
    size_t size;       /**< sizeof the model struct */
    const rtc_tm_var *vars;
    size_t nvars;
    bool needs_resources; /**< instantiation fails without a readable resource folder */
    /** At instantiation: write start values, read resources (resource_dir has no trailing
     *  '/', NULL if none). May allocate nothing that outlives it. Returns 0 or -1 (logged). */
    int (*setup)(void *m, rtc_tm_ctx *ctx, const char *resource_dir);
    /** Initial states from parameters; called on entering Initialization Mode, after every
     *  set in it, and on leaving it (a failure then fails fmiXExitInitializationMode).
     *  Returns 0 or -1 (logged). */
    int (*initialize)(void *m, rtc_tm_ctx *ctx, double t0);
    /** Recompute feedthrough outputs from states and inputs (after every set); may be NULL. */
    void (*outputs)(void *m);
    /** Advance from t by h (> 0) with the inputs held constant. RT-safe. NULL: the FMU has
     *  no Co-Simulation interface (Model Exchange only). */
    rtc_tm_status (*step)(void *m, rtc_tm_ctx *ctx, double t, double h, rtc_tm_step_info *info);
    /** Model Exchange interface, or NULL. `outputs` must then also compute the derivative
     *  variables from the states and inputs (the wrapper calls it after every change). */
    const rtc_tm_me *me;

    /* ---- FMI 3 only; zero/NULL for plain co-simulation models ---- */
    bool has_event_mode;        /**< hasEventMode: step may report events (info->event) */
    /** One event iteration at t (iteration 0 is the first at this instant). RT-safe. */
    rtc_tm_status (*update)(void *m, rtc_tm_ctx *ctx, double t, unsigned iteration,
                            rtc_tm_update *u);
    const rtc_tm_clock *clocks; /**< Scheduled Execution models: their clocks */
    size_t nclocks;
    /** Run the model partition of input clock `clock` at t. RT-safe. */
    rtc_tm_status (*activate)(void *m, rtc_tm_ctx *ctx, uint32_t clock, double t);
    /** Output clock `clock` ticked since the last read (the read clears it). */
    bool (*clock_ticked)(void *m, uint32_t clock);
    /** Countdown clock `clock`: its interval; returns 0 not yet known, 1 unchanged since the
     *  last read, 2 changed (the read makes it unchanged). */
    int (*interval)(void *m, uint32_t clock, double *interval);
} rtc_tm_model;

/** Defined once by each model source. */
extern const rtc_tm_model rtc_tm_model_def;

/**
 * Send a message to the host's logger. Errors and fatals are always sent; other levels only
 * when logging is on and the category is enabled (fmiXSetDebugLogging). Formats into a
 * fixed buffer of the instance (truncated), so it does not allocate.
 */
void rtc_tm_log(rtc_tm_ctx *ctx, rtc_tm_status status, const char *category, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/**
 * Send the warning "step <k> from t = <t> s: <what>" (category logStatusWarning) to the
 * host in every case (logging on or off), unformatted where the API allows: FMI 2 passes
 * the printf-style format and the three arguments to the logger (the host must format
 * them), FMI 3 formats into the instance buffer (its logger takes a finished message).
 * For the engine's real-time logging tests (Fault mode 6). RT-safe.
 */
void rtc_tm_log_step(rtc_tm_ctx *ctx, long k, double t, const char *what);

/** Scheduled Execution models: tell the host a clock changed (output clock ticked,
 *  countdown interval set) — FMI 3 clockUpdate; and guard a section against preemption by
 *  other partitions (lockPreemption / unlockPreemption). No-ops outside SE. */
void rtc_tm_clock_update(rtc_tm_ctx *ctx);
void rtc_tm_lock_preemption(rtc_tm_ctx *ctx);
void rtc_tm_unlock_preemption(rtc_tm_ctx *ctx);

/** Sleep for s seconds on CLOCK_MONOTONIC (absolute deadline, retried on EINTR). */
void rtc_tm_sleep(double s);

#endif /* RTC_TM_MODEL_H */
