/*
 * SSP loader: values bound to system connectors (after flattening).
 *
 * A value bound to a system's connector is the value of what that connector feeds: it
 * flows along the connections leaving the connector (oriented by the flattening) through
 * any further subsystem connectors into every component connector it reaches, with the
 * connections' transformations applied, at the binding's own hierarchy level (so it
 * overrides a binding of the component itself, as a higher level does). The depth guard
 * stops a cycle of system connectors.
 */
#include "ssp_priv.h"

#include "rtcosim/status.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SSP converts a value into the unit of the connector it reaches before a connection's
 * transformation applies. Done here when both units are defined in the SSD; otherwise
 * the system builder converts the value (into the FMU variable's unit) afterwards. */
static int to_unit(rtc__ssp_load *L, const rtc_ssp_connector *to, rtc__ssp_value *w)
{
    const rtc_ssp_unit *a = w->unit ? rtc_ssp_find_unit(L->ssp, w->unit) : NULL;
    const rtc_ssp_unit *b = to->unit ? rtc_ssp_find_unit(L->ssp, to->unit) : NULL;
    double x;
    if (!a || !b || a == b || w->suppress || !rtc__xml_parse_f64(w->text, &x) ||
        memcmp(&a->base, &b->base, offsetof(rtc_base_unit, factor)) != 0)
        return RTC_OK; /* nothing to do, or the builder reports the mismatch */
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g",
             (a->base.factor * x + a->base.offset - b->base.offset) / b->base.factor);
    char *t = strdup(buf);
    if (!t)
        return RTC_ENOMEM;
    free(w->text);
    w->text = t;
    w->unit = to->unit;
    return RTC_OK;
}

static int flow(rtc__ssp_load *L, const rtc__ssp_node *from, const rtc__ssp_value *v, unsigned level,
                size_t depth, unsigned *reached)
{
    for (size_t i = 0; i < L->n_edges && depth <= L->n_edges; i++) {
        const rtc__ssp_edge *e = &L->edges[i];
        if (e->from.is_sys != from->is_sys || e->from.owner != from->owner ||
            e->from.conn != from->conn)
            continue;
        rtc__ssp_value w = *v;
        w.suppress |= e->suppress;
        if (!(w.text = strdup(v->text)))
            return RTC_ENOMEM;
        const rtc_ssp_connector *to =
            e->to.is_sys ? &L->systems[e->to.owner].connectors[e->to.conn]
                         : &L->ssp->components[e->to.owner].connectors[e->to.conn];
        int rc = e->tr.kind == RTC_SSP_TRANSFORM_LINEAR ? to_unit(L, to, &w) : RTC_OK;
        if (rc == RTC_OK)
            rc = rtc__ssp_transform_value(&L->x, &e->tr, &w);
        if (rc == RTC_OK && e->to.is_sys) {
            rc = flow(L, &e->to, &w, level, depth + 1, reached);
        } else if (rc == RTC_OK) {
            const rtc_ssp_component *c = &L->ssp->components[e->to.owner];
            (*reached)++;
            rc = rtc__ssp_merge(L, c->name, false, c->connectors[e->to.conn].name, level, &w);
        }
        free(w.text);
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* Index of the system whose dotted path is @p path, or -1. */
static long system_by_path(const rtc__ssp_load *L, const char *path)
{
    for (size_t i = 0; i < L->n_systems; i++)
        if (strcmp(L->systems[i].path, path) == 0)
            return (long)i;
    return -1;
}

int rtc__ssp_propagate_params(rtc__ssp_load *L)
{
    rtc_ssp *s = L->ssp;
    size_t n = s->n_params; /* values added below are component values: not revisited */
    for (size_t i = 0; i < n; i++) {
        if (!s->params[i].is_system)
            continue;
        /* rtc__ssp_merge() may move the array: work on a copy of what the value needs */
        rtc_ssp_param p = s->params[i];
        long sys = system_by_path(L, p.component);
        const rtc__ssp_sys *ss = sys >= 0 ? &L->systems[sys] : NULL;
        long conn = -1;
        for (size_t j = 0; ss && j < ss->n_connectors && conn < 0; j++)
            if (strcmp(ss->connectors[j].name, p.name) == 0)
                conn = (long)j;
        if (conn < 0)
            continue;
        rtc__ssp_node nd = {.is_sys = true, .owner = sys, .conn = conn};
        rtc__ssp_value v = {.name = p.name, .type = p.type, .text = p.value, .unit = p.unit,
                   .mime = p.mime_type, .suppress = p.suppress_unit_conversion,
                   .file = p.file, .line = p.line};
        unsigned reached = 0;
        int rc = flow(L, &nd, &v, p.level, 0, &reached);
        s->params[i].n_targets = reached;
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}
