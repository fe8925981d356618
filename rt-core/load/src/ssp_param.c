/*
 * SSP loader: parameter bindings (ssd:ParameterBindings), parameter sets (.ssv files or
 * inline ssv:ParameterSet) and parameter mappings (.ssm files or inline
 * ssm:ParameterMapping).
 *
 * Name resolution of one value, as the standard describes it: the binding's prefix is
 * prepended to the name in the set, each MappingEntry whose source is that name renames it
 * (and may transform the value; several entries feed several targets), and the result is a
 * variable name of the component, or for a system a hierarchical name "C.P2" / "B.C.P2"
 * that is split at the longest component path it starts with.
 *
 * Precedence: values are merged as they are read. A value replaces an earlier one for the
 * same (component, name) unless the earlier one came from a higher hierarchy level (a
 * smaller depth): "later bindings override earlier ones at the same level; a higher
 * hierarchy level overrides a lower one". Since only depth and order within one element
 * matter, the order in which elements are visited does not.
 */
#include "ssp_priv.h"

#include "rtcosim/archive.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>

/* One MappingEntry of a parameter mapping. */
typedef struct map_entry {
    char *source, *target;
    bool suppress;
    rtc_ssp_transform tr;
    unsigned line;
} map_entry;

typedef struct mapping {
    size_t n;
    map_entry *e;
} mapping;

/* What one binding applies: where, at which level, with which prefix and mapping. */
typedef struct binding {
    long comp, sys;
    unsigned level;
    const char *prefix;
    mapping map;
} binding;

typedef rtc__ssp_value value;

static void map_entry_clear(map_entry *e)
{
    free(e->source);
    free(e->target);
    rtc__ssp_transform_clear(&e->tr);
    memset(e, 0, sizeof *e);
}

static void mapping_clear(mapping *m)
{
    for (size_t i = 0; m->e && i < m->n; i++)
        map_entry_clear(&m->e[i]);
    free(m->e);
    m->e = NULL;
    m->n = 0;
}

void rtc__ssp_param_clear(rtc_ssp_param *p)
{
    free(p->component);
    free(p->name);
    free(p->value);
    free(p->unit);
    free(p->mime_type);
    free(p->file);
    memset(p, 0, sizeof *p);
}

/* Annotations of .ssv/.ssm content: nothing there is ours, so each type is reported. */
static void other_annotations(rtc__xml_ctx *x, const xmlNode *n)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        const char *t = rtc__ssp_is(c, RTC_SSP_NS_SSC, "Annotation") ? rtc__xml_attr(c, "type")
                                                                      : NULL;
        if (t)
            rtc__xml_warn(x, c, "annotation type \"%s\" not understood: ignored", t);
        else
            rtc__ssp_unknown(x, c);
    }
}

/* ---- merging with precedence ---- */

/* A replaced value is released and refilled in place, so the order of the list is the
 * order in which parameters were first bound. */
int rtc__ssp_merge(rtc__ssp_load *L, const char *comp, bool is_sys, const char *name,
                   unsigned level, value *v)
{
    rtc_ssp *s = L->ssp;
    rtc_ssp_param *p = NULL;
    for (size_t i = 0; i < s->n_params && !p; i++) {
        rtc_ssp_param *q = &s->params[i];
        if (q->is_system == is_sys && strcmp(q->component, comp) == 0 &&
            strcmp(q->name, name) == 0)
            p = q;
    }
    if (p && p->level < level)
        return RTC_OK; /* bound at a higher hierarchy level: that one wins */
    if (p) {
        rtc__ssp_param_clear(p);
    } else {
        if (rtc__ssp_grow((void **)&s->params, &L->cap_params, s->n_params, sizeof *s->params))
            return RTC_ENOMEM;
        p = &s->params[s->n_params++];
    }
    p->is_system = is_sys;
    p->type = v->type;
    p->level = level;
    p->line = v->line;
    p->suppress_unit_conversion = v->suppress;
    p->value = v->text;
    v->text = NULL;
    if (rtc__ssp_dup(comp, &p->component) || rtc__ssp_dup(name, &p->name) ||
        rtc__ssp_dup(v->unit, &p->unit) || rtc__ssp_dup(v->mime, &p->mime_type) ||
        rtc__ssp_dup(v->file, &p->file))
        return RTC_ENOMEM;
    return RTC_OK;
}

/* Length of the longest component path (relative to @p base) that @p name starts with,
 * followed by a dot; *comp receives its index. 0 when none. */
static size_t longest_component(const rtc__ssp_load *L, const char *base, const char *name,
                                long *comp)
{
    size_t bl = strlen(base), best = 0;
    for (size_t i = 0; i < L->ssp->n_components; i++) {
        const char *full = L->ssp->components[i].name;
        if (bl && (strncmp(full, base, bl) != 0 || full[bl] != '.'))
            continue;
        const char *rel = full + (bl ? bl + 1 : 0);
        size_t rl = strlen(rel);
        if (rl > best && strncmp(name, rel, rl) == 0 && name[rl] == '.') {
            best = rl;
            *comp = (long)i;
        }
    }
    return best;
}

/* System connector addressed by @p name below system @p sys ("SP1", "B.SP1"). */
static long system_connector(const rtc__ssp_load *L, long sys, const char *name,
                             const char **conn)
{
    const char *base = L->systems[sys].path;
    size_t bl = strlen(base);
    for (size_t i = 0; i < L->n_systems; i++) {
        const rtc__ssp_sys *s = &L->systems[i];
        if (bl && (strncmp(s->path, base, bl) != 0 || (s->path[bl] && s->path[bl] != '.')))
            continue;
        const char *rel = s->path + bl + (bl && s->path[bl] ? 1 : 0);
        size_t rl = strlen(rel);
        const char *rest = rl ? (strncmp(name, rel, rl) == 0 && name[rl] == '.' ? name + rl + 1
                                                                             : NULL)
                              : name;
        for (size_t j = 0; rest && j < s->n_connectors; j++) {
            if (strcmp(s->connectors[j].name, rest) == 0) {
                *conn = rest;
                return (long)i;
            }
        }
    }
    return -1;
}

/* A system-level name: the longest matching component path wins (variable names may
 * contain dots themselves, "inertia.J"), then a system connector. A name that matches
 * nothing in the structure cannot match any variable either: one warning. */
static int apply_to_system(rtc__ssp_load *L, rtc__xml_ctx *x, const binding *b,
                           const char *name, value *v)
{
    long comp = -1;
    size_t len = longest_component(L, L->systems[b->sys].path, name, &comp);
    if (len)
        return rtc__ssp_merge(L, L->ssp->components[comp].name, false, name + len + 1, b->level, v);
    const char *conn = NULL;
    long sys = system_connector(L, b->sys, name, &conn);
    if (sys >= 0)
        return rtc__ssp_merge(L, L->systems[sys].path, true, conn, b->level, v);
    rtc__xml_warn(x, v->node, "parameter \"%s\" matches no element or connector of system "
                  "\"%s\": ignored", name, L->systems[b->sys].name);
    return RTC_OK;
}

/* ---- value transformation ---- */

/* The next entry after @p from (NULL: from the start) whose source is @p name. */
static const map_entry *next_mapping(const mapping *m, const map_entry *from, const char *name)
{
    for (size_t i = from ? (size_t)(from - m->e) + 1 : 0; i < m->n; i++)
        if (strcmp(m->e[i].source, name) == 0)
            return &m->e[i];
    return NULL;
}

/* A later entry with the same source and target replaces @p e, like later bindings do. */
static bool superseded(const mapping *m, const map_entry *e)
{
    for (const map_entry *l = next_mapping(m, e, e->source); l; l = next_mapping(m, l, e->source))
        if (strcmp(l->target, e->target) == 0)
            return true;
    return false;
}

/* Boolean, integer and enumeration maps on a value text. A value without an entry is an
 * error: passing it through unmapped would silently apply a value of the wrong domain. */
static int transform_map(rtc__xml_ctx *x, const rtc_ssp_transform *tr, value *v)
{
    char buf[32];
    int64_t iv = 0;
    bool bv = false, is_enum = tr->kind == RTC_SSP_TRANSFORM_ENUM_MAP;
    if (tr->kind == RTC_SSP_TRANSFORM_BOOLEAN_MAP ? !rtc__xml_parse_bool(v->text, &bv)
        : !is_enum && !rtc__xml_parse_i64(v->text, 64, &iv))
        return RTC_EPARSE;
    if (tr->kind == RTC_SSP_TRANSFORM_BOOLEAN_MAP)
        iv = bv;
    for (size_t i = 0; i < tr->n_entries; i++) {
        const rtc_ssp_map_entry *e = &tr->entries[i];
        if (is_enum ? strcmp(e->source_name, v->text) != 0 : e->source != iv)
            continue;
        if (tr->kind == RTC_SSP_TRANSFORM_BOOLEAN_MAP)
            snprintf(buf, sizeof buf, "%s", e->target ? "true" : "false");
        else if (!is_enum)
            snprintf(buf, sizeof buf, "%lld", (long long)e->target);
        char *t = strdup(is_enum ? e->target_name : buf);
        if (!t)
            return RTC_ENOMEM;
        free(v->text);
        v->text = t;
        return RTC_OK;
    }
    rtc__xml_error(x, v->node, "parameter \"%s\": value \"%s\" has no MapEntry in the "
                   "mapping transformation (line %u)", v->name, v->text, tr->line);
    return RTC_EPARSE;
}

int rtc__ssp_transform_value(rtc__xml_ctx *x, const rtc_ssp_transform *tr, value *v)
{
    bool real = v->type == RTC_TYPE_FLOAT64 || v->type == RTC_TYPE_FLOAT32;
    bool fits = tr->kind == RTC_SSP_TRANSFORM_LINEAR ? real
                : tr->kind == RTC_SSP_TRANSFORM_BOOLEAN_MAP ? v->type == RTC_TYPE_BOOL
                : tr->kind == RTC_SSP_TRANSFORM_ENUM_MAP ? v->type == RTC_TYPE_ENUM
                : v->type != RTC_TYPE_BOOL && !real && v->type <= RTC_TYPE_UINT64;
    if (tr->kind == RTC_SSP_TRANSFORM_NONE)
        return RTC_OK;
    if (!fits) {
        rtc__xml_error(x, v->node, "parameter \"%s\" of type %s: the transformation at line "
                       "%u does not apply to this type", v->name, rtc_type_name(v->type),
                       tr->line);
        return RTC_EPARSE;
    }
    if (tr->kind != RTC_SSP_TRANSFORM_LINEAR)
        return transform_map(x, tr, v);
    double d = 0;
    if (!rtc__xml_parse_f64(v->text, &d))
        return RTC_EPARSE; /* already reported when the value was read */
    double y = tr->factor * d + tr->offset;
    if (!isfinite(y)) {
        rtc__xml_error(x, v->node, "parameter \"%s\": the transformation at line %u makes "
                       "%s non-finite", v->name, tr->line, v->text);
        return RTC_EPARSE;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", y);
    char *t = strdup(buf);
    if (!t)
        return RTC_ENOMEM;
    free(v->text);
    v->text = t;
    return RTC_OK;
}

static int apply_named(rtc__ssp_load *L, rtc__xml_ctx *x, const binding *b, const char *name,
                       value *v)
{
    if (b->comp >= 0)
        return rtc__ssp_merge(L, L->ssp->components[b->comp].name, false, name, b->level, v);
    return apply_to_system(L, x, b, name, v);
}

/* prefix + name → mapping → transformation → target. One source may have several
 * MappingEntries: each target gets the value through its own entry's transformation
 * (OMSimulator applies them all; nothing in SSP makes the later one replace the earlier). */
static int apply_value(rtc__ssp_load *L, rtc__xml_ctx *x, const binding *b, value *v)
{
    char name[512];
    snprintf(name, sizeof name, "%s%s", b->prefix, v->name);
    const map_entry *m = next_mapping(&b->map, NULL, name);
    if (!m)
        return apply_named(L, x, b, name, v);
    int rc = RTC_OK;
    for (; rc == RTC_OK && m; m = next_mapping(&b->map, m, name)) {
        if (superseded(&b->map, m))
            continue;
        value t = *v;
        if (!(t.text = strdup(v->text)))
            return RTC_ENOMEM;
        rc = rtc__ssp_transform_value(x, &m->tr, &t);
        t.suppress = m->suppress;
        if (rc == RTC_OK)
            rc = apply_named(L, x, b, m->target, &t);
        free(t.text);
    }
    return rc;
}

/* ---- ssv:ParameterSet ---- */

/* The value element of an ssv:Parameter. Numbers and booleans are checked now, with
 * the type's range, so a bad value is reported with its own line. */
static int read_value_type(rtc__xml_ctx *x, const xmlNode *t, value *v)
{
    static const char *const real_attrs[] = {"value", "unit", NULL};
    static const char *const enum_attrs[] = {"value", "name", NULL};
    static const char *const bin_attrs[] = {"value", "mime-type", NULL};
    static const char *const plain[] = {"value", NULL};
    bool real = v->type == RTC_TYPE_FLOAT64 || v->type == RTC_TYPE_FLOAT32;
    rtc__xml_check_attrs(x, t, real                        ? real_attrs
                               : v->type == RTC_TYPE_ENUM   ? enum_attrs
                               : v->type == RTC_TYPE_BINARY ? bin_attrs
                                                            : plain);
    if (rtc__xml_attr_dup(x, t, "value", true, &v->text) != RTC_OK)
        return v->text ? RTC_ENOMEM : RTC_EPARSE;
    v->unit = real ? rtc__xml_attr(t, "unit") : NULL;
    v->mime = v->type == RTC_TYPE_BINARY ? rtc__xml_attr(t, "mime-type") : NULL;
    if (v->type == RTC_TYPE_STRING || v->type == RTC_TYPE_ENUM || v->type == RTC_TYPE_BINARY)
        return RTC_OK;
    rtc_value parsed;
    int rc = v->type == RTC_TYPE_CLOCK ? RTC_EUNSUPPORTED
                                       : rtc_value_parse(v->type, v->text, &parsed);
    if (rc != RTC_OK) {
        rtc__xml_attr_error(x, t, "value", "not a valid %s value (\"%s\")",
                            rtc_type_name(v->type), v->text);
        return RTC_EPARSE;
    }
    /* xs:double admits INF and NaN; neither is a value a parameter can start from */
    if (real && !isfinite(v->type == RTC_TYPE_FLOAT32 ? parsed.f32 : parsed.f64)) {
        rtc__xml_attr_error(x, t, "value", "must be a finite number (\"%s\")", v->text);
        return RTC_EPARSE;
    }
    return RTC_OK;
}

/* ssv:Parameter: name and one value element. */
static int read_parameter(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n,
                          const binding *b, const char *file)
{
    static const char *const known[] = {"name", "id", "description", NULL};
    rtc__xml_check_attrs(x, n, known);
    value v = {.name = rtc__xml_attr(n, "name"), .file = file, .line = rtc__xml_line(n),
               .node = n};
    if (!v.name) {
        rtc__xml_attr_error(x, n, "name", "missing (required)");
        return RTC_EPARSE;
    }
    const xmlNode *t = NULL;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!t && rtc__ssp_type_of(c, RTC_SSP_NS_SSV, &v.type))
            t = c;
        else if (rtc__xml_is(c, "Annotations"))
            other_annotations(x, c);
        else
            rtc__ssp_unknown(x, c);
    }
    if (!t) {
        rtc__xml_error(x, n, "Parameter \"%s\": no value element (ssv:Real, ...)", v.name);
        return RTC_EPARSE;
    }
    int rc = read_value_type(x, t, &v);
    if (rc == RTC_OK)
        rc = apply_value(L, x, b, &v);
    free(v.text);
    return rc;
}

static int read_parameters(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n,
                           const binding *b, const char *file)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSV, "Parameter")) {
            rtc__ssp_unknown(x, c);
            continue;
        }
        int rc = read_parameter(L, x, c, b, file);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* .ssv and .ssm files carry their own version attribute. */
static int check_file_version(rtc__xml_ctx *x, const xmlNode *n)
{
    const char *v = rtc__xml_attr(n, "version");
    if (!v) {
        rtc__xml_attr_error(x, n, "version", "missing (required)");
        return RTC_EPARSE;
    }
    if (strcmp(v, "1.0") != 0 && strcmp(v, "2.0") != 0) {
        rtc__xml_attr_error(x, n, "version",
                            "SSP version \"%s\" is not supported (1.0 and 2.0 are)", v);
        return RTC_EUNSUPPORTED;
    }
    return RTC_OK;
}

/* ssv:ParameterSet: units and enumerations it carries join the description's. */
static int read_parameter_set(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n,
                              const binding *b, const char *file)
{
    static const char *const known[] = {
        "version",   "name",    "id",             "description",          "author",
        "fileversion", "copyright", "license", "generationTool", "generationDateAndTime",
        NULL};
    rtc__xml_check_attrs(x, n, known);
    int rc = check_file_version(x, n);
    if (rc != RTC_OK)
        return rc;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSV, "Parameters"))
            rc = read_parameters(L, x, c, b, file);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSV, "Units"))
            rc = rtc__ssp_read_units(L, x, c);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSV, "Enumerations"))
            rc = rtc__ssp_read_enums(L, x, c);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSV, "Annotations"))
            other_annotations(x, c);
        else
            rtc__ssp_unknown(x, c);
        if (rc == RTC_ENOMEM)
            return rc;
    }
    return RTC_OK;
}

/* ---- ssm:ParameterMapping ---- */

/* ssm:MappingEntry: source and target names, optional transformation. */
static int read_mapping_entry(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n,
                              map_entry *e)
{
    static const char *const known[] = {"source", "target", "suppressUnitConversion", "id",
                                        "description", NULL};
    rtc__xml_check_attrs(x, n, known);
    e->tr.factor = 1.0;
    e->line = rtc__xml_line(n);
    int rc = rtc__xml_attr_dup(x, n, "source", true, &e->source);
    if (rc == RTC_OK)
        rc = rtc__xml_attr_dup(x, n, "target", true, &e->target);
    if (rc == RTC_OK)
        rc = rtc__xml_attr_bool(x, n, "suppressUnitConversion", &e->suppress, NULL);
    for (const xmlNode *c = rtc__xml_child(n); rc == RTC_OK && c; c = rtc__xml_next(c)) {
        bool tr = e->tr.kind == RTC_SSP_TRANSFORM_NONE &&
                  rtc__ssp_read_transform(L, x, c, &e->tr, &rc);
        if (!tr) {
            if (rtc__xml_is(c, "Annotations"))
                other_annotations(x, c);
            else
                rtc__ssp_unknown(x, c);
        }
    }
    return rc;
}

const char *const rtc__ssp_file_attrs[] = {
    "version", "id", "description", "author", "fileversion", "copyright", "license",
    "generationTool", "generationDateAndTime", NULL};

/* ssm:ParameterMapping (a file's root or inline). */
static int read_ssm(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *n, mapping *m)
{
    rtc__xml_check_attrs(x, n, rtc__ssp_file_attrs);
    int rc = check_file_version(x, n);
    if (rc != RTC_OK)
        return rc;
    m->e = calloc(rtc__xml_count(n, NULL) + 1, sizeof *m->e);
    if (!m->e)
        return RTC_ENOMEM;
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSM, "MappingEntry")) {
            /* An entry with an error (reported) is not kept: its source or target may be
             * missing, and a half-read entry must not map anything. */
            rc = read_mapping_entry(L, x, c, &m->e[m->n++]);
            if (rc != RTC_OK)
                map_entry_clear(&m->e[--m->n]);
            if (rc == RTC_ENOMEM)
                return rc;
            rtc__ssp_fail(L, rc);
        } else if (rtc__ssp_is(c, RTC_SSP_NS_SSM, "Annotations")) {
            other_annotations(x, c);
        } else {
            rtc__ssp_unknown(x, c);
        }
    }
    return RTC_OK;
}

/* ---- files referenced by a binding ---- */

/* Read @p path (an .ssv or .ssm), check its root element, hand it to @p fn. Problems
 * opening it are reported at the referencing element @p ref. */
static int read_file(rtc__ssp_load *L, const xmlNode *ref, const char *attr, const char *path,
                     const char *root_ns, const char *root_name, rtc__ssp_root_reader fn, void *arg)
{
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    int err = errno;
    if (!exists || !S_ISREG(sb.st_mode)) {
        char *shown = NULL;
        rtc__ssp_display(L, path, &shown);
        rtc__xml_attr_error(&L->x, ref, attr, "cannot read \"%s\": %s", shown ? shown : path,
                            exists ? "not a regular file" : strerror(err));
        free(shown);
        return exists ? RTC_EIO : rtc_status_from_errno(err);
    }
    rtc__xml_ctx x;
    rtc__xml_init(&x, path, &L->lg);
    xmlDoc *doc = NULL;
    int rc = rtc__xml_read(&x, &doc);
    if (rc != RTC_OK)
        return rc;
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!rtc__ssp_is(root, root_ns, root_name)) {
        char q[128];
        rtc__xml_error(&x, root, "root element <%s> is not %s (namespace %s)",
                       rtc__ssp_qname(root, q, sizeof q), root_name, root_ns);
        rc = RTC_EPARSE;
    } else {
        rc = fn(L, &x, root, arg);
    }
    xmlFreeDoc(doc);
    return rc;
}

static int ssv_root(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *root, void *arg)
{
    char *shown = NULL;
    if (rtc__ssp_display(L, x->file, &shown))
        return RTC_ENOMEM;
    int rc = read_parameter_set(L, x, root, arg, shown);
    free(shown);
    return rc;
}

static int ssm_root(rtc__ssp_load *L, rtc__xml_ctx *x, const xmlNode *root, void *arg)
{
    return read_ssm(L, x, root, arg);
}

/*
 * Base directory of a binding's source: the .ssd's directory, or with
 * sourceBase="component" the component's source. A packed FMU is extracted into @p tmp
 * (the caller removes it) so that files inside it can be read.
 */
static int source_base(rtc__ssp_load *L, const xmlNode *n, long comp, char *tmp, size_t cap,
                       const char **base)
{
    static const char *const bases[] = {"SSD", "component", NULL};
    int which = 0;
    *base = L->ssd_dir;
    if (rtc__xml_attr_enum(&L->x, n, "sourceBase", bases, &which, NULL) != RTC_OK)
        return RTC_EPARSE;
    if (which == 0)
        return RTC_OK;
    const char *src = comp >= 0 ? L->ssp->components[comp].source : NULL;
    if (!src) {
        rtc__xml_attr_error(&L->x, n, "sourceBase", "\"component\" needs a component with "
                            "a source");
        return RTC_EPARSE;
    }
    struct stat sb;
    if (stat(src, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        *base = src;
        return RTC_OK;
    }
    int rc = rtc_tmpdir_new("rtcssv-", tmp, cap);
    if (rc == RTC_OK)
        rc = rtc_archive_extract(src, tmp, NULL, &L->lg);
    *base = tmp;
    return rc;
}

/* A binding's or mapping's source file, relative to its base; a temporary extraction
 * for sourceBase="component" is removed as soon as the file is read. */
int rtc__ssp_read_source_file(rtc__ssp_load *L, const xmlNode *n, long comp, const char *ns,
                            const char *root, rtc__ssp_root_reader fn, void *arg)
{
    const char *uri = rtc__xml_attr(n, "source");
    char tmp[PATH_MAX] = "";
    const char *base = NULL;
    char *path = NULL;
    int rc = source_base(L, n, comp, tmp, sizeof tmp, &base);
    if (rc == RTC_OK)
        rc = rtc__ssp_resolve(&L->x, n, "source", uri, base, tmp[0] ? tmp : L->ssp->extract_dir,
                              &path);
    if (rc == RTC_OK)
        rc = read_file(L, n, "source", path, ns, root, fn, arg);
    free(path);
    if (tmp[0])
        rtc_tmpdir_remove(tmp);
    return rc;
}

/* ---- ssd:ParameterBinding ---- */

/* ssd:ParameterMapping of a binding: an .ssm file or inline ssm content. */
static int read_ssd_mapping(rtc__ssp_load *L, const xmlNode *n, long comp, mapping *m)
{
    static const char *const known[] = {"type", "source", "sourceBase", "id", "description",
                                        NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    const char *type = rtc__xml_attr(n, "type");
    if (type && strcmp(type, "application/x-ssp-parameter-mapping") != 0) {
        rtc__xml_attr_warn(&L->x, n, "type", "mapping type \"%s\" not supported: ignored", type);
        return RTC_OK;
    }
    if (rtc__xml_attr(n, "source"))
        return rtc__ssp_read_source_file(L, n, comp, RTC_SSP_NS_SSM, "ParameterMapping", ssm_root, m);
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSM, "ParameterMapping") && !m->e) {
            int rc = read_ssm(L, &L->x, c, m);
            if (rc != RTC_OK)
                return rc;
        } else {
            rtc__ssp_unknown(&L->x, c);
        }
    }
    return RTC_OK;
}

/* ssd:ParameterValues: an inline ssv:ParameterSet, diagnosed against the .ssd. */
static int read_inline_values(rtc__ssp_load *L, const xmlNode *n, const binding *b)
{
    const char *shown = L->ssp->display_path;
    int rc = RTC_OK;
    for (const xmlNode *c = rtc__xml_child(n); c && rc != RTC_ENOMEM; c = rtc__xml_next(c)) {
        if (rtc__ssp_is(c, RTC_SSP_NS_SSV, "ParameterSet"))
            rc = read_parameter_set(L, &L->x, c, b, shown);
        else
            rtc__ssp_unknown(&L->x, c);
        rtc__ssp_fail(L, rc);
    }
    return rc;
}

/* Children of a binding: the mapping first (it applies to the values), then the values. */
static int read_binding_children(rtc__ssp_load *L, const xmlNode *n, binding *b,
                                 const xmlNode **values)
{
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        int rc = RTC_OK;
        if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "ParameterValues") && !*values)
            *values = c;
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "ParameterMapping") && !b->map.e)
            rc = read_ssd_mapping(L, c, b->comp, &b->map);
        else if (rtc__ssp_is(c, RTC_SSP_NS_SSD, "Annotations"))
            rc = rtc__ssp_read_annotations(L, c, RTC__SSP_AT_OTHER, NULL, NULL);
        else
            rtc__ssp_unknown(&L->x, c);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}

/* ssd:ParameterBinding: values from a file or inline (not both), possibly renamed and
 * transformed by a mapping, and prefixed. Other binding types are reported, not read. */
static int read_binding(rtc__ssp_load *L, const xmlNode *n, binding *b)
{
    static const char *const known[] = {"type", "source", "sourceBase", "prefix", "id",
                                        "description", NULL};
    rtc__xml_check_attrs(&L->x, n, known);
    const char *type = rtc__xml_attr(n, "type");
    if (type && strcmp(type, "application/x-ssp-parameter-set") != 0) {
        rtc__xml_attr_warn(&L->x, n, "type", "binding type \"%s\" not supported: ignored", type);
        return RTC_OK;
    }
    const char *prefix = rtc__xml_attr(n, "prefix");
    b->prefix = prefix ? prefix : "";
    const xmlNode *values = NULL;
    int rc = read_binding_children(L, n, b, &values);
    if (rc != RTC_OK)
        return rc;
    bool has_source = rtc__xml_attr(n, "source") != NULL;
    if (has_source && values) {
        rtc__xml_attr_error(&L->x, n, "source", "given together with inline ParameterValues");
        return RTC_EPARSE;
    }
    if (has_source)
        return rtc__ssp_read_source_file(L, n, b->comp, RTC_SSP_NS_SSV, "ParameterSet", ssv_root, b);
    if (values)
        return read_inline_values(L, values, b);
    rtc__xml_warn(&L->x, n, "ParameterBinding has neither source nor ParameterValues");
    return RTC_OK;
}

/* Bindings of one element in document order: that order is the "later overrides
 * earlier" order of the standard. */
int rtc__ssp_read_bindings(rtc__ssp_load *L, const xmlNode *n, long comp, long sys,
                           unsigned level)
{
    rtc__xml_check_attrs(&L->x, n, (const char *const[]){NULL});
    for (const xmlNode *c = rtc__xml_child(n); c; c = rtc__xml_next(c)) {
        if (!rtc__ssp_is(c, RTC_SSP_NS_SSD, "ParameterBinding")) {
            rtc__ssp_unknown(&L->x, c);
            continue;
        }
        binding b = {.comp = comp, .sys = sys, .level = level};
        int rc = read_binding(L, c, &b);
        mapping_clear(&b.map);
        if (rc == RTC_ENOMEM)
            return rc;
        rtc__ssp_fail(L, rc);
    }
    return RTC_OK;
}
