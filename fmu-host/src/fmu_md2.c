/*
 * modelDescription.xml reader, FMI 2.0 elements: the root attributes, TypeDefinitions
 * (SimpleType), ScalarVariable with its Real/Integer/Boolean/String/Enumeration child,
 * CoSimulation / ModelExchange and ModelStructure (Outputs, Derivatives, InitialUnknowns
 * with 1-based ScalarVariable indices).
 */
#include "fmu_md_priv.h"

#include "rtcosim/status.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The five type elements of FMI 2.0 and the attributes each may carry. */
static const char *const real_attrs[] = {
    "declaredType", "quantity",  "unit",  "displayUnit", "relativeQuantity", "min", "max",
    "nominal",      "unbounded", "start", "derivative",  "reinit",           NULL};
static const char *const int_attrs[] = {"declaredType", "quantity", "min", "max", "start", NULL};
static const char *const plain_attrs[] = {"declaredType", "start", NULL};

static const struct {
    const char *elem;
    rtc_type type;
    const char *const *var_attrs;
} types2[] = {
    {"Real", RTC_TYPE_FLOAT64, real_attrs},    {"Integer", RTC_TYPE_INT32, int_attrs},
    {"Boolean", RTC_TYPE_BOOL, plain_attrs},   {"String", RTC_TYPE_STRING, plain_attrs},
    {"Enumeration", RTC_TYPE_ENUM, int_attrs},
};
#define N_TYPES2 (sizeof types2 / sizeof types2[0])

/* Index into types2 of a type element, or -1. */
static int type_index(const xmlNode *n)
{
    for (size_t k = 0; k < N_TYPES2; k++)
        if (rtc__xml_is(n, types2[k].elem))
            return (int)k;
    return -1;
}

/* ---- TypeDefinitions ---- */

static int simple_type(md_ctx *c, const xmlNode *n, rtc_type_def *td)
{
    static const char *const known[] = {"name", "description", NULL};
    static const char *const real_t[] = {"quantity",         "unit",      "displayUnit",
                                         "relativeQuantity", "min",       "max",
                                         "nominal",          "unbounded", NULL};
    static const char *const int_t[] = {"quantity", "min", "max", NULL};
    static const char *const enum_t[] = {"quantity", NULL};
    static const char *const none_t[] = {NULL};
    const char *const *attrs_of[] = {real_t, int_t, none_t, none_t, enum_t};
    rtc__xml_check_attrs(&c->x, n, known);
    td->line = rtc__xml_line(n);
    int rc = rtc__xml_attr_dup(&c->x, n, "name", true, &td->name);
    const xmlNode *tn = NULL;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        int k = type_index(ch);
        if (k < 0) {
            rtc__xml_unknown_child(&c->x, ch);
        } else if (tn) {
            rtc__xml_error(&c->x, ch, "SimpleType: more than one type element");
            return RTC_EPARSE;
        } else {
            tn = ch;
            td->type = types2[k].type;
            rtc__xml_check_attrs(&c->x, ch, attrs_of[k]);
        }
    }
    if (!tn) {
        rtc__xml_error(&c->x, n,
                       "SimpleType: no type element (Real, Integer, Boolean, String, "
                       "Enumeration)");
        return RTC_EPARSE;
    }
    MD_TRY(rtc__md_type_attrs(c, tn, td));
    return rc;
}

static int type_defs(md_ctx *c, const xmlNode *n)
{
    rtc_model_desc *md = c->md;
    size_t k = rtc__xml_count(n, "SimpleType");
    if (k && !(md->type_defs = calloc(k, sizeof *md->type_defs)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (!rtc__xml_is(ch, "SimpleType")) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        size_t idx = md->n_type_defs++;
        MD_TRY(simple_type(c, ch, &md->type_defs[idx]));
        MD_TRY(rtc__md_type_unique(c, ch, idx));
    }
    return rc;
}

/* ---- ModelVariables ---- */

static int scalar_variable(md_ctx *c, size_t i, const xmlNode *n)
{
    static const char *const known[] = {"name",
                                        "valueReference",
                                        "description",
                                        "causality",
                                        "variability",
                                        "initial",
                                        "canHandleMultipleSetPerTimeInstant",
                                        NULL};
    unsigned errors_before = c->x.n_errors;
    rtc__xml_check_attrs(&c->x, n, known);
    int rc = RTC_OK;
    MD_TRY(rtc__md_var_common(c, i, n));
    const xmlNode *tn = NULL;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        int k = type_index(ch);
        if (k < 0) {
            rtc__xml_unknown_child(&c->x, ch);
        } else if (tn) {
            rtc__xml_error(&c->x, ch, "ScalarVariable: more than one type element");
            return RTC_EPARSE;
        } else {
            tn = ch;
            c->md->vars[i].type = types2[k].type;
            rtc__xml_check_attrs(&c->x, ch, types2[k].var_attrs);
            for (const xmlNode *g = rtc__xml_child(ch); g; g = rtc__xml_next(g))
                rtc__xml_unknown_child(&c->x, g);
        }
    }
    if (!tn) {
        rtc__xml_error(&c->x, n,
                       "ScalarVariable: no type element (Real, Integer, Boolean, "
                       "String, Enumeration)");
        return RTC_EPARSE;
    }
    MD_TRY(rtc__md_var_typed(c, i, tn));
    /* The combination rules only make sense for a variable that parsed cleanly. */
    if (rc == RTC_OK && c->x.n_errors == errors_before)
        MD_TRY(rtc__md_var_finish(c, i));
    return rc;
}

static bool is_var2(const xmlNode *n)
{
    return rtc__xml_is(n, "ScalarVariable");
}

static int model_variables(md_ctx *c, const xmlNode *n)
{
    int rc = rtc__md_alloc_vars(c, n, is_var2);
    if (rc != RTC_OK)
        return rc;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (!is_var2(ch)) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        MD_TRY(scalar_variable(c, c->md->n_vars++, ch));
    }
    return rc;
}

/* ---- CoSimulation / ModelExchange ---- */

#define CS(f) offsetof(rtc_cs_caps, f)
static const md_flag cs_flags2[] = {
    {"needsExecutionTool", CS(needs_execution_tool)},
    {"canHandleVariableCommunicationStepSize", CS(can_handle_variable_communication_step_size)},
    {"canInterpolateInputs", CS(can_interpolate_inputs)},
    {"canRunAsynchronuously", CS(can_run_asynchronuously)},
    {"canBeInstantiatedOnlyOncePerProcess", CS(can_be_instantiated_only_once_per_process)},
    {"canNotUseMemoryManagementFunctions", CS(can_not_use_memory_management_functions)},
    {"canGetAndSetFMUstate", CS(can_get_and_set_fmu_state)},
    {"canSerializeFMUstate", CS(can_serialize_fmu_state)},
    {"providesDirectionalDerivative", CS(provides_directional_derivatives)},
};
#define N_CS_FLAGS2 (sizeof cs_flags2 / sizeof cs_flags2[0])

/* Children of CoSimulation / ModelExchange: SourceFiles is standard but of no use to a
 * host that loads binaries; anything else is unknown. */
static void interface_children(md_ctx *c, const xmlNode *n)
{
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        if (!rtc__xml_is(ch, "SourceFiles"))
            rtc__xml_unknown_child(&c->x, ch);
}

/* Every capability flag of FMI 2.0 CoSimulation; flags only FMI 3 has stay false. */
static int co_simulation(md_ctx *c, const xmlNode *n)
{
    const char *known[N_CS_FLAGS2 + 3] = {"modelIdentifier", "maxOutputDerivativeOrder"};
    for (size_t k = 0; k < N_CS_FLAGS2; k++)
        known[k + 2] = cs_flags2[k].attr;
    rtc__xml_check_attrs(&c->x, n, known);
    interface_children(c, n);
    rtc_cs_caps *cs = &c->md->cs;
    c->md->has_cs = true;
    int rc = RTC_OK;
    uint64_t order = 0;
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "modelIdentifier", true, &cs->model_identifier));
    MD_TRY(rtc__md_flags(c, n, cs_flags2, N_CS_FLAGS2, cs));
    MD_TRY(rtc__xml_attr_u64(&c->x, n, "maxOutputDerivativeOrder", 32, &order, NULL));
    cs->max_output_derivative_order = (unsigned)order;
    return rc;
}

/* Every capability flag of FMI 2.0 ModelExchange (same struct as CoSimulation's). */
static const md_flag me_flags2[] = {
    {"needsExecutionTool", CS(needs_execution_tool)},
    {"completedIntegratorStepNotNeeded", CS(needs_completed_integrator_step)}, /* negated */
    {"canBeInstantiatedOnlyOncePerProcess", CS(can_be_instantiated_only_once_per_process)},
    {"canNotUseMemoryManagementFunctions", CS(can_not_use_memory_management_functions)},
    {"canGetAndSetFMUstate", CS(can_get_and_set_fmu_state)},
    {"canSerializeFMUstate", CS(can_serialize_fmu_state)},
    {"providesDirectionalDerivative", CS(provides_directional_derivatives)},
};
#define N_ME_FLAGS2 (sizeof me_flags2 / sizeof me_flags2[0])

static int model_exchange(md_ctx *c, const xmlNode *n)
{
    const char *known[N_ME_FLAGS2 + 2] = {"modelIdentifier"};
    for (size_t k = 0; k < N_ME_FLAGS2; k++)
        known[k + 1] = me_flags2[k].attr;
    rtc__xml_check_attrs(&c->x, n, known);
    interface_children(c, n);
    c->md->has_me = true;
    int rc = rtc__md_flags(c, n, me_flags2, N_ME_FLAGS2, &c->md->me);
    /* FMI 2 says it the other way round: the default (false) means "call it". */
    c->md->me.needs_completed_integrator_step = !c->md->me.needs_completed_integrator_step;
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "modelIdentifier", true, &c->md->me_model_identifier));
    return rc;
}

/* ---- ModelStructure ---- */

static int model_structure(md_ctx *c, const xmlNode *n)
{
    static const char *const names[] = {"Outputs", "Derivatives", "InitialUnknowns", NULL};
    static const char *const no_attrs[] = {NULL};
    const xmlNode *sec[3] = {NULL};
    rtc_model_structure *s = &c->md->structure;
    rtc__xml_check_attrs(&c->x, n, no_attrs);
    int rc = rtc__md_sections(c, n, names, sec);
    if (sec[0])
        MD_TRY(rtc__md_unknown_list(c, sec[0], "Unknown", &s->outputs, &s->n_outputs));
    if (sec[1])
        MD_TRY(rtc__md_unknown_list(c, sec[1], "Unknown", &s->derivatives, &s->n_derivatives));
    if (sec[2])
        MD_TRY(rtc__md_unknown_list(c, sec[2], "Unknown", &s->initial_unknowns,
                                    &s->n_initial_unknowns));
    return rc;
}

/* ---- root ---- */

static int root_attrs(md_ctx *c, const xmlNode *root)
{
    static const char *const known[] = {"fmiVersion",
                                        "modelName",
                                        "guid",
                                        "description",
                                        "author",
                                        "version",
                                        "copyright",
                                        "license",
                                        "generationTool",
                                        "generationDateAndTime",
                                        "variableNamingConvention",
                                        "numberOfEventIndicators",
                                        NULL};
    static const char *const conventions[] = {"flat", "structured", NULL};
    rtc_model_desc *md = c->md;
    const md_str_attr strs[] = {
        {"modelName", &md->model_name, true},
        {"guid", &md->guid, true},
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
    uint64_t n_events = 0;
    MD_TRY(rtc__xml_attr_enum(&c->x, root, "variableNamingConvention", conventions, &conv, NULL));
    MD_TRY(rtc__xml_attr_u64(&c->x, root, "numberOfEventIndicators", 32, &n_events, NULL));
    md->n_event_indicators = (size_t)n_events;
    return rc;
}

enum { S_UNITS, S_TYPES, S_LOGCATS, S_EXP, S_VENDOR, S_VARS, S_STRUCT, S_CS, S_ME, S_COUNT };

/* Stages as described in fmu_md_priv.h. */
int rtc__md2_read(md_ctx *c, const xmlNode *root)
{
    static const char *const names[] = {"UnitDefinitions",   "TypeDefinitions",
                                        "LogCategories",     "DefaultExperiment",
                                        "VendorAnnotations", "ModelVariables",
                                        "ModelStructure",    "CoSimulation",
                                        "ModelExchange",     NULL};
    const xmlNode *sec[S_COUNT] = {NULL};
    int rc = RTC_OK;
    MD_TRY(root_attrs(c, root));
    MD_TRY(rtc__md_sections(c, root, names, sec));
    if (sec[S_UNITS])
        MD_TRY(rtc__md_units(c, sec[S_UNITS]));
    if (sec[S_TYPES])
        MD_TRY(type_defs(c, sec[S_TYPES]));
    if (sec[S_LOGCATS])
        MD_TRY(rtc__md_log_categories(c, sec[S_LOGCATS]));
    if (sec[S_EXP])
        MD_TRY(rtc__md_experiment(c, sec[S_EXP]));
    if (sec[S_CS])
        MD_TRY(co_simulation(c, sec[S_CS]));
    if (sec[S_ME])
        MD_TRY(model_exchange(c, sec[S_ME]));
    if (!sec[S_VARS]) {
        rtc__xml_error(&c->x, root, "fmiModelDescription: <ModelVariables> is missing");
        return RTC_EPARSE;
    }
    MD_TRY(model_variables(c, sec[S_VARS]));
    /* References are resolved only over a clean variable list (see fmu_md_priv.h). */
    if (rc != RTC_OK || c->x.n_errors > 0)
        return rc != RTC_OK ? rc : RTC_EPARSE;
    MD_TRY(rtc__md_index(c));
    if (rc == RTC_OK)
        MD_TRY(rtc__md_resolve(c));
    if (rc == RTC_OK && sec[S_STRUCT])
        MD_TRY(model_structure(c, sec[S_STRUCT]));
    return rc;
}
