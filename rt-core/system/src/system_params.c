/*
 * Parameters and start values of a system being built (rtcosim/system.h): the SSP
 * parameter bindings (.ssv values, with their units converted and their values checked
 * against the variable) and the command line's --set assignments (unit.variable or an
 * input connector of the top-level system). Each value is checked where it is read, so a
 * bad one is reported with its file and line (or its --set), and kept as text until the
 * units are initialized (rtc_system_init applies them).
 */
#include "system_priv.h"

#include "rtcosim/ssp.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long unit_index(const rtc_system *sys, const char *name)
{
    for (size_t i = 0; name && i < sys->n_units; i++)
        if (!strcmp(sys->units[i].name, name))
            return (long)i;
    return -1;
}

/* Before initialization FMI lets a host set variables with a start value that is exact
 * or approx, and inputs. */
static bool settable(const rtc_var *var)
{
    return var && var->variability != RTC_VARIABILITY_CONSTANT &&
           (var->initial == RTC_INITIAL_EXACT || var->initial == RTC_INITIAL_APPROX ||
            var->causality == RTC_CAUSALITY_INPUT);
}

static int push_param(rtc_system *sys, size_t unit, size_t var, const char *text,
                      const char *file, unsigned line)
{
    struct sys_param *p = realloc(sys->params, (sys->n_params + 1) * sizeof *p);
    if (!p)
        return RTC_ENOMEM;
    sys->params = p;
    p += sys->n_params++;
    *p = (struct sys_param){.unit = unit, .var = var, .line = line, .text = strdup(text),
                            .file = strdup(file)};
    return p->text && p->file ? RTC_OK : RTC_ENOMEM;
}

/* A real value given with a unit other than its target's is converted (SSP: values are
 * in their own unit unless the mapping suppresses the conversion); *text is replaced. A
 * unit that neither the file nor the FMU defines cannot be converted from: the value is
 * used as written, with a warning (as OMSimulator does; libcosim ignores parameter units).
 * Two defined units of different dimensions are an error. */
static int param_unit(rtc_system *sys, const rtc_ssp *ssp, const rtc_ssp_param *p,
                      size_t u, const rtc_var *var, char **text)
{
    const rtc_ssp_component *c = rtc_ssp_find_component(ssp, p->component);
    long k = c ? rtc_ssp_find_connector(c, p->name) : -1;
    const char *to = k >= 0 && c->connectors[k].unit ? c->connectors[k].unit : var->unit;
    rtc_value x;
    if (!p->unit || !p->unit[0] || !to || !to[0] || !strcmp(p->unit, to) ||
        p->suppress_unit_conversion || rtc_value_parse(RTC_TYPE_FLOAT64, p->value, &x))
        return RTC_OK;
    rtc_base_unit a, b;
    const rtc_model_desc *md = sys->units[u].unit->md;
    bool has_a = rtc__sys_unit_base(ssp, md, p->unit, &a);
    bool has_b = rtc__sys_unit_base(ssp, md, to, &b);
    if (!has_a || !has_b) {
        rtc_log(sys->lg, RTC_LOG_WARNING, "%s:%u: parameter %s.%s: unit \"%s\" is not "
                "defined (no ssc:Unit, no FMU unit with base units): the value %s is used as "
                "written, in \"%s\"", p->file, p->line, p->component, p->name,
                has_a ? to : p->unit, p->value, to);
        sys->warnings++;
        return RTC_OK;
    }
    if (!rtc__sys_same_dimension(&a, &b)) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: parameter %s.%s: unit mismatch: [%s] to [%s] "
                "has no conversion", p->file, p->line, p->component, p->name, p->unit, to);
        return RTC_EPARSE;
    }
    return asprintf(text, "%.17g", ((a.factor * x.f64 + a.offset) - b.offset) / b.factor) < 0
               ? RTC_ENOMEM : RTC_OK;
}

/* Whether an element of a real variable's parsed values is NaN or Inf. */
static bool has_nonfinite(const rtc_var *var, const void *vals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((var->type == RTC_TYPE_FLOAT64 && !isfinite(((const double *)vals)[i])) ||
            (var->type == RTC_TYPE_FLOAT32 && !isfinite(((const float *)vals)[i])))
            return true;
    return false;
}

/*
 * Why @p text cannot be given to @p var of @p md before initialization, or NULL; @p buf
 * holds the reason when it names the type. Checked at the load with the parse of the
 * initialization (rtc_var_parse_text(): arrays, enumeration items, hex binaries), so that
 * `check` refuses what the initialization would (an odd number of hex digits, a structural
 * parameter). A value in a file (@p from_file) must also be finite, and its reason follows
 * the quoted value ("\"7\": not a valid value of the variable's type (Boolean)"); --set may
 * give NaN or Inf on purpose (to try the run's non-finite handling), and its reason quotes
 * the value itself ("\"abc\" is not a valid value for a Float64 variable").
 */
static const char *value_problem(const rtc_model_desc *md, const rtc_var *var, const char *text,
                                 bool from_file, char *buf, size_t cap)
{
    if (!rtc_var_settable_at_init(var))
        return var->causality == RTC_CAUSALITY_STRUCTURAL_PARAMETER
                   ? "a structural parameter changes only in Configuration Mode, which is not "
                     "supported"
                   : "the variable cannot be set before initialization";
    size_t count = rtc_var_count(var);
    sys_value val;
    const char *why = NULL;
    int rc = rtc__sys_value_parse(md, var, text, &val, buf, cap);
    if (rc == RTC_ENOMEM) {
        why = "out of memory";
    } else if (rc != RTC_OK) {
        why = buf; /* an array: which element, or the count; one value: what it should be */
        if (from_file && count == 1 && var->type == RTC_TYPE_BINARY)
            snprintf(buf, cap, "not a Binary value (pairs of hexadecimal digits)");
        else if (from_file && count == 1)
            snprintf(buf, cap, "not a valid value of the variable's type (%s)",
                     rtc_type_name(var->type));
    } else if (from_file && has_nonfinite(var, val.vals, count)) {
        why = "not a finite number";
    }
    rtc__sys_value_free(&val);
    return why;
}

/* Parameter values that name no settable variable are ignored, with a warning (SSP).
 * Values bound to system connectors reached their components in the loader. */
int rtc__sys_add_params(rtc_system *sys, const rtc_ssp *ssp)
{
    int rc = RTC_OK;
    unsigned errors = 0;
    for (size_t i = 0; rc == RTC_OK && i < ssp->n_params; i++) {
        const rtc_ssp_param *p = &ssp->params[i];
        if (p->is_system && p->n_targets)
            continue;
        long u = p->is_system ? -1 : unit_index(sys, p->component);
        long v = u < 0 ? -1 : rtc_model_find_var(sys->units[u].unit->md, p->name);
        const rtc_var *var = v < 0 ? NULL : &sys->units[u].unit->md->vars[v];
        if (!settable(var)) {
            rtc_log(sys->lg, RTC_LOG_WARNING, "%s:%u: parameter %s%s%s: %s; ignored", p->file,
                    p->line, p->component, p->component[0] ? "." : "", p->name,
                    p->is_system ? "a connector of the system that feeds no component"
                    : !var       ? "no such variable"
                                 : "the variable cannot be set before initialization");
            sys->warnings++;
            continue;
        }
        char *conv = NULL, why[160];
        rc = param_unit(sys, ssp, p, (size_t)u, var, &conv);
        const char *text = conv ? conv : p->value;
        const char *bad = rc == RTC_OK ? value_problem(sys->units[u].unit->md, var, text, true,
                                                       why, sizeof why)
                                       : NULL;
        if (bad) { /* the value is quoted when it is what is wrong */
            bool quote = rtc_var_settable_at_init(var);
            rtc_log(sys->lg, RTC_LOG_ERROR, "%s:%u: parameter %s.%s: %s%s%s%s", p->file, p->line,
                    p->component, p->name, quote ? "\"" : "", quote ? text : "",
                    quote ? "\": " : "", bad);
            errors++;
        } else if (rc == RTC_OK) {
            rc = push_param(sys, (size_t)u, (size_t)v, text, p->file, p->line);
        }
        free(conv);
        if (rc == RTC_EPARSE) { /* reported; the other values are still checked */
            errors++;
            rc = RTC_OK;
        }
    }
    return rc != RTC_OK ? rc : errors ? RTC_EPARSE : RTC_OK;
}

/* Why "--set" cannot give @p text to variable @p v of unit @p u (a reason in @p buf, or
 * NULL): the rules and the parse of initialization (system.c job_params), checked now. */
static const char *set_problem(const rtc_system *sys, size_t u, size_t v, const char *text,
                               char *buf, size_t cap)
{
    const rtc_model_desc *md = sys->units[u].unit->md;
    const rtc_var *var = &md->vars[v];
    if (var->causality != RTC_CAUSALITY_STRUCTURAL_PARAMETER && !rtc_var_settable_at_init(var)) {
        snprintf(buf, cap, "the variable cannot be set before initialization (a %s %s)",
                 rtc_variability_name(var->variability), rtc_causality_name(var->causality));
        return buf;
    }
    return value_problem(md, var, text, false, buf, cap);
}

/* A value given for a system input, as the component input it feeds sees it (the
 * connection's unit conversion and linear transformation); *out stays NULL when the
 * value passes unchanged. */
static int port_value(const struct sys_port *p, const char *text, char **out)
{
    rtc_value x;
    *out = NULL;
    if ((p->k == 1.0 && p->d == 0.0) || rtc_value_parse(RTC_TYPE_FLOAT64, text, &x) != RTC_OK)
        return RTC_OK;
    return asprintf(out, "%.17g", p->k * x.f64 + p->d) < 0 ? RTC_ENOMEM : RTC_OK;
}

/* One --set NAME=VALUE: every component input a system input feeds, or unit.variable.
 * The value is checked now so that a typo fails the load, not the initialization. */
int rtc__sys_add_set(rtc_system *sys, const char *assign)
{
    const char *eq = strchr(assign, '=');
    char name[512], buf[400];
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - assign) : 0, assign);
    const char *why = !eq || !name[0] ? "expected NAME=VALUE" : NULL;
    size_t hits = 0, u = 0, v = 0;
    for (size_t i = 0; !why && i < sys->n_ports; i++) {
        const struct sys_port *p = &sys->ports[i];
        if (!p->input || strcmp(p->name, name) != 0)
            continue;
        char *conv = NULL;
        if (!(why = set_problem(sys, p->unit, p->var, eq + 1, buf, sizeof buf)) &&
            (port_value(p, eq + 1, &conv) != RTC_OK ||
             push_param(sys, p->unit, p->var, conv ? conv : eq + 1, "--set", 0) != RTC_OK)) {
            free(conv);
            return RTC_ENOMEM;
        }
        free(conv);
        hits++;
    }
    if (!why && !hits) {
        if (rtc_system_find_var(sys, name, &u, &v) != RTC_OK)
            why = sys->single ? "no variable of that name in the FMU"
                              : "no unit.variable or input of the system of that name";
        else if (!(why = set_problem(sys, u, v, eq + 1, buf, sizeof buf)) &&
                 push_param(sys, u, v, eq + 1, "--set", 0) != RTC_OK)
            return RTC_ENOMEM;
    }
    if (why) {
        rtc_log(sys->lg, RTC_LOG_ERROR, "--set %s: %s", assign, why);
        return RTC_EINVAL;
    }
    return RTC_OK;
}
