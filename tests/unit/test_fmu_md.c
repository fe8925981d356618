/*
 * Tests of the modelDescription.xml reader (rtc_fmu_md_read / rtc_fmu_md_free).
 *
 * Fixtures are folders under tests/data/md/<case>/ (FMIL style). Every folder must be
 * listed in one of the two tables below, so a new fixture cannot be silently skipped:
 * valid cases have a checker that asserts field values; invalid cases name the status and
 * the number of error lines, and their folder holds expected_error.txt with a substring
 * of the error message.
 */
#include "cu_main.h"

#include "rtcosim/fmu.h"
#include "rtcosim/status.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MD_DIR RTC_TEST_DATA_DIR "/md"

/* Logger that keeps every line and counts them per level. */
typedef struct capture {
    char text[16384];
    size_t len;
    unsigned n_error, n_warning;
} capture;

static void capture_log(void *user, int level, const char *msg)
{
    capture *c = user;
    if (level == RTC_LOG_ERROR)
        c->n_error++;
    else if (level == RTC_LOG_WARNING)
        c->n_warning++;
    int n = snprintf(c->text + c->len, sizeof c->text - c->len, "%s: %s\n",
                     rtc_log_level_name(level), msg);
    if (n > 0 && c->len + (size_t)n < sizeof c->text)
        c->len += (size_t)n;
}

/* Read tests/data/md/<name>/modelDescription.xml with a capturing logger. */
static int read_case(const char *name, capture *cap, rtc_model_desc **md)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/modelDescription.xml", MD_DIR, name);
    memset(cap, 0, sizeof *cap);
    rtc_logger lg = {.log = capture_log, .user = cap, .max_level = RTC_LOG_DEBUG};
    *md = NULL;
    return rtc_fmu_md_read(path, &lg, md);
}

/* Open a valid case: RTC_OK, no error line, @p warnings warning lines. */
static rtc_model_desc *open_valid(const char *name, unsigned warnings, capture *cap)
{
    rtc_model_desc *md = NULL;
    int rc = read_case(name, cap, &md);
    if (rc != RTC_OK || cap->n_error != 0 || cap->n_warning != warnings)
        printf("\n%s: rc=%d (%s)\n%s", name, rc, rtc_strerror(rc), cap->text);
    CU_ASSERT_EQUAL(rc, RTC_OK);
    CU_ASSERT_EQUAL(cap->n_error, 0);
    CU_ASSERT_EQUAL(cap->n_warning, warnings);
    CU_ASSERT_PTR_NOT_NULL(md);
    return md;
}

static const rtc_var *var(const rtc_model_desc *md, const char *name)
{
    long i = rtc_model_find_var(md, name);
    CU_ASSERT_FATAL(i >= 0);
    return &md->vars[i];
}

#define STR_EQ(a, b) CU_ASSERT_TRUE((a) != NULL && strcmp((a), (b)) == 0)

/* ---- valid FMI 2.0 ---- */

static void check_fmi2_header(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL(md->fmi_major, 2);
    STR_EQ(md->fmi_version, "2.0");
    STR_EQ(md->model_name, "BouncingBall");
    STR_EQ(md->guid, "{8c4e810f-3df3-4a00-8276-176fa3c9f001}");
    STR_EQ(md->description, "A ball that bounces");
    STR_EQ(md->author, "rtcosim tests");
    STR_EQ(md->version, "1.2");
    STR_EQ(md->copyright, "none");
    STR_EQ(md->license, "BSD-2-Clause");
    STR_EQ(md->generation_tool, "handwritten");
    STR_EQ(md->generation_date_and_time, "2024-01-01T00:00:00Z");
    STR_EQ(md->variable_naming_convention, "structured");
    const rtc_cs_caps *cs = &md->cs;
    CU_ASSERT_TRUE(md->has_cs);
    STR_EQ(cs->model_identifier, "bb_cs");
    CU_ASSERT_FALSE(cs->needs_execution_tool);
    CU_ASSERT_TRUE(cs->can_handle_variable_communication_step_size);
    CU_ASSERT_TRUE(cs->can_interpolate_inputs);
    CU_ASSERT_EQUAL(cs->max_output_derivative_order, 2);
    CU_ASSERT_FALSE(cs->can_run_asynchronuously);
    CU_ASSERT_TRUE(cs->can_be_instantiated_only_once_per_process);
    CU_ASSERT_TRUE(cs->can_not_use_memory_management_functions);
    CU_ASSERT_TRUE(cs->can_get_and_set_fmu_state);
    CU_ASSERT_TRUE(cs->can_serialize_fmu_state);
    CU_ASSERT_TRUE(cs->provides_directional_derivatives);
    CU_ASSERT_FALSE(cs->has_event_mode);
    CU_ASSERT_TRUE(md->has_me);
    STR_EQ(md->me_model_identifier, "bb_me");
    CU_ASSERT_FALSE(md->has_se);
    CU_ASSERT_PTR_NULL(md->se_model_identifier);
}

static void check_fmi2_defs(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL_FATAL(md->n_unit_defs, 3);
    STR_EQ(md->unit_defs[1].name, "m/s");
    CU_ASSERT_TRUE(md->unit_defs[1].has_base_unit);
    CU_ASSERT_EQUAL(md->unit_defs[1].base.m, 1);
    CU_ASSERT_EQUAL(md->unit_defs[1].base.s, -1);
    CU_ASSERT_EQUAL(md->unit_defs[1].base.kg, 0);
    CU_ASSERT_DOUBLE_EQUAL(md->unit_defs[1].base.factor, 1.0, 0);
    CU_ASSERT_EQUAL_FATAL(md->unit_defs[1].n_display_units, 1);
    STR_EQ(md->unit_defs[1].display_units[0].name, "km/h");
    CU_ASSERT_DOUBLE_EQUAL(md->unit_defs[1].display_units[0].factor, 3.6, 0);
    CU_ASSERT_DOUBLE_EQUAL(md->unit_defs[2].display_units[0].offset, -273.15, 0);
    CU_ASSERT_EQUAL_FATAL(md->n_type_defs, 3);
    const rtc_type_def *pos = &md->type_defs[0], *mode = &md->type_defs[1];
    STR_EQ(pos->name, "Position");
    CU_ASSERT_EQUAL(pos->type, RTC_TYPE_FLOAT64);
    STR_EQ(pos->unit, "m");
    CU_ASSERT_TRUE(pos->has_min && pos->has_max && pos->has_nominal);
    CU_ASSERT_EQUAL(mode->type, RTC_TYPE_ENUM);
    CU_ASSERT_EQUAL_FATAL(mode->n_items, 3);
    STR_EQ(mode->items[0].name, "off");
    STR_EQ(mode->items[0].description, "Off");
    CU_ASSERT_PTR_NULL(mode->items[1].description);
    CU_ASSERT_EQUAL(mode->items[2].value, 3);
    CU_ASSERT_EQUAL_FATAL(md->n_log_categories, 2);
    STR_EQ(md->log_categories[0].name, "logEvents");
    STR_EQ(md->log_categories[0].description, "Events");
    const rtc_default_experiment *e = &md->experiment;
    CU_ASSERT_TRUE(e->has_start && e->has_stop && e->has_tolerance && e->has_step);
    CU_ASSERT_DOUBLE_EQUAL(e->stop, 3.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(e->tolerance, 1e-6, 0);
    CU_ASSERT_DOUBLE_EQUAL(e->step, 0.001, 0);
    STR_EQ(e->start_text, "0.0");
    STR_EQ(e->stop_text, "3");
    STR_EQ(e->step_text, "0.001");
}

static void check_fmi2_vars(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL_FATAL(md->n_vars, 14);
    const rtc_var *t = var(md, "time"), *h = var(md, "h"), *dh = var(md, "der(h)");
    CU_ASSERT_EQUAL(t->causality, RTC_CAUSALITY_INDEPENDENT);
    CU_ASSERT_EQUAL(t->initial, RTC_INITIAL_NONE);
    CU_ASSERT_EQUAL(t->n_start, 0);
    /* h inherits quantity, unit, min, max, nominal from Position. */
    CU_ASSERT_EQUAL(h->vr, 1);
    STR_EQ(h->description, "height");
    STR_EQ(h->declared_type, "Position");
    STR_EQ(h->quantity, "Length");
    STR_EQ(h->unit, "m");
    CU_ASSERT_TRUE(h->has_min && h->has_max && h->has_nominal);
    CU_ASSERT_DOUBLE_EQUAL(h->min.f64, -10.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(h->max.f64, 100.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(h->nominal, 2.0, 0);
    CU_ASSERT_EQUAL_FATAL(h->n_start, 1);
    CU_ASSERT_DOUBLE_EQUAL(h->start[0].f64, 1.0, 0);
    CU_ASSERT_EQUAL(h->initial, RTC_INITIAL_EXACT);
    CU_ASSERT_EQUAL(h->line, 42);
    CU_ASSERT_EQUAL(dh->derivative_of, rtc_model_find_var(md, "h"));
    CU_ASSERT_EQUAL(var(md, "der(v)")->derivative_of, rtc_model_find_var(md, "v"));
    CU_ASSERT_EQUAL(h->derivative_of, -1);
    /* Defaults: variability continuous (Real), initial calculated for a local. */
    const rtc_var *dv = var(md, "der(v)"), *v = var(md, "v");
    CU_ASSERT_EQUAL(dv->causality, RTC_CAUSALITY_LOCAL);
    CU_ASSERT_EQUAL(dv->variability, RTC_VARIABILITY_CONTINUOUS);
    CU_ASSERT_EQUAL(dv->initial, RTC_INITIAL_CALCULATED);
    STR_EQ(v->display_unit, "km/h");
    CU_ASSERT_PTR_NULL(v->declared_type);
    const rtc_var *g = var(md, "g"), *e = var(md, "e");
    CU_ASSERT_EQUAL(g->initial, RTC_INITIAL_EXACT);
    CU_ASSERT_DOUBLE_EQUAL(g->start[0].f64, -9.81, 0);
    CU_ASSERT_EQUAL(e->variability, RTC_VARIABILITY_TUNABLE);
    CU_ASSERT_DOUBLE_EQUAL(e->min.f64, 0.5, 0);
    CU_ASSERT_FALSE(e->can_handle_multiple_set_per_time_instant);
    CU_ASSERT_EQUAL(var(md, "h_alias")->vr, 1);
    const rtc_var *cnt = var(md, "count"), *on = var(md, "on"), *lbl = var(md, "label");
    CU_ASSERT_EQUAL(cnt->type, RTC_TYPE_INT32);
    CU_ASSERT_EQUAL(cnt->min.i64, 0);
    CU_ASSERT_EQUAL(cnt->max.i64, 10);
    CU_ASSERT_EQUAL(cnt->start[0].i64, 3);
    CU_ASSERT_EQUAL(on->type, RTC_TYPE_BOOL);
    CU_ASSERT_EQUAL(on->variability, RTC_VARIABILITY_DISCRETE);
    CU_ASSERT_TRUE(on->start[0].b);
    CU_ASSERT_EQUAL(lbl->type, RTC_TYPE_STRING);
    STR_EQ(lbl->start[0].str, "hello & bye");
    const rtc_var *mode = var(md, "mode"), *temp = var(md, "temp"), *k = var(md, "k");
    CU_ASSERT_EQUAL(mode->type, RTC_TYPE_ENUM);
    CU_ASSERT_EQUAL(mode->start[0].i64, 2);
    CU_ASSERT_EQUAL(temp->causality, RTC_CAUSALITY_CALCULATED_PARAMETER);
    CU_ASSERT_EQUAL(temp->initial, RTC_INITIAL_APPROX);
    STR_EQ(temp->display_unit, "degC");
    CU_ASSERT_EQUAL(k->variability, RTC_VARIABILITY_CONSTANT);
    CU_ASSERT_EQUAL(k->initial, RTC_INITIAL_EXACT);
    CU_ASSERT_EQUAL(k->start[0].i64, -5);
}

static void check_fmi2_structure(const rtc_model_desc *md)
{
    const rtc_model_structure *s = &md->structure;
    CU_ASSERT_EQUAL_FATAL(s->n_outputs, 3);
    CU_ASSERT_EQUAL(s->outputs[0].var, 1);
    CU_ASSERT_FALSE(s->outputs[0].deps_given);
    CU_ASSERT_EQUAL(s->outputs[1].var, 3);
    CU_ASSERT_TRUE(s->outputs[1].deps_given);
    CU_ASSERT_EQUAL(s->outputs[1].n_deps, 0);
    CU_ASSERT_EQUAL(s->outputs[2].var, 7);
    CU_ASSERT_EQUAL_FATAL(s->outputs[2].n_deps, 2);
    CU_ASSERT_EQUAL(s->outputs[2].deps[0], 1);
    CU_ASSERT_EQUAL(s->outputs[2].deps[1], 8);
    CU_ASSERT_EQUAL_FATAL(s->n_derivatives, 2);
    CU_ASSERT_EQUAL(s->derivatives[1].var, 4);
    CU_ASSERT_EQUAL(s->derivatives[1].n_deps, 2);
    CU_ASSERT_EQUAL_FATAL(s->n_initial_unknowns, 2);
    CU_ASSERT_EQUAL(s->initial_unknowns[1].var, 12);
    CU_ASSERT_EQUAL(s->initial_unknowns[1].deps[0], 5);
    CU_ASSERT_EQUAL(s->n_event_indicators, 0);
}

static void test_md_fmi2_full_fields(void)
{
    capture cap;
    rtc_model_desc *md = open_valid("valid_fmi2_full", 0, &cap);
    if (!md)
        return;
    check_fmi2_header(md);
    check_fmi2_defs(md);
    check_fmi2_vars(md);
    check_fmi2_structure(md);
    rtc_fmu_md_free(md);
}

/* ---- valid FMI 3.0 ---- */

static void check_fmi3_header(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL(md->fmi_major, 3);
    STR_EQ(md->guid, "{7b5e3a1c-0001}");
    STR_EQ(md->variable_naming_convention, "flat");
    const rtc_cs_caps *cs = &md->cs;
    CU_ASSERT_TRUE(md->has_cs);
    STR_EQ(cs->model_identifier, "everything");
    CU_ASSERT_FALSE(cs->needs_execution_tool);
    CU_ASSERT_TRUE(cs->can_be_instantiated_only_once_per_process);
    CU_ASSERT_TRUE(cs->can_get_and_set_fmu_state && cs->can_serialize_fmu_state);
    CU_ASSERT_TRUE(cs->provides_directional_derivatives && cs->provides_adjoint_derivatives);
    CU_ASSERT_TRUE(cs->provides_per_element_dependencies);
    CU_ASSERT_TRUE(cs->can_handle_variable_communication_step_size);
    CU_ASSERT_TRUE(cs->has_fixed_internal_step_size);
    CU_ASSERT_DOUBLE_EQUAL(cs->fixed_internal_step_size, 0.0005, 0);
    CU_ASSERT_EQUAL(cs->max_output_derivative_order, 1);
    CU_ASSERT_EQUAL(cs->recommended_intermediate_input_smoothness, 2);
    CU_ASSERT_TRUE(cs->provides_intermediate_update && cs->might_return_early_from_do_step);
    CU_ASSERT_TRUE(cs->can_return_early_after_intermediate_update && cs->has_event_mode);
    CU_ASSERT_TRUE(cs->provides_evaluate_discrete_states);
    CU_ASSERT_FALSE(cs->can_interpolate_inputs); /* FMI 2 only */
    CU_ASSERT_FALSE(md->has_me);
    CU_ASSERT_TRUE(md->has_se);
    STR_EQ(md->se_model_identifier, "everything_se");
    CU_ASSERT_EQUAL_FATAL(md->n_unit_defs, 2);
    const rtc_unit_def *u = &md->unit_defs[0];
    CU_ASSERT_EQUAL(u->base.rad, 1);
    CU_ASSERT_EQUAL(u->base.s, -1);
    CU_ASSERT_EQUAL_FATAL(u->n_display_units, 2);
    CU_ASSERT_DOUBLE_EQUAL(u->display_units[0].factor, 9.549296585513721, 0);
    CU_ASSERT_FALSE(u->display_units[0].inverse);
    CU_ASSERT_TRUE(u->display_units[1].inverse);
    CU_ASSERT_EQUAL(md->unit_defs[1].base.kg, 1);
    CU_ASSERT_EQUAL(md->unit_defs[1].base.s, -2);
    CU_ASSERT_EQUAL_FATAL(md->n_type_defs, 5);
    CU_ASSERT_EQUAL(md->type_defs[2].type, RTC_TYPE_ENUM);
    CU_ASSERT_EQUAL_FATAL(md->type_defs[2].n_items, 3);
    CU_ASSERT_EQUAL(md->type_defs[2].items[0].value, -1);
    CU_ASSERT_EQUAL(md->type_defs[3].type, RTC_TYPE_BINARY);
    CU_ASSERT_EQUAL(md->type_defs[4].type, RTC_TYPE_CLOCK);
    CU_ASSERT_FALSE(md->experiment.has_tolerance);
    STR_EQ(md->experiment.step_text, "1e-3");
}

/* Every scalar type with the extreme values of its range. */
static void check_fmi3_scalars(const rtc_model_desc *md)
{
    CU_ASSERT_EQUAL_FATAL(md->n_vars, 23);
    const rtc_var *f32 = var(md, "f32"), *w = var(md, "w");
    CU_ASSERT_EQUAL(f32->type, RTC_TYPE_FLOAT32);
    CU_ASSERT_EQUAL(f32->variability, RTC_VARIABILITY_CONTINUOUS);
    CU_ASSERT_EQUAL(f32->initial, RTC_INITIAL_EXACT); /* FMI 3.0 Table 22: inputs are exact */
    CU_ASSERT_DOUBLE_EQUAL(f32->start[0].f32, 1.5f, 0);
    STR_EQ(w->unit, "rad/s");
    STR_EQ(w->display_unit, "rpm");
    STR_EQ(w->quantity, "AngularVelocity");
    CU_ASSERT_DOUBLE_EQUAL(w->max.f64, 1000.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(w->nominal, 100.0, 0);
    CU_ASSERT_EQUAL(var(md, "der(w)")->derivative_of, rtc_model_find_var(md, "w"));
    CU_ASSERT_EQUAL(var(md, "i8")->start[0].i64, -128);
    CU_ASSERT_EQUAL(var(md, "i8")->variability, RTC_VARIABILITY_FIXED);
    CU_ASSERT_EQUAL(var(md, "u8")->start[0].u64, 255);
    CU_ASSERT_EQUAL(var(md, "i16")->start[0].i64, -32768);
    CU_ASSERT_EQUAL(var(md, "i16")->variability, RTC_VARIABILITY_DISCRETE);
    CU_ASSERT_EQUAL(var(md, "u16")->start[0].u64, 65535);
    CU_ASSERT_EQUAL(var(md, "i32")->min.i64, -5); /* from Int32Type Small */
    CU_ASSERT_EQUAL(var(md, "u32")->start[0].u64, 4294967295u);
    CU_ASSERT_EQUAL(var(md, "i64")->start[0].i64, INT64_MIN);
    CU_ASSERT_EQUAL(var(md, "u64")->start[0].u64, UINT64_MAX);
    CU_ASSERT_TRUE(var(md, "b")->start[0].b);
    STR_EQ(var(md, "s")->start[0].str, "hello");
    const rtc_var *bin = var(md, "bin");
    CU_ASSERT_EQUAL(bin->type, RTC_TYPE_BINARY);
    CU_ASSERT_EQUAL_FATAL(bin->start[0].bin.size, 3);
    CU_ASSERT_EQUAL(bin->start[0].bin.data[0], 0x0a);
    CU_ASSERT_EQUAL(bin->start[0].bin.data[1], 0x1b);
    CU_ASSERT_EQUAL(bin->start[0].bin.data[2], 0xff);
    CU_ASSERT_EQUAL(var(md, "gear")->start[0].i64, -1);
    const rtc_var *tick = var(md, "tick");
    CU_ASSERT_EQUAL(tick->type, RTC_TYPE_CLOCK);
    CU_ASSERT_EQUAL(tick->variability, RTC_VARIABILITY_DISCRETE);
    CU_ASSERT_EQUAL(tick->n_start, 0);
}

static void check_fmi3_arrays(const rtc_model_desc *md)
{
    const rtc_var *a = var(md, "A"), *x = var(md, "x"), *dx = var(md, "der(x)");
    CU_ASSERT_EQUAL_FATAL(a->n_dims, 2);
    CU_ASSERT_FALSE(a->dims[0].has_vr);
    CU_ASSERT_EQUAL(a->dims[0].start, 2);
    CU_ASSERT_TRUE(a->dims[1].has_vr);
    CU_ASSERT_EQUAL(a->dims[1].vr, 11);
    CU_ASSERT_EQUAL(a->dims[1].start, 3); /* start of structural parameter n */
    CU_ASSERT_EQUAL(rtc_var_count(a), 6);
    CU_ASSERT_EQUAL_FATAL(a->n_start, 6);
    for (size_t k = 0; k < 6; k++)
        CU_ASSERT_DOUBLE_EQUAL(a->start[k].f64, (double)(k + 1), 0);
    CU_ASSERT_EQUAL(rtc_var_count(x), 3);
    CU_ASSERT_TRUE(x->intermediate_update);
    CU_ASSERT_EQUAL(x->n_start, 0);
    CU_ASSERT_EQUAL(dx->derivative_of, rtc_model_find_var(md, "x"));
    const rtc_var *names = var(md, "names"), *flags = var(md, "flags");
    CU_ASSERT_EQUAL_FATAL(names->n_start, 2);
    STR_EQ(names->start[0].str, "a");
    STR_EQ(names->start[1].str, "b <c>");
    CU_ASSERT_EQUAL_FATAL(flags->n_start, 3);
    CU_ASSERT_TRUE(flags->start[0].b);
    CU_ASSERT_FALSE(flags->start[1].b);
    CU_ASSERT_TRUE(flags->start[2].b);
    CU_ASSERT_EQUAL(var(md, "n")->causality, RTC_CAUSALITY_STRUCTURAL_PARAMETER);
}

static void check_fmi3_structure(const rtc_model_desc *md)
{
    const rtc_model_structure *s = &md->structure;
    long w = rtc_model_find_var(md, "w"), f32 = rtc_model_find_var(md, "f32");
    CU_ASSERT_EQUAL_FATAL(s->n_outputs, 3);
    CU_ASSERT_EQUAL(s->outputs[0].var, (size_t)w);
    CU_ASSERT_EQUAL_FATAL(s->outputs[0].n_deps, 1);
    CU_ASSERT_EQUAL(s->outputs[0].deps[0], (size_t)f32);
    CU_ASSERT_FALSE(s->outputs[1].deps_given);
    CU_ASSERT_TRUE(s->outputs[2].deps_given);
    CU_ASSERT_EQUAL(s->outputs[2].n_deps, 0);
    CU_ASSERT_EQUAL_FATAL(s->n_derivatives, 2);
    CU_ASSERT_EQUAL(s->derivatives[0].var, (size_t)rtc_model_find_var(md, "der(w)"));
    CU_ASSERT_EQUAL_FATAL(s->derivatives[0].n_deps, 2);
    CU_ASSERT_EQUAL(s->derivatives[0].deps[0], (size_t)w);
    CU_ASSERT_EQUAL(s->derivatives[1].var, (size_t)rtc_model_find_var(md, "der(x)"));
    CU_ASSERT_EQUAL(s->n_initial_unknowns, 1);
    CU_ASSERT_EQUAL_FATAL(s->n_event_indicators, 1);
    CU_ASSERT_EQUAL(s->event_indicators[0].var, (size_t)rtc_model_find_var(md, "x"));
}

static void test_md_fmi3_full_fields(void)
{
    capture cap;
    rtc_model_desc *md = open_valid("valid_fmi3_full", 0, &cap);
    if (!md)
        return;
    check_fmi3_header(md);
    check_fmi3_scalars(md);
    check_fmi3_arrays(md);
    check_fmi3_structure(md);
    rtc_fmu_md_free(md);
}

/* ---- minimal and warning cases ---- */

static void test_md_minimal_fmi2_defaults(void)
{
    capture cap;
    rtc_model_desc *md = open_valid("minimal_fmi2", 0, &cap);
    if (!md)
        return;
    CU_ASSERT_EQUAL(md->fmi_major, 2);
    STR_EQ(md->fmi_version, "2.0.4");
    CU_ASSERT_FALSE(md->has_cs || md->has_me || md->has_se);
    CU_ASSERT_PTR_NULL(md->description);
    CU_ASSERT_EQUAL_FATAL(md->n_vars, 1);
    const rtc_var *x = &md->vars[0];
    CU_ASSERT_EQUAL(x->causality, RTC_CAUSALITY_LOCAL);
    CU_ASSERT_EQUAL(x->variability, RTC_VARIABILITY_CONTINUOUS);
    CU_ASSERT_EQUAL(x->initial, RTC_INITIAL_CALCULATED);
    CU_ASSERT_EQUAL(x->derivative_of, -1);
    CU_ASSERT_FALSE(x->has_min || x->has_max || x->has_nominal);
    CU_ASSERT_EQUAL(md->structure.n_outputs, 0);
    CU_ASSERT_FALSE(md->experiment.has_start);
    CU_ASSERT_PTR_NULL(md->experiment.start_text);
    rtc_fmu_md_free(md);
}

static void test_md_minimal_fmi3_defaults(void)
{
    capture cap;
    rtc_model_desc *md = open_valid("minimal_fmi3", 0, &cap);
    if (!md)
        return;
    CU_ASSERT_EQUAL(md->fmi_major, 3);
    STR_EQ(md->guid, "t3");
    CU_ASSERT_EQUAL_FATAL(md->n_vars, 1);
    CU_ASSERT_EQUAL(md->vars[0].type, RTC_TYPE_INT32);
    CU_ASSERT_EQUAL(md->vars[0].vr, 5);
    /* FMI 3: variability defaults to discrete for non-Float types. */
    CU_ASSERT_EQUAL(md->vars[0].variability, RTC_VARIABILITY_DISCRETE);
    CU_ASSERT_EQUAL(md->vars[0].initial, RTC_INITIAL_CALCULATED);
    rtc_fmu_md_free(md);
}

static void test_md_unknown_content_warns(void)
{
    capture cap;
    rtc_model_desc *md = open_valid("warn_unknown_fmi2", 5, &cap);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, ":2: fmiModelDescription: unknown attribute "
                                            "\"bogusRootAttr\" ignored"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, ":4: ScalarVariable: unknown attribute \"foo\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, ":5: Real start: 20 is above max 10"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, ":8: unknown element <Bogus> in <ModelVariables>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, ":11: unknown element <Extra>"));
    /* Vendor annotations are skipped without a word. */
    CU_ASSERT_PTR_NULL(strstr(cap.text, "Annotations"));
    if (md)
        CU_ASSERT_DOUBLE_EQUAL(md->vars[0].start[0].f64, 20.0, 0);
    rtc_fmu_md_free(md);
}

/* ---- invalid cases ---- */

typedef struct invalid_case {
    const char *name;
    int status;
    unsigned n_errors;
} invalid_case;

static const invalid_case invalid_cases[] = {
    {"invalid_malformed_xml", RTC_EPARSE, 1},
    {"invalid_version_1_0", RTC_EUNSUPPORTED, 1},
    {"invalid_missing_vr", RTC_EPARSE, 1},
    {"invalid_bad_vr", RTC_EPARSE, 1},
    {"invalid_duplicate_name", RTC_EPARSE, 1},
    {"invalid_unknown_declared_type", RTC_EPARSE, 1},
    {"invalid_bad_causality", RTC_EPARSE, 1},
    {"invalid_causality_variability", RTC_EPARSE, 1},
    {"invalid_initial_combination", RTC_EPARSE, 1},
    {"invalid_structure_index", RTC_EPARSE, 1},
    {"invalid_derivative_target", RTC_EPARSE, 1},
    {"invalid_entity_doctype", RTC_EPARSE, 1},
    {"invalid_start_type", RTC_EPARSE, 1},
    {"invalid_min_gt_max", RTC_EPARSE, 1},
    {"invalid_cs_no_identifier", RTC_EPARSE, 1},
    {"invalid_two_errors", RTC_EPARSE, 2},
    {"invalid_fmi3_duplicate_vr", RTC_EPARSE, 1},
    {"invalid_fmi3_dimension_ref", RTC_EPARSE, 1},
    {"invalid_fmi3_start_count", RTC_EPARSE, 1},
    {"invalid_fmi3_continuous_int", RTC_EPARSE, 1},
    {"invalid_fmi3_binary_hex", RTC_EPARSE, 1},
    {NULL, 0, 0},
};

/* Valid folders and the tests that check them. */
static const char *const valid_cases[] = {"valid_fmi2_full", "valid_fmi3_full",   "minimal_fmi2",
                                          "minimal_fmi3",    "warn_unknown_fmi2", NULL};

static char *expected_substring(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/expected_error.txt", MD_DIR, name);
    char *s = rtc_test_slurp(path, NULL);
    if (s)
        s[strcspn(s, "\r\n")] = '\0';
    return s;
}

static void run_invalid(const invalid_case *ic)
{
    capture cap;
    rtc_model_desc *md = (rtc_model_desc *)&cap; /* must stay untouched on failure */
    rtc_model_desc *before = md;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/modelDescription.xml", MD_DIR, ic->name);
    memset(&cap, 0, sizeof cap);
    rtc_logger lg = {.log = capture_log, .user = &cap, .max_level = RTC_LOG_DEBUG};
    int rc = rtc_fmu_md_read(path, &lg, &md);
    char *want = expected_substring(ic->name);
    bool ok = rc == ic->status && cap.n_error == ic->n_errors && want && strstr(cap.text, want) &&
              strstr(cap.text, "modelDescription.xml:");
    if (!ok)
        printf("\n%s: rc=%d want %d, %u errors want %u, expected \"%s\" in:\n%s", ic->name, rc,
               ic->status, cap.n_error, ic->n_errors, want ? want : "(no expected_error.txt)",
               cap.text);
    CU_ASSERT_EQUAL(rc, ic->status);
    CU_ASSERT_EQUAL(cap.n_error, ic->n_errors);
    CU_ASSERT_PTR_NOT_NULL(want);
    CU_ASSERT_PTR_NOT_NULL(want ? strstr(cap.text, want) : NULL);
    CU_ASSERT_PTR_EQUAL(md, before);
    free(want);
}

static void test_md_invalid_cases_rejected_with_message(void)
{
    for (const invalid_case *ic = invalid_cases; ic->name; ic++)
        run_invalid(ic);
}

/* Every fixture folder is covered by one of the tables. */
static void test_md_every_fixture_folder_is_listed(void)
{
    DIR *d = opendir(MD_DIR);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    unsigned seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        bool listed = false;
        for (const invalid_case *ic = invalid_cases; ic->name && !listed; ic++)
            listed = strcmp(ic->name, e->d_name) == 0;
        for (const char *const *v = valid_cases; *v && !listed; v++)
            listed = strcmp(*v, e->d_name) == 0;
        if (!listed)
            printf("\nfixture folder %s is not listed in test_fmu_md.c\n", e->d_name);
        CU_ASSERT_TRUE(listed);
        seen++;
    }
    closedir(d);
    CU_ASSERT_EQUAL(seen, sizeof invalid_cases / sizeof invalid_cases[0] - 1 +
                              sizeof valid_cases / sizeof valid_cases[0] - 1);
}

static void test_md_missing_file_is_enoent(void)
{
    capture cap = {0};
    rtc_logger lg = {.log = capture_log, .user = &cap, .max_level = RTC_LOG_DEBUG};
    rtc_model_desc *md = NULL;
    int rc = rtc_fmu_md_read(MD_DIR "/no_such_case/modelDescription.xml", &lg, &md);
    CU_ASSERT_EQUAL(rc, -ENOENT);
    CU_ASSERT_PTR_NULL(md);
    CU_ASSERT_EQUAL(cap.n_error, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(cap.text, "no_such_case/modelDescription.xml: cannot open: "
                                            "No such file or directory"));
    rtc_fmu_md_free(NULL); /* no-op */
}

/* Reading the same file twice gives equal results (no hidden global state). */
static void test_md_read_twice_same_result(void)
{
    capture c1, c2;
    rtc_model_desc *a = open_valid("valid_fmi3_full", 0, &c1);
    rtc_model_desc *b = open_valid("valid_fmi3_full", 0, &c2);
    if (a && b) {
        CU_ASSERT_EQUAL(a->n_vars, b->n_vars);
        for (size_t i = 0; i < a->n_vars && i < b->n_vars; i++)
            CU_ASSERT_STRING_EQUAL(a->vars[i].name, b->vars[i].name);
    }
    rtc_fmu_md_free(a);
    rtc_fmu_md_free(b);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"md_fmi2_full_fields", test_md_fmi2_full_fields},
        {"md_fmi3_full_fields", test_md_fmi3_full_fields},
        {"md_minimal_fmi2_defaults", test_md_minimal_fmi2_defaults},
        {"md_minimal_fmi3_defaults", test_md_minimal_fmi3_defaults},
        {"md_unknown_content_warns", test_md_unknown_content_warns},
        {"md_invalid_cases_rejected_with_message", test_md_invalid_cases_rejected_with_message},
        {"md_every_fixture_folder_is_listed", test_md_every_fixture_folder_is_listed},
        {"md_missing_file_is_enoent", test_md_missing_file_is_enoent},
        {"md_read_twice_same_result", test_md_read_twice_same_result},
        {NULL, NULL},
    };
    rtc_test_add_suite("fmu_md", NULL, NULL, cases);
}
