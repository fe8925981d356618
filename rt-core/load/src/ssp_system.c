/*
 * SSP loader: ssd:System (recursively), ssd:Component, ssd:Connector and ssd:Connection.
 *
 * Components of every nesting depth go straight into the root's flat component list
 * under their dotted path. Systems are kept only while loading (rtc__ssp_sys), because a
 * connection may name a subsystem's connector; ssp_flatten.c then replaces every chain
 * through such connectors by direct component-to-component connections.
 *
 * Parameter bindings of a system are read after its elements: a system-level name such
 * as "B.C.P2" can only be resolved once component B.C exists. Precedence does not depend
 * on this order (it depends on hierarchy depth and on order within one element).
 */
#include "ssp_priv.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *sys_name(const rtc__ssp_load *L, long sys)
{
    return L->systems[sys].name ? L->systems[sys].name : "?";
}

/* Systems are numbered in document order; index 0 is the top-level system. Paths are
 * built from the parent's so that every component gets its dotted name directly. */
int rtc__ssp_add_system(rtc__ssp_load *L, long parent, const char *name, long *out)
{
    if (rtc__ssp_grow((void **)&L->systems, &L->cap_systems, L->n_systems, sizeof *L->systems))
        return RTC_ENOMEM;
    rtc__ssp_sys *s = &L->systems[L->n_systems];
    const char *pp = parent >= 0 ? L->systems[parent].path : NULL;
    size_t len = (pp ? strlen(pp) + 1 : 0) + strlen(name) + 1;
    s->path = malloc(len);
    s->name = strdup(name);
    L->n_systems++;
    if (!s->path || !s->name)
        return RTC_ENOMEM;
    if (parent < 0)
        s->path[0] = '\0'; /* the top-level system's name is not part of dotted paths */
    else
        snprintf(s->path, len, "%s%s%s", pp, pp[0] ? "." : "", name);
    s->depth = parent >= 0 ? L->systems[parent].depth + 1 : 0;
    s->parent = parent;
    *out = (long)(L->n_systems - 1);
    return RTC_OK;
}

/* Register element @p name of system @p sys; names are unique among siblings, and dotted
 * paths must stay unique after flattening ("a.b" beside subsystem "a" with "b"). */
static int add_child(rtc__ssp_load *L, long sys, const xmlNode *n, const char *name, long comp,
                     long sub)
{
    rtc__ssp_sys *s = &L->systems[sys];
    for (size_t i = 0; i < s->n_children; i++) {
        if (strcmp(s->children[i].name, name) == 0) {
            rtc__xml_attr_error(&L->x, n, "name", "duplicate element name \"%s\" in system "
                                "\"%s\" (first at line %u)", name, s->name,
                                s->children[i].line);
            return RTC_EPARSE;
        }
    }
    if (rtc__ssp_grow((void **)&s->children, &s->cap_children, s->n_children,
                      sizeof *s->children))
        return RTC_ENOMEM;
    rtc__ssp_child *c = &s->children[s->n_children];
    if (rtc__ssp_dup(name, &c->name))
        return RTC_ENOMEM;
    c->comp = comp;
    c->sys = sub;
    c->line = rtc__xml_line(n);
    s->n_children++;
    return RTC_OK;
}

/* "sub" + "plant" → "sub.plant"; the top-level system contributes nothing. */
static char *dotted(const rtc__ssp_load *L, long sys, const char *name)
{
    const char *pp = L->systems[sys].path;
    size_t len = strlen(pp) + strlen(name) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s%s%s", pp, pp[0] ? "." : "", name);
    return p;
}

/* ---- ssd:Connector ---- */

/* The type element of a connector and its attributes: unit for reals (a unit that is
 * not defined is only a warning: the FMU may define it), the enumeration's name, the
 * mime type of binaries, the clock attributes of SSP 2.0. */
static int read_type(rtc__ssp_load *L, const xmlNode *t, rtc_ssp_connector *c)
{
    static const char *const unit_attrs[] = {"unit", NULL};
    static const char *const enum_attrs[] = {"name", NULL};
    static const char *const bin_attrs[] = {"mime-type", NULL};
    static const char *const clock_attrs[] = {
        "intervalVariability", "intervalDecimal", "shiftDecimal", "supportsFraction",
        "resolution", "intervalCounter", "shiftCounter", "priority", NULL};
    static const char *const no_attrs[] = {NULL};
    c->has_type = true;
    int rc = RTC_OK;
    if (c->type == RTC_TYPE_FLOAT64 || c->type == RTC_TYPE_FLOAT32) {
        rtc__xml_check_attrs(&L->x, t, unit_attrs);
        rc = rtc__xml_attr_dup(&L->x, t, "unit", false, &c->unit);
        /* unit="" (OMSimulator's unitless connectors) is kept as "": dimensionless of
         * unknown unit, connected without conversion by the system builder */
        if (rc == RTC_OK && c->unit && c->unit[0] && !rtc_ssp_find_unit(L->ssp, c->unit))
            rtc__xml_attr_warn(&L->x, t, "unit", "unit \"%s\" is not defined in ssd:Units",
                               c->unit);
    } else if (c->type == RTC_TYPE_ENUM) {
        rtc__xml_check_attrs(&L->x, t, enum_attrs);
        rc = rtc__xml_attr_dup(&L->x, t, "name", true, &c->enumeration);
    } else if (c->type == RTC_TYPE_BINARY) {
        rtc__xml_check_attrs(&L->x, t, bin_attrs);
        const char *m = rtc__xml_attr(t, "mime-type");
        rc = rtc__ssp_dup(m ? m : "application/octet-stream", &c->mime_type);
    } else {
        rtc__xml_check_attrs(&L->x, t, c->type == RTC_TYPE_CLOCK ? clock_attrs : no_attrs);
    }
    return rc;
}

/* ssc:Dimension (SSP 2.0): a fixed size, or a size given by another connector (a
 * structural parameter of the component: the component's own array size then applies). */
static int read_dimension(rtc__ssp_load *L, const xmlNode *t, rtc_ssp_connector *c)
{
    static const char *const known[] = {"size", "sizeConnector", NULL};
    rtc__xml_check_attrs(&L->x, t, known);
    uint64_t size = 0;
    bool has = false;
    if (rtc__xml_attr_u64(&L->x, t, "size", 64, &size, &has) != RTC_OK)
        return RTC_EPARSE;
    if (has && rtc__xml_attr(t, "sizeConnector")) {
        rtc__xml_error(&L->x, t, "Dimension: size and sizeConnector are exclusive");
        return RTC_EPARSE;
    }
    if (has && size == 0) {
        rtc__xml_attr_error(&L->x, t, "size", "must be at least 1");
        return RTC_EPARSE;
    }
    uint64_t *d = realloc(c->dims, (c->n_dims + 1) * sizeof *d);
    if (!d)
        return RTC_ENOMEM;
    c->dims = d;
    d[c->n_dims++] = size;
    return RTC_OK;
}

/* Only the first type element counts; a second one is reported as unknown. */
static int read_connector_children(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_connector *c)
{
    int rc = RTC_OK;
    for (const xmlNode *t = rtc__xml_child(n); t; t = rtc__xml_next(t)) {
        if (rtc__ssp_is(t, RTC_SSP_NS_SSC, "Dimension")) {
            rc = read_dimension(L, t, c);
        } else if (!c->has_type && rtc__ssp_type_of(t, RTC_SSP_NS_SSC, &c->type)) {
            rc = read_type(L, t, c);
        } else if (rtc__ssp_is(t, RTC_SSP_NS_SSD, "Annotations")) {
            rc = rtc__ssp_read_annotations(L, t, RTC__SSP_AT_OTHER, NULL, NULL);
        } else {
            rtc__ssp_unknown(&L->x, t);
            continue;
        }
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

int rtc__ssp_read_connector(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_connector *c)
{
    static const char *const known[] = {"name", "kind", "id", "description", NULL};
    static const char *const kinds[] = {"input",       "output",   "parameter",
                                        "calculatedParameter", "inout",
                                        "structuralParameter", "constant", "local",
                                        "unspecified", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    c->line = rtc__xml_line(n);
    int rc = rtc__xml_attr_dup(&L->x, n, "name", true, &c->name);
    if (rc != RTC_OK)
        return rc;
    int kind = 0;
    bool has = false;
    if (rtc__xml_attr_enum(&L->x, n, "kind", kinds, &kind, &has) != RTC_OK)
        return RTC_EPARSE;
    if (!has) {
        rtc__xml_attr_error(&L->x, n, "kind", "missing (required)");
        return RTC_EPARSE;
    }
    c->kind = (rtc_ssp_kind)kind;
    return read_connector_children(L, n, c);
}

/* A Dimension's sizeConnector names a connector of the same element (whose value is the
 * size); one that names nothing leaves the size undefined, so it is an error, reported at
 * the Dimension. Checked once the element's connectors are all read: the size connector
 * may come later in the list. */
static void check_size_connectors(rtc__ssp_load *L, const xmlNode *n,
                                  const rtc_ssp_connector *arr, size_t count)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        for (const xmlNode *d = rtc__ssp_is(c, RTC_SSP_NS_SSD, "Connector") ? rtc__xml_child(c)
                                                                            : NULL;
             d; d = rtc__xml_next(d)) {
            const char *ref = rtc__ssp_is(d, RTC_SSP_NS_SSC, "Dimension")
                                  ? rtc__xml_attr(d, "sizeConnector") : NULL;
            size_t i = 0;
            while (ref && i < count && strcmp(arr[i].name, ref) != 0)
                i++;
            if (ref && i == count) {
                rtc__xml_attr_error(&L->x, d, "sizeConnector", "no connector \"%s\" in this "
                                    "element gives the size", ref);
                rtc__ssp_fail(L, RTC_EPARSE);
            }
        }
    }
}

/* Connector names are unique within their element: connections address them by name. */
static int read_connectors(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_connector **arr,
                           size_t *count)
{
    *arr = calloc(rtc__xml_count(n, NULL) + 1, sizeof **arr);
    if (!*arr)
        return RTC_ENOMEM;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSD, "Connector")) {
            rtc__ssp_unknown(&L->x, c);
            continue;
        }
        rtc_ssp_connector *k = &(*arr)[*count];
        int rc = rtc__ssp_read_connector(L, c, k);
        for (size_t i = 0; rc == RTC_OK && i < *count; i++) {
            if (strcmp((*arr)[i].name, k->name) == 0) {
                rtc__xml_attr_error(&L->x, c, "name", "duplicate connector \"%s\" (first at "
                                    "line %u)", k->name, (*arr)[i].line);
                rc = RTC_EPARSE;
            }
        }
        if (rc != RTC_OK) {
            rtc__ssp_connector_clear(k);
            if (rc == RTC_ENOMEM)
                return rc;
            rtc__ssp_fail(L, rc);
            continue;
        }
        (*count)++;
    }
    check_size_connectors(L, n, *arr, *count);
    return RTC_OK;
}

/* ---- ssd:Component ---- */

/* The source of a component. An FMU needs one; other types (our I/O components,
 * OpenMCx built-ins with source="") may do without. Components that reference another
 * SSD or SSP would need recursive loading and are refused explicitly. */
static int read_source(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_component *c)
{
    const char *src = rtc__xml_attr(n, "source");
    bool fmu = strcmp(c->type, RTC_SSP_FMU_TYPE) == 0;
    if (strcmp(c->type, "application/x-ssp-definition") == 0 ||
        strcmp(c->type, "application/x-ssp-package") == 0) {
        rtc__xml_attr_error(&L->x, n, "type", "components that reference another SSD/SSP "
                            "(%s) are not supported", c->type);
        return RTC_EUNSUPPORTED;
    }
    if (!src && fmu) {
        rtc__xml_attr_error(&L->x, n, "source", "missing (required for an FMU component)");
        return RTC_EPARSE;
    }
    if (src && src[0] == '\0') {
        if (!fmu)
            return RTC_OK; /* OpenMCx writes source="" for its built-in components */
        rtc__xml_attr_error(&L->x, n, "source", "empty");
        return RTC_EPARSE;
    }
    if (!src)
        return RTC_OK;
    if (rtc__ssp_dup(src, &c->source_uri))
        return RTC_ENOMEM;
    return rtc__ssp_resolve(&L->x, n, "source", src, L->ssd_dir, L->ssp->extract_dir,
                            &c->source);
}

/* Attributes of ssd:Component: type (default: FMU), implementation, source. */
static int read_component_attrs(rtc__ssp_load *L, const xmlNode *n, rtc_ssp_component *c)
{
    static const char *const known[] = {"name", "type", "source", "implementation", "id",
                                        "description", NULL};
    static const char *const impls[] = {"any", "ModelExchange", "CoSimulation",
                                        "ScheduledExecution", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    const char *type = rtc__xml_attr(n, "type");
    if (rtc__ssp_dup(type ? type : RTC_SSP_FMU_TYPE, &c->type))
        return RTC_ENOMEM;
    int impl = 0;
    int rc = rtc__xml_attr_enum(&L->x, n, "implementation", impls, &impl, NULL);
    c->implementation = (rtc_ssp_impl)impl;
    int rs = read_source(L, n, c);
    return rs != RTC_OK ? rs : rc;
}

/* The component pointer is re-read each time: reading bindings can append to other
 * root arrays, never to components, but the index form keeps that assumption local. */
static int read_component_children(rtc__ssp_load *L, const xmlNode *n, long ci)
{
    for (const xmlNode *k = rtc__xml_child(n); k; k = rtc__xml_next(k)) {
        rtc_ssp_component *c = &L->ssp->components[ci];
        int rc = RTC_OK;
        if (rtc__ssp_is(k, RTC_SSP_NS_SSD, "Connectors") && !c->connectors)
            rc = read_connectors(L, k, &c->connectors, &c->n_connectors);
        else if (rtc__ssp_is(k, RTC_SSP_NS_SSD, "ParameterBindings"))
            rc = rtc__ssp_read_bindings(L, k, ci, -1, c->depth);
        else if (rtc__ssp_is(k, RTC_SSP_NS_SSD, "Annotations"))
            rc = rtc__ssp_read_annotations(L, k, RTC__SSP_AT_COMPONENT, c, NULL);
        else
            rtc__ssp_unknown(&L->x, k);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* ssd:Component: registered in its system first (so sibling duplicates are reported as
 * such), then under its dotted name in the root. */
static int read_component(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    rtc_ssp *s = L->ssp;
    const char *name = rtc__xml_attr(n, "name");
    if (!name || !name[0]) {
        rtc__xml_attr_error(&L->x, n, "name", name ? "empty" : "missing (required)");
        return RTC_EPARSE;
    }
    int rc = add_child(L, sys, n, name, (long)s->n_components, -1);
    if (rc != RTC_OK)
        return rc;
    char *full = dotted(L, sys, name);
    if (!full)
        return RTC_ENOMEM;
    if (rtc_ssp_find_component(s, full)) {
        rtc__xml_attr_error(&L->x, n, "name", "component \"%s\" already exists (flattened "
                            "names must be unique)", full);
        free(full);
        rtc__ssp_sys *ps = &L->systems[sys];
        ps->children[ps->n_children - 1].comp = -1; /* known, but refers to nothing */
        return RTC_EPARSE;
    }
    if (rtc__ssp_grow((void **)&s->components, &L->cap_components, s->n_components,
                      sizeof *s->components)) {
        free(full);
        return RTC_ENOMEM;
    }
    long ci = (long)s->n_components++;
    rtc_ssp_component *c = &s->components[ci];
    c->name = full;
    c->depth = L->systems[sys].depth + 1;
    c->line = rtc__xml_line(n);
    rc = read_component_attrs(L, n, c);
    if (rc == RTC_ENOMEM)
        return rc;
    rtc__ssp_fail(L, rc);
    return read_component_children(L, n, ci);
}

/* ---- ssd:Connection ---- */

static const rtc__ssp_child *find_child(const rtc__ssp_sys *s, const char *name)
{
    for (size_t i = 0; i < s->n_children; i++)
        if (strcmp(s->children[i].name, name) == 0)
            return &s->children[i];
    return NULL;
}

static long find_conn(const rtc_ssp_connector *arr, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(arr[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* One end of a connection: a connector of this system (no element), of a component,
 * or of a subsystem. Every miss is one error naming the attribute at fault. */
static int resolve_end(rtc__ssp_load *L, const xmlNode *n, long sys, const char *el_attr,
                       const char *cn_attr, rtc__ssp_node *out)
{
    const char *el = rtc__xml_attr(n, el_attr), *cn = rtc__xml_attr(n, cn_attr);
    if (!cn) {
        rtc__xml_attr_error(&L->x, n, cn_attr, "missing (required)");
        return RTC_EPARSE;
    }
    const rtc__ssp_sys *s = &L->systems[sys];
    /* SSP: an end without an element names a connector of the enclosing system.
     * OMSimulator writes that as an empty attribute (startElement=""): same meaning. */
    if (el && !el[0])
        el = NULL;
    const rtc__ssp_child *ch = el ? find_child(s, el) : NULL;
    if (ch && ch->comp < 0 && ch->sys < 0)
        return RTC_EPARSE; /* the element itself was refused (and reported) */
    if (el && !ch) {
        rtc__xml_attr_error(&L->x, n, el_attr, "no component \"%s\" in system \"%s\"", el,
                            s->name);
        return RTC_EPARSE;
    }
    out->is_sys = !ch || ch->sys >= 0;
    out->owner = !ch ? sys : ch->sys >= 0 ? ch->sys : ch->comp;
    if (out->is_sys) {
        const rtc__ssp_sys *t = &L->systems[out->owner];
        out->conn = find_conn(t->connectors, t->n_connectors, cn);
    } else {
        const rtc_ssp_component *c = &L->ssp->components[out->owner];
        out->conn = find_conn(c->connectors, c->n_connectors, cn);
    }
    if (out->conn < 0) {
        rtc__xml_attr_error(&L->x, n, cn_attr, "no %s \"%s\" in %s \"%s\"",
                            out->is_sys && L->systems[out->owner].is_dict ? "entry" : "connector",
                            cn, !out->is_sys ? "component"
                                : L->systems[out->owner].is_dict ? "signal dictionary"
                                                                 : "system",
                            out->is_sys ? sys_name(L, out->owner) : el);
        return RTC_EPARSE;
    }
    return RTC_OK;
}

/* At most one transformation per connection (the XSD's choice); annotations may carry
 * our rtc:Connection settings. */
static int read_connection_children(rtc__ssp_load *L, const xmlNode *n, rtc__ssp_edge *e)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        if (e->tr.kind == RTC_SSP_TRANSFORM_NONE &&
            rtc__ssp_read_transform(L, &L->x, c, &e->tr, &rc)) {
            /* read (status in rc) */
        } else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Annotations")) {
            rc = rtc__ssp_read_annotations(L, c, RTC__SSP_AT_CONNECTION, NULL, &e->set);
        } else {
            rtc__ssp_unknown(&L->x, c);
        }
        if (rc != RTC_OK)
            return rc;
    }
    return RTC_OK;
}

static void edge_clear(rtc__ssp_edge *e)
{
    rtc__ssp_transform_clear(&e->tr);
    free(e->set.estimator);
    free(e->set.params);
    memset(e, 0, sizeof *e);
}

/* ssd:Connection: both ends are resolved even when the first fails, so a connection
 * with two bad ends gets both reported in one run. */
static int read_connection(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    static const char *const known[] = {"startElement", "startConnector", "endElement",
                                        "endConnector", "suppressUnitConversion", "id",
                                        "description", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    rtc__ssp_edge e = {.sys = sys, .tr = {.factor = 1.0}, .line = rtc__xml_line(n)};
    int rc = resolve_end(L, n, sys, "startElement", "startConnector", &e.from);
    int r2 = resolve_end(L, n, sys, "endElement", "endConnector", &e.to);
    int r3 = rtc__xml_attr_bool(&L->x, n, "suppressUnitConversion", &e.suppress, NULL);
    if (rc == RTC_OK)
        rc = r2 != RTC_OK ? r2 : r3;
    if (rc == RTC_OK)
        rc = read_connection_children(L, n, &e);
    if (rc == RTC_OK)
        rc = rtc__ssp_grow((void **)&L->edges, &L->cap_edges, L->n_edges, sizeof *L->edges);
    if (rc != RTC_OK) {
        edge_clear(&e);
        return rc;
    }
    L->edges[L->n_edges++] = e;
    return RTC_OK;
}

/* ---- ssd:System ---- */

/* Second pass over a system: bindings, connections and annotations, which refer to
 * what the first pass created. */
static int read_system(rtc__ssp_load *L, const xmlNode *n, long sys);

/* A nested ssd:System: a new entry in the load's systems, read recursively. */
static int read_subsystem(rtc__ssp_load *L, const xmlNode *n, long parent)
{
    const char *name = rtc__xml_attr(n, "name");
    if (!name || !name[0]) {
        rtc__xml_attr_error(&L->x, n, "name", name ? "empty" : "missing (required)");
        return RTC_EPARSE;
    }
    long sub = -1;
    int rc = rtc__ssp_add_system(L, parent, name, &sub);
    if (rc == RTC_OK)
        rc = add_child(L, parent, n, name, -1, sub);
    return rc == RTC_OK ? read_system(L, n, sub) : rc;
}

/* ssd:SignalDictionaryReference: an element whose connectors are the entries of the
 * dictionary it names (ssp_dict.c); a reference to nothing stays known but unusable. */
static int read_dict_ref(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    const char *name = rtc__xml_attr(n, "name");
    if (!name || !name[0]) {
        rtc__xml_attr_error(&L->x, n, "name", name ? "empty" : "missing (required)");
        return RTC_EPARSE;
    }
    long dict = -1;
    int rc = rtc__ssp_read_dict_ref(L, n, sys, &dict);
    int r2 = add_child(L, sys, n, name, -1, dict);
    return r2 == RTC_ENOMEM || rc == RTC_OK ? r2 : rc;
}

/* ssd:Elements: components, subsystems, signal dictionary references. */
static int read_elements(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Component"))
            rc = read_component(L, c, sys);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "System"))
            rc = read_subsystem(L, c, sys);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "SignalDictionaryReference"))
            rc = read_dict_ref(L, c, sys);
        else
            rtc__ssp_unknown(&L->x, c);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* ssd:Connections of one system. */
static int read_connections(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSD, "Connection")) {
            rtc__ssp_unknown(&L->x, c);
            continue;
        }
        int rc = read_connection(L, c, sys);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* First pass: what the second pass refers to (connectors, elements). Dictionaries come
 * first although the schema puts them last: references inside the elements (and in
 * subsystems) look them up while being read. */
static int read_system_structure(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int rc = rtc__ssp_is(c, RTC_SSP_NS_SSD, "SignalDictionaries")
                     ? rtc__ssp_read_dictionaries(L, c, sys) : RTC_OK;
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        rtc__ssp_sys *s = &L->systems[sys];
        if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Connectors") && !s->connectors)
            rc = read_connectors(L, c, &s->connectors, &s->n_connectors);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Elements"))
            rc = read_elements(L, c, sys);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

static int read_system(rtc__ssp_load *L, const xmlNode *n, long sys)
{
    static const char *const known[] = {"name", "id", "description", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    int rc = read_system_structure(L, n, sys);
    for (const xmlNode *c = rtc__xml_child(n); rc == RTC_OK && c; c = rtc__xml_next(c)) {
        rtc__ssp_at at = sys == 0 ? RTC__SSP_AT_TOP_SYSTEM : RTC__SSP_AT_SUBSYSTEM;
        if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "ParameterBindings"))
            rc = rtc__ssp_read_bindings(L, c, -1, sys, L->systems[sys].depth);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Connections"))
            rc = read_connections(L, c, sys);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Annotations"))
            rc = rtc__ssp_read_annotations(L, c, at, NULL, NULL);
        else if (!rtc__ssp_is(c, RTC_SSP_NS_SSD, "SignalDictionaries") &&
                 !rtc__ssp_is(c, RTC_SSP_NS_SSD, "Connectors") &&
                 !rtc__ssp_is(c, RTC_SSP_NS_SSD, "Elements"))
            rtc__ssp_unknown(&L->x, c);
        if (rc != RTC_ENOMEM) {
            rtc__ssp_fail(L, rc);
            rc = RTC_OK;
        }
    }
    return rc;
}

/* The top-level system: its name is kept in the root, its path is empty. */
int rtc__ssp_read_top_system(rtc__ssp_load *L, const xmlNode *n)
{
    int rc = rtc__xml_attr_dup(&L->x, n, "name", true, &L->ssp->system_name);
    if (rc != RTC_OK)
        return rc;
    long top = -1;
    rc = rtc__ssp_add_system(L, -1, L->ssp->system_name, &top);
    return rc == RTC_OK ? read_system(L, n, top) : rc;
}

void rtc__ssp_systems_free(rtc__ssp_load *L)
{
    for (size_t i = 0; L->systems && i < L->n_systems; i++) {
        rtc__ssp_sys *s = &L->systems[i];
        /* The top-level system's connectors live on in the root. */
        if (i == 0 && !L->ssp->connectors) {
            L->ssp->connectors = s->connectors;
            L->ssp->n_connectors = s->n_connectors;
            s->connectors = NULL;
        }
        for (size_t j = 0; s->connectors && j < s->n_connectors; j++)
            rtc__ssp_connector_clear(&s->connectors[j]);
        free(s->connectors);
        for (size_t j = 0; s->children && j < s->n_children; j++)
            free(s->children[j].name);
        free(s->children);
        free(s->path);
        free(s->name);
    }
    free(L->systems);
    L->systems = NULL;
    for (size_t i = 0; L->edges && i < L->n_edges; i++)
        edge_clear(&L->edges[i]);
    free(L->edges);
    L->edges = NULL;
}
