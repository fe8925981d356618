/*
 * summary.json's "feasibility" (a real-time run checked against a plan, cli_feasible.c):
 * the plan's verdict and, per unit and for the tick, its predicted step times beside what
 * the run measured, and the predicted beside the measured overrun rate — so every run
 * shows how good the prediction was (summary.h: how to add a field).
 */
#include "cli.h"
#include "rt_cli.h"
#include "summary.h"

#include "rtcosim/plan.h"

#include <stdio.h>

static json_t *predicted_json(const rtc_plan_dist *d)
{
    return rtc__json_times(d->samples, d->p50, d->p99, d->p999, d->max, d->mean);
}

/* The same members of what the executive measured (its histograms). */
static json_t *measured_json(const rtc_hist_summary *h)
{
    return rtc__json_times(h->count, h->p50, h->p99, h->p999, h->max, h->avg);
}

/* {["name",] "predicted": ..., "measured": ...} (measured: only when the run measured
 * it). */
static json_t *pair_json(const char *name, const rtc_plan_dist *p, const rtc_hist_summary *m)
{
    json_t *o = json_object();
    int bad = !o;
    if (name)
        bad |= json_object_set_new(o, "name", rtc__json_str(name));
    bad |= json_object_set_new(o, "predicted", predicted_json(p));
    if (m)
        bad |= json_object_set_new(o, "measured", measured_json(m));
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *units_json(const rtc_plan *plan, const rtc_cli_rt *rt)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; !bad && i < plan->n_units; i++) {
        const rtc_hist_summary *m = rt->has_measured && i < rt->n_unit_measured
                                        ? &rt->unit_measured[i] : NULL;
        bad |= json_array_append_new(a, pair_json(plan->units[i].name, &plan->units[i].work, m));
    }
    return bad ? (json_decref(a), NULL) : a;
}

int rtc_cli_summary_feasibility(json_t *doc, const rtc_cli_rt *rt)
{
    const rtc_plan *plan = rt ? rt->plan : NULL;
    if (!plan)
        return 0;
    json_t *o = json_object(), *rate = json_object();
    int bad = !o || !rate;
    char plan_file[4200];
    snprintf(plan_file, sizeof plan_file, "%s/plan.json", rt->plan_dir);
    bad |= json_object_set_new(o, "plan", rt->plan_dir[0] ? rtc__json_str(plan_file)
                                                          : json_null());
    bad |= json_object_set_new(o, "verdict", rtc__json_str(rtc_plan_verdict_name(plan->verdict)));
    bad |= json_object_set_new(o, "confident", json_boolean(plan->confident));
    bad |= json_object_set_new(o, "forced", json_boolean(rt->force &&
                                                         plan->verdict == RTC_PLAN_INFEASIBLE));
    bad |= json_object_set_new(o, "scheduling_only", json_boolean(
                                      plan->verdict != RTC_PLAN_FEASIBLE &&
                                      rtc_plan_scheduling_only(plan)));
    bad |= json_object_set_new(o, "percentile", rtc__json_real(plan->o.percentile));
    bad |= json_object_set_new(o, "period_s", rtc__json_real((double)plan->o.period_ns / 1e9));
    bad |= json_object_set_new(o, "headroom", rtc__json_real(plan->headroom));
    bad |= json_object_set_new(o, "tick", pair_json(NULL, &plan->work, rt->has_measured ? &rt->busy
                                                                                  : NULL));
    bad |= json_object_set_new(rate, "predicted", rtc__json_real(plan->overrun_rate));
    if (rt->has_measured)
        bad |= json_object_set_new(rate, "measured",
                                   rtc__json_real(rt->steps ? (double)rt->overruns /
                                                                  (double)rt->steps : 0.0));
    bad |= json_object_set_new(o, "overrun_rate", rate);
    bad |= json_object_set_new(o, "units", units_json(plan, rt));
    return bad | json_object_set_new(doc, "feasibility", o);
}
