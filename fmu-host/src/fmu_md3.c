/*
 * modelDescription.xml reader, FMI 3.0 elements: the root attributes, the typed type
 * definitions (Float64Type ... ClockType), the fifteen variable elements with Dimension
 * and Start children, CoSimulation / ModelExchange / ScheduledExecution, and
 * ModelStructure (Output, ContinuousStateDerivative, ClockedState, InitialUnknown,
 * EventIndicator, all by value reference).
 */
#include "fmu_md_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COMMON_ATTRS                                                                               \
    "name", "valueReference", "description", "causality", "variability",                           \
        "canHandleMultipleSetPerTimeInstant", "intermediateUpdate", "previous", "clocks",          \
        "declaredType"
#define CLOCK_ATTRS                                                                                \
    "canBeDeactivated", "priority", "intervalVariability", "intervalDecimal", "shiftDecimal",      \
        "supportsFraction", "resolution", "intervalCounter", "shiftCounter"

static const char *const float_v[] = {
    COMMON_ATTRS, "initial", "quantity", "unit",  "displayUnit", "relativeQuantity", "unbounded",
    "min",        "max",     "nominal",  "start", "derivative",  "reinit",           NULL};
static const char *const int_v[] = {COMMON_ATTRS, "initial", "quantity", "min",
                                    "max",        "start",   NULL};
static const char *const bool_v[] = {COMMON_ATTRS, "initial", "start", NULL};
static const char *const string_v[] = {COMMON_ATTRS, "initial", NULL};
static const char *const binary_v[] = {COMMON_ATTRS, "initial", "mimeType",
                                       "maxSize",    "start",   NULL};
static const char *const clock_v[] = {COMMON_ATTRS, CLOCK_ATTRS, NULL};

static const char *const float_t[] = {"name",        "description",      "quantity",  "unit",
                                      "displayUnit", "relativeQuantity", "unbounded", "min",
                                      "max",         "nominal",          NULL};
static const char *const int_t[] = {"name", "description", "quantity", "min", "max", NULL};
static const char *const plain_t[] = {"name", "description", NULL};
static const char *const binary_t[] = {"name", "description", "mimeType", "maxSize", NULL};
static const char *const clock_t_[] = {"name", "description", CLOCK_ATTRS, NULL};

/* Variable element, type definition element, rtc_type, allowed attributes of each. */
static const struct {
    const char *var, *def;
    rtc_type type;
    const char *const *var_attrs, *const *def_attrs;
} types3[] = {
    {"Float32", "Float32Type", RTC_TYPE_FLOAT32, float_v, float_t},
    {"Float64", "Float64Type", RTC_TYPE_FLOAT64, float_v, float_t},
    {"Int8", "Int8Type", RTC_TYPE_INT8, int_v, int_t},
    {"UInt8", "UInt8Type", RTC_TYPE_UINT8, int_v, int_t},
    {"Int16", "Int16Type", RTC_TYPE_INT16, int_v, int_t},
    {"UInt16", "UInt16Type", RTC_TYPE_UINT16, int_v, int_t},
    {"Int32", "Int32Type", RTC_TYPE_INT32, int_v, int_t},
    {"UInt32", "UInt32Type", RTC_TYPE_UINT32, int_v, int_t},
    {"Int64", "Int64Type", RTC_TYPE_INT64, int_v, int_t},
    {"UInt64", "UInt64Type", RTC_TYPE_UINT64, int_v, int_t},
    {"Boolean", "BooleanType", RTC_TYPE_BOOL, bool_v, plain_t},
    {"String", "StringType", RTC_TYPE_STRING, string_v, plain_t},
    {"Binary", "BinaryType", RTC_TYPE_BINARY, binary_v, binary_t},
    {"Enumeration", "EnumerationType", RTC_TYPE_ENUM, int_v, int_t},
    {"Clock", "ClockType", RTC_TYPE_CLOCK, clock_v, clock_t_},
};
#define N_TYPES3 (sizeof types3 / sizeof types3[0])

/* Index into types3 of a variable element, or -1. */
static int var_index(const xmlNode *n)
{
    for (size_t k = 0; k < N_TYPES3; k++)
        if (rtc__xml_is(n, types3[k].var))
            return (int)k;
    return -1;
}

/* Index into types3 of a type definition element, or -1. */
static int def_index(const xmlNode *n)
{
    for (size_t k = 0; k < N_TYPES3; k++)
        if (rtc__xml_is(n, types3[k].def))
            return (int)k;
    return -1;
}

/* ---- TypeDefinitions ---- */

static int type_def(md_ctx *c, const xmlNode *n, int k, rtc_type_def *td)
{
    rtc__xml_check_attrs(&c->x, n, types3[k].def_attrs);
    td->line = rtc__xml_line(n);
    td->type = types3[k].type;
    int rc = RTC_OK;
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "name", true, &td->name));
    if (td->type != RTC_TYPE_ENUM)
        for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
            rtc__xml_unknown_child(&c->x, ch);
    MD_TRY(rtc__md_type_attrs(c, n, td));
    return rc;
}

static int type_defs(md_ctx *c, const xmlNode *n)
{
    rtc_model_desc *md = c->md;
    size_t count = 0;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        count += def_index(ch) >= 0;
    if (count && !(md->type_defs = calloc(count, sizeof *md->type_defs)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        int k = def_index(ch);
        if (k < 0) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        size_t idx = md->n_type_defs++;
        MD_TRY(type_def(c, ch, k, &md->type_defs[idx]));
        MD_TRY(rtc__md_type_unique(c, ch, idx));
    }
    return rc;
}

/* ---- ModelVariables ---- */

static int dimension(md_ctx *c, const xmlNode *d, rtc_dim *dim)
{
    static const char *const known[] = {"start", "valueReference", NULL};
    rtc__xml_check_attrs(&c->x, d, known);
    bool has_start = false, has_vr = false;
    uint64_t vr = 0;
    int rc = RTC_OK;
    MD_TRY(rtc__xml_attr_u64(&c->x, d, "start", 64, &dim->start, &has_start));
    MD_TRY(rtc__xml_attr_u64(&c->x, d, "valueReference", 32, &vr, &has_vr));
    if (rc == RTC_OK && has_start == has_vr) {
        rtc__xml_error(&c->x, d, "Dimension: needs exactly one of start and valueReference");
        return RTC_EPARSE;
    }
    dim->has_vr = has_vr;
    dim->vr = (uint32_t)vr;
    return rc;
}

/* <Alias name= description= displayUnit=>: another name of variable @p i, kept so it can
 * be used wherever a variable name can (--set, --record, SSP connectors). Name clashes
 * with variables and other aliases are checked with the variable names (fmu_md_ref.c). */
static int alias(md_ctx *c, const xmlNode *a, size_t i)
{
    static const char *const known[] = {"name", "description", "displayUnit", NULL};
    rtc__xml_check_attrs(&c->x, a, known);
    for (const xmlNode *ch = rtc__xml_child(a); ch; ch = rtc__xml_next(ch))
        rtc__xml_unknown_child(&c->x, ch);
    rtc_alias *al = &c->md->aliases[c->md->n_aliases++];
    al->var = i;
    al->line = rtc__xml_line(a);
    int rc = RTC_OK;
    MD_TRY(rtc__xml_attr_dup(&c->x, a, "name", true, &al->name));
    MD_TRY(rtc__xml_attr_dup(&c->x, a, "description", false, &al->description));
    MD_TRY(rtc__xml_attr_dup(&c->x, a, "displayUnit", false, &al->display_unit));
    if (rc == RTC_OK && al->name && !al->name[0]) {
        rtc__xml_attr_error(&c->x, a, "name", "empty");
        rc = RTC_EPARSE;
    }
    return rc;
}

/* Dimension, Start (String, Binary) and Alias children. */
static int var_children(md_ctx *c, const xmlNode *n, size_t i)
{
    rtc_var *v = &c->md->vars[i];
    size_t nd = rtc__xml_count(n, "Dimension");
    bool is_array_type = v->type != RTC_TYPE_CLOCK;
    if (nd && is_array_type && !(v->dims = calloc(nd, sizeof *v->dims)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (rtc__xml_is(ch, "Dimension") && is_array_type)
            MD_TRY(dimension(c, ch, &v->dims[v->n_dims++]));
        else if (rtc__xml_is(ch, "Start") &&
                 (v->type == RTC_TYPE_STRING || v->type == RTC_TYPE_BINARY))
            continue; /* read by rtc__md_start_children */
        else if (rtc__xml_is(ch, "Alias"))
            MD_TRY(alias(c, ch, i));
        else
            rtc__xml_unknown_child(&c->x, ch);
    }
    return rc;
}

/* clocks="vr vr ...": the Clock variables this variable is clocked by (checked against the
 * whole variable list in rtc__md_resolve). */
static int clocks_attr(md_ctx *c, const xmlNode *n, rtc_var *v)
{
    const char *text = rtc__xml_attr(n, "clocks");
    if (!text)
        return RTC_OK;
    size_t count = 0;
    char tok[32];
    for (const char *p = text; rtc__md_next_token(&p, tok, sizeof tok);)
        count++;
    if (count == 0) {
        rtc__xml_attr_error(&c->x, n, "clocks", "empty (a list of Clock value references)");
        return RTC_EPARSE;
    }
    if (!(v->clocks = calloc(count, sizeof *v->clocks)))
        return RTC_ENOMEM;
    for (const char *p = text; rtc__md_next_token(&p, tok, sizeof tok);) {
        uint64_t x;
        if (rtc_parse_u64(tok, 0, UINT32_MAX, 0, &x) != RTC_OK) {
            rtc__xml_attr_error(&c->x, n, "clocks", "\"%s\" is not a value reference", tok);
            return RTC_EPARSE;
        }
        v->clocks[v->n_clocks++] = (uint32_t)x;
    }
    return RTC_OK;
}

/* A clock time attribute: intervalDecimal/shiftDecimal text in whole ns, or the pair
 * intervalCounter/shiftCounter over resolution. */
static int clock_time(md_ctx *c, const xmlNode *n, const char *dec, const char *counter,
                      int64_t *ns, bool *has)
{
    const char *text = rtc__xml_attr(n, dec);
    uint64_t cnt = 0, res = 1;
    bool has_cnt = false, has_res = false;
    *has = false;
    if (text) {
        if (rtc_parse_seconds(text, ns) != RTC_OK || *ns < 0) {
            rtc__xml_attr_error(&c->x, n, dec, "\"%s\" is not a time >= 0 in whole nanoseconds",
                                text);
            return RTC_EPARSE;
        }
        *has = true;
        return RTC_OK;
    }
    int rc = rtc__xml_attr_u64(&c->x, n, counter, 64, &cnt, &has_cnt);
    if (rc == RTC_OK)
        rc = rtc__xml_attr_u64(&c->x, n, "resolution", 64, &res, &has_res);
    if (rc != RTC_OK || !has_cnt)
        return rc;
    if (res == 0 || cnt > (uint64_t)INT64_MAX / 1000000000u || (cnt * 1000000000u) % res) {
        rtc__xml_attr_error(&c->x, n, counter, "%llu/%llu s is not a whole number of ns",
                            (unsigned long long)cnt, (unsigned long long)res);
        return RTC_EPARSE;
    }
    *ns = (int64_t)(cnt * 1000000000u / res);
    *has = true;
    return RTC_OK;
}

/* The attributes of a Clock element (rtc_clock_info). */
static int clock_attrs(md_ctx *c, const xmlNode *n, rtc_var *v)
{
    static const char *const kinds[] = {"constant", "fixed",     "tunable",
                                        "changing", "countdown", "triggered", NULL};
    rtc_clock_info *ci = &v->clock;
    int kind = RTC_CLOCK_TRIGGERED;
    bool has = false;
    uint64_t prio = 0;
    int rc = rtc__xml_attr_enum(&c->x, n, "intervalVariability", kinds, &kind, &has);
    ci->interval_variability = (rtc_clock_variability)kind;
    if (rc == RTC_OK)
        rc = clock_time(c, n, "intervalDecimal", "intervalCounter", &ci->interval_ns,
                        &ci->has_interval);
    if (rc == RTC_OK)
        rc = clock_time(c, n, "shiftDecimal", "shiftCounter", &ci->shift_ns, &has);
    if (rc == RTC_OK)
        rc = rtc__xml_attr_u64(&c->x, n, "priority", 32, &prio, &ci->has_priority);
    ci->priority = (uint32_t)prio;
    if (rc == RTC_OK)
        rc = rtc__xml_attr_bool(&c->x, n, "canBeDeactivated", &ci->can_be_deactivated, &has);
    return rc;
}

/* One FMI 3 variable: the element name is the type; the rules run only when the element
 * itself parsed cleanly, so one mistake gives one message. */
static int variable3(md_ctx *c, size_t i, const xmlNode *n, int k)
{
    rtc_var *v = &c->md->vars[i];
    unsigned errors_before = c->x.n_errors;
    rtc__xml_check_attrs(&c->x, n, types3[k].var_attrs);
    v->type = types3[k].type;
    int rc = RTC_OK;
    MD_TRY(rtc__md_var_common(c, i, n));
    MD_TRY(var_children(c, n, i));
    MD_TRY(clocks_attr(c, n, v));
    if (v->type == RTC_TYPE_CLOCK)
        MD_TRY(clock_attrs(c, n, v));
    MD_TRY(rtc__md_var_typed(c, i, n));
    if (rc == RTC_OK && c->x.n_errors == errors_before)
        MD_TRY(rtc__md_var_finish(c, i));
    return rc;
}

static bool is_var3(const xmlNode *n)
{
    return var_index(n) >= 0;
}

static int model_variables(md_ctx *c, const xmlNode *n)
{
    int rc = rtc__md_alloc_vars(c, n, is_var3);
    if (rc != RTC_OK)
        return rc;
    size_t n_alias = 0;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        n_alias += is_var3(ch) ? rtc__xml_count(ch, "Alias") : 0;
    if (n_alias && !(c->md->aliases = calloc(n_alias, sizeof *c->md->aliases)))
        return RTC_ENOMEM;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        int k = var_index(ch);
        if (k < 0) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        MD_TRY(variable3(c, c->md->n_vars++, ch, k));
    }
    return rc;
}

/* ---- CoSimulation / ModelExchange / ScheduledExecution ---- */

#define CS(f) offsetof(rtc_cs_caps, f)
static const md_flag cs_flags3[] = {
    {"needsExecutionTool", CS(needs_execution_tool)},
    {"canBeInstantiatedOnlyOncePerProcess", CS(can_be_instantiated_only_once_per_process)},
    {"canGetAndSetFMUState", CS(can_get_and_set_fmu_state)},
    {"canSerializeFMUState", CS(can_serialize_fmu_state)},
    {"providesDirectionalDerivatives", CS(provides_directional_derivatives)},
    {"providesAdjointDerivatives", CS(provides_adjoint_derivatives)},
    {"providesPerElementDependencies", CS(provides_per_element_dependencies)},
    {"canHandleVariableCommunicationStepSize", CS(can_handle_variable_communication_step_size)},
    {"providesIntermediateUpdate", CS(provides_intermediate_update)},
    {"mightReturnEarlyFromDoStep", CS(might_return_early_from_do_step)},
    {"canReturnEarlyAfterIntermediateUpdate", CS(can_return_early_after_intermediate_update)},
    {"hasEventMode", CS(has_event_mode)},
    {"providesEvaluateDiscreteStates", CS(provides_evaluate_discrete_states)},
};
#define N_CS_FLAGS3 (sizeof cs_flags3 / sizeof cs_flags3[0])
/* The attributes every interface element has (first seven flags + modelIdentifier). */
#define N_COMMON_FLAGS3 7

/* Every capability flag of FMI 3.0 CoSimulation; flags only FMI 2 has stay false. */
static int co_simulation(md_ctx *c, const xmlNode *n)
{
    const char *known[N_CS_FLAGS3 + 5] = {"modelIdentifier", "maxOutputDerivativeOrder",
                                          "fixedInternalStepSize",
                                          "recommendedIntermediateInputSmoothness"};
    for (size_t k = 0; k < N_CS_FLAGS3; k++)
        known[k + 4] = cs_flags3[k].attr;
    rtc__xml_check_attrs(&c->x, n, known);
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        rtc__xml_unknown_child(&c->x, ch);
    rtc_cs_caps *cs = &c->md->cs;
    c->md->has_cs = true;
    int rc = RTC_OK;
    uint64_t order = 0, smooth = 0;
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "modelIdentifier", true, &cs->model_identifier));
    MD_TRY(rtc__md_flags(c, n, cs_flags3, N_CS_FLAGS3, cs));
    MD_TRY(rtc__xml_attr_u64(&c->x, n, "maxOutputDerivativeOrder", 32, &order, NULL));
    MD_TRY(
        rtc__xml_attr_u64(&c->x, n, "recommendedIntermediateInputSmoothness", 32, &smooth, NULL));
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "fixedInternalStepSize", &cs->fixed_internal_step_size,
                             &cs->has_fixed_internal_step_size));
    cs->max_output_derivative_order = (unsigned)order;
    cs->recommended_intermediate_input_smoothness = (unsigned)smooth;
    return rc;
}

/* The flags only ModelExchange has. */
static const md_flag me_flags3[] = {
    {"needsCompletedIntegratorStep", CS(needs_completed_integrator_step)},
    {"providesEvaluateDiscreteStates", CS(provides_evaluate_discrete_states)},
};

/* ModelExchange (identifier and flags into md->me) and ScheduledExecution (presence and
 * identifier only). */
static int other_interface(md_ctx *c, const xmlNode *n, bool *has, char **id)
{
    const char *known[N_COMMON_FLAGS3 + 4] = {"modelIdentifier"};
    size_t k = 0;
    for (; k < N_COMMON_FLAGS3; k++)
        known[k + 1] = cs_flags3[k].attr;
    if (rtc__xml_is(n, "ModelExchange")) {
        known[++k] = "needsCompletedIntegratorStep";
        known[++k] = "providesEvaluateDiscreteStates";
    }
    rtc__xml_check_attrs(&c->x, n, known);
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        rtc__xml_unknown_child(&c->x, ch);
    *has = true;
    int rc = RTC_OK;
    if (rtc__xml_is(n, "ModelExchange")) {
        MD_TRY(rtc__md_flags(c, n, cs_flags3, N_COMMON_FLAGS3, &c->md->me));
        MD_TRY(rtc__md_flags(c, n, me_flags3, 2, &c->md->me));
    }
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "modelIdentifier", true, id));
    return rc;
}

/* ---- ModelStructure ---- */

enum { U_OUTPUT, U_DERIV, U_CLOCKED, U_INITIAL, U_EVENT, U_COUNT };
static const char *const unknown_names[] = {"Output",         "ContinuousStateDerivative",
                                            "ClockedState",   "InitialUnknown",
                                            "EventIndicator", NULL};

/* FMI 3 lists the unknowns directly under ModelStructure, in the order of the schema. */
static int model_structure(md_ctx *c, const xmlNode *n)
{
    static const char *const no_attrs[] = {NULL};
    rtc_model_structure *s = &c->md->structure;
    /* ClockedState has no slot in rtc_model_structure: it is checked, then dropped. */
    rtc_unknown *clocked = NULL;
    size_t n_clocked = 0;
    rtc_unknown **arr[U_COUNT] = {&s->outputs, &s->derivatives, &clocked, &s->initial_unknowns,
                                  &s->event_indicators};
    size_t *cnt[U_COUNT] = {&s->n_outputs, &s->n_derivatives, &n_clocked, &s->n_initial_unknowns,
                            &s->n_event_indicators};
    rtc__xml_check_attrs(&c->x, n, no_attrs);
    for (size_t k = 0; k < U_COUNT; k++) {
        size_t m = rtc__xml_count(n, unknown_names[k]);
        if (m && !(*arr[k] = calloc(m, sizeof **arr[k]))) {
            free(clocked);
            return RTC_ENOMEM;
        }
    }
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        size_t k = 0;
        while (unknown_names[k] && !rtc__xml_is(ch, unknown_names[k]))
            k++;
        if (!unknown_names[k]) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        int st = rtc__md_unknown(c, ch, &(*arr[k])[(*cnt[k])++]);
        if (st != RTC_OK)
            rc = st;
        if (st == RTC_ENOMEM)
            break;
    }
    for (size_t k = 0; k < n_clocked; k++)
        free(clocked[k].deps);
    free(clocked);
    return rc;
}

/* ---- root ---- */

static int root_attrs(md_ctx *c, const xmlNode *root)
{
    static const char *const known[] = {"fmiVersion",
                                        "modelName",
                                        "instantiationToken",
                                        "description",
                                        "author",
                                        "version",
                                        "copyright",
                                        "license",
                                        "generationTool",
                                        "generationDateAndTime",
                                        "variableNamingConvention",
                                        NULL};
    static const char *const conventions[] = {"flat", "structured", NULL};
    rtc_model_desc *md = c->md;
    const md_str_attr strs[] = {
        {"modelName", &md->model_name, true},
        {"instantiationToken", &md->guid, true},
        {"description", &md->description, false},
        {"author", &md->author, false},
        {"version", &md->version, false},
        {"copyright", &md->copyright, false},
        {"license", &md->license, false},
        {"generationTool", &md->generation_tool, false},
        {"generationDateAndTime", &md->generation_date_and_time, false},
        {"variableNamingConvention", &md->variable_naming_convention, false},
    };
    rtc__xml_check_attrs(&c->x, root, known);
    int rc = rtc__md_strings(c, root, strs, sizeof strs / sizeof strs[0]);
    int conv = 0;
    MD_TRY(rtc__xml_attr_enum(&c->x, root, "variableNamingConvention", conventions, &conv, NULL));
    return rc;
}

enum { S_ME, S_CS, S_SE, S_UNITS, S_TYPES, S_LOGCATS, S_EXP, S_VARS, S_STRUCT, S_COUNT };

/* Stages as described in fmu_md_priv.h. */
int rtc__md3_read(md_ctx *c, const xmlNode *root)
{
    static const char *const names[] = {"ModelExchange",      "CoSimulation",
                                        "ScheduledExecution", "UnitDefinitions",
                                        "TypeDefinitions",    "LogCategories",
                                        "DefaultExperiment",  "ModelVariables",
                                        "ModelStructure",     NULL};
    const xmlNode *sec[S_COUNT] = {NULL};
    rtc_model_desc *md = c->md;
    int rc = RTC_OK;
    MD_TRY(root_attrs(c, root));
    MD_TRY(rtc__md_sections(c, root, names, sec));
    if (sec[S_ME])
        MD_TRY(other_interface(c, sec[S_ME], &md->has_me, &md->me_model_identifier));
    if (sec[S_CS])
        MD_TRY(co_simulation(c, sec[S_CS]));
    if (sec[S_SE])
        MD_TRY(other_interface(c, sec[S_SE], &md->has_se, &md->se_model_identifier));
    if (sec[S_UNITS])
        MD_TRY(rtc__md_units(c, sec[S_UNITS]));
    if (sec[S_TYPES])
        MD_TRY(type_defs(c, sec[S_TYPES]));
    if (sec[S_LOGCATS])
        MD_TRY(rtc__md_log_categories(c, sec[S_LOGCATS]));
    if (sec[S_EXP])
        MD_TRY(rtc__md_experiment(c, sec[S_EXP]));
    if (sec[S_VARS])
        MD_TRY(model_variables(c, sec[S_VARS]));
    /* References are resolved only over a clean variable list (see fmu_md_priv.h). */
    if (rc != RTC_OK || c->x.n_errors > 0)
        return rc != RTC_OK ? rc : RTC_EPARSE;
    MD_TRY(rtc__md_index(c));
    if (rc == RTC_OK)
        MD_TRY(rtc__md_resolve(c));
    if (rc == RTC_OK && sec[S_STRUCT])
        MD_TRY(model_structure(c, sec[S_STRUCT]));
    md->n_event_indicators = md->structure.n_event_indicators;
    return rc;
}
