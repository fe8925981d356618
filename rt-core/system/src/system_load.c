/*
 * Building a system from an SSP description or a single FMU, and validating it
 * (rtcosim/system.h). Validation collects every problem (one "FILE:LINE: reason" line each)
 * before failing, so `rtcosim check` shows them all at once.
 */
#include "system_priv.h"

#include "masters/master_priv.h"

#include "rtcosim/sha256.h"
#include "rtcosim/ssp.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const rtc_unit_factory *find_factory(const rtc_system *sys, const char *type)
{
    for (size_t i = 0; i < sys->n_factories; i++)
        if (!strcmp(sys->factories[i].type, type))
            return &sys->factories[i];
    return NULL;
}

static int add_unit(rtc_system *sys, const rtc_unit_spec *spec)
{
    const rtc_unit_factory *f = find_factory(sys, spec->type);
    if (!f) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Component %s: no unit type \"%s\" is available",
                spec->file, spec->line, spec->name, spec->type);
        return RTC_EUNSUPPORTED;
    }
    rtc_unit *unit = NULL;
    int rc = f->create(f->ctx, spec, sys->lg, &unit);
    if (rc != RTC_OK)
        return rc;
    sys_unit *u = &sys->units[sys->n_units++];
    memset(u, 0, sizeof *u);
    u->unit = unit;
    u->line = spec->line;
    u->io = unit->ops->refresh != NULL;
    sys->has_io |= u->io;
    u->name = strdup(spec->name ? spec->name : unit->name); /* NULL: the factory named it */
    /* kept as the user knows it: a package's extraction folder is gone after the load */
    const char *shown = spec->source_display ? spec->source_display : spec->source;
    u->source = shown ? strdup(shown) : NULL;
    /* hashed now: a package's FMUs live in an extraction directory removed after the
     * load, and a session records what each unit was made from (rtc_system_unit_sha256) */
    if (spec->source && rtc_sha256_file(spec->source, u->sha256) != RTC_OK)
        u->sha256[0] = '\0';
    return u->name && (u->source || !spec->source) ? RTC_OK : RTC_ENOMEM;
}

/* The component's opaque annotation settings as key/value lists: the rtc:Component
 * attributes for the unit, and each rtc:Signal child (its "name" says which connector)
 * for that port. Points into the SSP description; freed by free_spec(). */
static int spec_from_component(const rtc_ssp *ssp, const rtc_ssp_component *c, rtc_unit_spec *sp)
{
    rtc_kv *kv = calloc(c->n_settings + 1, sizeof *kv);
    rtc_unit_port *ports = calloc(c->n_connectors + 1, sizeof *ports);
    if (!kv || !ports) {
        free(kv);
        free(ports);
        return RTC_ENOMEM;
    }
    *sp = (rtc_unit_spec){.name = c->name, .type = c->type, .source = c->source,
                          .file = ssp->display_path, .line = c->line, .settings = kv,
                          .ports = ports, .n_ports = c->n_connectors};
    /* a resource of a package is named inside the package, not in its extraction folder */
    size_t dl = ssp->extract_dir ? strlen(ssp->extract_dir) : 0;
    if (dl && c->source && !strncmp(c->source, ssp->extract_dir, dl) && c->source[dl] == '/') {
        size_t len = strlen(ssp->path) + strlen(c->source + dl) + 1;
        char *d = malloc(len);
        if (d)
            snprintf(d, len, "%s%s", ssp->path, c->source + dl);
        sp->source_display = d;
    }
    size_t n = 0;
    for (size_t i = 0; i < c->n_settings; i++) /* group 0: the component's own keys */
        if (c->settings[i].group == 0)
            kv[n++] = (rtc_kv){c->settings[i].key, c->settings[i].value};
    sp->n_settings = n;
    for (size_t p = 0; p < c->n_connectors; p++) {
        const rtc_ssp_connector *k = &c->connectors[p];
        ports[p] = (rtc_unit_port){.name = k->name, .unit = k->unit,
                                   .type = k->has_type ? k->type : RTC_TYPE_FLOAT64,
                                   .causality = k->kind == RTC_SSP_KIND_INPUT
                                                    ? RTC_CAUSALITY_INPUT
                                                    : k->kind == RTC_SSP_KIND_OUTPUT
                                                          ? RTC_CAUSALITY_OUTPUT
                                                          : RTC_CAUSALITY_PARAMETER};
        /* the rtc:Signal group naming this connector: its keys follow in kv */
        for (size_t i = 0; i < c->n_settings; i++) {
            const rtc_ssp_setting *st = &c->settings[i];
            if (st->group && !strcmp(st->element, "Signal") && !strcmp(st->key, "name") &&
                !strcmp(st->value, k->name)) {
                ports[p].settings = kv + n;
                for (size_t j = 0; j < c->n_settings; j++)
                    if (c->settings[j].group == st->group)
                        kv[n++] = (rtc_kv){c->settings[j].key, c->settings[j].value};
                ports[p].n_settings = (size_t)(kv + n - ports[p].settings);
            }
        }
    }
    return RTC_OK;
}

static void free_spec(rtc_unit_spec *sp)
{
    free((void *)sp->source_display);
    free((void *)sp->settings);
    free((void *)sp->ports);
}

/* Each connector of an FMU component must name a variable of matching causality. */
static unsigned check_connectors(rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_component *c,
                                 const sys_unit *u)
{
    unsigned errors = 0;
    static const rtc_causality want[] = {
        [RTC_SSP_KIND_INPUT] = RTC_CAUSALITY_INPUT,
        [RTC_SSP_KIND_OUTPUT] = RTC_CAUSALITY_OUTPUT,
        [RTC_SSP_KIND_PARAMETER] = RTC_CAUSALITY_PARAMETER,
        [RTC_SSP_KIND_CALCULATED_PARAMETER] = RTC_CAUSALITY_CALCULATED_PARAMETER,
    };
    for (size_t i = 0; i < c->n_connectors; i++) {
        const rtc_ssp_connector *k = &c->connectors[i];
        long v = rtc_model_find_var(u->unit->md, k->name);
        if (v < 0 && k->n_dims) { /* an FMI 2 array: "x[1]" ("x[1,1]") and on */
            char first[512];
            size_t pos = (size_t)snprintf(first, sizeof first, "%s[", k->name);
            for (size_t d = 0; d < k->n_dims && pos < sizeof first; d++)
                pos += (size_t)snprintf(first + pos, sizeof first - pos, d ? ",1" : "1");
            if (pos < sizeof first)
                snprintf(first + pos, sizeof first - pos, "]");
            v = rtc_model_find_var(u->unit->md, first);
        }
        if (v < 0) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connector %s: %s has no variable of that name",
                    ssp->display_path, k->line, k->name, c->name);
            errors++;
            continue;
        }
        const rtc_var *var = &u->unit->md->vars[v];
        if (k->kind <= RTC_SSP_KIND_CALCULATED_PARAMETER && var->causality != want[k->kind]) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connector %s.%s: kind %s but the FMU variable "
                    "is %s", ssp->display_path, k->line, c->name, k->name, rtc_ssp_kind_name(k->kind),
                    rtc_causality_name(var->causality));
            errors++;
        }
    }
    return errors;
}

/* What a system input's connection does to a value on the way in: the unit conversion
 * from the system connector's unit to the component's (when both are known and convert),
 * then the connection's linear transformation. */
static void port_affine(const rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_connection *c,
                        struct sys_port *p)
{
    const char *from = NULL, *to = NULL;
    for (size_t i = 0; i < ssp->n_connectors; i++)
        if (!strcmp(ssp->connectors[i].name, c->start.name))
            from = ssp->connectors[i].unit;
    const rtc_ssp_component *dc = &ssp->components[c->end.component];
    long k = rtc_ssp_find_connector(dc, c->end.name);
    const rtc_model_desc *md = sys->units[p->unit].unit->md;
    to = k >= 0 && dc->connectors[k].unit ? dc->connectors[k].unit : md->vars[p->var].unit;
    rtc_base_unit a, b;
    if (from && from[0] && to && to[0] && strcmp(from, to) != 0 &&
        !c->suppress_unit_conversion && rtc__sys_unit_base(ssp, md, from, &a) &&
        rtc__sys_unit_base(ssp, md, to, &b) && rtc__sys_same_dimension(&a, &b)) {
        p->k = a.factor / b.factor;
        p->d = (a.offset - b.offset) / b.factor;
    }
    if (c->transform.kind == RTC_SSP_TRANSFORM_LINEAR) {
        p->d = c->transform.factor * p->d + c->transform.offset;
        p->k *= c->transform.factor;
    }
}

/* The top-level system's connectors that reach components (see struct sys_port). */
static int add_ports(rtc_system *sys, const rtc_ssp *ssp)
{
    sys->ports = calloc(ssp->n_connections + 1, sizeof *sys->ports);
    if (!sys->ports)
        return RTC_ENOMEM;
    for (size_t i = 0; i < ssp->n_connections; i++) {
        const rtc_ssp_connection *c = &ssp->connections[i];
        bool input = c->start.component < 0;
        const rtc_ssp_endpoint *port = input ? &c->start : &c->end;
        const rtc_ssp_endpoint *inner = input ? &c->end : &c->start;
        if ((c->start.component < 0) == (c->end.component < 0))
            continue;
        long v = rtc_model_find_var(sys->units[inner->component].unit->md, inner->name);
        if (v < 0)
            continue; /* the component's connector check reports it */
        struct sys_port *p = &sys->ports[sys->n_ports++];
        *p = (struct sys_port){.name = strdup(port->name), .input = input,
                               .unit = (size_t)inner->component, .var = (size_t)v, .k = 1};
        if (!p->name)
            return RTC_ENOMEM;
        if (input)
            port_affine(sys, ssp, c, p);
    }
    return RTC_OK;
}

/* Every input is fed by at most one connection. */
static unsigned check_fan_in(rtc_system *sys)
{
    unsigned errors = 0;
    for (size_t i = 0; i < sys->n_links; i++) {
        for (size_t j = 0; j < i; j++) {
            const sys_link *a = &sys->links[j], *b = &sys->links[i];
            if (a->dst == b->dst && a->dst_var == b->dst_var &&
                (!a->dst_part || !b->dst_part || a->dst_elem == b->dst_elem)) {
                rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Connection %s: input already connected "
                        "at %s:%u (%s)", b->file, b->line, b->desc, a->file, a->line, a->desc);
                errors++;
            }
        }
    }
    return errors;
}

/* Step sizes, base tick and stop time; every step must be a whole number of base steps. */
static unsigned resolve_timing(rtc_system *sys, const rtc_ssp *ssp, const rtc_system_options *o,
                               int64_t default_step)
{
    unsigned errors = 0;
    int64_t base = o->step_ns ? o->step_ns : default_step;
    int64_t tick = 0;
    bool told = o->step_ns || (ssp && ssp->realtime.has_base_step) || !ssp;
    for (size_t i = 0; i < sys->n_units; i++) {
        sys_unit *u = &sys->units[i];
        const rtc_ssp_component *c = ssp ? &ssp->components[i] : NULL;
        u->step_ns = c && c->has_step && !o->step_ns ? c->step_ns : base;
        if (!told && u->step_ns == base && base > 0) {
            rtc_log(sys->lg, RTC_LOG_INFO, "%s: no base step given: using the smallest FMU "
                    "DefaultExperiment stepSize, %lld ns", sys->path, (long long)base);
            told = true;
        }
        if (u->step_ns <= 0) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s: no communication step for %s (give --step, or "
                    "baseStep in the org.rtcosim.realtime annotation)", sys->path, u->name);
            errors++;
            continue;
        }
        if (ssp && ssp->realtime.has_base_step && !o->step_ns && u->step_ns % base) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: Component %s: step %lld ns is not a multiple "
                    "of the base step %lld ns", ssp->display_path, u->line, u->name,
                    (long long)u->step_ns, (long long)base);
            errors++;
        }
        const rtc_cs_caps *cs = &u->unit->md->cs;
        int64_t fixed;
        if (cs->has_fixed_internal_step_size &&
            rtc_time_from_s(cs->fixed_internal_step_size, &fixed) == RTC_OK && fixed > 0 &&
            u->step_ns % fixed) {
            rtc_log(sys->lg, RTC_LOG_WARNING, "%s:%u: %s: fixedInternalStepSize %.17g s does not "
                    "divide its communication step", sys->path, u->line, u->name,
                    cs->fixed_internal_step_size);
            sys->warnings++;
        }
        tick = rtc_time_gcd(tick, u->step_ns);
    }
    const rtc__master_ops *m = rtc__master_algorithm(sys->algorithm);
    if (m && m->sync_step) {
        if (sys->sync_ns <= 0) {
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s: %s needs a synchronization step (--sync-step, "
                    "or syncStep in the org.rtcosim.realtime annotation)", sys->path, m->name);
            errors++;
        }
        tick = rtc_time_gcd(tick, sys->sync_ns > 0 ? sys->sync_ns : tick);
    }
    sys->tick_ns = tick > 0 ? tick : 1;
    return errors;
}

/* Without a base step: the smallest DefaultExperiment stepSize among the units (0: none). */
static int64_t fmu_default_step(const rtc_system *sys)
{
    int64_t best = 0, h;
    for (size_t i = 0; i < sys->n_units; i++) {
        const rtc_default_experiment *x = &sys->units[i].unit->md->experiment;
        if (x->has_step && rtc_time_parse_s(x->step_text, &h) == RTC_OK && h > 0 &&
            (!best || h < best))
            best = h;
    }
    return best;
}

/* The annotation's algorithm (XML white space around the name allowed); 0 or 1 error. */
static unsigned file_algorithm(rtc_system *sys, const rtc_ssp *ssp, rtc_master *out)
{
    const char *s = ssp->realtime.algorithm;
    char name[64];
    size_t b = strspn(s, " \t\r\n"), n = strlen(s + b);
    while (n && strchr(" \t\r\n", s[b + n - 1]))
        n--;
    snprintf(name, sizeof name, "%.*s", (int)n, s + b);
    if (n < sizeof name && rtc_master_parse(name, out) == RTC_OK)
        return 0;
    char list[256] = "";
    for (size_t m = 0, len = 0; m < rtc_master_count() && len < sizeof list; m++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", m ? ", " : "",
                                rtc_master_name((rtc_master)m));
    rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: RealTime algorithm: \"%s\" is not one of %s",
            ssp->display_path, ssp->realtime.line, s, list);
    return 1;
}

/* The run's length from an absolute stop time; one before the start is refused (never
 * taken for "no stop time"): 0 or 1 error. */
static unsigned set_stop(rtc_system *sys, int64_t stop_ns, const char *from, bool start_given)
{
    if (stop_ns >= sys->start_ns) {
        sys->stop_ns = stop_ns - sys->start_ns;
        return 0;
    }
    char a[32], b[32];
    rtc_time_format_s(stop_ns, a, sizeof a);
    rtc_time_format_s(sys->start_ns, b, sizeof b);
    rtc_log(sys->lg, RTC_LOG_ERROR, "%s: stop time %s s (%s) is before start time %s s (%s)",
            sys->path, a, from, b, start_given ? "--start" : "DefaultExperiment startTime");
    sys->stop_ns = 0;
    return 1;
}

/* Start and stop time of the file (the SSD's or the FMU's DefaultExperiment). */
typedef struct file_times {
    bool has_start, has_stop;
    int64_t start_ns, stop_ns;
} file_times;

/* The options over the file's settings; returns the number of errors (logged). */
static unsigned resolve_settings(rtc_system *sys, const rtc_ssp *ssp, const file_times *ft,
                                 const rtc_system_options *o)
{
    const rtc_ssp_realtime *rt = ssp ? &ssp->realtime : NULL;
    rtc_master file = RTC_MASTER_JACOBI; /* the default: the table's first algorithm */
    unsigned errors = rt && rt->algorithm ? file_algorithm(sys, ssp, &file) : 0;
    sys->algorithm = o->has_algorithm ? o->algorithm : file;
    sys->sync_ns = o->sync_step_ns ? o->sync_step_ns : rt && rt->has_sync_step ? rt->sync_step_ns : 0;
    sys->start_ns = o->has_start ? o->start_ns : ft->has_start ? ft->start_ns : 0;
    if (o->has_stop)
        errors += set_stop(sys, o->stop_ns, "--stop", o->has_start);
    else if (ft->has_stop)
        errors += set_stop(sys, ft->stop_ns, "DefaultExperiment stopTime", o->has_start);
    else
        sys->stop_ns = -1; /* decided by the caller of build_* (FMU default or 1 s) */
    sys->iterate = o->iterate;
    sys->init_passes = o->init_passes;
    sys->n_workers = o->workers;
    sys->substitute = o->substitute;
    sys->tol = o->tolerance > 0 ? o->tolerance : 1e-10;
    sys->max_iter = o->max_iterations ? o->max_iterations : 50;
    return errors;
}

static unsigned add_links(rtc_system *sys, const rtc_ssp *ssp)
{
    unsigned errors = 0;
    for (size_t i = 0; i < ssp->n_connections; i++) {
        const rtc_ssp_connection *c = &ssp->connections[i];
        if (c->start.component < 0 || c->end.component < 0)
            continue; /* a connection to the system boundary: reported by the loader */
        int rc = rtc__sys_add_link(sys, ssp, c, (size_t)c->start.component,
                                   (size_t)c->end.component);
        errors += rc != RTC_OK;
        if (rc == RTC_ENOMEM)
            break;
    }
    return errors + check_fan_in(sys);
}

/* A copy of a list of strings (recording selection, exposed variables). */
static int copy_list(char *const *names, size_t n, char ***out, size_t *n_out)
{
    *out = calloc(n + 1, sizeof **out);
    if (!*out)
        return RTC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (!((*out)[(*n_out)++] = strdup(names[i])))
            return RTC_ENOMEM;
    return RTC_OK;
}

/* The annotation's real-time settings, for the executive (names are static strings). */
static void copy_rt_hints(rtc_system *sys, const rtc_ssp_realtime *r)
{
    sys->rt = (rtc_system_rt_hints){
        .has_rtf = r->has_rtf, .rtf = r->rtf, .has_priority = r->has_priority,
        .priority = r->priority, .has_cpu = r->has_cpu, .cpu = r->cpu,
        .has_overrun = r->has_overrun, .overrun = rtc_ssp_overrun_name(r->overrun),
        .has_max_overruns = r->has_max_overruns, .max_overruns = r->max_overruns,
        .has_decimation = r->has_decimation, .decimation = r->decimation,
        .has_deadman = r->has_deadman, .deadman_ns = r->deadman_ns};
}

static int build_from_ssp(rtc_system *sys, const rtc_ssp *ssp, const rtc_system_options *o)
{
    file_times ft = {ssp->has_start, ssp->has_stop, ssp->start_ns, ssp->stop_ns};
    unsigned errors = resolve_settings(sys, ssp, &ft, o);
    copy_rt_hints(sys, &ssp->realtime);
    sys->units = calloc(ssp->n_components + 1, sizeof *sys->units);
    if (!sys->units)
        return RTC_ENOMEM;
    for (size_t i = 0; i < ssp->n_components; i++) {
        const rtc_ssp_component *c = &ssp->components[i];
        rtc_unit_spec spec = {0};
        int rc = spec_from_component(ssp, c, &spec);
        if (rc == RTC_OK)
            rc = add_unit(sys, &spec);
        free_spec(&spec);
        if (rc != RTC_OK)
            return rc; /* units stay aligned with components: stop at the first failure */
        if (!sys->units[i].io)
            errors += check_connectors(sys, ssp, c, &sys->units[i]);
    }
    if (sys->stop_ns < 0) {
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s: no stop time (DefaultExperiment stopTime or "
                "--stop): running 1 s", sys->path);
        sys->warnings++;
        sys->stop_ns = RTC_NS_PER_S;
    }
    errors += resolve_timing(sys, ssp, o, ssp->realtime.has_base_step ? ssp->realtime.base_step_ns
                                                                      : fmu_default_step(sys));
    errors += add_links(sys, ssp);
    int rc = add_ports(sys, ssp);
    if (rc == RTC_OK)
        rc = rtc__sys_add_params(sys, ssp);
    for (size_t i = 0; rc == RTC_OK && i < o->n_sets; i++)
        errors += rtc__sys_add_set(sys, o->sets[i]) != RTC_OK;
    if (rc == RTC_OK)
        rc = copy_list(ssp->realtime.record, ssp->realtime.n_record, &sys->record,
                       &sys->n_record);
    if (rc == RTC_OK)
        rc = copy_list(ssp->realtime.expose, ssp->realtime.n_expose, &sys->expose,
                       &sys->n_expose);
    sys->rt.expose = (const char *const *)sys->expose;
    sys->rt.n_expose = sys->n_expose;
    sys->warnings += ssp->warnings;
    return rc != RTC_OK ? rc : errors ? RTC_EPARSE : RTC_OK;
}

/* A time of the FMU's DefaultExperiment into *ns when it has one; a text that is no
 * number of whole nanoseconds is an error (logged), never a silent default. */
static int experiment_time(const rtc_system *sys, const char *what, bool has, const char *text,
                           int64_t *ns)
{
    int rc = has ? rtc_time_parse_s(text, ns) : RTC_OK;
    if (rc != RTC_OK)
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s: DefaultExperiment %s \"%s\": %s", sys->path, what,
                text, rc == RTC_ETIME ? "not a whole number of nanoseconds" : "not a number");
    return rc;
}

/* A single FMU: one unit named after its model (the factory names it), its variables also
 * by their own names, its DefaultExperiment's times: start, stop (else start + 1 s), step
 * (else a 500th of the span); a stop before the start is refused. */
static int build_from_fmu(rtc_system *sys, const rtc_system_options *o)
{
    sys->single = true;
    sys->units = calloc(2, sizeof *sys->units);
    if (!sys->units)
        return RTC_ENOMEM;
    rtc_unit_spec spec = {.type = "application/x-fmu-sharedlibrary", .source = sys->path,
                          .file = sys->path, .settings = o->unit_settings,
                          .n_settings = o->n_unit_settings};
    int rc = add_unit(sys, &spec);
    if (rc != RTC_OK)
        return rc;
    const rtc_default_experiment *x = &sys->units[0].unit->md->experiment;
    file_times ft = {.has_start = x->has_start, .has_stop = x->has_stop};
    int64_t step = 0;
    if (experiment_time(sys, "startTime", x->has_start && !o->has_start, x->start_text,
                        &ft.start_ns) ||
        experiment_time(sys, "stopTime", x->has_stop && !o->has_stop, x->stop_text,
                        &ft.stop_ns) ||
        experiment_time(sys, "stepSize", x->has_step, x->step_text, &step))
        return RTC_EPARSE;
    unsigned errors = resolve_settings(sys, NULL, &ft, o); /* a stop before the start too */
    if (sys->stop_ns < 0)
        sys->stop_ns = RTC_NS_PER_S;
    if (!x->has_step)
        step = sys->stop_ns / 500 > 0 ? sys->stop_ns / 500 : 1;
    for (size_t i = 0; i < o->n_sets; i++)
        errors += rtc__sys_add_set(sys, o->sets[i]) != RTC_OK;
    errors += resolve_timing(sys, NULL, o, step);
    /* the last step ends at the stop time when the FMU can take a shorter one */
    sys->short_last = !errors && sys->stop_ns % sys->tick_ns &&
                      (sys->units[0].unit->caps & RTC_UNIT_CAN_VARY_STEP);
    return errors ? RTC_EPARSE : RTC_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

static int validate(rtc_system *sys)
{
    /* a master runs the algorithm with the thread options (--workers, substitute) */
    int mrc = rtc__master_check(sys);
    if (mrc != RTC_OK)
        return mrc;
    if (sys->stop_ns % sys->tick_ns && !sys->short_last) {
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s: the stop time is not a multiple of the base tick "
                "(%lld ns): the run ends at the last whole tick", sys->path,
                (long long)sys->tick_ns);
        sys->warnings++;
    }
    const rtc__master_ops *m = rtc__master_algorithm(sys->algorithm);
    int rc = rtc__sys_order(sys, m->in_order);
    if (rc == RTC_OK)
        sys->warnings += rtc__sys_find_loops(sys, RTC_LOG_WARNING);
    return rc;
}

bool rtc_system_is_fmu_path(const char *path)
{
    char file[4096];
    struct stat st;
    if (!path)
        return false;
    if (ends_with(path, ".fmu"))
        return true;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    snprintf(file, sizeof file, "%s/SystemStructure.ssd", path);
    if (access(file, F_OK) == 0)
        return false;
    snprintf(file, sizeof file, "%s/modelDescription.xml", path);
    return access(file, F_OK) == 0;
}

int rtc_system_load(const char *path, const rtc_unit_factory *factories, size_t n_factories,
                    const rtc_system_options *opt, const rtc_logger *lg, rtc_system **out)
{
    static const rtc_system_options none;
    rtc_system *sys = calloc(1, sizeof *sys);
    if (!sys)
        return RTC_ENOMEM;
    sys->lg = lg;
    sys->threads = (rtc_rt_thread_opts){.cpu = -1, .stack_bytes = 256u << 10}; /* SCHED_OTHER */
    sys->path = strdup(path);
    sys->factories = calloc(n_factories + 1, sizeof *sys->factories);
    if (!sys->path || !sys->factories) {
        rtc_system_free(sys);
        return RTC_ENOMEM;
    }
    memcpy(sys->factories, factories, n_factories * sizeof *factories);
    sys->n_factories = n_factories;
    int rc;
    if (rtc_system_is_fmu_path(path)) {
        rc = build_from_fmu(sys, opt ? opt : &none);
        sys->fmu_logging = opt && opt->fmu_logging;
    } else {
        rtc_ssp *ssp = NULL;
        rc = rtc_ssp_load_from(path, opt ? opt->source_dir : NULL, lg, &ssp);
        if (rc == RTC_OK && opt && opt->ssp_hook)
            rc = opt->ssp_hook(opt->ssp_hook_user, ssp);
        if (rc == RTC_OK)
            rc = build_from_ssp(sys, ssp, opt ? opt : &none);
        sys->fmu_logging = opt && opt->fmu_logging;
        rtc_ssp_free(ssp);
    }
    if (rc == RTC_OK)
        rc = validate(sys);
    if (rc != RTC_OK) {
        rtc_system_free(sys);
        return rc;
    }
    *out = sys;
    return RTC_OK;
}
