/* Unit tests of the SSP loader (rtcosim/ssp.h): fixtures under tests/data/ssp/<case>/,
 * packages and unpacked directories are in test_ssp_package.c. */
#include "test_ssp_util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const rtc_ssp_connector *conn(const rtc_ssp_component *c, const char *name)
{
    long i = rtc_ssp_find_connector(c, name);
    CU_ASSERT_FATAL(i >= 0);
    return &c->connectors[i];
}

/* The connection whose end is @p elem.@p name (NULL elem: top-level system connector). */
static const rtc_ssp_connection *conn_to(const rtc_ssp *s, const char *elem, const char *name)
{
    for (size_t i = 0; i < s->n_connections; i++) {
        const rtc_ssp_endpoint *e = &s->connections[i].end;
        if (strcmp(e->name, name) == 0 &&
            (elem ? e->element && strcmp(e->element, elem) == 0 : !e->element))
            return &s->connections[i];
    }
    CU_FAIL_FATAL("connection not found");
    return NULL;
}

static char *abs_data(const char *rel)
{
    static char buf[PATH_MAX];
    char *r = realpath(RTC_TEST_DATA_DIR, NULL);
    snprintf(buf, sizeof buf, "%s/ssp/%s", r ? r : RTC_TEST_DATA_DIR, rel);
    free(r);
    return buf;
}

/* ---- valid descriptions ---- */

static void load_minimal_10_fields_resolved(void)
{
    rtc_ssp *s = open_ok(DATA "min10/SystemStructure.ssd", 0);
    CU_ASSERT_STRING_EQUAL(s->version, "1.0");
    CU_ASSERT_STRING_EQUAL(s->name, "minimal");
    CU_ASSERT_STRING_EQUAL(s->system_name, "root");
    CU_ASSERT_PTR_NULL(s->extract_dir);
    CU_ASSERT_TRUE(s->has_start && s->has_stop);
    CU_ASSERT_EQUAL(s->start_ns, 500000000);
    CU_ASSERT_EQUAL(s->stop_ns, 2000000001); /* exact: no double on the way */
    CU_ASSERT_EQUAL(s->n_components, 2);
    const rtc_ssp_component *c = comp(s, "ctrl");
    CU_ASSERT_STRING_EQUAL(c->type, "application/x-fmu-sharedlibrary");
    CU_ASSERT_STRING_EQUAL(c->source_uri, "fmus/ctrl.fmu");
    CU_ASSERT_STRING_EQUAL(c->source, abs_data("min10/fmus/ctrl.fmu"));
    CU_ASSERT_EQUAL(c->implementation, RTC_SSP_IMPL_ANY);
    CU_ASSERT_EQUAL(c->depth, 1);
    CU_ASSERT_EQUAL(c->line, 7);
    CU_ASSERT_FALSE(c->has_step);
    CU_ASSERT_EQUAL(c->n_connectors, 7);
    CU_ASSERT_EQUAL(conn(c, "y")->kind, RTC_SSP_KIND_OUTPUT);
    CU_ASSERT_EQUAL(conn(c, "y")->type, RTC_TYPE_FLOAT64);
    CU_ASSERT_STRING_EQUAL(conn(c, "y")->unit, "N");
    CU_ASSERT_EQUAL(conn(c, "y")->line, 9);
    CU_ASSERT_PTR_NULL(conn(c, "u")->unit);
    CU_ASSERT_EQUAL(conn(c, "mode")->kind, RTC_SSP_KIND_PARAMETER);
    CU_ASSERT_EQUAL(conn(c, "mode")->type, RTC_TYPE_INT32);
    CU_ASSERT_EQUAL(conn(c, "on")->type, RTC_TYPE_BOOL);
    CU_ASSERT_EQUAL(conn(c, "tag")->kind, RTC_SSP_KIND_CALCULATED_PARAMETER);
    CU_ASSERT_EQUAL(conn(c, "tag")->type, RTC_TYPE_STRING);
    CU_ASSERT_EQUAL(conn(c, "blob")->type, RTC_TYPE_BINARY);
    CU_ASSERT_STRING_EQUAL(conn(c, "blob")->mime_type, "application/octet-stream");
    CU_ASSERT_EQUAL(conn(c, "any")->kind, RTC_SSP_KIND_INOUT);
    CU_ASSERT_FALSE(conn(c, "any")->has_type);
    const rtc_ssp_component *p = comp(s, "plant");
    CU_ASSERT_STRING_EQUAL(p->source, abs_data("min10/plant.fmu")); /* "../min10/" folded */
    CU_ASSERT_EQUAL(p->implementation, RTC_SSP_IMPL_CO_SIMULATION);
    CU_ASSERT_EQUAL(s->n_connections, 2);
    const rtc_ssp_connection *k = conn_to(s, "plant", "u");
    CU_ASSERT_STRING_EQUAL(k->start.element, "ctrl");
    CU_ASSERT_STRING_EQUAL(k->start.name, "y");
    CU_ASSERT_EQUAL(k->start.component, comp(s, "ctrl") - s->components);
    CU_ASSERT_EQUAL(k->start.connector, rtc_ssp_find_connector(c, "y"));
    CU_ASSERT_EQUAL(k->end.component, p - s->components);
    CU_ASSERT_EQUAL(k->transform.kind, RTC_SSP_TRANSFORM_NONE);
    CU_ASSERT_FALSE(k->suppress_unit_conversion);
    CU_ASSERT_PTR_NULL(k->via);
    CU_ASSERT_EQUAL(k->line, 26);
    CU_ASSERT_PTR_NOT_NULL(strstr(k->file, "min10/SystemStructure.ssd"));
    CU_ASSERT_EQUAL(s->n_units, 1);
    CU_ASSERT_EQUAL(rtc_ssp_find_unit(s, "N")->base.kg, 1);
    CU_ASSERT_EQUAL(rtc_ssp_find_unit(s, "N")->base.s, -2);
    CU_ASSERT_FALSE(s->realtime.present);
    CU_ASSERT_FALSE(s->realtime.has_base_step);
    CU_ASSERT_EQUAL(s->realtime.step_source, RTC_SSP_STEP_NONE);
    rtc_ssp_free(s);
}

static void load_minimal_20_new_types_and_sourceless(void)
{
    rtc_ssp *s = open_ok(DATA "min20/SystemStructure.ssd", 0);
    CU_ASSERT_STRING_EQUAL(s->version, "2.0");
    CU_ASSERT_FALSE(s->has_start);
    CU_ASSERT_EQUAL(s->stop_ns, 10 * 1000000000LL);
    const rtc_ssp_component *a = comp(s, "a");
    CU_ASSERT_STRING_EQUAL(a->source, "/opt/models/a b.fmu"); /* file: URI, %20 decoded */
    CU_ASSERT_EQUAL(a->implementation, RTC_SSP_IMPL_SCHEDULED_EXECUTION);
    CU_ASSERT_EQUAL(conn(a, "f32")->type, RTC_TYPE_FLOAT32);
    CU_ASSERT_STRING_EQUAL(conn(a, "f32")->unit, "m");
    CU_ASSERT_EQUAL(conn(a, "i8")->type, RTC_TYPE_INT8);
    CU_ASSERT_EQUAL(conn(a, "u64")->type, RTC_TYPE_UINT64);
    CU_ASSERT_EQUAL(conn(a, "u64")->kind, RTC_SSP_KIND_STRUCTURAL_PARAMETER);
    CU_ASSERT_EQUAL(conn(a, "clk")->type, RTC_TYPE_CLOCK);
    CU_ASSERT_EQUAL(conn(a, "loc")->kind, RTC_SSP_KIND_LOCAL);
    const rtc_ssp_component *io = comp(s, "io");
    CU_ASSERT_STRING_EQUAL(io->type, "application/x-rtcosim-modbus");
    CU_ASSERT_PTR_NULL(io->source);
    CU_ASSERT_PTR_NULL(io->source_uri);
    CU_ASSERT_EQUAL(conn(io, "i8")->kind, RTC_SSP_KIND_UNSPECIFIED);
    CU_ASSERT_EQUAL(s->n_connections, 2);
    rtc_ssp_free(s);
}

static void load_nested_flattened_and_chained(void)
{
    /* No warning: root's Y and U are the system's own ports (recorded, settable). */
    rtc_ssp *s = open_ok(DATA "nested/SystemStructure.ssd", 0);
    CU_ASSERT_EQUAL(s->n_components, 4);
    CU_ASSERT_STRING_EQUAL(s->components[0].name, "src");
    CU_ASSERT_STRING_EQUAL(s->components[1].name, "sub.plant");
    CU_ASSERT_STRING_EQUAL(s->components[2].name, "sub.inner.gain");
    CU_ASSERT_STRING_EQUAL(s->components[3].name, "sink");
    CU_ASSERT_EQUAL(s->components[2].depth, 3);
    CU_ASSERT_EQUAL(s->n_connectors, 3); /* root's own connectors */
    CU_ASSERT_EQUAL(s->n_connections, 6);

    const rtc_ssp_connection *c = conn_to(s, "sub.plant", "u"); /* written end-to-start */
    CU_ASSERT_STRING_EQUAL(c->start.element, "src");
    CU_ASSERT_STRING_EQUAL(c->start.name, "y");
    CU_ASSERT_STRING_EQUAL(c->via, "sub.u");
    CU_ASSERT_EQUAL(c->line, 52);

    c = conn_to(s, "sink", "u"); /* factor 3, offset 1 inside; factor 2 outside */
    CU_ASSERT_STRING_EQUAL(c->start.element, "sub.plant");
    CU_ASSERT_STRING_EQUAL(c->start.name, "y");
    CU_ASSERT_EQUAL(c->transform.kind, RTC_SSP_TRANSFORM_LINEAR);
    CU_ASSERT_DOUBLE_EQUAL(c->transform.factor, 6.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(c->transform.offset, 2.0, 0.0);
    CU_ASSERT_TRUE(c->suppress_unit_conversion);
    CU_ASSERT_STRING_EQUAL(c->via, "sub.y");
    CU_ASSERT_EQUAL(c->line, 70);

    c = conn_to(s, NULL, "Y"); /* kept, element NULL */
    CU_ASSERT_EQUAL(c->end.component, -1);
    CU_ASSERT_STRING_EQUAL(s->connectors[c->end.connector].name, "Y");
    CU_ASSERT_STRING_EQUAL(c->start.element, "sub.plant");
    CU_ASSERT_DOUBLE_EQUAL(c->transform.factor, 3.0, 0.0);
    CU_ASSERT_FALSE(c->suppress_unit_conversion);

    c = conn_to(s, "sink", "u2");
    CU_ASSERT_PTR_NULL(c->start.element);
    CU_ASSERT_EQUAL(c->start.component, -1);
    CU_ASSERT_STRING_EQUAL(c->start.name, "U");

    c = conn_to(s, "sub.inner.gain", "x"); /* two levels down */
    CU_ASSERT_STRING_EQUAL(c->start.element, "src");
    CU_ASSERT_STRING_EQUAL(c->start.name, "out2");
    CU_ASSERT_STRING_EQUAL(c->via, "sub.z sub.inner.a");

    c = conn_to(s, "sink", "u3"); /* through root's P: no warning */
    CU_ASSERT_STRING_EQUAL(c->start.element, "src");
    CU_ASSERT_STRING_EQUAL(c->start.name, "y3");
    CU_ASSERT_STRING_EQUAL(c->via, "P");
    rtc_ssp_free(s);
}

/* The top-level system's connectors are its ports, not dangling ends; a subsystem
 * connector that leads nowhere is only an info line. */
static void load_nested_top_level_ports_not_warned(void)
{
    logbuf lb;
    rtc_ssp *s = NULL;
    CU_ASSERT_EQUAL_FATAL(load(DATA "nested/SystemStructure.ssd", &lb, &s), RTC_OK);
    CU_ASSERT_PTR_NULL(strstr(lb.text, "is not connected to anything outside"));
    CU_ASSERT_EQUAL(lb.warnings, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "subsystem connector \"sub.unused\" leads nowhere"));
    rtc_ssp_free(s);
}

static void load_transforms_all_four(void)
{
    rtc_ssp *s = open_ok(DATA "transforms/SystemStructure.ssd", 0);
    const rtc_ssp_connection *c = conn_to(s, "b", "r");
    CU_ASSERT_EQUAL(c->transform.kind, RTC_SSP_TRANSFORM_LINEAR);
    CU_ASSERT_DOUBLE_EQUAL(c->transform.factor, -2.5, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(c->transform.offset, 0.125, 0.0);
    CU_ASSERT_EQUAL(c->transform.line, 26);
    c = conn_to(s, "b", "b");
    CU_ASSERT_EQUAL(c->transform.kind, RTC_SSP_TRANSFORM_BOOLEAN_MAP);
    CU_ASSERT_EQUAL_FATAL(c->transform.n_entries, 2);
    CU_ASSERT_EQUAL(c->transform.entries[0].source, 1);
    CU_ASSERT_EQUAL(c->transform.entries[0].target, 0);
    CU_ASSERT_EQUAL(c->transform.entries[1].source, 0);
    CU_ASSERT_EQUAL(c->transform.entries[1].target, 1);
    c = conn_to(s, "b", "i");
    CU_ASSERT_EQUAL(c->transform.kind, RTC_SSP_TRANSFORM_INTEGER_MAP);
    CU_ASSERT_EQUAL_FATAL(c->transform.n_entries, 3);
    CU_ASSERT_EQUAL(c->transform.entries[1].source, 2);
    CU_ASSERT_EQUAL(c->transform.entries[1].target, 20);
    CU_ASSERT_EQUAL(c->transform.entries[2].source, -3);
    CU_ASSERT_EQUAL(c->transform.entries[2].target, INT64_MAX);
    c = conn_to(s, "b", "e");
    CU_ASSERT_EQUAL(c->transform.kind, RTC_SSP_TRANSFORM_ENUM_MAP);
    CU_ASSERT_EQUAL_FATAL(c->transform.n_entries, 2);
    CU_ASSERT_STRING_EQUAL(c->transform.entries[0].source_name, "first");
    CU_ASSERT_STRING_EQUAL(c->transform.entries[0].target_name, "slow");
    CU_ASSERT_STRING_EQUAL(c->transform.entries[1].target_name, "fast");
    CU_ASSERT_STRING_EQUAL(conn(comp(s, "a"), "e")->enumeration, "Gear");
    CU_ASSERT_EQUAL_FATAL(s->n_enums, 2);
    CU_ASSERT_STRING_EQUAL(s->enums[1].name, "Mode");
    CU_ASSERT_EQUAL_FATAL(s->enums[1].n_items, 2);
    CU_ASSERT_STRING_EQUAL(s->enums[1].items[1].name, "fast");
    CU_ASSERT_EQUAL(s->enums[1].items[1].value, -1);
    rtc_ssp_free(s);
}

static void load_units_factor_offset(void)
{
    rtc_ssp *s = open_ok(DATA "units/SystemStructure.ssd", 0);
    CU_ASSERT_EQUAL(s->n_units, 5);
    const rtc_ssp_unit *u = rtc_ssp_find_unit(s, "degC");
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_EQUAL(u->base.K, 1);
    CU_ASSERT_DOUBLE_EQUAL(u->base.factor, 1.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(u->base.offset, 273.15, 0.0);
    u = rtc_ssp_find_unit(s, "km/h");
    CU_ASSERT_EQUAL(u->base.m, 1);
    CU_ASSERT_EQUAL(u->base.s, -1);
    CU_ASSERT_DOUBLE_EQUAL(u->base.factor, 1.0 / 3.6, 1e-16);
    u = rtc_ssp_find_unit(s, "rpm");
    CU_ASSERT_EQUAL(u->base.rad, 1);
    CU_ASSERT_EQUAL(u->base.kg, 0);
    CU_ASSERT_STRING_EQUAL(conn(comp(s, "heater"), "T")->unit, "degC");
    CU_ASSERT_STRING_EQUAL(conn(comp(s, "room"), "T")->unit, "K");
    CU_ASSERT_FALSE(conn_to(s, "room", "T")->suppress_unit_conversion);
    CU_ASSERT_TRUE(conn_to(s, "room", "v")->suppress_unit_conversion);
    rtc_ssp_free(s);
}

static void load_params_precedence_final_values(void)
{
    /* One warning: "nonexist.x" of root.ssv matches no element. */
    rtc_ssp *s = open_ok(DATA "params/SystemStructure.ssd", 1);
    CU_ASSERT_EQUAL(s->n_params, 10);
    expect_param(s, "sub.plant", "k", RTC_TYPE_FLOAT64, "10", 2);  /* later .ssv wins */
    expect_param(s, "sub.plant", "m", RTC_TYPE_FLOAT64, "500", 2); /* .ssm mass→m ×1000 */
    expect_param(s, "sub.plant", "c", RTC_TYPE_FLOAT64, "300", 0); /* root over sub over plant */
    expect_param(s, "sub.plant", "d", RTC_TYPE_FLOAT64, "40", 0);
    expect_param(s, "sub.plant", "e", RTC_TYPE_FLOAT64, "5", 2);
    expect_param(s, "sub.plant", "on", RTC_TYPE_BOOL, "false", 2); /* flag→on, true→false */
    expect_param(s, "sub.plant", "n", RTC_TYPE_INT32, "33", 1);    /* sub's prefix "plant." */
    expect_param(s, "sub.plant", "label", RTC_TYPE_STRING, "hello world", 2);
    expect_param(s, "ctrl", "gain", RTC_TYPE_FLOAT64, "7", 0);
    CU_ASSERT_PTR_NULL(rtc_ssp_find_param(s, "sub.plant", "mass"));
    CU_ASSERT_PTR_NULL(rtc_ssp_find_param(s, "sub.plant", "flag"));
    const rtc_ssp_param *m = rtc_ssp_find_param(s, "sub.plant", "m");
    CU_ASSERT_TRUE(m->suppress_unit_conversion);
    CU_ASSERT_STRING_EQUAL(m->unit, "kg");
    CU_ASSERT_PTR_NOT_NULL(strstr(m->file, "params/plant.ssv"));
    CU_ASSERT_EQUAL(m->line, 7);
    const rtc_ssp_param *k = rtc_ssp_find_param(s, "sub.plant", "k");
    CU_ASSERT_STRING_EQUAL(k->unit, "N/m");
    CU_ASSERT_FALSE(k->suppress_unit_conversion);
    const rtc_ssp_param *l = rtc_ssp_find_param(s, "sub.plant", "label");
    CU_ASSERT_PTR_NOT_NULL(strstr(l->file, "params/SystemStructure.ssd"));
    CU_ASSERT_EQUAL(l->line, 26);
    bool found = false;
    for (size_t i = 0; i < s->n_params; i++) {
        const rtc_ssp_param *p = &s->params[i];
        if (p->is_system && strcmp(p->component, "sub") == 0 && strcmp(p->name, "Kp") == 0) {
            found = true;
            CU_ASSERT_STRING_EQUAL(p->value, "0.8");
        }
    }
    CU_ASSERT_TRUE(found);
    CU_ASSERT_PTR_NOT_NULL(rtc_ssp_find_unit(s, "N/m")); /* from the .ssv */
    rtc_ssp_free(s);
}

/* One .ssm source with several MappingEntries feeds every target, each through its own
 * transformation; a later entry for the same source and target replaces an earlier one. */
static void load_mapping_source_feeds_every_target(void)
{
    rtc_ssp *s = open_ok(RTC_TEST_DATA_DIR "/conformance/ssp1/mapping_targets/"
                         "SystemStructure.ssd", 0);
    CU_ASSERT_EQUAL(s->n_params, 2);
    expect_param(s, "dec", "k", RTC_TYPE_FLOAT64, "2", 1);
    expect_param(s, "dec", "x0", RTC_TYPE_FLOAT64, "3", 1);
    CU_ASSERT_PTR_NULL(rtc_ssp_find_param(s, "dec", "rate"));
    rtc_ssp_free(s);
}

static void load_realtime_annotation_all_attributes(void)
{
    rtc_ssp *s = open_ok(DATA "realtime/SystemStructure.ssd", 0);
    const rtc_ssp_realtime *rt = &s->realtime;
    CU_ASSERT_TRUE(rt->present);
    CU_ASSERT_EQUAL(rt->line, 50);
    CU_ASSERT_TRUE(rt->has_base_step);
    CU_ASSERT_EQUAL(rt->base_step_ns, 1000000);
    CU_ASSERT_EQUAL(rt->step_source, RTC_SSP_STEP_RTCOSIM); /* osp 1e-4 not used */
    CU_ASSERT_PTR_NOT_NULL_FATAL(rt->algorithm); /* as written: the system checks it */
    CU_ASSERT_STRING_EQUAL(rt->algorithm, "parallel-fast");
    CU_ASSERT_TRUE(rt->has_sync_step);
    CU_ASSERT_EQUAL(rt->sync_step_ns, 6000000);
    CU_ASSERT_TRUE(rt->has_rtf);
    CU_ASSERT_DOUBLE_EQUAL(rt->rtf, 0.5, 0.0);
    CU_ASSERT_TRUE(rt->has_priority && rt->priority == 80);
    CU_ASSERT_TRUE(rt->has_cpu && rt->cpu == 1);
    CU_ASSERT_TRUE(rt->has_overrun);
    CU_ASSERT_EQUAL(rt->overrun, RTC_SSP_OVERRUN_SUBSTITUTE);
    CU_ASSERT_TRUE(rt->has_max_overruns && rt->max_overruns == 3);
    CU_ASSERT_STRING_EQUAL(rt->estimator, "zoh");
    CU_ASSERT_TRUE(rt->has_decimation && rt->decimation == 10);
    CU_ASSERT_EQUAL_FATAL(rt->n_record, 2);
    CU_ASSERT_STRING_EQUAL(rt->record[0], "plant.y");
    CU_ASSERT_STRING_EQUAL(rt->record[1], "ctrl.u");
    CU_ASSERT_EQUAL_FATAL(rt->n_settings, 2);
    CU_ASSERT_STRING_EQUAL(rt->settings[0].element, "Driver");
    CU_ASSERT_EQUAL(rt->settings[0].group, 1);
    CU_ASSERT_STRING_EQUAL(rt->settings[1].key, "port");
    CU_ASSERT_STRING_EQUAL(rt->settings[1].value, "1502");

    const rtc_ssp_component *p = comp(s, "plant");
    CU_ASSERT_TRUE(p->has_step);
    CU_ASSERT_EQUAL(p->step_ns, 2000000); /* ours wins over StepSizeHint 0.5 */
    CU_ASSERT_EQUAL(p->step_source, RTC_SSP_STEP_RTCOSIM);
    CU_ASSERT_EQUAL_FATAL(p->n_settings, 5);
    CU_ASSERT_STRING_EQUAL(p->settings[0].element, "");
    CU_ASSERT_STRING_EQUAL(p->settings[0].key, "device");
    CU_ASSERT_STRING_EQUAL(p->settings[0].value, "/dev/ttyUSB0");
    CU_ASSERT_STRING_EQUAL(p->settings[3].element, "Register");
    CU_ASSERT_EQUAL(p->settings[3].group, 2);
    CU_ASSERT_STRING_EQUAL(p->settings[3].key, "address");
    CU_ASSERT_STRING_EQUAL(p->settings[3].value, "40002");
    const rtc_ssp_component *c = comp(s, "ctrl");
    CU_ASSERT_EQUAL(c->step_ns, 4000000);
    CU_ASSERT_EQUAL(c->step_source, RTC_SSP_STEP_LIBCOSIM);

    const rtc_ssp_connection *k = conn_to(s, "ctrl", "u");
    CU_ASSERT_TRUE(k->settings.present);
    CU_ASSERT_STRING_EQUAL(k->settings.estimator, "kalman-cv");
    CU_ASSERT_STRING_EQUAL(k->settings.params, "q=50 r=1e-4");
    CU_ASSERT_TRUE(k->settings.break_loop);
    rtc_ssp_free(s);
}

static void check_foreign(const char *path, unsigned warnings, rtc_ssp_step_source src,
                          int64_t step_ns)
{
    rtc_ssp *s = open_ok(path, warnings);
    CU_ASSERT_FALSE(s->realtime.present);
    CU_ASSERT_TRUE(s->realtime.has_base_step);
    CU_ASSERT_EQUAL(s->realtime.step_source, src);
    CU_ASSERT_EQUAL(s->realtime.base_step_ns, step_ns);
    if (src == RTC_SSP_STEP_LIBCOSIM) {
        const rtc_ssp_component *c = comp(s, "Controller");
        CU_ASSERT_TRUE(c->has_step);
        CU_ASSERT_EQUAL(c->step_ns, 10000000);
        CU_ASSERT_EQUAL(c->step_source, RTC_SSP_STEP_LIBCOSIM);
        CU_ASSERT_FALSE(comp(s, "Crane")->has_step);
        expect_param(s, "Crane", "Spring.k", RTC_TYPE_FLOAT64, "0.005", 1);
    } else if (src == RTC_SSP_STEP_OPENMCX) {
        const rtc_ssp_component *c = comp(s, "Constant");
        CU_ASSERT_STRING_EQUAL(c->type, "application/avl-mcx-constant");
        CU_ASSERT_PTR_NULL(c->source); /* source="" of a built-in */
        CU_ASSERT_STRING_EQUAL(conn_to(s, "FMU", "in")->start.element, "Constant");
    }
    rtc_ssp_free(s);
}

static void load_foreign_step_libcosim(void)
{
    check_foreign(DATA "osp/SystemStructure.ssd", 0, RTC_SSP_STEP_LIBCOSIM, 100000);
}

static void load_foreign_step_omsimulator(void)
{
    check_foreign(DATA "oms/SystemStructure.ssd", 0, RTC_SSP_STEP_OMSIMULATOR, 1000000);
}

static void load_foreign_step_openmcx(void)
{
    /* Three warnings: two port annotations and one component annotation of OpenMCx. */
    check_foreign(DATA "mcx/model.ssd", 3, RTC_SSP_STEP_OPENMCX, 2000000);
}

/* Values bound to system connectors become values of the component connectors they
 * feed, at the binding's level (SSP 1.0 and 2.0 spellings of the same system). */
static void load_system_connector_values_reach_components(void)
{
    static const char *const files[] = {RTC_TEST_DATA_DIR "/conformance/ssp1/nested_params/"
                                        "SystemStructure.ssd",
                                        RTC_TEST_DATA_DIR "/conformance/ssp2/nested_params/"
                                        "SystemStructure.ssd"};
    for (int i = 0; i < 2; i++) {
        rtc_ssp *s = open_ok(files[i], 0);
        const rtc_ssp_param *k = rtc_ssp_find_param(s, "sub.dec", "k");
        const rtc_ssp_param *x0 = rtc_ssp_find_param(s, "sub.dec", "x0");
        CU_ASSERT_PTR_NOT_NULL_FATAL(k);
        CU_ASSERT_PTR_NOT_NULL_FATAL(x0);
        CU_ASSERT_STRING_EQUAL(k->value, "2"); /* the top level beats dec's own 5 */
        CU_ASSERT_EQUAL(k->level, 0);
        CU_ASSERT_DOUBLE_EQUAL(atof(x0->value), 6.0, 0.0); /* through factor 2 */
        for (size_t j = 0; j < s->n_params; j++)
            if (s->params[j].is_system)
                CU_ASSERT_EQUAL(s->params[j].n_targets, 1);
        rtc_ssp_free(s);
    }
}

/* A connection end with startElement="" is the enclosing system's connector; a signal
 * dictionary entry is a junction between its writer and its readers. */
static void load_empty_element_and_dictionary_junction(void)
{
    rtc_ssp *s = open_ok(RTC_TEST_DATA_DIR "/conformance/ssp1/system_ports/SystemStructure.ssd",
                         0);
    const rtc_ssp_connection *c = conn_to(s, "pt", "Real_input");
    CU_ASSERT_EQUAL(c->start.component, -1);
    CU_ASSERT_STRING_EQUAL(c->start.name, "u");
    rtc_ssp_free(s);
    s = open_ok(RTC_TEST_DATA_DIR "/conformance/ssp2/signal_dictionary/SystemStructure.ssd", 0);
    CU_ASSERT_EQUAL(s->n_connections, 2);
    c = conn_to(s, "sub.rd", "Float64_input");
    CU_ASSERT_STRING_EQUAL(c->start.element, "w");
    CU_ASSERT_STRING_EQUAL(c->via, "bus.speed");
    CU_ASSERT_PTR_NOT_NULL(rtc_ssp_find_unit(s, "m/s")); /* from bus.ssb as well */
    rtc_ssp_free(s);
}

static void load_tool_exported_like_file(void)
{
    /* No warning: w, I and Mload are the top-level system's own ports. */
    rtc_ssp *s = open_ok(DATA "omsim_like/SystemStructure.ssd", 0);
    CU_ASSERT_STRING_EQUAL(s->version, "2.0");
    CU_ASSERT_EQUAL(s->n_components, 3);
    CU_ASSERT_EQUAL(comp(s, "SuT.mass")->implementation, RTC_SSP_IMPL_MODEL_EXCHANGE);
    CU_ASSERT_STRING_EQUAL(comp(s, "stim")->source,
                           abs_data("omsim_like/resources/stimuli.fmu"));
    CU_ASSERT_EQUAL(s->n_connections, 7);
    const rtc_ssp_connection *c = conn_to(s, "SuT.mass", "Mb");
    CU_ASSERT_STRING_EQUAL(c->start.element, "stim");
    CU_ASSERT_STRING_EQUAL(c->start.name, "Mload");
    CU_ASSERT_STRING_EQUAL(c->via, "SuT.Mload");
    c = conn_to(s, NULL, "Mload"); /* written from the system connector to stim */
    CU_ASSERT_STRING_EQUAL(c->start.element, "stim");
    c = conn_to(s, "SuT.motor", "w");
    CU_ASSERT_STRING_EQUAL(c->start.element, "SuT.mass");
    CU_ASSERT_STRING_EQUAL(c->start.name, "wA");
    expect_param(s, "SuT.mass", "inertia.J", RTC_TYPE_FLOAT64, "0.002", 2);
    expect_param(s, "stim", "load.k", RTC_TYPE_FLOAT64, "-0.5", 1);
    CU_ASSERT_PTR_NOT_NULL(rtc_ssp_find_unit(s, "N.m.s/rad"));
    CU_ASSERT_EQUAL(s->n_units, 8);
    rtc_ssp_free(s);
}

static void load_unknown_things_warned_not_fatal(void)
{
    logbuf lb;
    rtc_ssp *s = NULL;
    CU_ASSERT_EQUAL_FATAL(load(DATA "unknown_annot/SystemStructure.ssd", &lb, &s), RTC_OK);
    CU_ASSERT_EQUAL(lb.warnings, 3);
    CU_ASSERT_EQUAL(s->warnings, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "SystemStructure.ssd:13: Component: unknown "
                                           "attribute \"color\" ignored"));
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "SystemStructure.ssd:22: unknown element "
                                           "<ssd:Frobnicator> in <ssd:System> ignored"));
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "SystemStructure.ssd:24: annotation type "
                                           "\"com.example.tool\" not understood: ignored"));
    CU_ASSERT_EQUAL(s->n_connections, 1);
    rtc_ssp_free(s);
}

/* ---- invalid descriptions ---- */

static void reject_malformed_xml(void)
{
    expect_error(DATA "bad_xml/SystemStructure.ssd", RTC_EPARSE, 1,
                 "bad_xml/SystemStructure.ssd:10: ");
}

static void reject_wrong_version(void)
{
    expect_error(DATA "bad_version/SystemStructure.ssd", RTC_EUNSUPPORTED, 1,
                 "SystemStructure.ssd:5: SystemStructureDescription version: SSP version "
                 "\"3.0\" is not supported (1.0 and 2.0 are)");
}

static void reject_unknown_element_reference(void)
{
    expect_error(DATA "bad_element_ref/SystemStructure.ssd", RTC_EPARSE, 1,
                 "SystemStructure.ssd:20: Connection endElement: no component \"plnat\" in "
                 "system \"root\"");
}

static void reject_unknown_connector(void)
{
    expect_error(DATA "bad_connector/SystemStructure.ssd", RTC_EPARSE, 1,
                 "SystemStructure.ssd:20: Connection endConnector: no connector \"nope\" in "
                 "component \"plant\"");
}

static void reject_duplicate_names(void)
{
    expect_error(DATA "bad_duplicate/SystemStructure.ssd", RTC_EPARSE, 1,
                 "SystemStructure.ssd:13: Component name: duplicate element name \"plant\" "
                 "in system \"root\" (first at line 8)");
}

static void reject_missing_required_attribute(void)
{
    expect_error(DATA "bad_missing_attr/SystemStructure.ssd", RTC_EPARSE, 1,
                 "SystemStructure.ssd:15: Connector kind: missing (required)");
}

static void reject_unreadable_ssv(void)
{
    expect_error(DATA "bad_ssv/SystemStructure.ssd", -ENOENT, 1,
                 "SystemStructure.ssd:13: ParameterBinding source: cannot read \"");
    logbuf lb;
    rtc_ssp *s = NULL;
    load(DATA "bad_ssv/SystemStructure.ssd", &lb, &s);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "bad_ssv/missing.ssv\": No such file"));
}

static void reject_sub_nanosecond_time(void)
{
    expect_error(DATA "bad_time/SystemStructure.ssd", RTC_ETIME, 1,
                 "SystemStructure.ssd:20: DefaultExperiment stopTime: \"1e-10\" is not a "
                 "whole number of nanoseconds");
}

/* INF and NaN are xs:double values, but no factor, offset or parameter value can be one:
 * each is an error at its own line, and nothing is loaded. */
static void reject_non_finite_numbers(void)
{
    logbuf lb;
    rtc_ssp *s = NULL;
    CU_ASSERT_EQUAL(load(DATA "bad_nonfinite/SystemStructure.ssd", &lb, &s), RTC_EPARSE);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(lb.errors, 5);
    static const char *const needles[] = {
        "SystemStructure.ssd:15: Real value: must be a finite number (\"INF\")",
        "SystemStructure.ssd:16: Real value: must be a finite number (\"NaN\")",
        "SystemStructure.ssd:28: LinearTransformation factor: must be a finite number (\"NaN\")",
        "SystemStructure.ssd:33: BaseUnit factor: must be a finite number (\"INF\")",
        "SystemStructure.ssd:34: BaseUnit offset: must be a finite number (\"-INF\")"};
    for (size_t i = 0; i < sizeof needles / sizeof *needles; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, needles[i]));
        if (!strstr(lb.text, needles[i]))
            printf("\nexpected \"%s\" in:\n%s", needles[i], lb.text);
    }
}

/* A Dimension's sizeConnector must name a connector of its element (before or after). */
static void reject_dangling_size_connector(void)
{
    expect_error(DATA "bad_size_connector/SystemStructure.ssd", RTC_EPARSE, 1,
                 "SystemStructure.ssd:12: Dimension sizeConnector: no connector \"m\" in this "
                 "element gives the size");
}

static void reject_missing_file_and_bad_args(void)
{
    expect_error(DATA "nothing-here/SystemStructure.ssd", -ENOENT, 1,
                 "cannot open: No such file or directory");
    rtc_ssp *s = NULL;
    CU_ASSERT_EQUAL(rtc_ssp_load(NULL, NULL, &s), RTC_EINVAL);
    CU_ASSERT_EQUAL(rtc_ssp_load(DATA "min10/SystemStructure.ssd", NULL, NULL), RTC_EINVAL);
    rtc_ssp_free(NULL);
    CU_ASSERT_PTR_NULL(rtc_ssp_find_component(NULL, "x"));
    CU_ASSERT_EQUAL(rtc_ssp_find_connector(NULL, "x"), -1);
}
void rtc_test_register(void)
{
    static const rtc_test_case valid[] = {
        {"load_minimal_10_fields_resolved", load_minimal_10_fields_resolved},
        {"load_minimal_20_new_types_and_sourceless", load_minimal_20_new_types_and_sourceless},
        {"load_nested_flattened_and_chained", load_nested_flattened_and_chained},
        {"load_nested_top_level_ports_not_warned", load_nested_top_level_ports_not_warned},
        {"load_transforms_all_four", load_transforms_all_four},
        {"load_units_factor_offset", load_units_factor_offset},
        {"load_params_precedence_final_values", load_params_precedence_final_values},
        {"load_mapping_source_feeds_every_target", load_mapping_source_feeds_every_target},
        {"load_realtime_annotation_all_attributes", load_realtime_annotation_all_attributes},
        {"load_foreign_step_libcosim", load_foreign_step_libcosim},
        {"load_foreign_step_omsimulator", load_foreign_step_omsimulator},
        {"load_foreign_step_openmcx", load_foreign_step_openmcx},
        {"load_system_connector_values_reach_components",
         load_system_connector_values_reach_components},
        {"load_empty_element_and_dictionary_junction", load_empty_element_and_dictionary_junction},
        {"load_tool_exported_like_file", load_tool_exported_like_file},
        {"load_unknown_things_warned_not_fatal", load_unknown_things_warned_not_fatal},
        {NULL, NULL}};
    static const rtc_test_case invalid[] = {
        {"reject_malformed_xml", reject_malformed_xml},
        {"reject_wrong_version", reject_wrong_version},
        {"reject_unknown_element_reference", reject_unknown_element_reference},
        {"reject_unknown_connector", reject_unknown_connector},
        {"reject_duplicate_names", reject_duplicate_names},
        {"reject_missing_required_attribute", reject_missing_required_attribute},
        {"reject_unreadable_ssv", reject_unreadable_ssv},
        {"reject_sub_nanosecond_time", reject_sub_nanosecond_time},
        {"reject_non_finite_numbers", reject_non_finite_numbers},
        {"reject_dangling_size_connector", reject_dangling_size_connector},
        {"reject_missing_file_and_bad_args", reject_missing_file_and_bad_args},
        {NULL, NULL}};
    rtc_test_add_suite("ssp_valid", NULL, NULL, valid);
    rtc_test_add_suite("ssp_invalid", NULL, NULL, invalid);
    rtc_test_register_ssp_package();
}
