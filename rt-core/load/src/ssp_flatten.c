/*
 * SSP loader: flattening of connections.
 *
 * The connections of an SSD form a graph whose nodes are component connectors (leaves)
 * and system connectors (junctions). The engine only couples components, so every path
 * leaf → junction → ... → leaf becomes one connection, with the transformations along it
 * composed and suppressUnitConversion set if any part suppresses it.
 *
 * Direction: "start" and "end" in SSP do not denote the data flow (XSD of ssd:Connection);
 * the kinds do. A component's output (calculatedParameter, constant, local) is a source
 * and its input (parameter, structuralParameter) a sink; a system connector is the same
 * seen from outside and the opposite seen from inside (an input of system S feeds the
 * elements of S). Each edge is oriented from its source end to its sink end; when the
 * kinds do not say (inout, unspecified, no kind match) the written direction is kept.
 *
 * The top-level system's own connectors are the system's ports: a chain that starts at
 * one (a system input) or ends at one (a system output) is kept with a NULL element, and
 * the system builder makes the input settable and the output recordable under the
 * connector's name. A top-level connector that links an inner source to an inner sink is
 * a pass-through and the chain simply continues through it.
 */
#include "ssp_priv.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One chain being walked: edge indices, first to last. */
typedef struct chain {
    size_t *edges;
    size_t n;
} chain;

/* The connector a graph node stands for. */
static const rtc_ssp_connector *node_conn(const rtc__ssp_load *L, const rtc__ssp_node *nd)
{
    if (nd->is_sys)
        return &L->systems[nd->owner].connectors[nd->conn];
    return &L->ssp->components[nd->owner].connectors[nd->conn];
}

/* +1: data leaves this end into the edge; -1: data enters it; 0: the kind does not say. */
static int role(const rtc__ssp_load *L, const rtc__ssp_edge *e, const rtc__ssp_node *nd)
{
    int r = 0;
    switch (node_conn(L, nd)->kind) {
    case RTC_SSP_KIND_OUTPUT:
    case RTC_SSP_KIND_CALCULATED_PARAMETER:
    case RTC_SSP_KIND_CONSTANT:
    case RTC_SSP_KIND_LOCAL:
        r = 1;
        break;
    case RTC_SSP_KIND_INPUT:
    case RTC_SSP_KIND_PARAMETER:
    case RTC_SSP_KIND_STRUCTURAL_PARAMETER:
        r = -1;
        break;
    default:
        break;
    }
    /* A system's own connector seen from inside the system plays the opposite role. */
    return nd->is_sys && nd->owner == e->sys ? -r : r;
}

/* Swap an edge whose written start is where the data arrives. Only a definite kind on
 * one side and no contradiction on the other triggers a swap. */
static void orient(const rtc__ssp_load *L, rtc__ssp_edge *e)
{
    int rf = role(L, e, &e->from), rt = role(L, e, &e->to);
    if ((rf == -1 && rt != -1) || (rf == 0 && rt == 1)) {
        rtc__ssp_node t = e->from;
        e->from = e->to;
        e->to = t;
    }
}

static bool same_node(const rtc__ssp_node *a, const rtc__ssp_node *b)
{
    return a->is_sys == b->is_sys && a->owner == b->owner && a->conn == b->conn;
}

static bool is_top(const rtc__ssp_node *nd)
{
    return nd->is_sys && nd->owner == 0;
}

/* Edges leaving (@p out) or entering a node. Linear scans: systems have at most a few
 * thousand connections and this runs once per load. */
static size_t degree(const rtc__ssp_load *L, const rtc__ssp_node *nd, bool out)
{
    size_t k = 0;
    for (size_t i = 0; i < L->n_edges; i++)
        k += same_node(out ? &L->edges[i].from : &L->edges[i].to, nd);
    return k;
}

/* "sub.inner.u" for a junction (the top-level system's connectors by their name). */
static void junction_name(const rtc__ssp_load *L, const rtc__ssp_node *nd, char *buf,
                          size_t cap)
{
    const char *p = L->systems[nd->owner].path;
    snprintf(buf, cap, "%s%s%s", p, p[0] ? "." : "", node_conn(L, nd)->name);
}

/* Deep copy: each flattened connection owns its transformation, even when several
 * chains share the edge that carries it. */
static int copy_transform(const rtc_ssp_transform *src, rtc_ssp_transform *dst)
{
    *dst = *src;
    dst->entries = NULL;
    dst->n_entries = 0;
    if (!src->n_entries)
        return RTC_OK;
    dst->entries = calloc(src->n_entries, sizeof *dst->entries);
    if (!dst->entries)
        return RTC_ENOMEM;
    for (size_t i = 0; i < src->n_entries; i++) {
        dst->entries[i] = src->entries[i];
        dst->entries[i].source_name = NULL;
        dst->entries[i].target_name = NULL;
        dst->n_entries++;
        if (rtc__ssp_dup(src->entries[i].source_name, &dst->entries[i].source_name) ||
            rtc__ssp_dup(src->entries[i].target_name, &dst->entries[i].target_name))
            return RTC_ENOMEM;
    }
    return RTC_OK;
}

/* acc := next ∘ acc. Two linear maps compose; anything else twice is refused. */
static int compose(rtc__ssp_load *L, rtc_ssp_transform *acc, const rtc__ssp_edge *e)
{
    const rtc_ssp_transform *t = &e->tr;
    if (t->kind == RTC_SSP_TRANSFORM_NONE)
        return RTC_OK;
    if (acc->kind == RTC_SSP_TRANSFORM_NONE)
        return copy_transform(t, acc);
    if (acc->kind == RTC_SSP_TRANSFORM_LINEAR && t->kind == RTC_SSP_TRANSFORM_LINEAR) {
        acc->offset = t->factor * acc->offset + t->offset;
        acc->factor *= t->factor;
        return RTC_OK;
    }
    rtc_log(&L->lg, RTC_LOG_ERROR, "%s:%u: Connection: a chain through subsystem connectors "
            "carries two transformations (lines %u and %u); only linear ones compose",
            L->x.file, e->line, acc->line, t->line);
    return RTC_EPARSE;
}

/* An end of a flattened connection, with names copied for messages. */
static int endpoint(const rtc__ssp_load *L, const rtc__ssp_node *nd, rtc_ssp_endpoint *ep)
{
    ep->connector = nd->conn;
    ep->component = nd->is_sys ? -1 : nd->owner;
    if (!nd->is_sys && rtc__ssp_dup(L->ssp->components[nd->owner].name, &ep->element))
        return RTC_ENOMEM;
    return rtc__ssp_dup(node_conn(L, nd)->name, &ep->name);
}

/* The junctions a chain passes, for diagnostics ("sub.u sub.inner.a"). */
static int build_via(const rtc__ssp_load *L, const chain *ch, char **out)
{
    char buf[1024] = "", name[256];
    for (size_t i = 0; i + 1 < ch->n; i++) {
        junction_name(L, &L->edges[ch->edges[i]].to, name, sizeof name);
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%s", len ? " " : "", name);
    }
    return rtc__ssp_dup(buf[0] ? buf : NULL, out);
}

/* Settings of the chain: the first rtc:Connection found; a second one is reported. */
static int chain_settings(rtc__ssp_load *L, const chain *ch, rtc_ssp_link_settings *out)
{
    for (size_t i = 0; i < ch->n; i++) {
        const rtc__ssp_edge *e = &L->edges[ch->edges[i]];
        if (!e->set.present)
            continue;
        if (out->present) {
            rtc_log(&L->lg, RTC_LOG_WARNING, "%s:%u: rtc:Connection: a chain has settings "
                    "at lines %u and %u; using line %u", L->x.file, e->set.line, out->line,
                    e->set.line, out->line);
            continue;
        }
        *out = e->set;
        out->estimator = out->params = NULL;
        if (rtc__ssp_dup(e->set.estimator, &out->estimator) ||
            rtc__ssp_dup(e->set.params, &out->params))
            return RTC_ENOMEM;
    }
    return RTC_OK;
}

/* A chain's connection: its ends, its composed transformation, suppressUnitConversion
 * if any part suppresses, and the line of the edge into the end connector (where a
 * second connection to the same input would be reported). */
static int fill(rtc__ssp_load *L, const chain *ch, rtc_ssp_connection *c)
{
    const rtc__ssp_edge *first = &L->edges[ch->edges[0]];
    const rtc__ssp_edge *last = &L->edges[ch->edges[ch->n - 1]];
    c->line = last->line;
    if (endpoint(L, &first->from, &c->start) || endpoint(L, &last->to, &c->end) ||
        build_via(L, ch, &c->via) || rtc__ssp_dup(L->ssp->display_path, &c->file))
        return RTC_ENOMEM;
    for (size_t i = 0; i < ch->n; i++) {
        const rtc__ssp_edge *e = &L->edges[ch->edges[i]];
        c->suppress_unit_conversion |= e->suppress;
        int rc = compose(L, &c->transform, e);
        if (rc != RTC_OK)
            return rc;
    }
    return chain_settings(L, ch, &c->settings);
}

/* Append the connection of a complete chain. */
static int emit(rtc__ssp_load *L, const chain *ch)
{
    rtc_ssp *s = L->ssp;
    if (rtc__ssp_grow((void **)&s->connections, &L->cap_connections, s->n_connections,
                      sizeof *s->connections))
        return RTC_ENOMEM;
    rtc_ssp_connection *c = &s->connections[s->n_connections++];
    c->transform.factor = 1.0;
    return fill(L, ch, c);
}

/* Cycle guard: a junction already on the chain is not entered again. */
static bool on_chain(const rtc__ssp_load *L, const chain *ch, const rtc__ssp_node *nd)
{
    for (size_t i = 0; i < ch->n; i++)
        if (same_node(&L->edges[ch->edges[i]].to, nd))
            return true;
    return false;
}

/* Depth-first walk from the end of the chain: a leaf (or a top-level connector with
 * nothing after it) completes the chain; a junction continues along every edge leaving
 * it (fan-out); a subsystem connector with nothing after it ends the walk quietly. */
static int walk(rtc__ssp_load *L, chain *ch)
{
    const rtc__ssp_node *to = &L->edges[ch->edges[ch->n - 1]].to;
    size_t out = to->is_sys ? degree(L, to, true) : 0;
    if (!to->is_sys || (is_top(to) && out == 0))
        return emit(L, ch);
    if (out == 0) {
        char name[256];
        junction_name(L, to, name, sizeof name);
        rtc_log(&L->lg, RTC_LOG_INFO, "%s:%u: subsystem connector \"%s\" leads nowhere",
                L->x.file, L->edges[ch->edges[ch->n - 1]].line, name);
        return RTC_OK;
    }
    for (size_t i = 0; i < L->n_edges; i++) {
        if (!same_node(&L->edges[i].from, to) || on_chain(L, ch, &L->edges[i].to))
            continue;
        ch->edges[ch->n++] = i;
        int rc = walk(L, ch);
        ch->n--;
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

/* A chain starts at a component connector, or at a top-level connector fed by nothing. */
static bool starts_chain(const rtc__ssp_load *L, const rtc__ssp_edge *e)
{
    if (!e->from.is_sys)
        return true;
    if (is_top(&e->from))
        return degree(L, &e->from, false) == 0;
    return false;
}

/* Orient every edge, then walk from every chain start in edge order, so the output
 * order follows the document. */
int rtc__ssp_flatten(rtc__ssp_load *L)
{
    for (size_t i = 0; i < L->n_edges; i++)
        orient(L, &L->edges[i]);
    chain ch = {.edges = calloc(L->n_edges + 1, sizeof *ch.edges)};
    if (!ch.edges)
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < L->n_edges; i++) {
        if (!starts_chain(L, &L->edges[i]))
            continue;
        ch.edges[0] = i;
        ch.n = 1;
        rc = walk(L, &ch);
    }
    free(ch.edges);
    return rc;
}
