/*
 * Operator access to a system's variables (rtcosim/system.h): lookup by "unit.variable",
 * the rule of which variables may be written while a run goes on, and the RT-safe write
 * and read of one value as a double. A session (rtcosim/session.h) applies operator
 * commands with these at step boundaries, on the thread that steps the system.
 *
 * Settable while running: an input no connection drives (a connection would overwrite it
 * at the next step), a tunable parameter, or an output of an I/O component (the value
 * then overrides the bench's until a newer sample arrives; see io_unit.c). Everything else
 * is refused with the reason, so an operator never writes a variable that cannot change.
 */
#include "system_priv.h"

#include "rtcosim/status.h"

#include <stdio.h>
#include <string.h>

const char *rtc_system_unit_source(const rtc_system *sys, size_t i)
{
    return i < sys->n_units ? sys->units[i].source : NULL;
}

const char *rtc_system_unit_sha256(const rtc_system *sys, size_t i)
{
    return i < sys->n_units && sys->units[i].sha256[0] ? sys->units[i].sha256 : NULL;
}

int rtc_system_find_var(const rtc_system *sys, const char *name, size_t *unit, size_t *var)
{
    if (!sys || !name)
        return RTC_EINVAL;
    /* unit names may contain dots (flattened systems): try every split */
    for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
        size_t len = (size_t)(dot - name);
        for (size_t u = 0; u < sys->n_units; u++) {
            const char *un = sys->units[u].name;
            if (strlen(un) != len || strncmp(un, name, len) != 0)
                continue;
            long v = rtc_model_find_var(sys->units[u].unit->md, dot + 1);
            if (v >= 0) {
                *unit = u;
                *var = (size_t)v;
                return RTC_OK;
            }
        }
    }
    /* a connector of the top-level system, by its own name: the first variable it feeds
     * (an input) or is fed by (an output) */
    for (size_t i = 0; i < sys->n_ports; i++) {
        if (!strcmp(sys->ports[i].name, name)) {
            *unit = sys->ports[i].unit;
            *var = sys->ports[i].var;
            return RTC_OK;
        }
    }
    /* a single FMU's variables by their own names, as `rtcosim run FMU` names them */
    long v = sys->single && sys->n_units ? rtc_model_find_var(sys->units[0].unit->md, name) : -1;
    if (v >= 0) {
        *unit = 0;
        *var = (size_t)v;
        return RTC_OK;
    }
    return RTC_ENOTFOUND;
}

static bool driven_by_link(const rtc_system *sys, size_t unit, size_t var)
{
    for (size_t i = 0; i < sys->n_links; i++)
        if (sys->links[i].dst == unit && sys->links[i].dst_var == var)
            return true;
    return false;
}

/* The reason a variable cannot be written during a run, or NULL. */
static const char *refusal(const rtc_system *sys, size_t unit, size_t var)
{
    const sys_unit *u = &sys->units[unit];
    const rtc_var *v = &u->unit->md->vars[var];
    if (v->type == RTC_TYPE_STRING || v->type == RTC_TYPE_BINARY || v->type == RTC_TYPE_CLOCK ||
        rtc_var_count(v) != 1)
        return "only scalar numeric and boolean variables can be set";
    if (u->io)
        return v->causality == RTC_CAUSALITY_OUTPUT ? NULL
                                                    : "is an I/O output to the bench (the "
                                                      "system writes it)";
    if (v->causality == RTC_CAUSALITY_INPUT)
        return driven_by_link(sys, unit, var) ? "is driven by a connection" : NULL;
    if (v->causality == RTC_CAUSALITY_PARAMETER && v->variability == RTC_VARIABILITY_TUNABLE)
        return NULL;
    if (v->causality == RTC_CAUSALITY_PARAMETER)
        return "is a fixed parameter (only tunable parameters change during a run)";
    return "is not an input or a tunable parameter";
}

int rtc_system_check_settable(const rtc_system *sys, size_t unit, size_t var, char *why,
                              size_t cap)
{
    if (!sys || unit >= sys->n_units || var >= sys->units[unit].unit->md->n_vars)
        return RTC_EINVAL;
    const char *r = refusal(sys, unit, var);
    if (!r && sys->units[unit].owner != 0)
        r = "belongs to a worker thread (--workers): its FMU may only be called there";
    if (!r && sys->units[unit].as)
        r = "steps on its own thread (overrun policy substitute): its FMU may only be "
            "called there";
    if (r && why && cap)
        snprintf(why, cap, "%s.%s %s", sys->units[unit].name,
                 sys->units[unit].unit->md->vars[var].name, r);
    return r ? RTC_EINVAL : RTC_OK;
}

int rtc_system_set_value(rtc_system *sys, size_t unit, size_t var, double value)
{
    if (!sys || !sys->initialized || sys->failed || unit >= sys->n_units)
        return RTC_ESTATE;
    const sys_unit *u = &sys->units[unit];
    if (var >= u->unit->md->n_vars || refusal(sys, unit, var) || u->owner != 0 || u->as)
        return RTC_EINVAL;
    const rtc_var *v = &u->unit->md->vars[var];
    uint64_t buf[2] = {0};
    rtc_value x = rtc_value_from_double(v->type, value);
    rtc_value_store(v->type, &x, buf, 0);
    return u->unit->ops->set(u->unit->self, v->type, &v->vr, 1, buf, 1);
}

int rtc_system_get_value(const rtc_system *sys, size_t unit, size_t var, double *out)
{
    if (!sys || !sys->initialized || unit >= sys->n_units)
        return RTC_ESTATE;
    const sys_unit *u = &sys->units[unit];
    if (var >= u->unit->md->n_vars)
        return RTC_EINVAL;
    const rtc_var *v = &u->unit->md->vars[var];
    if (v->type == RTC_TYPE_STRING || v->type == RTC_TYPE_BINARY || rtc_var_count(v) != 1)
        return RTC_EINVAL;
    uint64_t buf[2] = {0};
    int rc = u->unit->ops->get(u->unit->self, v->type, &v->vr, 1, buf, 1);
    if (rc != RTC_OK)
        return rc;
    *out = rtc_value_to_double(v->type, rtc_value_load(v->type, buf, 0));
    return RTC_OK;
}
