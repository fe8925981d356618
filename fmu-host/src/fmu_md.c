/*
 * modelDescription.xml reader for FMI 2.0 and 3.0: entry point, free function, and the
 * element readers and cross-reference stages both versions share.
 *
 * Ownership: every string and array hangs off the one rtc_model_desc root, and arrays are
 * allocated at their final size (children are counted first) and zero-filled, so
 * rtc_fmu_md_free() can release a partially built description on any failure path.
 *
 * Conformance policy (summarised in README.md, "FMI conformance policy"; the corpus
 * tests/data/conformance/fmi2|fmi3 holds one case per rule):
 *   1. Refuse only what would make a run wrong or unsafe: a value, type or reference that
 *      cannot be resolved (duplicate names or value references, a derivative, dimension or
 *      clocks reference to nothing or to the wrong kind of variable, start values that do
 *      not fit the type or the array size (FMI 3: one value for a whole array is every
 *      element's), a causality/variability pair the standard
 *      forbids, an initial that contradicts the causality (e.g. a calculated parameter),
 *      a parameter (initial exact or approx) without a start value. One line each:
 *      "FILE:LINE: <Element> <attr>: why".
 *   2. Accept every combination the standard of the file's own version allows, checked
 *      against that version's text: the causality x variability table (identical in 2.0
 *      and 3.0), the initial table (FMI 2.0 2.2.7; FMI 3.0 Table 22, which differs only
 *      for inputs: exact is their only and default value), FMI 3 structural parameters
 *      (fixed or tunable, initial exact, usable as array dimensions before or after the
 *      arrays they size), every FMI 3 type element including Clock and ClockType, the
 *      clocks attribute (clocks and clocked variables may be tunable whatever their
 *      causality), <Alias> (kept: its name works wherever a variable name does),
 *      Dimension and Start children.
 *   3. Harmless deviations real exporters produce are accepted with one warning
 *      "FILE:LINE: ...": an initial on an input (FMI 2 tools write exact) or on the
 *      independent variable, where the importer only uses the start value; an input
 *      without a start value (the engine never writes start values, the FMU's own value
 *      holds until the input is set); a parameter without variability (read as fixed, the
 *      only sensible meaning); unknown attributes
 *      and elements (vendor extensions); a start value outside [min, max]; a start value
 *      on a calculated variable (ignored).
 * What the engine cannot do yet is not a parse error: FMI 3 clocks are parsed with their
 * attributes (rtc_var.clock) and listed (rtcosim info); a Scheduled Execution FMU runs on
 * their schedule (fmi3_se.c), a co-simulation unit with an input clock is refused when it
 * is created (fmu.c).
 */
#include "fmu_md_priv.h"

#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"

#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

/* The free helpers walk n_* entries of arrays that were calloc'd at full size, so an
 * entry that was never filled is all zero and frees as nothing. */
static void free_type_defs(rtc_model_desc *md)
{
    for (size_t i = 0; md->type_defs && i < md->n_type_defs; i++) {
        rtc_type_def *t = &md->type_defs[i];
        free(t->name);
        free(t->quantity);
        free(t->unit);
        free(t->display_unit);
        for (size_t k = 0; t->items && k < t->n_items; k++) {
            free(t->items[k].name);
            free(t->items[k].description);
        }
        free(t->items);
    }
    free(md->type_defs);
}

static void free_units(rtc_model_desc *md)
{
    for (size_t i = 0; md->unit_defs && i < md->n_unit_defs; i++) {
        rtc_unit_def *u = &md->unit_defs[i];
        free(u->name);
        for (size_t k = 0; u->display_units && k < u->n_display_units; k++)
            free(u->display_units[k].name);
        free(u->display_units);
    }
    free(md->unit_defs);
    for (size_t i = 0; md->log_categories && i < md->n_log_categories; i++) {
        free(md->log_categories[i].name);
        free(md->log_categories[i].description);
    }
    free(md->log_categories);
}

static void free_unknowns(rtc_unknown *u, size_t n)
{
    for (size_t i = 0; u && i < n; i++)
        free(u[i].deps);
    free(u);
}

/* One root, one free: used for the caller's description and for every failure path of
 * the reader, where any member may still be NULL. */
void rtc_fmu_md_free(rtc_model_desc *md)
{
    if (!md)
        return;
    char **strs[] = {&md->path,
                     &md->fmi_version,
                     &md->model_name,
                     &md->guid,
                     &md->description,
                     &md->author,
                     &md->version,
                     &md->copyright,
                     &md->license,
                     &md->generation_tool,
                     &md->generation_date_and_time,
                     &md->variable_naming_convention,
                     &md->cs.model_identifier,
                     &md->me_model_identifier,
                     &md->se_model_identifier,
                     &md->experiment.start_text,
                     &md->experiment.stop_text,
                     &md->experiment.step_text};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    for (size_t i = 0; md->vars && i < md->n_vars; i++)
        rtc__md_var_clear(&md->vars[i]);
    free(md->vars);
    for (size_t i = 0; md->aliases && i < md->n_aliases; i++) {
        free(md->aliases[i].name);
        free(md->aliases[i].description);
        free(md->aliases[i].display_unit);
    }
    free(md->aliases);
    free_type_defs(md);
    free_units(md);
    rtc_model_structure *s = &md->structure;
    free_unknowns(s->outputs, s->n_outputs);
    free_unknowns(s->derivatives, s->n_derivatives);
    free_unknowns(s->initial_unknowns, s->n_initial_unknowns);
    free_unknowns(s->event_indicators, s->n_event_indicators);
    free(md);
}

/* "2.0", "2.0.4" → 2; "3.0", "3.0.2", "3.0-beta.2" → 3; anything else → 0. */
static int version_major(const char *v)
{
    for (int major = 2; major <= 3; major++) {
        char head[4] = {(char)('0' + major), '.', '0', '\0'};
        if (strncmp(v, head, 3) == 0 && (v[3] == '\0' || v[3] == '.' || v[3] == '-'))
            return major;
    }
    return 0;
}

/* The version decides which reader runs, so it is checked before anything else and is
 * the only failure that maps to RTC_EUNSUPPORTED. */
static int read_version(md_ctx *c, const xmlNode *root)
{
    if (!rtc__xml_is(root, "fmiModelDescription")) {
        rtc__xml_error(&c->x, root, "root element is <%s>, expected <fmiModelDescription>",
                       rtc__xml_name(root));
        return RTC_EPARSE;
    }
    int rc = rtc__xml_attr_dup(&c->x, root, "fmiVersion", true, &c->md->fmi_version);
    if (rc != RTC_OK)
        return rc;
    c->major = version_major(c->md->fmi_version);
    if (c->major == 0) {
        rtc__xml_attr_error(&c->x, root, "fmiVersion",
                            "version \"%s\" is not supported (only 2.0 and 3.0)",
                            c->md->fmi_version);
        return RTC_EUNSUPPORTED;
    }
    c->md->fmi_major = c->major;
    return RTC_OK;
}

int rtc_fmu_md_read(const char *xml_path, const rtc_logger *lg, rtc_model_desc **out)
{
    if (!xml_path || !out)
        return RTC_EINVAL;
    md_ctx c = {0};
    xmlDoc *doc = NULL;
    rtc__xml_init(&c.x, xml_path, lg);
    c.md = calloc(1, sizeof *c.md);
    int rc = c.md ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = (c.md->path = strdup(xml_path)) ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = rtc__xml_read(&c.x, &doc);
    if (rc != RTC_OK)
        goto out;
    const xmlNode *root = xmlDocGetRootElement(doc);
    rc = read_version(&c, root);
    if (rc != RTC_OK)
        goto out;
    rc = c.major == 2 ? rtc__md2_read(&c, root) : rtc__md3_read(&c, root);
    /* Element readers keep going after an error so every one is reported; the count
     * decides. */
    if (rc == RTC_OK && c.x.n_errors > 0)
        rc = RTC_EPARSE;
out:
    if (rc == RTC_ENOMEM)
        rtc_log(lg, RTC_LOG_ERROR, "%s: out of memory", xml_path);
    free(c.aux);
    free(c.vr_map);
    xmlFreeDoc(doc);
    if (rc != RTC_OK) {
        rtc_fmu_md_free(c.md);
        return rc;
    }
    *out = c.md;
    return RTC_OK;
}

/* ---- UnitDefinitions ---- */

static int display_unit(md_ctx *c, const xmlNode *n, rtc_display_unit *d)
{
    static const char *const known2[] = {"name", "factor", "offset", NULL};
    static const char *const known3[] = {"name", "factor", "offset", "inverse", NULL};
    rtc__xml_check_attrs(&c->x, n, c->major == 2 ? known2 : known3);
    int rc = RTC_OK;
    d->factor = 1.0;
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "name", true, &d->name));
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "factor", &d->factor, NULL));
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "offset", &d->offset, NULL));
    if (c->major == 3)
        MD_TRY(rtc__xml_attr_bool(&c->x, n, "inverse", &d->inverse, NULL));
    return rc;
}

/* SI exponents; absent exponents are 0, which is what the schema default says. */
static int base_unit(md_ctx *c, const xmlNode *n, rtc_base_unit *b)
{
    static const char *const known[] = {"kg", "m",   "s",      "A",      "K", "mol",
                                        "cd", "rad", "factor", "offset", NULL};
    int *exps[] = {&b->kg, &b->m, &b->s, &b->A, &b->K, &b->mol, &b->cd, &b->rad};
    rtc__xml_check_attrs(&c->x, n, known);
    int rc = RTC_OK;
    for (size_t k = 0; k < sizeof exps / sizeof exps[0]; k++) {
        int64_t e = 0;
        MD_TRY(rtc__xml_attr_i64(&c->x, n, known[k], 32, &e, NULL));
        *exps[k] = (int)e;
    }
    b->factor = 1.0;
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "factor", &b->factor, NULL));
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "offset", &b->offset, NULL));
    return rc;
}

static int unit_def(md_ctx *c, const xmlNode *n, rtc_unit_def *u)
{
    static const char *const known[] = {"name", NULL};
    rtc__xml_check_attrs(&c->x, n, known);
    int rc = RTC_OK;
    u->line = rtc__xml_line(n);
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "name", true, &u->name));
    size_t nd = rtc__xml_count(n, "DisplayUnit");
    if (nd && !(u->display_units = calloc(nd, sizeof *u->display_units)))
        return RTC_ENOMEM;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (rtc__xml_is(ch, "BaseUnit") && u->has_base_unit) {
            rtc__xml_error(&c->x, ch, "Unit: more than one <BaseUnit>");
            rc = RTC_EPARSE;
        } else if (rtc__xml_is(ch, "BaseUnit")) {
            u->has_base_unit = true;
            MD_TRY(base_unit(c, ch, &u->base));
        } else if (rtc__xml_is(ch, "DisplayUnit")) {
            MD_TRY(display_unit(c, ch, &u->display_units[u->n_display_units++]));
        } else {
            rtc__xml_unknown_child(&c->x, ch);
        }
    }
    return rc;
}

/* Unit names are what variables reference, so a repeated name would make a reference
 * ambiguous: error. */
int rtc__md_units(md_ctx *c, const xmlNode *n)
{
    rtc_model_desc *md = c->md;
    size_t k = rtc__xml_count(n, "Unit");
    if (k && !(md->unit_defs = calloc(k, sizeof *md->unit_defs)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (!rtc__xml_is(ch, "Unit")) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        rtc_unit_def *u = &md->unit_defs[md->n_unit_defs++];
        MD_TRY(unit_def(c, ch, u));
        for (size_t j = 0; u->name && j + 1 < md->n_unit_defs; j++) {
            if (md->unit_defs[j].name && strcmp(md->unit_defs[j].name, u->name) == 0) {
                rtc__xml_attr_error(&c->x, ch, "name", "unit \"%s\" already defined on line %u",
                                    u->name, md->unit_defs[j].line);
                rc = RTC_EPARSE;
            }
        }
    }
    return rc;
}

/* ---- LogCategories, DefaultExperiment, enumeration items ---- */

int rtc__md_log_categories(md_ctx *c, const xmlNode *n)
{
    static const char *const known[] = {"name", "description", NULL};
    rtc_model_desc *md = c->md;
    size_t k = rtc__xml_count(n, "Category");
    if (k && !(md->log_categories = calloc(k, sizeof *md->log_categories)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (!rtc__xml_is(ch, "Category")) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        rtc__xml_check_attrs(&c->x, ch, known);
        rtc_log_category *lc = &md->log_categories[md->n_log_categories++];
        MD_TRY(rtc__xml_attr_dup(&c->x, ch, "name", true, &lc->name));
        MD_TRY(rtc__xml_attr_dup(&c->x, ch, "description", false, &lc->description));
    }
    return rc;
}

/* stopTime < startTime or a non-positive stepSize cannot be run and would only fail
 * later in the scheduler with a less precise message. */
int rtc__md_experiment(md_ctx *c, const xmlNode *n)
{
    static const char *const known[] = {"startTime", "stopTime", "tolerance", "stepSize", NULL};
    rtc_default_experiment *e = &c->md->experiment;
    rtc__xml_check_attrs(&c->x, n, known);
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        rtc__xml_unknown_child(&c->x, ch);
    int rc = RTC_OK;
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "startTime", &e->start, &e->has_start));
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "stopTime", &e->stop, &e->has_stop));
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "tolerance", &e->tolerance, &e->has_tolerance));
    MD_TRY(rtc__xml_attr_f64(&c->x, n, "stepSize", &e->step, &e->has_step));
    /* The texts let rt-core convert times exactly to integer nanoseconds. */
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "startTime", false, &e->start_text));
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "stopTime", false, &e->stop_text));
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "stepSize", false, &e->step_text));
    if (rc == RTC_OK && e->has_start && e->has_stop && e->stop < e->start) {
        rtc__xml_attr_error(&c->x, n, "stopTime", "%s is before startTime %s", e->stop_text,
                            e->start_text);
        rc = RTC_EPARSE;
    }
    if (rc == RTC_OK && e->has_step && !(e->step > 0)) {
        rtc__xml_attr_error(&c->x, n, "stepSize", "%s is not positive", e->step_text);
        rc = RTC_EPARSE;
    }
    return rc;
}

/* Items of an enumeration type (FMI 2 values are 32-bit, FMI 3 values 64-bit). */
int rtc__md_enum_items(md_ctx *c, const xmlNode *n, rtc_type_def *td)
{
    static const char *const known[] = {"name", "value", "description", NULL};
    size_t k = rtc__xml_count(n, "Item");
    if (k && !(td->items = calloc(k, sizeof *td->items)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (!rtc__xml_is(ch, "Item")) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        rtc__xml_check_attrs(&c->x, ch, known);
        rtc_enum_item *it = &td->items[td->n_items++];
        bool has = false;
        MD_TRY(rtc__xml_attr_dup(&c->x, ch, "name", true, &it->name));
        MD_TRY(rtc__xml_attr_dup(&c->x, ch, "description", false, &it->description));
        MD_TRY(rtc__xml_attr_i64(&c->x, ch, "value", c->major == 2 ? 32 : 64, &it->value, &has));
        if (!has && rtc__xml_attr(ch, "value") == NULL) {
            rtc__xml_attr_error(&c->x, ch, "value", "missing (required)");
            rc = RTC_EPARSE;
        }
    }
    if (k == 0) {
        rtc__xml_error(&c->x, n, "%s: an enumeration needs at least one <Item>", rtc__xml_name(n));
        rc = RTC_EPARSE;
    }
    return rc;
}

/* ---- variables: attributes shared by both versions ---- */

static int required_u32(md_ctx *c, const xmlNode *n, const char *attr, uint32_t *out)
{
    uint64_t v = 0;
    bool has = false;
    int rc = rtc__xml_attr_u64(&c->x, n, attr, 32, &v, &has);
    if (rc != RTC_OK)
        return rc;
    if (!has) {
        rtc__xml_attr_error(&c->x, n, attr, "missing (required)");
        return RTC_EPARSE;
    }
    *out = (uint32_t)v;
    return RTC_OK;
}

/* Attributes of the variable element itself. Defaults of variability and initial depend
 * on the type and causality, so they are applied later in rtc__md_var_finish; here only
 * whether they were given is recorded. */
int rtc__md_var_common(md_ctx *c, size_t i, const xmlNode *n)
{
    static const char *const caus[] = {
        "parameter",   "calculatedParameter", "input", "output", "local",
        "independent", "structuralParameter", NULL};
    static const char *const vari[] = {"constant", "fixed",      "tunable",
                                       "discrete", "continuous", NULL};
    static const char *const init[] = {"exact", "approx", "calculated", NULL};
    rtc_var *v = &c->md->vars[i];
    md_var_aux *a = &c->aux[i];
    int rc = RTC_OK, k = 0;
    a->node = n;
    v->line = rtc__xml_line(n);
    v->derivative_of = -1;
    v->causality = RTC_CAUSALITY_LOCAL;
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "name", true, &v->name));
    if (v->name && v->name[0] == '\0') {
        rtc__xml_attr_error(&c->x, n, "name", "empty");
        rc = RTC_EPARSE;
    }
    MD_TRY(required_u32(c, n, "valueReference", &v->vr));
    MD_TRY(rtc__xml_attr_dup(&c->x, n, "description", false, &v->description));
    bool has = false;
    MD_TRY(rtc__xml_attr_enum(&c->x, n, "causality", caus, &k, &has));
    if (has && c->major == 2 && k == RTC_CAUSALITY_STRUCTURAL_PARAMETER) {
        rtc__xml_attr_error(&c->x, n, "causality", "\"structuralParameter\" is FMI 3.0 only");
        rc = RTC_EPARSE;
    } else if (has) {
        v->causality = (rtc_causality)k;
    }
    MD_TRY(rtc__xml_attr_enum(&c->x, n, "variability", vari, &k, &a->variability_given));
    if (a->variability_given)
        v->variability = (rtc_variability)k;
    MD_TRY(rtc__xml_attr_enum(&c->x, n, "initial", init, &k, &a->initial_given));
    if (a->initial_given)
        v->initial = (rtc_initial)(k + 1);
    MD_TRY(rtc__xml_attr_bool(&c->x, n, "canHandleMultipleSetPerTimeInstant",
                              &v->can_handle_multiple_set_per_time_instant, NULL));
    if (c->major == 3)
        MD_TRY(rtc__xml_attr_bool(&c->x, n, "intermediateUpdate", &v->intermediate_update, NULL));
    return rc;
}

/* Attributes that FMI 2 puts on the type child (<Real ...>) and FMI 3 on the variable
 * element; tn is that element. Attributes a type does not have are not read (the unknown-
 * attribute check has already warned about them). */
int rtc__md_var_typed(md_ctx *c, size_t i, const xmlNode *tn)
{
    rtc_var *v = &c->md->vars[i];
    md_var_aux *a = &c->aux[i];
    int rc = RTC_OK;
    a->tnode = tn;
    MD_TRY(rtc__xml_attr_dup(&c->x, tn, "declaredType", false, &v->declared_type));
    MD_TRY(rtc__xml_attr_dup(&c->x, tn, "quantity", false, &v->quantity));
    if (rtc__md_is_float(v->type)) {
        MD_TRY(rtc__xml_attr_dup(&c->x, tn, "unit", false, &v->unit));
        MD_TRY(rtc__xml_attr_dup(&c->x, tn, "displayUnit", false, &v->display_unit));
        MD_TRY(rtc__xml_attr_f64(&c->x, tn, "nominal", &v->nominal, &v->has_nominal));
        MD_TRY(rtc__xml_attr_u64(&c->x, tn, "derivative", 32, &a->derivative, &a->has_derivative));
    }
    if (rtc__md_is_float(v->type) || rtc__md_is_signed(v->type) || rtc__md_is_unsigned(v->type)) {
        MD_TRY(rtc__md_attr_value(c, tn, "min", v->type, &v->min, &v->has_min));
        MD_TRY(rtc__md_attr_value(c, tn, "max", v->type, &v->max, &v->has_max));
    }
    /* FMI 3 String starts are <Start> elements only; everything else has an attribute. */
    if (!(c->major == 3 && v->type == RTC_TYPE_STRING) && v->type != RTC_TYPE_CLOCK)
        MD_TRY(rtc__md_start_list(c, tn, v));
    if (c->major == 3 && (v->type == RTC_TYPE_STRING || v->type == RTC_TYPE_BINARY))
        MD_TRY(rtc__md_start_children(c, tn, v));
    return rc;
}

/* ---- small table-driven readers used by both versions ---- */

int rtc__md_sections(md_ctx *c, const xmlNode *root, const char *const *names, const xmlNode **out)
{
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(root); ch; ch = rtc__xml_next(ch)) {
        size_t k = 0;
        while (names[k] && !rtc__xml_is(ch, names[k]))
            k++;
        if (!names[k]) {
            rtc__xml_unknown_child(&c->x, ch);
        } else if (out[k]) {
            rtc__xml_error(&c->x, ch, "%s: <%s> appears twice (first on line %u)",
                           rtc__xml_name(root), names[k], rtc__xml_line(out[k]));
            rc = RTC_EPARSE;
        } else {
            out[k] = ch;
        }
    }
    return rc;
}

int rtc__md_strings(md_ctx *c, const xmlNode *n, const md_str_attr *t, size_t count)
{
    int rc = RTC_OK;
    for (size_t k = 0; k < count; k++)
        MD_TRY(rtc__xml_attr_dup(&c->x, n, t[k].attr, t[k].required, t[k].dst));
    return rc;
}

int rtc__md_flags(md_ctx *c, const xmlNode *n, const md_flag *t, size_t count, void *base)
{
    int rc = RTC_OK;
    for (size_t k = 0; k < count; k++)
        MD_TRY(rtc__xml_attr_bool(&c->x, n, t[k].attr, (bool *)((char *)base + t[k].off), NULL));
    return rc;
}

int rtc__md_type_attrs(md_ctx *c, const xmlNode *tn, rtc_type_def *td)
{
    int rc = RTC_OK;
    MD_TRY(rtc__xml_attr_dup(&c->x, tn, "quantity", false, &td->quantity));
    if (rtc__md_is_float(td->type)) {
        MD_TRY(rtc__xml_attr_dup(&c->x, tn, "unit", false, &td->unit));
        MD_TRY(rtc__xml_attr_dup(&c->x, tn, "displayUnit", false, &td->display_unit));
        MD_TRY(rtc__xml_attr_f64(&c->x, tn, "nominal", &td->nominal, &td->has_nominal));
    }
    if (rtc__md_is_float(td->type) || rtc__md_is_signed(td->type) ||
        rtc__md_is_unsigned(td->type)) {
        MD_TRY(rtc__md_attr_value(c, tn, "min", td->type, &td->min, &td->has_min));
        MD_TRY(rtc__md_attr_value(c, tn, "max", td->type, &td->max, &td->has_max));
        if (rc == RTC_OK)
            MD_TRY(
                rtc__md_check_range(c, tn, td->type, td->has_min, &td->min, td->has_max, &td->max));
    }
    if (td->type == RTC_TYPE_ENUM)
        MD_TRY(rtc__md_enum_items(c, tn, td));
    return rc;
}

int rtc__md_type_unique(md_ctx *c, const xmlNode *n, size_t idx)
{
    const rtc_type_def *t = c->md->type_defs;
    for (size_t j = 0; t[idx].name && j < idx; j++) {
        if (t[j].name && strcmp(t[j].name, t[idx].name) == 0) {
            rtc__xml_attr_error(&c->x, n, "name", "type \"%s\" already defined on line %u",
                                t[idx].name, t[j].line);
            return RTC_EPARSE;
        }
    }
    return RTC_OK;
}

int rtc__md_unknown_list(
    md_ctx *c, const xmlNode *n, const char *child, rtc_unknown **arr, size_t *count)
{
    size_t k = rtc__xml_count(n, child);
    if (k && !(*arr = calloc(k, sizeof **arr)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch)) {
        if (!rtc__xml_is(ch, child)) {
            rtc__xml_unknown_child(&c->x, ch);
            continue;
        }
        MD_TRY(rtc__md_unknown(c, ch, &(*arr)[(*count)++]));
    }
    return rc;
}

/* Count the variable elements of ModelVariables, allocate vars and aux at that size. */
int rtc__md_alloc_vars(md_ctx *c, const xmlNode *n, bool (*is_var)(const xmlNode *))
{
    size_t k = 0;
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        k += is_var(ch);
    if (k > RTC_MAX_VARIABLES) {
        rtc__xml_error(&c->x, n, "ModelVariables: %zu variables, more than the limit of %d", k,
                       RTC_MAX_VARIABLES);
        return RTC_EPARSE;
    }
    if (k == 0)
        return RTC_OK;
    c->md->vars = calloc(k, sizeof *c->md->vars);
    c->aux = calloc(k, sizeof *c->aux);
    return c->md->vars && c->aux ? RTC_OK : RTC_ENOMEM;
}
