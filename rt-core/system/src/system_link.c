/*
 * Links: building one from an SSP connection — endpoint checks (the variables exist, the
 * causalities fit, an input is fed once), type compatibility, unit conversion between the
 * two connectors' units, the SSP transformation, the estimator. Values move along links at
 * run time in system_exchange.c (the masters decide when, that file how).
 *
 * A value goes through at most one estimator and one conversion to the destination's
 * type. A link from an I/O signal carries no estimator: the one a connection names runs at
 * the signal, where the bench's samples arrive with their own times, and the link reads
 * the signal's estimate and converts it once (io_unit.c walks the whole path from a
 * Modbus register to fmi2SetReal, with the copies at each hop).
 */
#include "system_priv.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/ssp.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rtc__sys_is_numeric(rtc_type t)
{
    return t <= RTC_TYPE_UINT64 || t == RTC_TYPE_BOOL || t == RTC_TYPE_ENUM;
}

/* A unit's SI definition, from the SSP file first, then from the FMU. */
bool rtc__sys_unit_base(const rtc_ssp *ssp, const rtc_model_desc *md, const char *name,
                        rtc_base_unit *out)
{
    const rtc_ssp_unit *su = rtc_ssp_find_unit(ssp, name);
    if (su) {
        *out = su->base;
        return true;
    }
    for (size_t i = 0; i < md->n_unit_defs; i++) {
        if (!strcmp(md->unit_defs[i].name, name) && md->unit_defs[i].has_base_unit) {
            *out = md->unit_defs[i].base;
            return true;
        }
    }
    return false;
}

bool rtc__sys_same_dimension(const rtc_base_unit *a, const rtc_base_unit *b)
{
    return a->kg == b->kg && a->m == b->m && a->s == b->s && a->A == b->A && a->K == b->K &&
           a->mol == b->mol && a->cd == b->cd && a->rad == b->rad;
}

/* The connector's unit if it names one, else the variable's. */
static const char *unit_of(const rtc_ssp_component *c, const char *connector, const rtc_var *v)
{
    long i = rtc_ssp_find_connector(c, connector);
    if (i >= 0 && c->connectors[i].unit)
        return c->connectors[i].unit;
    return v->unit;
}

/* y = k·x + d converting src_unit to dst_unit: x_SI = f1·x + o1, y = (x_SI − o2)/f2. */
static int unit_conversion(rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_connection *c,
                           const char *u1, const char *u2, sys_link *l)
{
    l->k = 1;
    l->d = 0;
    bool none1 = !u1 || !u1[0], none2 = !u2 || !u2[0];
    if (none1 != none2 && !c->suppress_unit_conversion) {
        /* An absent or empty unit (unit="") is dimensionless of unknown unit: it connects
         * to anything unchanged; only a unit on the other side is worth a warning. */
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s:%u: Connection %s: one end has no unit, the "
                "other [%s]: connected without conversion", c->file, c->line, l->desc,
                none1 ? u2 : u1);
        sys->warnings++;
    }
    if (none1 || none2 || !strcmp(u1, u2) || c->suppress_unit_conversion)
        return RTC_OK;
    rtc_base_unit b1, b2;
    const rtc_model_desc *m1 = sys->units[l->src].unit->md, *m2 = sys->units[l->dst].unit->md;
    if (!rtc__sys_unit_base(ssp, m1, u1, &b1) || !rtc__sys_unit_base(ssp, m2, u2, &b2) ||
        !rtc__sys_same_dimension(&b1, &b2)) {
        rtc_log(sys->lg, RTC_LOG_ERROR,
                "%s:%u: Connection %s: unit mismatch: [%s] to [%s] has no conversion "
                "(define both units with the same base units, or set suppressUnitConversion)",
                c->file, c->line, l->desc, u1, u2);
        return RTC_EPARSE;
    }
    l->k = b1.factor / b2.factor;
    l->d = (b1.offset - b2.offset) / b2.factor;
    return RTC_OK;
}

/* Types must fit; a whole-variable link also needs equal element counts (a part link
 * moves one element whatever the variables' sizes). */
static int check_types(rtc_system *sys, const rtc_ssp_connection *c, const rtc_var *a,
                       const rtc_var *b, bool part)
{
    bool ok = a->type == b->type || (rtc__sys_is_numeric(a->type) && rtc__sys_is_numeric(b->type));
    /* a clock connects only to a clock: an output clock's tick (visible for one step, like
     * any output) triggers the input clock it feeds (FMI 3 Scheduled Execution, fmi3_se.c) */
    if ((a->type == RTC_TYPE_CLOCK) != (b->type == RTC_TYPE_CLOCK))
        ok = false;
    if (!ok || (!part && rtc_var_count(a) != rtc_var_count(b))) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection: type mismatch: %s is %s[%zu], "
                "%s is %s[%zu]", c->file, c->line, a->name, rtc_type_name(a->type),
                rtc_var_count(a), b->name, rtc_type_name(b->type), rtc_var_count(b));
        return RTC_EPARSE;
    }
    return RTC_OK;
}

static int check_causality(rtc_system *sys, const rtc_ssp_connection *c, const rtc_var *src,
                           const rtc_var *dst, const char *src_unit, const char *dst_unit)
{
    bool src_ok = src->causality == RTC_CAUSALITY_OUTPUT ||
                  src->causality == RTC_CAUSALITY_PARAMETER ||
                  src->causality == RTC_CAUSALITY_CALCULATED_PARAMETER;
    if (!src_ok || dst->causality != RTC_CAUSALITY_INPUT) {
        rtc_log(sys->lg, RTC_LOG_ERROR,
                "%s:%u: Connection: causality mismatch: %s.%s is %s and %s.%s is %s "
                "(a connection goes from an output to an input)", c->file, c->line, src_unit,
                src->name, rtc_causality_name(src->causality), dst_unit, dst->name,
                rtc_causality_name(dst->causality));
        return RTC_EPARSE;
    }
    return RTC_OK;
}

/*
 * The variables a connection end stands for, element by element: one variable (a scalar,
 * or an FMI 3 array taken whole), or for an SSP 2.0 array connector whose name is no
 * variable, the scalar variables "x[1]", "x[2]", ... ("x[1,1]", "x[1,2]", ... row-major)
 * in which FMI 2 exporters write arrays.
 */
typedef struct elems {
    size_t n;
    size_t *var, *elem; /* per element: variable index, element within that variable */
    bool whole;         /* one variable, all of its elements (var[e] all equal) */
} elems;

static void elems_clear(elems *e)
{
    free(e->var);
    free(e->elem);
}

static int elems_alloc(elems *e, size_t n)
{
    e->n = n;
    e->var = calloc(n + 1, sizeof *e->var);
    e->elem = calloc(n + 1, sizeof *e->elem);
    return e->var && e->elem ? RTC_OK : RTC_ENOMEM;
}

/* "x[i,j]" for row-major element @p e of dimensions @p dims. */
static void element_name(const char *base, const uint64_t *dims, size_t n_dims, size_t e,
                         char *buf, size_t cap)
{
    size_t pos = (size_t)snprintf(buf, cap, "%s[", base), stride = 1;
    for (size_t d = 0; d < n_dims; d++)
        stride *= (size_t)dims[d];
    for (size_t d = 0; d < n_dims && pos < cap; d++) {
        stride /= (size_t)dims[d];
        pos += (size_t)snprintf(buf + pos, cap - pos, "%s%zu", d ? "," : "", e / stride + 1);
        e %= stride;
    }
    if (pos < cap)
        snprintf(buf + pos, cap - pos, "]");
}

/* The element count of array connector @p k of unit @p unit: the product of its sizes
 * (*n = 0 when a size is not given). A product that does not fit is refused (logged):
 * wrapped around, it could equal the variable's size and pass for a valid connector. */
static int dims_count(rtc_system *sys, const rtc_ssp_connection *c, size_t unit,
                      const rtc_ssp_connector *k, size_t *n)
{
    size_t count = 1;
    bool given = true;
    for (size_t d = 0; d < k->n_dims; d++) {
        given &= k->dims[d] != 0;
        if (k->dims[d] && (k->dims[d] > SIZE_MAX || count > SIZE_MAX / k->dims[d])) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection: connector %s.%s: the product "
                    "of its Dimension sizes overflows (dimension %zu, size %llu)", c->file,
                    c->line, sys->units[unit].name, k->name, d + 1,
                    (unsigned long long)k->dims[d]);
            return RTC_EPARSE;
        }
        count *= k->dims[d] ? (size_t)k->dims[d] : 1;
    }
    *n = given ? count : 0;
    return RTC_OK;
}

/* Scalarised elements of array connector @p k: its sizes, or for one dimension of
 * unknown size, as many "x[i]" as exist. */
static int scalar_elems(rtc_system *sys, const rtc_ssp_connection *c, size_t unit,
                        const rtc_ssp_connector *k, elems *out)
{
    const rtc_model_desc *md = sys->units[unit].unit->md;
    uint64_t one = 0, *dims = k->dims;
    size_t n = 1;
    char name[512];
    if (dims_count(sys, c, unit, k, &n) != RTC_OK)
        return RTC_EPARSE;
    if (!n && k->n_dims == 1) { /* count what the component has */
        dims = &one;
        do
            element_name(k->name, (uint64_t[]){1}, 1, (size_t)one, name, sizeof name);
        while (rtc_model_find_var(md, name) >= 0 && ++one);
        n = (size_t)one;
    }
    int rc = n ? elems_alloc(out, n) : RTC_EPARSE;
    for (size_t e = 0; rc == RTC_OK && e < n; e++) {
        element_name(k->name, dims, k->n_dims, e, name, sizeof name);
        long v = rtc_model_find_var(md, name);
        out->var[e] = v >= 0 ? (size_t)v : 0;
        if (v < 0)
            rc = RTC_EPARSE;
    }
    if (rc == RTC_EPARSE)
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection: unknown connector: %s has no "
                "variable \"%s\" (array connector %s, %s)", c->file, c->line,
                sys->units[unit].name, n ? name : k->name, k->name,
                n ? "one variable per element" : "its size is not given");
    return rc;
}

static int end_elems(rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_connection *c,
                     const rtc_ssp_endpoint *ep, size_t unit, elems *out)
{
    const rtc_model_desc *md = sys->units[unit].unit->md;
    const rtc_ssp_component *comp = rtc_ssp_find_component(ssp, ep->element);
    long ki = comp ? rtc_ssp_find_connector(comp, ep->name) : -1;
    const rtc_ssp_connector *k = ki >= 0 ? &comp->connectors[ki] : NULL;
    long v = rtc_model_find_var(md, ep->name);
    if (v < 0 && k && k->n_dims)
        return scalar_elems(sys, c, unit, k, out);
    if (v < 0) {
        rtc_log(sys->lg, RTC_LOG_ERROR,
                "%s:%u: Connection: unknown connector: %s has no variable \"%s\"", c->file,
                c->line, sys->units[unit].name, ep->name);
        return RTC_EPARSE;
    }
    size_t n = rtc_var_count(&md->vars[v]), want = 0;
    if (k && dims_count(sys, c, unit, k, &want) != RTC_OK)
        return RTC_EPARSE;
    if (k && k->n_dims && want && want != n) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection: connector %s.%s declares %zu "
                "element(s), the variable has %zu", c->file, c->line, sys->units[unit].name,
                ep->name, want, n);
        return RTC_EPARSE;
    }
    int rc = elems_alloc(out, n);
    for (size_t e = 0; rc == RTC_OK && e < n; e++) {
        out->var[e] = (size_t)v;
        out->elem[e] = e;
    }
    out->whole = true;
    return rc;
}

static int transformation(rtc_system *sys, const rtc_ssp_connection *c, sys_link *l)
{
    const rtc_ssp_transform *t = &c->transform;
    if (t->kind == RTC_SSP_TRANSFORM_LINEAR) {
        l->d = t->factor * l->d + t->offset;
        l->k = t->factor * l->k;
    } else if (t->kind != RTC_SSP_TRANSFORM_NONE) {
        l->map = calloc(t->n_entries + 1, sizeof *l->map);
        if (!l->map)
            return RTC_ENOMEM;
        for (size_t i = 0; i < t->n_entries; i++)
            l->map[i] = (map_entry){t->entries[i].source, t->entries[i].target};
        l->n_map = t->n_entries;
        l->mode = LINK_MAP;
        return RTC_OK;
    }
    bool identity = l->k == 1.0 && l->d == 0.0;
    l->mode = identity && l->src_type == l->dst_type ? LINK_COPY : LINK_AFFINE;
    if (!identity && !(rtc__sys_is_numeric(l->src_type) && rtc__sys_is_numeric(l->dst_type))) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection: a linear transformation or unit "
                "conversion needs numeric connectors (%s)", c->file, c->line, l->desc);
        return RTC_EPARSE;
    }
    return RTC_OK;
}

/* The estimator of a connection from an I/O signal runs at the signal, where each sample
 * arrives with its own times, and nowhere else (configs/README.md, "One estimator per bench
 * value"): one named here moves there; a default (the system's) applies only where nobody
 * named one; two different names for one bench value are refused. */
static int bench_estimator(rtc_system *sys, const rtc_ssp_connection *c, sys_link *l,
                           const char *named, const rtc_est_config *cfg)
{
    rtc_unit *io = sys->units[l->src].unit;
    const char *by = rtc_io_unit_estimator_by(io, l->src_var);
    unsigned line = c->settings.line ? c->settings.line : c->line;
    char had[200], want[200], conn[600], err[256] = "";
    rtc_est_config_text(rtc_io_unit_estimator(io, l->src_var), had, sizeof had);
    rtc_est_config_text(cfg, want, sizeof want);
    if (by && !named)
        return RTC_OK; /* the system's default gives way to a named one */
    if (by && (!strcmp(by, RTC_IO_EST_BY_SIGNAL) || strcmp(had, want) != 0)) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection %s: estimator \"%s\", but its I/O "
                "signal %.*s already has \"%s\" from %s: a bench value is estimated once, where "
                "it arrives; name its estimator in one place", c->file, line, l->desc, named,
                (int)strcspn(l->desc, " "), l->desc, had, by);
        return RTC_EPARSE;
    }
    if (by)
        return RTC_OK; /* another connection from the signal named the same */
    snprintf(conn, sizeof conn, "connection %s", l->desc);
    int rc = rtc_io_unit_set_estimator(io, l->src_var, cfg, named ? conn : NULL, err, sizeof err);
    if (rc != RTC_OK)
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection %s: estimator \"%s\": %s", c->file,
                line, l->desc, want, err[0] ? err : rtc_strerror(rc));
    return rc == RTC_OK ? RTC_OK : RTC_EPARSE;
}

/* The estimator of a connection: the one it names, else the system's default, else
 * (a late link: a transport delay) auto. A connection that is not late and names zoh, or
 * nothing, reads the visible value directly and needs no estimator; a late one keeps even
 * zoh as an estimator, so its monitor measures what holding costs. */
static int estimator(rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_connection *c,
                     sys_link *l)
{
    const char *named = c->settings.estimator;
    bool late = c->settings.has_delay && c->settings.delay_ns > 0;
    const char *method = named ? named : ssp->realtime.estimator;
    if (!method && late && !l->bench)
        method = "auto";
    if (!method || !strcmp(method, "none") || (!l->bench && !late && !strcmp(method, "zoh")))
        return RTC_OK; /* zero-order hold: read the visible value directly */
    rtc_est_config cfg;
    char err[256] = "";
    int rc = rtc_est_config_parse(&cfg, method, c->settings.params, err, sizeof err);
    if (rc == RTC_OK && (l->count != 1 || !rtc__sys_is_numeric(l->src_type))) {
        snprintf(err, sizeof err, "estimators apply to numeric scalar connections only");
        rc = RTC_EINVAL;
    }
    if (rc == RTC_OK && l->bench)
        return bench_estimator(sys, c, l, named, &cfg);
    if (rc == RTC_OK)
        rc = rtc_est_new(&cfg, &l->est, err, sizeof err);
    if (rc != RTC_OK) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection %s: estimator \"%s\": %s", c->file,
                c->settings.line ? c->settings.line : c->line, l->desc, method, err);
        return RTC_EPARSE;
    }
    l->fed_ns = INT64_MIN;
    return RTC_OK;
}

/* One link: variable @p sv (element @p se when @p part) of unit @p src feeds variable
 * @p dv (element @p de) of unit @p dst; a part link moves one element. */
typedef struct link_end {
    size_t unit, var, elem;
} link_end;

static int add_one(rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_connection *c,
                   link_end s, link_end d, bool part)
{
    const sys_unit *su = &sys->units[s.unit], *du = &sys->units[d.unit];
    const rtc_var *a = &su->unit->md->vars[s.var], *b = &du->unit->md->vars[d.var];
    sys_link l = {.src = s.unit, .dst = d.unit, .src_var = s.var, .dst_var = d.var,
                  .src_elem = part ? s.elem : 0, .dst_elem = part ? d.elem : 0,
                  .dst_part = part && rtc_var_count(b) > 1, .src_type = a->type,
                  .dst_type = b->type, .count = part ? 1 : rtc_var_count(a),
                  .break_loop = c->settings.break_loop, .line = c->line};
    char si[24] = "", di[24] = "";
    if (part && rtc_var_count(a) > 1)
        snprintf(si, sizeof si, "[%zu]", s.elem + 1);
    if (l.dst_part)
        snprintf(di, sizeof di, "[%zu]", d.elem + 1);
    if (asprintf(&l.desc, "%s.%s%s -> %s.%s%s", su->name, a->name, si, du->name, b->name, di) < 0 ||
        !(l.file = strdup(c->file))) {
        free(l.desc);
        return RTC_ENOMEM;
    }
    int rc = check_causality(sys, c, a, b, su->name, du->name);
    if (rc == RTC_OK)
        rc = check_types(sys, c, a, b, part);
    const rtc_ssp_component *sc = rtc_ssp_find_component(ssp, c->start.element);
    const rtc_ssp_component *dc = rtc_ssp_find_component(ssp, c->end.element);
    if (rc == RTC_OK)
        rc = unit_conversion(sys, ssp, c, unit_of(sc, c->start.name, a),
                             unit_of(dc, c->end.name, b), &l);
    if (rc == RTC_OK)
        rc = transformation(sys, c, &l);
    l.bench = rtc_io_unit_value(su->unit, s.var); /* NULL unless from an I/O signal */
    if (rc == RTC_OK)
        rc = estimator(sys, ssp, c, &l);
    if (rc == RTC_OK && c->settings.has_delay && c->settings.delay_ns > 0) {
        l.delay_ns = c->settings.delay_ns;
        if (l.count != 1 || !rtc__sys_is_numeric(l.src_type)) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection %s: a delay applies to numeric "
                    "scalar connections only", c->file, c->settings.line, l.desc);
            rc = RTC_EPARSE;
        }
    }
    sys_link *links = rc == RTC_OK ? realloc(sys->links, (sys->n_links + 1) * sizeof *links) : NULL;
    if (!links) {
        rtc_est_free(l.est);
        free(l.hist);
        free(l.map);
        free(l.desc);
        free(l.file);
        return rc == RTC_OK ? RTC_ENOMEM : rc;
    }
    sys->links = links;
    links[sys->n_links++] = l;
    return RTC_OK;
}

int rtc__sys_add_link(rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_connection *c,
                      size_t src, size_t dst)
{
    elems a = {0}, b = {0};
    int rc = end_elems(sys, ssp, c, &c->start, src, &a);
    if (rc == RTC_OK)
        rc = end_elems(sys, ssp, c, &c->end, dst, &b);
    if (rc == RTC_OK && a.n != b.n) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection %s.%s -> %s.%s: %zu element(s) to "
                "%zu", c->file, c->line, sys->units[src].name, c->start.name,
                sys->units[dst].name, c->end.name, a.n, b.n);
        rc = RTC_EPARSE;
    }
    if (rc == RTC_OK && a.whole && b.whole) /* one variable to one: the link moves all of it */
        rc = add_one(sys, ssp, c, (link_end){src, a.var[0], 0}, (link_end){dst, b.var[0], 0},
                     false);
    else
        for (size_t e = 0; rc == RTC_OK && e < a.n; e++)
            rc = add_one(sys, ssp, c, (link_end){src, a.var[e], a.elem[e]},
                         (link_end){dst, b.var[e], b.elem[e]}, true);
    elems_clear(&a);
    elems_clear(&b);
    return rc;
}

int rtc_system_set_link_estimator(rtc_system *sys, size_t i, const rtc_est_config *cfg,
                                  int64_t delay_ns, char *err, size_t cap)
{
    char why[256] = "";
    int rc = RTC_OK;
    sys_link *l = sys && i < sys->n_links ? &sys->links[i] : NULL;
    if (!l || delay_ns < 0)
        rc = RTC_EINVAL;
    else if (sys->initialized)
        rc = RTC_ESTATE;
    else if (l->bench)
        snprintf(why, sizeof why, "its value comes from an I/O signal, whose estimator it is");
    else if (l->count != 1 || !rtc__sys_is_numeric(l->src_type))
        snprintf(why, sizeof why, "estimators apply to numeric scalar connections only");
    rtc_est *e = NULL;
    if (rc == RTC_OK && !why[0] && cfg)
        rc = rtc_est_new(cfg, &e, why, sizeof why);
    if (rc == RTC_OK && why[0])
        rc = RTC_EINVAL;
    if (rc != RTC_OK) {
        if (err && cap)
            snprintf(err, cap, "connection %s: %s", l ? l->desc : "?",
                     why[0] ? why : rtc_strerror(rc));
        return rc;
    }
    rtc_est_free(l->est);
    l->est = e;
    l->fed_ns = INT64_MIN;
    l->delay_ns = delay_ns;
    return RTC_OK;
}
