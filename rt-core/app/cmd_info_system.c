/*
 * `rtcosim info SYSTEM` (.ssd, .ssp): what a system holds, read through the same loader
 * that `run` uses (so what is printed is what would run): the master and its times, the
 * FMU components with their connectors and units, the I/O components with each signal's
 * direction, unit and estimator, the connections with unit, estimator and delay, and the
 * operator's exposed variables. Nothing is initialized and no driver connects.
 */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/driver.h"
#include "rtcosim/io_unit.h"
#include "rtcosim/estimate.h"
#include "rtcosim/placement.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <string.h>

/* "[unit]" of a variable, or "" without one. */
static const char *unit_of(const rtc_var *v, char *buf, size_t cap)
{
    if (v->unit && *v->unit)
        snprintf(buf, cap, " [%s]", v->unit);
    else
        buf[0] = '\0';
    return buf;
}

/* The connectors of one causality on one line: "    in   a [m], b [N]". */
static void print_connectors(const rtc_unit *u, rtc_causality c, const char *label)
{
    int n = 0;
    for (size_t v = 0; v < u->md->n_vars; v++) {
        const rtc_var *var = &u->md->vars[v];
        if (var->causality != c)
            continue;
        char un[96];
        printf("%s%s%s", n++ ? ", " : label, var->name, unit_of(var, un, sizeof un));
    }
    if (n)
        printf("\n");
}

static void print_fmus(const rtc_system *sys)
{
    size_t n = 0;
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++)
        n += !rtc_io_unit_is(rtc_system_unit(sys, i));
    printf("Components (%zu):\n", n);
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        if (rtc_io_unit_is(u))
            continue;
        char h[32];
        rtc_time_format_s(rtc_system_unit_step_ns(sys, i), h, sizeof h);
        const char *src = rtc_system_unit_source(sys, i);
        printf("  %-20s %-8s step %s s  %s%s%s%s\n", u->name, u->ops->kind, h,
               u->md->model_name, src ? "  (" : "", src ? src : "", src ? ")" : "");
        print_connectors(u, RTC_CAUSALITY_INPUT, "      in   ");
        print_connectors(u, RTC_CAUSALITY_OUTPUT, "      out  ");
    }
}

void rtc_cli_print_io_description(const rtc_unit *u, const char *indent)
{
    char text[8192];
    if (!rtc_io_unit_describe(u, text, sizeof text))
        return;
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        printf("%s%.*s\n", indent, (int)n, l);
        l += n + (l[n] == '\n');
    }
}

/* Each I/O signal: direction, unit, and for what comes from the bench its estimator. */
static void print_io(const rtc_system *sys)
{
    size_t n = 0;
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++)
        n += rtc_io_unit_is(rtc_system_unit(sys, i));
    printf("I/O components (%zu):\n", n);
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        if (!rtc_io_unit_is(u))
            continue;
        printf("  %-20s %s\n", u->name, u->md->model_name);
        rtc_cli_print_io_description(u, "      ");
        for (size_t v = 0; v < u->md->n_vars; v++) {
            const rtc_var *var = &u->md->vars[v];
            bool from = var->causality == RTC_CAUSALITY_OUTPUT;
            char un[96], est[256] = "";
            if (from)
                rtc_est_config_text(rtc_io_unit_estimator(u, v), est, sizeof est);
            printf("      %-4s %s%s%s%s\n", from ? "from" : "to", var->name,
                   unit_of(var, un, sizeof un), from ? "  estimator " : "", est);
        }
    }
}

static void print_links(rtc_system *sys)
{
    printf("Connections (%zu):\n", rtc_system_link_count(sys));
    for (size_t i = 0; i < rtc_system_link_count(sys); i++) {
        rtc_link_stats ls;
        rtc_system_link_stats(sys, i, &ls);
        char src[512], un[96] = "", est[256], d[32];
        snprintf(src, sizeof src, "%.*s", (int)strcspn(ls.desc, " "), ls.desc);
        size_t u, v;
        const rtc_est_config *at_io = NULL; /* a bench value is estimated at its I/O signal */
        if (rtc_system_find_var(sys, src, &u, &v) == RTC_OK) {
            unit_of(&rtc_system_unit(sys, u)->md->vars[v], un, sizeof un);
            at_io = ls.config ? NULL : rtc_io_unit_estimator(rtc_system_unit(sys, u), v);
        }
        if (at_io) {
            char cfg[200];
            rtc_est_config_text(at_io, cfg, sizeof cfg);
            snprintf(est, sizeof est, "%s (at the I/O signal)", cfg);
        } else {
            rtc_est_config_text(ls.config, est, sizeof est);
        }
        rtc_time_format_s(ls.delay_ns, d, sizeof d);
        printf("  %s%s  estimator %s%s%s%s\n", ls.desc, un, est, ls.delay_ns ? "  delay " : "",
               ls.delay_ns ? d : "", ls.delay_ns ? " s" : "");
    }
}

int rtc_cli_info_system(const char *path, bool units, const char *const *places,
                        size_t n_places)
{
    rtc_system_options so = {0};
    rtc_system *sys = NULL;
    if (rtc_cli_load_system(path, &so, &rtc_cli_log, &sys) != RTC_OK) {
        fprintf(stderr, "%s: not a valid system (see 'rtcosim check %s')\n", path, path);
        return RTC_EXIT_ERROR;
    }
    if (units) {
        rtc_cli_print_units(sys);
        rtc_system_free(sys);
        return RTC_EXIT_OK;
    }
    char tick[32], start[32], stop[32] = "none";
    rtc_time_format_s(rtc_system_tick_ns(sys), tick, sizeof tick);
    rtc_time_format_s(rtc_system_start_ns(sys), start, sizeof start);
    if (rtc_system_stop_ns(sys) != INT64_MAX)
        rtc_time_format_s(rtc_system_stop_ns(sys), stop, sizeof stop);
    printf("System:        %s\n", path);
    printf("Master:        %s, base tick %s s, start %s s, stop after %s s\n",
           rtc_master_name(rtc_system_algorithm(sys)), tick, start, stop);
    print_fmus(sys);
    print_io(sys);
    print_links(sys);
    rtc_placement_opts po = {.places = places, .n_places = n_places, .lockstep = true};
    int prc = rtc_cli_show_partition(path, &so, &po);
    if (prc != RTC_OK)
        fprintf(stderr, "%s: the placement of its components on nodes is not valid\n", path);
    const rtc_system_rt_hints *h = rtc_system_rt(sys);
    printf("Exposed to the operator (%zu):", h->n_expose);
    for (size_t i = 0; i < h->n_expose; i++)
        printf(" %s", h->expose[i]);
    printf("\n");
    rtc_system_free(sys);
    return prc == RTC_OK ? RTC_EXIT_OK : RTC_EXIT_ERROR;
}

void rtc_cli_print_units(const rtc_system *sys)
{
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++) {
        const rtc_unit *u = rtc_system_unit(sys, i);
        for (size_t v = 0; v < u->md->n_vars; v++)
            printf("%s.%s\t%s\n", u->name, u->md->vars[v].name,
                   u->md->vars[v].unit ? u->md->vars[v].unit : "");
    }
}
