/*
 * modelDescription.xml reader: everything that refers to variables by number — the
 * ModelStructure unknowns and their dependencies, derivative references, array dimensions
 * bound to structural parameters — and the whole-list checks (unique names, unique FMI 3
 * value references).
 *
 * FMI 2 refers to variables by 1-based position in ModelVariables; FMI 3 by value
 * reference, which is unique there. Both are resolved to indices into rtc_model_desc.vars,
 * so rt-core never needs to know which version an FMU was.
 */
#include "fmu_md_priv.h"

#include "rtcosim/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* dependenciesKind values of each version. */
static const char *const dep_kinds2[] = {"dependent", "constant", "fixed",
                                         "tunable",   "discrete", NULL};
static const char *const dep_kinds3[] = {"independent", "constant",  "fixed", "tunable",
                                         "discrete",    "dependent", NULL};

/* Binary search in the vr map that rtc__md_index sorted. */
long rtc__md_find_vr(const md_ctx *c, uint32_t vr)
{
    size_t lo = 0, hi = c->n_vr_map;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->vr_map[mid].vr < vr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n_vr_map && c->vr_map[lo].vr == vr ? (long)c->vr_map[lo].idx : -1;
}

/* ---- ModelStructure unknowns ---- */

/* FMI 2: 1-based index; FMI 3: value reference. Returns the variable index or -1. */
static long resolve_ref(const md_ctx *c, uint64_t ref)
{
    if (c->major == 2)
        return ref >= 1 && ref <= c->md->n_vars ? (long)ref - 1 : -1;
    return rtc__md_find_vr(c, (uint32_t)ref);
}

static void report_bad_ref(md_ctx *c, const xmlNode *n, const char *attr, uint64_t ref)
{
    if (c->major == 2)
        rtc__xml_attr_error(&c->x, n, attr, "no variable with index %llu (1..%zu)",
                            (unsigned long long)ref, c->md->n_vars);
    else
        rtc__xml_attr_error(&c->x, n, attr, "no variable with value reference %llu",
                            (unsigned long long)ref);
}

/* dependencies="" (present, empty) means "depends on nothing" and differs from an absent
 * attribute, which means "may depend on every known": deps_given keeps them apart. */
static int unknown_deps(md_ctx *c, const xmlNode *n, rtc_unknown *u, const char *deps)
{
    char tok[64];
    size_t k = 0;
    for (const char *p = deps; rtc__md_next_token(&p, tok, sizeof tok);)
        k++;
    u->deps_given = true;
    if (k && !(u->deps = calloc(k, sizeof *u->deps)))
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (const char *p = deps; rtc__md_next_token(&p, tok, sizeof tok);) {
        uint64_t ref = 0;
        long idx = -1;
        if (!rtc__xml_parse_u64(tok, 32, &ref)) {
            rtc__xml_attr_error(&c->x, n, "dependencies", "not an unsigned 32-bit integer (\"%s\")",
                                tok);
            rc = RTC_EPARSE;
        } else if ((idx = resolve_ref(c, ref)) < 0) {
            report_bad_ref(c, n, "dependencies", ref);
            rc = RTC_EPARSE;
        } else {
            u->deps[u->n_deps++] = (size_t)idx;
        }
    }
    return rc;
}

/* dependenciesKind is parallel to dependencies: same length, one kind per entry. The
 * kinds are validated but not kept (rt-core treats every dependency as "dependent",
 * which is the conservative reading for ordering and loop detection). */
static int unknown_kinds(md_ctx *c, const xmlNode *n, const rtc_unknown *u, const char *kinds)
{
    const char *const *names = c->major == 2 ? dep_kinds2 : dep_kinds3;
    char tok[64];
    size_t k = 0;
    for (const char *p = kinds; rtc__md_next_token(&p, tok, sizeof tok); k++) {
        bool ok = false;
        for (size_t j = 0; names[j] && !ok; j++)
            ok = strcmp(tok, names[j]) == 0;
        if (!ok) {
            rtc__xml_attr_error(&c->x, n, "dependenciesKind", "unknown kind \"%s\"", tok);
            return RTC_EPARSE;
        }
    }
    if (!u->deps_given || k != u->n_deps) {
        rtc__xml_attr_error(&c->x, n, "dependenciesKind",
                            "%zu kinds for %zu dependencies (must be equal)", k, u->n_deps);
        return RTC_EPARSE;
    }
    return RTC_OK;
}

int rtc__md_unknown(md_ctx *c, const xmlNode *n, rtc_unknown *u)
{
    static const char *const known2[] = {"index", "dependencies", "dependenciesKind", NULL};
    static const char *const known3[] = {"valueReference", "dependencies", "dependenciesKind",
                                         NULL};
    const char *attr = c->major == 2 ? "index" : "valueReference";
    rtc__xml_check_attrs(&c->x, n, c->major == 2 ? known2 : known3);
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        rtc__xml_unknown_child(&c->x, ch);
    uint64_t ref = 0;
    bool has = false;
    int rc = rtc__xml_attr_u64(&c->x, n, attr, 32, &ref, &has);
    if (rc != RTC_OK)
        return rc;
    long idx = has ? resolve_ref(c, ref) : -1;
    if (!has) {
        rtc__xml_attr_error(&c->x, n, attr, "missing (required)");
        return RTC_EPARSE;
    }
    if (idx < 0) {
        report_bad_ref(c, n, attr, ref);
        return RTC_EPARSE;
    }
    u->var = (size_t)idx;
    const char *deps = rtc__xml_attr(n, "dependencies");
    const char *kinds = rtc__xml_attr(n, "dependenciesKind");
    if (deps)
        MD_TRY(unknown_deps(c, n, u, deps));
    if (kinds && rc == RTC_OK)
        MD_TRY(unknown_kinds(c, n, u, kinds));
    return rc;
}

/* ---- whole-list checks and references ---- */

static int cmp_vr(const void *a, const void *b)
{
    const md_vr_ent *x = a, *y = b;
    if (x->vr != y->vr)
        return x->vr < y->vr ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* One name of the description: a variable's (alias == false) or an FMI 3 alias's. */
typedef struct md_name {
    const char *name;
    size_t idx; /* into vars or aliases */
    bool alias;
} md_name;

/* Sort by name, then variables before aliases, then by index, so the reported duplicate
 * is always the later one. */
static int cmp_name(const void *a, const void *b)
{
    const md_name *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    if (d)
        return d;
    if (x->alias != y->alias)
        return x->alias ? 1 : -1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The <Alias> element of an alias (only for the line of a message). */
static const xmlNode *alias_node(const md_ctx *c, const rtc_alias *al)
{
    for (const xmlNode *ch = rtc__xml_child(c->aux[al->var].node); ch; ch = rtc__xml_next(ch))
        if (rtc__xml_is(ch, "Alias") && rtc__xml_line(ch) == al->line)
            return ch;
    return c->aux[al->var].node;
}

static void report_dup_name(md_ctx *c, const md_name *first, const md_name *dup)
{
    const rtc_model_desc *md = c->md;
    unsigned line = first->alias ? md->aliases[first->idx].line : md->vars[first->idx].line;
    const xmlNode *n = dup->alias ? alias_node(c, &md->aliases[dup->idx]) : c->aux[dup->idx].node;
    rtc__xml_attr_error(&c->x, n, "name", "duplicate name \"%s\" (first defined on line %u)",
                        dup->name, line);
}

/* Names must be unique in both versions (FMI 2 aliases have their own names; FMI 3 alias
 * names share the variables' name space). Sorting keeps this O(n log n) for large models. */
static int check_names(md_ctx *c)
{
    rtc_model_desc *md = c->md;
    size_t n = md->n_vars + md->n_aliases;
    md_name *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return RTC_ENOMEM;
    for (size_t i = 0; i < md->n_vars; i++)
        order[i] = (md_name){md->vars[i].name, i, false};
    for (size_t i = 0; i < md->n_aliases; i++)
        order[md->n_vars + i] = (md_name){md->aliases[i].name, i, true};
    qsort(order, n, sizeof *order, cmp_name);
    int rc = RTC_OK;
    for (size_t k = 1; k < n; k++) {
        if (strcmp(order[k - 1].name, order[k].name) == 0) {
            report_dup_name(c, &order[k - 1], &order[k]);
            rc = RTC_EPARSE;
        }
    }
    free(order);
    return rc;
}

int rtc__md_index(md_ctx *c)
{
    rtc_model_desc *md = c->md;
    c->vr_map = malloc((md->n_vars ? md->n_vars : 1) * sizeof *c->vr_map);
    if (!c->vr_map)
        return RTC_ENOMEM;
    for (size_t i = 0; i < md->n_vars; i++)
        c->vr_map[i] = (md_vr_ent){.vr = md->vars[i].vr, .idx = i};
    c->n_vr_map = md->n_vars;
    qsort(c->vr_map, c->n_vr_map, sizeof *c->vr_map, cmp_vr);
    int rc = check_names(c);
    /* FMI 2 aliases share a value reference (per base type); FMI 3 has <Alias> instead. */
    for (size_t k = 1; c->major == 3 && k < c->n_vr_map; k++) {
        if (c->vr_map[k].vr != c->vr_map[k - 1].vr)
            continue;
        const rtc_var *first = &md->vars[c->vr_map[k - 1].idx];
        rtc__xml_attr_error(&c->x, c->aux[c->vr_map[k].idx].node, "valueReference",
                            "duplicate value reference %u (also used by \"%s\" on line %u)",
                            first->vr, first->name, first->line);
        rc = RTC_EPARSE;
    }
    return rc;
}

/* derivative points from der(x) to x; rt-core stores the reverse view (derivative_of
 * on the derivative variable), the index of the state. */
static int resolve_derivative(md_ctx *c, size_t i)
{
    rtc_var *v = &c->md->vars[i];
    const md_var_aux *a = &c->aux[i];
    if (!a->has_derivative)
        return RTC_OK;
    long s = resolve_ref(c, a->derivative);
    if (s < 0) {
        report_bad_ref(c, a->tnode, "derivative", a->derivative);
        return RTC_EPARSE;
    }
    if ((size_t)s == i || !rtc__md_is_float(c->md->vars[s].type)) {
        rtc__xml_attr_error(&c->x, a->tnode, "derivative",
                            "\"%s\" cannot be the state of \"%s\" (%s)", c->md->vars[s].name,
                            v->name, (size_t)s == i ? "itself" : "not a Float variable");
        return RTC_EPARSE;
    }
    v->derivative_of = s;
    return RTC_OK;
}

/* Only for diagnostics: the line of the k-th <Dimension> element. */
static const xmlNode *nth_dimension(const xmlNode *n, size_t k)
{
    for (const xmlNode *ch = rtc__xml_child(n); ch; ch = rtc__xml_next(ch))
        if (rtc__xml_is(ch, "Dimension") && k-- == 0)
            return ch;
    return n;
}

/* A dimension bound to a structural parameter takes that parameter's start value. */
static int resolve_dim(md_ctx *c, size_t i, size_t k)
{
    rtc_dim *d = &c->md->vars[i].dims[k];
    const xmlNode *dn = nth_dimension(c->aux[i].node, k);
    long p = rtc__md_find_vr(c, d->vr);
    if (p < 0) {
        report_bad_ref(c, dn, "valueReference", d->vr);
        return RTC_EPARSE;
    }
    const rtc_var *s = &c->md->vars[p];
    const char *why = NULL;
    if (s->causality != RTC_CAUSALITY_STRUCTURAL_PARAMETER &&
        s->variability != RTC_VARIABILITY_CONSTANT)
        why = "not a structural parameter or constant";
    else if (!rtc__md_is_unsigned(s->type) && !rtc__md_is_signed(s->type))
        why = "not an integer variable";
    else if (s->n_start != 1 || s->n_dims != 0)
        why = "has no scalar start value";
    else if (rtc__md_is_signed(s->type) && s->start[0].i64 < 0)
        why = "has a negative start value";
    if (why) {
        rtc__xml_attr_error(&c->x, dn, "valueReference", "\"%s\" (value reference %u) %s", s->name,
                            d->vr, why);
        return RTC_EPARSE;
    }
    d->start = rtc__md_is_signed(s->type) ? (uint64_t)s->start[0].i64 : s->start[0].u64;
    return RTC_OK;
}

/* The number of start values must match the (resolved) array size, or be one. */
static int check_start_count(md_ctx *c, size_t i)
{
    const rtc_var *v = &c->md->vars[i];
    size_t count = 1;
    for (size_t k = 0; k < v->n_dims; k++) {
        if (v->dims[k].start != 0 && count > SIZE_MAX / 2 / v->dims[k].start) {
            rtc__xml_error(&c->x, c->aux[i].node, "%s: array size overflows",
                           rtc__xml_name(c->aux[i].node));
            return RTC_EPARSE;
        }
        count *= (size_t)v->dims[k].start;
    }
    /* FMI 3.0 2.4.7.5: a single start value for an array is the value of every element. */
    if (v->n_start == 0 || v->n_start == count || (v->n_start == 1 && v->n_dims > 0))
        return RTC_OK;
    if (v->n_dims == 0)
        rtc__xml_attr_error(&c->x, c->aux[i].tnode, "start", "%zu values for a scalar variable",
                            v->n_start);
    else
        rtc__xml_attr_error(&c->x, c->aux[i].tnode, "start",
                            "%zu values for an array of %zu elements", v->n_start, count);
    return RTC_EPARSE;
}

/* Every entry of clocks="..." names a Clock variable. */
static int resolve_clocks(md_ctx *c, size_t i)
{
    const rtc_var *v = &c->md->vars[i];
    for (size_t k = 0; k < v->n_clocks; k++) {
        long p = rtc__md_find_vr(c, v->clocks[k]);
        if (p < 0) {
            report_bad_ref(c, c->aux[i].node, "clocks", v->clocks[k]);
            return RTC_EPARSE;
        }
        if (c->md->vars[p].type != RTC_TYPE_CLOCK) {
            rtc__xml_attr_error(&c->x, c->aux[i].node, "clocks",
                                "\"%s\" (value reference %u) is not a Clock",
                                c->md->vars[p].name, v->clocks[k]);
            return RTC_EPARSE;
        }
    }
    return RTC_OK;
}

/* Runs after the whole variable list is known, since references may point forward. */
int rtc__md_resolve(md_ctx *c)
{
    int rc = RTC_OK;
    for (size_t i = 0; i < c->md->n_vars; i++) {
        MD_TRY(resolve_derivative(c, i));
        MD_TRY(resolve_clocks(c, i));
        /* Dimensions first: structural parameters are scalars, resolved directly. */
        bool dims_ok = true;
        for (size_t k = 0; k < c->md->vars[i].n_dims; k++) {
            if (c->md->vars[i].dims[k].has_vr && resolve_dim(c, i, k) != RTC_OK) {
                dims_ok = false;
                rc = RTC_EPARSE;
            }
        }
        if (dims_ok)
            MD_TRY(check_start_count(c, i));
    }
    return rc;
}
