/*
 * rtcosim/model.h — what the engine knows about a unit's interface: its variables, types,
 * units, capabilities, default experiment and output dependencies.
 *
 * Plain data, filled by a unit provider (fmu-host parses FMI 2.0 / 3.0 modelDescription.xml
 * into it) and only read by rt-core. The provider that created an rtc_model_desc frees it;
 * every string and array inside belongs to that one root object.
 */
#ifndef RTCOSIM_MODEL_H
#define RTCOSIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/numparse.h"
#include "rtcosim/rtsafe.h"

/** Variable types of FMI 3.0 (FMI 2.0 maps Real→FLOAT64, Integer→INT32, Boolean, String,
 *  Enumeration). Order is fixed: it indexes tables. */
typedef enum {
    RTC_TYPE_FLOAT64 = 0,
    RTC_TYPE_FLOAT32,
    RTC_TYPE_INT8,
    RTC_TYPE_UINT8,
    RTC_TYPE_INT16,
    RTC_TYPE_UINT16,
    RTC_TYPE_INT32,
    RTC_TYPE_UINT32,
    RTC_TYPE_INT64,
    RTC_TYPE_UINT64,
    RTC_TYPE_BOOL,
    RTC_TYPE_STRING,
    RTC_TYPE_BINARY,
    RTC_TYPE_ENUM,  /**< values are int32 in FMI 2.0, int64 in FMI 3.0; rtc_value.i64 here */
    RTC_TYPE_CLOCK, /**< FMI 3.0 clocks (recognised, not stepped by this engine) */
    RTC_TYPE_COUNT
} rtc_type;

typedef enum {
    RTC_CAUSALITY_PARAMETER = 0,
    RTC_CAUSALITY_CALCULATED_PARAMETER,
    RTC_CAUSALITY_INPUT,
    RTC_CAUSALITY_OUTPUT,
    RTC_CAUSALITY_LOCAL,
    RTC_CAUSALITY_INDEPENDENT,
    RTC_CAUSALITY_STRUCTURAL_PARAMETER, /**< FMI 3.0 */
} rtc_causality;

typedef enum {
    RTC_VARIABILITY_CONSTANT = 0,
    RTC_VARIABILITY_FIXED,
    RTC_VARIABILITY_TUNABLE,
    RTC_VARIABILITY_DISCRETE,
    RTC_VARIABILITY_CONTINUOUS,
} rtc_variability;

typedef enum {
    RTC_INITIAL_NONE = 0, /**< attribute absent and no default applies (e.g. independent) */
    RTC_INITIAL_EXACT,
    RTC_INITIAL_APPROX,
    RTC_INITIAL_CALCULATED,
} rtc_initial;

/** A binary value (FMI 3.0 Binary): @c size bytes at @c data. */
typedef struct rtc_binary {
    const uint8_t *data;
    size_t size;
} rtc_binary;

/** One scalar value; which member is valid follows from the variable's rtc_type:
 *  f64 (FLOAT64), f32 (FLOAT32), i64 (INT8..INT64 signed, ENUM), u64 (UINT8..UINT64),
 *  b (BOOL), str (STRING, NUL-terminated), bin (BINARY). CLOCK uses b (active). */
typedef union rtc_value {
    double f64;
    float f32;
    int64_t i64;
    uint64_t u64;
    bool b;
    const char *str;
    rtc_binary bin;
} rtc_value;

/** One array dimension: a fixed size, or the value of a structural parameter. */
typedef struct rtc_dim {
    uint64_t start;  /**< fixed size, or the parameter's start value when has_vr */
    bool has_vr;     /**< size given by structural parameter @c vr */
    uint32_t vr;
} rtc_dim;

/** FMI 3.0 Clock intervalVariability. */
typedef enum {
    RTC_CLOCK_CONSTANT,
    RTC_CLOCK_FIXED,
    RTC_CLOCK_TUNABLE,
    RTC_CLOCK_CHANGING,
    RTC_CLOCK_COUNTDOWN,
    RTC_CLOCK_TRIGGERED,
} rtc_clock_variability;

/** The attributes of an FMI 3.0 Clock variable. Times are exact integer nanoseconds
 *  (intervalDecimal/shiftDecimal as written, or counter/resolution). */
typedef struct rtc_clock_info {
    rtc_clock_variability interval_variability;
    bool has_interval;  /**< intervalDecimal or intervalCounter given */
    int64_t interval_ns;
    int64_t shift_ns;   /**< 0 when absent */
    bool has_priority;
    uint32_t priority;  /**< smaller = higher priority (Scheduled Execution input clocks) */
    bool can_be_deactivated;
} rtc_clock_info;

/** One model variable (FMI 2 ScalarVariable, FMI 3 Float64/Int8/.../Clock element). */
typedef struct rtc_var {
    char *name;
    char *description;   /**< or NULL */
    uint32_t vr;         /**< value reference */
    rtc_type type;
    rtc_causality causality;
    rtc_variability variability; /**< effective (defaults applied) */
    rtc_initial initial;         /**< effective (defaults applied) */
    char *declared_type; /**< type definition name, or NULL */
    char *quantity;      /**< or NULL (own or inherited from the declared type) */
    char *unit;          /**< or NULL (own or inherited from the declared type) */
    char *display_unit;  /**< or NULL */
    bool has_min, has_max, has_nominal;
    rtc_value min, max;  /**< same member as start (f64/f32/i64/u64) */
    double nominal;
    size_t n_start;      /**< 0: no start; 1: scalar, or every element of an array;
                              n: array start values in row-major order */
    rtc_value *start;
    size_t n_dims;       /**< 0 for scalars */
    rtc_dim *dims;
    long derivative_of;  /**< index in rtc_model_desc.vars of the state this derives, or -1 */
    bool can_handle_multiple_set_per_time_instant;
    bool intermediate_update; /**< FMI 3.0 */
    size_t n_clocks;     /**< FMI 3.0 "clocks": the variable is clocked (0: not clocked) */
    uint32_t *clocks;    /**< value references of the Clock variables it belongs to */
    rtc_clock_info clock; /**< Clock variables only */
    unsigned line;       /**< line of the element in modelDescription.xml, for diagnostics */
} rtc_var;

typedef struct rtc_enum_item {
    char *name;
    int64_t value;
    char *description; /**< or NULL */
} rtc_enum_item;

/** FMI 3.0 <Alias> of a variable: another name for the same value (FMI 2 aliases are
 *  variables of their own that share a value reference). */
typedef struct rtc_alias {
    char *name;
    char *description;  /**< or NULL */
    char *display_unit; /**< or NULL */
    size_t var;         /**< index in rtc_model_desc.vars */
    unsigned line;
} rtc_alias;

/** A type definition (FMI 2 SimpleType, FMI 3 Float64Type/.../EnumerationType). */
typedef struct rtc_type_def {
    char *name;
    rtc_type type;
    char *quantity, *unit, *display_unit; /**< or NULL */
    bool has_min, has_max, has_nominal;
    rtc_value min, max;
    double nominal;
    size_t n_items; /**< enumeration items */
    rtc_enum_item *items;
    unsigned line;
} rtc_type_def;

/** SI base-unit exponents and the affine map value_SI = factor * value + offset. */
typedef struct rtc_base_unit {
    int kg, m, s, A, K, mol, cd, rad;
    double factor, offset;
} rtc_base_unit;

typedef struct rtc_display_unit {
    char *name;
    double factor, offset;
    bool inverse; /**< FMI 3.0 */
} rtc_display_unit;

typedef struct rtc_unit_def {
    char *name;
    bool has_base_unit;
    rtc_base_unit base;
    size_t n_display_units;
    rtc_display_unit *display_units;
    unsigned line;
} rtc_unit_def;

/** An unknown of ModelStructure (output, derivative, initial unknown, ...) and what it
 *  depends on. Indices are into rtc_model_desc.vars (FMI 2 1-based indices and FMI 3 value
 *  references are both resolved by the parser). */
typedef struct rtc_unknown {
    size_t var;
    bool deps_given; /**< false: attribute absent, depends on all knowns (conservative) */
    size_t n_deps;   /**< 0 with deps_given: depends on nothing */
    size_t *deps;
} rtc_unknown;

typedef struct rtc_model_structure {
    size_t n_outputs, n_derivatives, n_initial_unknowns, n_event_indicators;
    rtc_unknown *outputs, *derivatives, *initial_unknowns, *event_indicators;
} rtc_model_structure;

/** CoSimulation element: identifier and every capability flag of FMI 2.0 and 3.0
 *  (flags of the other version stay false). */
typedef struct rtc_cs_caps {
    char *model_identifier;
    bool needs_execution_tool;
    bool can_be_instantiated_only_once_per_process;
    bool can_get_and_set_fmu_state;
    bool can_serialize_fmu_state;
    bool provides_directional_derivatives;
    bool provides_adjoint_derivatives;          /**< 3.0 */
    bool provides_per_element_dependencies;     /**< 3.0 */
    bool can_handle_variable_communication_step_size;
    bool can_interpolate_inputs;                /**< 2.0 */
    unsigned max_output_derivative_order;
    bool can_run_asynchronuously;               /**< 2.0 (spelling of the standard) */
    bool can_not_use_memory_management_functions; /**< 2.0 */
    bool can_return_early_after_intermediate_update; /**< 3.0 */
    bool has_event_mode;                        /**< 3.0 */
    bool provides_intermediate_update;          /**< 3.0 */
    bool might_return_early_from_do_step;       /**< 3.0 */
    bool provides_evaluate_discrete_states;     /**< 3.0 */
    unsigned recommended_intermediate_input_smoothness; /**< 3.0 */
    bool has_fixed_internal_step_size;          /**< 3.0 */
    double fixed_internal_step_size;
    /** ModelExchange only: call CompletedIntegratorStep after each accepted solver step
     *  (FMI 3 needsCompletedIntegratorStep; FMI 2 NOT completedIntegratorStepNotNeeded). */
    bool needs_completed_integrator_step;
} rtc_cs_caps;

/** DefaultExperiment. The *_text members keep the attribute text so times can be parsed
 *  exactly into integer nanoseconds (see rtcosim/time.h). */
typedef struct rtc_default_experiment {
    bool has_start, has_stop, has_tolerance, has_step;
    double start, stop, tolerance, step;
    char *start_text, *stop_text, *step_text;
} rtc_default_experiment;

typedef struct rtc_log_category {
    char *name;
    char *description;
} rtc_log_category;

/** The whole description. */
typedef struct rtc_model_desc {
    char *path;             /**< file it was read from, for diagnostics */
    int fmi_major;          /**< 2 or 3 */
    char *fmi_version;      /**< attribute text, e.g. "2.0", "3.0" */
    char *model_name;
    char *guid;             /**< FMI 2 guid or FMI 3 instantiationToken */
    char *description, *author, *version, *copyright, *license;
    char *generation_tool, *generation_date_and_time;
    char *variable_naming_convention; /**< "flat" or "structured" */
    bool has_cs;
    rtc_cs_caps cs;
    bool has_me, has_se;
    char *me_model_identifier, *se_model_identifier;
    /** ModelExchange capability flags (same struct as CoSimulation's; its model_identifier
     *  stays NULL, see me_model_identifier). Continuous states = structure.n_derivatives. */
    rtc_cs_caps me;
    /** Event indicators: FMI 2 numberOfEventIndicators, FMI 3 the EventIndicator count. */
    size_t n_event_indicators;
    rtc_default_experiment experiment;
    size_t n_vars;
    rtc_var *vars;
    size_t n_aliases; /**< FMI 3.0 <Alias> elements of all variables */
    rtc_alias *aliases;
    size_t n_type_defs;
    rtc_type_def *type_defs;
    size_t n_unit_defs;
    rtc_unit_def *unit_defs;
    size_t n_log_categories;
    rtc_log_category *log_categories;
    rtc_model_structure structure;
} rtc_model_desc;

/** Name of a type as the FMI 3.0 element ("Float64", "Int8", ..., "Binary", "Clock").
 *  RT-safe: yes. */
RTC_RT_SAFE const char *rtc_type_name(rtc_type type);
/** Causality text as in the standard ("parameter", "input", ...). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_causality_name(rtc_causality c);
/** Variability text ("constant", "fixed", ...). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_variability_name(rtc_variability v);
/** Initial text ("exact", "approx", "calculated"), "" for RTC_INITIAL_NONE. RT-safe: yes. */
RTC_RT_SAFE const char *rtc_initial_name(rtc_initial i);

/** Size in bytes of one value of @p type in the typed arrays of rtc_unit_ops set/get
 *  (double, float, int8_t, ..., bool, const char *, rtc_binary; ENUM is int64_t).
 *  RT-safe: yes. */
RTC_RT_SAFE size_t rtc_type_size(rtc_type type);

/** Number of scalar elements of @p v (product of its dimensions' sizes, 1 for a scalar).
 *  Dimensions bound to structural parameters use their start values. RT-safe: yes. */
RTC_RT_SAFE size_t rtc_var_count(const rtc_var *v);

/**
 * Parse the text of one scalar value of @p type with the number parser (rtcosim/numparse.h):
 * floats correctly rounded in the C locale (also "inf", "nan"), integers in decimal with
 * the type's range checked, booleans "true"/"false"/"1"/"0",
 * enumerations as integers, strings as-is (out->str points into @p text).
 * Returns: RTC_OK; RTC_EPARSE (not a value of the type); RTC_ELIMIT (out of the type's
 * range); RTC_EUNSUPPORTED (BINARY and CLOCK: use rtc_hex_decode()).
 * RT-safe: yes.
 */
RTC_RT_SAFE int rtc_value_parse(rtc_type type, const char *text, rtc_value *out);

/** Store @p v as element @p index of a typed array of @p type (rtc_type_size() layout).
 *  RT-safe: yes. */
RTC_RT_SAFE void rtc_value_store(rtc_type type, const rtc_value *v, void *array, size_t index);

/** Read element @p index of a typed array of @p type into an rtc_value. RT-safe: yes. */
RTC_RT_SAFE rtc_value rtc_value_load(rtc_type type, const void *array, size_t index);

/** A numeric value of @p type as a double (booleans 0/1; strings and binaries 0).
 *  RT-safe: yes. */
RTC_RT_SAFE double rtc_value_to_double(rtc_type type, rtc_value v);

/** A double as a value of numeric @p type: integers round to nearest (ties to even) and
 *  saturate at the type's 64-bit range, booleans are x != 0. RT-safe: yes. */
RTC_RT_SAFE rtc_value rtc_value_from_double(rtc_type type, double x);

/**
 * Keep copies of @p n string or binary values (@p type RTC_TYPE_STRING or RTC_TYPE_BINARY)
 * that point into a unit's memory, valid only until its next call: value e is copied into
 * @p store + e·@p cap (strings truncated to cap − 1 bytes and terminated, binaries to cap
 * bytes; NULL strings become ""), and element e of @p dst (const char * or rtc_binary
 * array) is set to point at the copy. @p src and @p dst may be the same array.
 * RT-safe: yes (no formatting, no allocation).
 */
RTC_RT_SAFE void rtc_value_copy_indirect(rtc_type type, const void *src, void *dst, size_t n,
                                         char *store, size_t cap);

/* rtc_hex_decode() (binary start values) is in rtcosim/numparse.h. */

/** May @p v be set before initialization (FMI: state Instantiated) and again in
 *  Initialization Mode: a non-constant input or a variable with initial exact or approx.
 *  Both times are allowed by FMI 2.0 and 3.0, and some exporters honour a parameter only
 *  when it is set in Initialization Mode, so importers set values at both. Never a clock,
 *  nor an FMI 3 structural parameter: only Configuration Mode may change those (not
 *  supported; the array sizes it fixes would no longer match). RT-safe: yes. */
RTC_RT_SAFE bool rtc_var_settable_at_init(const rtc_var *v);

/** Index of the variable named @p name (or of the variable an FMI 3.0 alias of that name
 *  belongs to), or -1. Linear scan. RT-safe: yes (no allocation). */
RTC_RT_SAFE long rtc_model_find_var(const rtc_model_desc *md, const char *name);

/**
 * The value(s) a user gives for variable @p v of @p md as text (a --set value, a parameter
 * of a system file): one value of its type (rtc_value_parse()), for an array its
 * rtc_var_count() elements separated by spaces or tabs; an enumeration also by the name of
 * an item of its type; a binary as hexadecimal digits; a string as the whole text.
 * @param text   cut into the elements in place; string values point into it.
 * @param vals   rtc_var_count() elements of rtc_type_size() bytes each.
 * @param bin    the bytes of binary values (each rtc_binary of @p vals points into it),
 *               @p bin_cap in all (strlen(text) / 2 + 1 always suffices); NULL for other
 *               types.
 * @param why    the reason of a refusal ("\"abc\" is not a valid value for a Float64
 *               variable", "expected 3 value(s)").
 * Returns: RTC_OK; RTC_EPARSE (not a value of the type, or the wrong count); RTC_ELIMIT
 * (out of the type's range). RT-safe: no (formats its reason).
 */
int rtc_var_parse_text(const rtc_model_desc *md, const rtc_var *v, char *text, void *vals,
                       uint8_t *bin, size_t bin_cap, char *why, size_t why_cap);

#endif
