/*
 * SSP loader: ssd:Annotations. Our own annotation (org.rtcosim.realtime, schema in
 * rtcosim/ssp.h and configs/README.md) and the step-size annotations of libcosim
 * (com.opensimulationplatform), OMSimulator (org.openmodelica) and OpenMCx
 * (com.avl.model.connect.ssp.task). Any other annotation type gets one warning.
 *
 * Foreign annotations are matched by local element names, whatever their namespace: the
 * tools have changed namespace URIs over time (OMSimulator points at a schema URL), and
 * the element names are what identifies the content. Content of a known foreign type that
 * we do not use is not a warning: it is understood as "the other tool's business".
 */
#include "ssp_priv.h"

#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_OSP "com.opensimulationplatform"
#define TYPE_OMS "org.openmodelica"
#define TYPE_MCX "com.avl.model.connect.ssp.task"

/* Where system-wide settings may appear: the top-level System or DefaultExperiment. */
static bool at_top(rtc__ssp_at at)
{
    return at == RTC__SSP_AT_TOP_SYSTEM || at == RTC__SSP_AT_EXPERIMENT;
}

/* Append every attribute of @p el except @p skip as settings (element "" for group 0). */
/* Settings are kept as text: the drivers that use them parse and check them, with
 * the line kept here for their diagnostics. */
static bool skipped(const char *name, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (!strcmp(name, *skip))
            return true;
    return false;
}

static int add_settings(const xmlNode *el, unsigned group, const char *const *skip,
                        rtc_ssp_setting **arr, size_t *n)
{
    for (const xmlAttr *a = el->properties; a; a = a->next) {
        if (a->ns || skipped((const char *)a->name, skip))
            continue;
        rtc_ssp_setting *p = realloc(*arr, (*n + 1) * sizeof **arr);
        if (!p)
            return RTC_ENOMEM;
        *arr = p;
        rtc_ssp_setting *s = &p[(*n)++];
        *s = (rtc_ssp_setting){.group = group, .line = rtc__xml_line(el)};
        const char *v = rtc__xml_attr(el, (const char *)a->name);
        if (rtc__ssp_dup(group ? (const char *)el->name : "", &s->element) ||
            rtc__ssp_dup((const char *)a->name, &s->key) || rtc__ssp_dup(v, &s->value))
            return RTC_ENOMEM;
    }
    return RTC_OK;
}

/* Child elements of one of our annotation elements, kept opaque (numbered groups). */
static int add_child_settings(const xmlNode *el, rtc_ssp_setting **arr, size_t *n)
{
    unsigned group = 0;
    for (const xmlNode *c = rtc__xml_child(el); c; c = rtc__xml_next(c)) {
        int rc = add_settings(c, ++group, NULL, arr, n);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* A positive time attribute; sets *has. */
/* Step sizes: exact nanoseconds, strictly positive. */
static int positive_time(rtc__ssp_load *L, const xmlNode *n, const char *attr, int64_t *ns,
                         bool *has)
{
    int rc = rtc__ssp_attr_time(&L->x, n, attr, ns, has);
    if (rc == RTC_OK && *has && *ns <= 0) {
        rtc__xml_attr_error(&L->x, n, attr, "must be positive");
        *has = false;
        rc = RTC_EPARSE;
    }
    rtc__ssp_fail(L, rc);
    return rc;
}

/* An unsigned attribute in [lo, hi]. */
static int ranged(rtc__ssp_load *L, const xmlNode *n, const char *attr, uint64_t lo,
                  uint64_t hi, uint64_t *v, bool *has)
{
    int rc = rtc__xml_attr_u64(&L->x, n, attr, 32, v, has);
    if (rc == RTC_OK && *has && (*v < lo || *v > hi)) {
        rtc__xml_attr_error(&L->x, n, attr, "%llu is outside %llu..%llu",
                            (unsigned long long)*v, (unsigned long long)lo,
                            (unsigned long long)hi);
        *has = false;
        rc = RTC_EPARSE;
    }
    rtc__ssp_fail(L, rc);
    return rc;
}

/* "a.x  b.y" → {"a.x", "b.y"}; any XML white space separates (record, expose). */
static int split_words(const char *text, char ***list, size_t *n)
{
    const char *p = text;
    while (*p) {
        p += strspn(p, " \t\r\n");
        size_t len = strcspn(p, " \t\r\n");
        if (!len)
            break;
        char **r = realloc(*list, (*n + 1) * sizeof *r);
        if (!r)
            return RTC_ENOMEM;
        *list = r;
        if (!(r[*n] = strndup(p, len)))
            return RTC_ENOMEM;
        (*n)++;
        p += len;
    }
    return RTC_OK;
}

/* rtf, priority, cpu, maxOverruns, decimation, estimator, record. */
static int read_rt_numbers(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_realtime *rt)
{
    uint64_t v = 0;
    int rc = rtc__xml_attr_f64(&L->x, n, "rtf", &rt->rtf, &rt->has_rtf);
    if (rc == RTC_OK && rt->has_rtf && !(rt->rtf >= 0 && isfinite(rt->rtf))) {
        rtc__xml_attr_error(&L->x, n, "rtf", "must be a finite number >= 0 (0: as fast as "
                            "possible)");
        rt->has_rtf = false;
        rc = RTC_EPARSE;
    }
    rtc__ssp_fail(L, rc);
    if (ranged(L, n, "priority", 1, 99, &v, &rt->has_priority) == RTC_OK)
        rt->priority = (int)v;
    if (ranged(L, n, "cpu", 0, 4095, &v, &rt->has_cpu) == RTC_OK)
        rt->cpu = (int)v;
    if (ranged(L, n, "maxOverruns", 0, UINT32_MAX, &v, &rt->has_max_overruns) == RTC_OK)
        rt->max_overruns = (uint32_t)v;
    if (ranged(L, n, "decimation", 1, UINT32_MAX, &v, &rt->has_decimation) == RTC_OK)
        rt->decimation = (uint32_t)v;
    if (rtc__ssp_dup(rtc__xml_attr(n, "estimator"), &rt->estimator))
        return RTC_ENOMEM;
    /* the operator's dead-man time: like a step, an exact positive time */
    positive_time(L, n, "deadman", &rt->deadman_ns, &rt->has_deadman);
    const char *rec = rtc__xml_attr(n, "record");
    int rc2 = rec ? split_words(rec, &rt->record, &rt->n_record) : RTC_OK;
    /* exposed variables keep their ":key=value" options as text: the session parses and
     * checks them against the system, which knows the variables */
    const char *ex = rtc__xml_attr(n, "expose");
    if (rc2 == RTC_OK && ex)
        rc2 = split_words(ex, &rt->expose, &rt->n_expose);
    return rc2;
}

/* rtc:RealTime: once per description. A second one would leave it unclear which value
 * applies, so it is an error rather than a silent override. */
static int read_realtime(rtc__ssp_load *L, const xmlNode *n)
{
    static const char *const known[] = {"baseStep", "algorithm", "syncStep", "rtf",
                                        "priority", "cpu", "overrun", "maxOverruns",
                                        "estimator", "decimation", "record", "expose",
                                        "deadman", NULL};
    static const char *const overruns[] = {"catch-up", "skip", "substitute", "stop", NULL};
    rtc_ssp_realtime *rt = &L->ssp->realtime;
    if (rt->present) {
        rtc__xml_error(&L->x, n, "rtc:RealTime given twice (first at line %u)", rt->line);
        rtc__ssp_fail(L, RTC_EPARSE);
        return RTC_OK;
    }
    rt->present = true;
    rt->line = rtc__xml_line(n);
    rtc__xml_check_attrs(&L->x, n, known);
    if (positive_time(L, n, "baseStep", &rt->base_step_ns, &rt->has_base_step) == RTC_OK &&
        rt->has_base_step) {
        rt->step_source = RTC_SSP_STEP_RTCOSIM;
        rt->step_line = rt->line;
    }
    positive_time(L, n, "syncStep", &rt->sync_step_ns, &rt->has_sync_step);
    /* the masters are the system layer's: it checks the name (rtcosim/system.h) */
    if (rtc__ssp_dup(rtc__xml_attr(n, "algorithm"), &rt->algorithm))
        return RTC_ENOMEM;
    int v = 0;
    rtc__ssp_fail(L, rtc__xml_attr_enum(&L->x, n, "overrun", overruns, &v, &rt->has_overrun));
    rt->overrun = (rtc_ssp_overrun)v;
    int rc = read_rt_numbers(L, n, rt);
    return rc == RTC_OK ? add_child_settings(n, &rt->settings, &rt->n_settings) : rc;
}

/* A node name (placement, rtc:Component node): letters, digits, '_' and '-', so it fits a
 * DDS topic name and a command line as it is. */
static int read_node(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_component *c)
{
    const char *v = rtc__xml_attr(n, "node");
    if (!v)
        return RTC_OK;
    const char *why = rtc_ssp_node_name_check(v);
    if (why) {
        rtc__xml_attr_error(&L->x, n, "node", "%s", why);
        rtc__ssp_fail(L, RTC_EPARSE);
        return RTC_OK;
    }
    c->node_line = rtc__xml_line(n);
    return rtc__ssp_dup(v, &c->node) ? RTC_ENOMEM : RTC_OK;
}

/* rtc:Component: stepSize and node are ours; everything else is kept for the I/O drivers. */
static int read_rtc_component(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_component *c)
{
    static const char *const ours[] = {"stepSize", "node", NULL};
    int64_t ns = 0;
    bool has = false;
    if (positive_time(L, n, "stepSize", &ns, &has) == RTC_OK && has) {
        c->has_step = true;
        c->step_ns = ns;
        c->step_source = RTC_SSP_STEP_RTCOSIM; /* ours wins over osp:StepSizeHint */
    }
    if (read_node(L, n, c) != RTC_OK)
        return RTC_ENOMEM;
    int rc = add_settings(n, 0, ours, &c->settings, &c->n_settings);
    return rc == RTC_OK ? add_child_settings(n, &c->settings, &c->n_settings) : rc;
}

/* rtc:Connection: estimator method and its parameters as text, breakLoop, delay. */
static int read_rtc_connection(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_link_settings *s)
{
    static const char *const known[] = {"estimator", "params", "breakLoop", "delay", NULL};
    if (s->present) {
        rtc__xml_warn(&L->x, n, "rtc:Connection given twice (first at line %u): ignored",
                      s->line);
        return RTC_OK;
    }
    rtc__xml_check_attrs(&L->x, n, known);
    s->present = true;
    s->line = rtc__xml_line(n);
    rtc__ssp_fail(L, rtc__xml_attr_bool(&L->x, n, "breakLoop", &s->break_loop, NULL));
    rtc__ssp_fail(L, rtc__ssp_attr_time(&L->x, n, "delay", &s->delay_ns, &s->has_delay));
    if (s->has_delay && s->delay_ns < 0) {
        rtc__xml_attr_error(&L->x, n, "delay", "must not be negative");
        rtc__ssp_fail(L, RTC_EPARSE);
    }
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c))
        rtc__ssp_unknown(&L->x, c);
    if (rtc__ssp_dup(rtc__xml_attr(n, "estimator"), &s->estimator) ||
        rtc__ssp_dup(rtc__xml_attr(n, "params"), &s->params))
        return RTC_ENOMEM;
    return RTC_OK;
}

static void misplaced(rtc__ssp_load *L, const xmlNode *n, const char *where)
{
    rtc__xml_warn(&L->x, n, "rtc:%s belongs %s: ignored", rtc__xml_name(n), where);
}

/* Content of an org.rtcosim.realtime annotation; each element only where it applies. */
static int read_ours(rtc__ssp_load *L, const xmlNode *n, rtc__ssp_at at,
                     rtc_ssp_component *comp, rtc_ssp_link_settings *set)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        if (rtc__ssp_is(c, RTC_SSP_NS_RTC, "RealTime")) {
            if (at_top(at))
                rc = read_realtime(L, c);
            else
                misplaced(L, c, "on the top-level ssd:System or ssd:DefaultExperiment");
        } else if (rtc__ssp_is(c, RTC_SSP_NS_RTC, "Component")) {
            if (comp)
                rc = read_rtc_component(L, c, comp);
            else
                misplaced(L, c, "in the Annotations of an ssd:Component");
        } else if (rtc__ssp_is(c, RTC_SSP_NS_RTC, "Connection")) {
            if (set)
                rc = read_rtc_connection(L, c, set);
            else
                misplaced(L, c, "in the Annotations of an ssd:Connection");
        } else {
            rtc__ssp_unknown(&L->x, c);
        }
        if (rc == RTC_ENOMEM)
            return rc;
    }
    return RTC_OK;
}

/* A foreign base step candidate: the first one of each tool counts. */
static void foreign_step(rtc__ssp_load *L, const xmlNode *n, const char *attr, int which)
{
    rtc__ssp_step *f = &L->foreign[which];
    int64_t ns = 0;
    bool has = false;
    if (positive_time(L, n, attr, &ns, &has) != RTC_OK || !has || f->has)
        return;
    *f = (rtc__ssp_step){.has = true, .ns = ns, .line = rtc__xml_line(n)};
}

/* libcosim: osp:Algorithm/osp:FixedStepAlgorithm@baseStepSize on the system or the
 * experiment, osp:StepSizeHint@value on a component (ours wins when both are given). */
static void read_osp(rtc__ssp_load *L, const xmlNode *n, rtc__ssp_at at,
                     rtc_ssp_component *comp)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__xml_is(c, "Algorithm") && at_top(at)) {
            for (const xmlNode *a = rtc__xml_child(c); a; a = rtc__xml_next(a)) {
                if (rtc__xml_is(a, "FixedStepAlgorithm"))
                    foreign_step(L, a, "baseStepSize", RTC__SSP_OSP);
                else
                    rtc__xml_warn(&L->x, a, "osp algorithm <%s> is not supported: ignored",
                                  rtc__xml_name(a));
            }
        } else if (rtc__xml_is(c, "StepSizeHint") && comp) {
            int64_t ns = 0;
            bool has = false;
            if (positive_time(L, c, "value", &ns, &has) == RTC_OK && has &&
                comp->step_source != RTC_SSP_STEP_RTCOSIM) {
                comp->has_step = true;
                comp->step_ns = ns;
                comp->step_source = RTC_SSP_STEP_LIBCOSIM;
            }
        }
    }
}

/* oms:SimulationInformation may sit directly in the annotation or in oms:Annotations. */
static void read_oms(rtc__ssp_load *L, const xmlNode *n)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__xml_is(c, "Annotations")) {
            read_oms(L, c);
        } else if (rtc__xml_is(c, "SimulationInformation")) {
            for (const xmlNode *m = rtc__xml_child(c); m; m = rtc__xml_next(m))
                if (rtc__xml_is(m, "FixedStepMaster"))
                    foreign_step(L, m, "stepSize", RTC__SSP_OMS);
        }
    }
}

/* One ssc:Annotation, dispatched on its type attribute. */
static int read_annotation(rtc__ssp_load *L, const xmlNode *n, rtc__ssp_at at,
                           rtc_ssp_component *comp, rtc_ssp_link_settings *set)
{
    static const char *const known[] = {"type", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    const char *type = rtc__xml_attr(n, "type");
    if (!type) {
        rtc__xml_attr_error(&L->x, n, "type", "missing (required)");
        return RTC_EPARSE;
    }
    if (strcmp(type, RTC_SSP_ANNOT_RTC) == 0)
        return read_ours(L, n, at, comp, set);
    if (strcmp(type, TYPE_OSP) == 0) {
        read_osp(L, n, at, comp);
    } else if (strcmp(type, TYPE_OMS) == 0) {
        if (at_top(at))
            read_oms(L, n);
    } else if (strcmp(type, TYPE_MCX) == 0) {
        for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c))
            if (rtc__xml_is(c, "Task") && at_top(at))
                foreign_step(L, c, "deltaTime", RTC__SSP_MCX);
    } else {
        rtc__xml_warn(&L->x, n, "annotation type \"%s\" not understood: ignored", type);
    }
    return RTC_OK;
}

int rtc__ssp_read_annotations(rtc__ssp_load *L, const xmlNode *n, rtc__ssp_at at,
                              rtc_ssp_component *comp, rtc_ssp_link_settings *set)
{
    rtc__xml_check_attrs(&L->x, n, (const char *const[]){NULL});
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSC, "Annotation")) {
            rtc__ssp_unknown(&L->x, c);
            continue;
        }
        int rc = read_annotation(L, c, at, comp, set);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* Base step: ours if given, else the first foreign one in the order libcosim,
 * OMSimulator, OpenMCx; the ones not used are noted at info level. */
void rtc__ssp_finish_realtime(rtc__ssp_load *L)
{
    static const rtc_ssp_step_source src[] = {RTC_SSP_STEP_LIBCOSIM, RTC_SSP_STEP_OMSIMULATOR,
                                              RTC_SSP_STEP_OPENMCX};
    rtc_ssp_realtime *rt = &L->ssp->realtime;
    for (int i = 0; i < RTC__SSP_N_FOREIGN; i++) {
        const rtc__ssp_step *f = &L->foreign[i];
        if (!f->has)
            continue;
        if (rt->has_base_step) {
            rtc_log(&L->lg, RTC_LOG_INFO, "%s:%u: base step of %s not used (%s at line %u "
                    "wins)", L->x.file, f->line, rtc_ssp_step_source_name(src[i]),
                    rtc_ssp_step_source_name(rt->step_source), rt->step_line);
            continue;
        }
        rt->has_base_step = true;
        rt->base_step_ns = f->ns;
        rt->step_source = src[i];
        rt->step_line = f->line;
    }
}

void rtc__ssp_realtime_clear(rtc_ssp_realtime *rt)
{
    free(rt->estimator);
    free(rt->algorithm);
    for (size_t i = 0; rt->record && i < rt->n_record; i++)
        free(rt->record[i]);
    free(rt->record);
    for (size_t i = 0; rt->expose && i < rt->n_expose; i++)
        free(rt->expose[i]);
    free(rt->expose);
    rtc__ssp_settings_free(rt->settings, rt->n_settings);
    memset(rt, 0, sizeof *rt);
}
