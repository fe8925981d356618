/*
 * wrap_core.h — what fmi2_wrap.c and fmi3_wrap.c share: the instance, the state machine,
 * variable access checks, the communication-point check, FMU state snapshots and the
 * resource-location decoding. Internal to the test FMUs (hidden visibility).
 *
 * State machine (one set of states for both versions; FMI 2 "stepComplete" = StepMode):
 *
 *   Instantiated --EnterInit--> InitializationMode --ExitInit--> StepMode
 *   Instantiated <-> ConfigurationMode, StepMode <-> ReconfigurationMode      (FMI 3 only)
 *   StepMode --doStep Discard--> StepFailed (FMI 2 termination request)
 *   any --model Error--> Error;  any --model Fatal--> Fatal
 *   Init/Step/StepFailed/Error --Terminate--> Terminated;  any but Fatal --Reset--> Instantiated
 *
 * Argument and call-sequence rejections return Error WITHOUT changing the state, so a host
 * test can assert that nothing changed; only a failing model (Fault) moves to Error/Fatal.
 */
#ifndef RTC_TM_WRAP_CORE_H
#define RTC_TM_WRAP_CORE_H

#include "model.h"

/** Instance states, as bits so a call's allowed states form a mask. */
enum {
    RTC_TM_PH_INSTANTIATED = 1u << 0,
    RTC_TM_PH_CONFIG = 1u << 1,
    RTC_TM_PH_INIT = 1u << 2,
    RTC_TM_PH_STEP = 1u << 3,
    RTC_TM_PH_STEP_FAILED = 1u << 4,
    RTC_TM_PH_RECONFIG = 1u << 5,
    RTC_TM_PH_TERMINATED = 1u << 6,
    RTC_TM_PH_ERROR = 1u << 7,
    RTC_TM_PH_FATAL = 1u << 8,
    RTC_TM_PH_EVENT = 1u << 9,  /**< Event Mode (FMI 3 has_event_mode models; Model Exchange,
                                     whose Continuous-Time Mode is RTC_TM_PH_STEP) */
    RTC_TM_PH_CLOCK = 1u << 10, /**< FMI 3 Clock Activation Mode (Scheduled Execution) */
};
/** Every state but Fatal. */
#define RTC_TM_PH_ANY (0x7ffu & ~(unsigned)RTC_TM_PH_FATAL)
/** States in which values may be read. */
#define RTC_TM_PH_GET                                                                              \
    (RTC_TM_PH_INIT | RTC_TM_PH_STEP | RTC_TM_PH_STEP_FAILED | RTC_TM_PH_TERMINATED |              \
     RTC_TM_PH_ERROR | RTC_TM_PH_CONFIG | RTC_TM_PH_RECONFIG | RTC_TM_PH_EVENT | RTC_TM_PH_CLOCK)

#define RTC_TM_NAME_CAP 128
#define RTC_TM_MSG_CAP 512

typedef struct rtc_tm_inst rtc_tm_inst;

/** Sends one formatted message to the host (set by the wrapper). */
typedef void rtc_tm_emit_fn(rtc_tm_inst *in, rtc_tm_status st, const char *cat, const char *msg);
/** The step message of rtc_tm_log_step(), sent with its arguments (model.h). */
typedef void rtc_tm_step_emit_fn(rtc_tm_inst *in, long k, double t, const char *what);

struct rtc_tm_inst {
    const rtc_tm_model *model;
    unsigned char *m;  /**< live model struct */
    unsigned char *m0; /**< the struct right after setup, for Reset */
    const char *fmi;   /**< "fmi2" or "fmi3", for messages */
    unsigned phase;
    double time; /**< the FMU's own time: start, then t + h after each step */
    double start_time;
    double stop_time;
    bool stop_defined;
    bool terminate_requested; /**< a step reported terminate; no further steps */
    double last_ok_time;      /**< end of the last successful (partial) step */
    bool me;           /**< instantiated for Model Exchange */
    bool logging_on;
    unsigned cat_mask; /**< enabled log categories, bit i = category i */
    rtc_tm_emit_fn *emit;
    rtc_tm_step_emit_fn *step_emit;
    bool event_mode_used;      /**< FMI 3: the host handles events (Event Mode) */
    bool early_return_allowed; /**< FMI 3: DoStep may stop at an event inside the step */
    bool scheduled;            /**< FMI 3 Scheduled Execution instance */
    unsigned event_iter;       /**< UpdateDiscreteStates calls at the current instant */
    /** Scheduled Execution callbacks of the host, called through the wrapper (NULL when
     *  not scheduled): clockUpdate, lockPreemption, unlockPreemption. */
    void (*clock_update)(rtc_tm_inst *in);
    void (*lock)(void);
    void (*unlock)(void);
    void *(*alloc)(size_t nobj, size_t size); /**< calloc-like */
    void (*release)(void *p);
    char name[RTC_TM_NAME_CAP];
    char msg[RTC_TM_MSG_CAP];
};

/** Size of an instance whose wrapper struct has `head` bytes (model data follows it). */
size_t rtc__tm_alloc_size(const rtc_tm_model *model, size_t head);
/** Set up a zeroed instance of the layout above; runs model setup. Returns 0 or -1. */
int rtc__tm_init(
    rtc_tm_inst *in, size_t head, const char *name, bool logging_on, const char *resource_dir);
/** Log with a printf format (same filter as rtc_tm_log). */
void rtc__tm_logf(rtc_tm_inst *in, rtc_tm_status st, const char *cat, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** True if in->phase is in mask; else logs "illegal call sequence" and returns false. */
bool rtc__tm_allowed(rtc_tm_inst *in, unsigned mask, const char *fn);
/** Logs "<fn>: not supported by this FMU (<why>)" and returns RTC_TM_ERROR. */
rtc_tm_status rtc__tm_unsupported(rtc_tm_inst *in, const char *fn, const char *why);
/** The variable with value reference vr, or NULL. O(1) for dense tables. */
const rtc_tm_var *rtc__tm_find(const rtc_tm_model *model, uint32_t vr);
/** Bytes of one element of a type. */
size_t rtc__tm_elsize(rtc_tm_type type);
/**
 * Validate a whole get or set call before touching anything: state, every vr known, its
 * type in type_mask (bit per rtc_tm_type), settable now (set only), and the element count
 * equal to nvalues. Returns RTC_TM_OK or RTC_TM_ERROR (logged).
 */
rtc_tm_status rtc__tm_check_access(rtc_tm_inst *in,
                                   const char *fn,
                                   const uint32_t vrs[],
                                   size_t nvr,
                                   unsigned type_mask,
                                   size_t nvalues,
                                   bool set);
/** Pointer to a variable's storage in the live model. */
void *rtc__tm_ptr(rtc_tm_inst *in, const rtc_tm_var *v);
/** Copy a String value in (truncated to capacity, Warning then). */
rtc_tm_status rtc__tm_set_str(rtc_tm_inst *in, const rtc_tm_var *v, const char *s, const char *fn);
/** Call after a successful set: re-initialize states in Initialization Mode, recompute outputs. */
void rtc__tm_after_set(rtc_tm_inst *in);
/** Enter Initialization Mode at startTime with an optional stop time. */
rtc_tm_status
rtc__tm_enter_init(rtc_tm_inst *in, const char *fn, double start, bool stop_defined, double stop);
/** Leave Initialization Mode into StepMode (model validation may fail). */
rtc_tm_status rtc__tm_exit_init(rtc_tm_inst *in, const char *fn);
/**
 * Check the step arguments (state, drift, h > 0, stop time) and run the model step.
 * Returns Error without state change on bad arguments; a model Error/Fatal moves the
 * instance to Error/Fatal. On success time = t + h, or t_reached when info->terminate.
 */
rtc_tm_status
rtc__tm_do_step(rtc_tm_inst *in, const char *fn, double t, double h, rtc_tm_step_info *info);
rtc_tm_status rtc__tm_terminate(rtc_tm_inst *in, const char *fn);

/* ---- FMI 3 events and clocks (wrap_events.c) ---- */

/**
 * fmi3DoStep of a model with has_event_mode: step, stopping where the model reports an
 * event. With the host in event mode, the event is handed over (event_needed; early when it
 * lies before t + h and early return is allowed); otherwise the FMU runs its own event
 * iterations and carries on to t + h. A normal model steps straight through.
 */
rtc_tm_status rtc__tm_step_events(
    rtc_tm_inst *in, const char *fn, double t, double h, bool *event_needed, bool *early);
/** Step → Event Mode. */
rtc_tm_status rtc__tm_enter_event(rtc_tm_inst *in, const char *fn);
/** One event iteration (Event Mode; Initialization Mode left into Event Mode too). */
rtc_tm_status rtc__tm_update(rtc_tm_inst *in, const char *fn, bool *need_update, bool *terminate);
/** Event Mode → Step Mode. */
rtc_tm_status rtc__tm_enter_step(rtc_tm_inst *in, const char *fn);
/** fmi3ActivateModelPartition: input clock vr ticks at t (Clock Activation Mode). */
rtc_tm_status rtc__tm_activate(rtc_tm_inst *in, const char *fn, uint32_t clock, double t);
/** fmi3GetClock of output clocks (cleared on read) and fmi3GetIntervalDecimal of countdown
 *  clocks (qualifier 0 not yet known, 1 unchanged, 2 changed). */
rtc_tm_status rtc__tm_get_clocks(rtc_tm_inst *in, const char *fn, const uint32_t vrs[], size_t n,
                                 bool active[]);
rtc_tm_status rtc__tm_get_intervals(rtc_tm_inst *in, const char *fn, const uint32_t vrs[],
                                    size_t n, double intervals[], int qualifiers[]);
rtc_tm_status rtc__tm_reset(rtc_tm_inst *in, const char *fn);
rtc_tm_status rtc__tm_set_debug_logging(
    rtc_tm_inst *in, const char *fn, bool on, size_t n, const char *const cats[]);

/** FMU state: get (reusing *state when non-NULL), set, free, serialize, deserialize. */
rtc_tm_status rtc__tm_state_get(rtc_tm_inst *in, const char *fn, void **state);
rtc_tm_status rtc__tm_state_set(rtc_tm_inst *in, const char *fn, const void *state);
rtc_tm_status rtc__tm_state_free(rtc_tm_inst *in, const char *fn, void **state);
size_t rtc__tm_state_size(const rtc_tm_inst *in);
rtc_tm_status
rtc__tm_state_serialize(rtc_tm_inst *in, const char *fn, const void *state, void *buf, size_t size);
rtc_tm_status rtc__tm_state_deserialize(
    rtc_tm_inst *in, const char *fn, const void *buf, size_t size, void **state);

/* ---- Model Exchange (wrap_me.c); each checks the instance, mode and array sizes ---- */
rtc_tm_status rtc__tm_me_set_time(rtc_tm_inst *in, const char *fn, double t);
rtc_tm_status rtc__tm_me_set_x(rtc_tm_inst *in, const char *fn, const double x[], size_t nx);
/** what: 'x' states, 'd' derivatives, 'n' nominals (all 1), 'z' event indicators. */
rtc_tm_status rtc__tm_me_get(rtc_tm_inst *in, const char *fn, char what, double v[], size_t n);
/** EnterEventMode (true) from Continuous-Time Mode or EnterContinuousTimeMode (false). */
rtc_tm_status rtc__tm_me_mode(rtc_tm_inst *in, const char *fn, bool event_mode);
rtc_tm_status rtc__tm_me_update(rtc_tm_inst *in, const char *fn, rtc_tm_event_info *info);
rtc_tm_status rtc__tm_me_completed(rtc_tm_inst *in, const char *fn, bool *enter, bool *term);
rtc_tm_status rtc__tm_me_dir_der(rtc_tm_inst *in, const char *fn, const uint32_t unk[], size_t nu,
                                 const uint32_t kn[], size_t nk, const double seed[],
                                 double out[]);

/** Decode an FMI 2 resource URI (file:///p, file:/p, file://localhost/p, %XX) into a path
 *  without trailing '/'. Returns 0, or -1 if not a file URI or too long. */
int rtc__tm_uri_to_path(const char *uri, char *out, size_t cap);
/** Copy an FMI 3 resource path, dropping the trailing '/'. Returns 0 or -1. */
int rtc__tm_dir_copy(const char *dir, char *out, size_t cap);
/** Name of the state bit for messages. */
const char *rtc__tm_phase_name(unsigned phase);

#endif /* RTC_TM_WRAP_CORE_H */
