/*
 * A plan on disk (rtcosim/plan.h): DIR/plan.json (what was measured, where, how, and the
 * analysis of it) and DIR/samples.csv (the profile's table, one line per tick: the
 * measurement itself, so a later plan or run re-analyses it without profiling again).
 * Both are replaced whole (temporary file, fsync, rename): a reader never sees half a plan.
 */
#include "rtcosim/plan.h"

#include "json_util.h"
#include "rtcosim/ofile.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PLAN_FORMAT "rtcosim-plan-1"

/* ---- plan.json ---- */

static json_t *dist_json(const rtc_plan_dist *d)
{
    return rtc__json_times(d->samples, d->p50, d->p99, d->p999, d->max, d->mean);
}

static int profile_json(json_t *doc, const rtc_profile *prof, const rtc_plan_meta *meta)
{
    const rtc_profile_info *in = rtc_profile_info_get(prof);
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "ticks", rtc__json_uint(rtc_profile_ticks(prof)));
    bad |= json_object_set_new(o, "ticks_asked", json_integer(meta->ticks_asked));
    bad |= json_object_set_new(o, "period_s", rtc__json_real((double)in->period_ns / 1e9));
    bad |= json_object_set_new(o, "budget_s", rtc__json_real((double)in->budget_ns / 1e9));
    bad |= json_object_set_new(o, "wall_s", rtc__json_real(in->wall_s));
    bad |= json_object_set_new(o, "budget_hit", json_boolean(in->budget_hit));
    bad |= json_object_set_new(o, "policy", rtc__json_str(in->policy));
    bad |= json_object_set_new(o, "priority", json_integer(in->priority));
    bad |= json_object_set_new(o, "cpu", json_integer(in->cpu));
    bad |= json_object_set_new(o, "memory_locked", json_boolean(in->memory_locked));
    bad |= json_object_set_new(o, "load_average", rtc__json_real(in->loadavg));
    bad |= json_object_set_new(o, "cpus", json_integer(in->cpus));
    bad |= json_object_set_new(o, "late_starts", rtc__json_uint(in->late_starts));
    bad |= json_object_set_new(o, "dropped", rtc__json_uint(in->dropped));
    bad |= json_object_set_new(o, "hung_unit", json_integer(in->hung_unit));
    bad |= json_object_set_new(o, "inputs", meta->inputs ? rtc__json_str(meta->inputs)
                                                          : json_null());
    bad |= json_object_set_new(o, "samples_file", rtc__json_str("samples.csv"));
    return bad | json_object_set_new(doc, "profile", o);
}

static json_t *unit_json(const rtc_plan_unit *u)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "name", rtc__json_str(u->name));
    bad |= json_object_set_new(o, "kind", rtc__json_str(u->kind));
    bad |= json_object_set_new(o, "step_s", rtc__json_real((double)u->step_ns / 1e9));
    bad |= json_object_set_new(o, "thread", rtc__json_uint(u->thread));
    bad |= json_object_set_new(o, "work", dist_json(&u->work));
    bad |= json_object_set_new(o, "share", rtc__json_real(u->share));
    bad |= json_object_set_new(o, "rtf", rtc__json_real(u->d));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *option_json(const rtc_plan_option *op)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "change", rtc__json_str(op->change));
    bad |= json_object_set_new(o, "effect", rtc__json_str(op->effect));
    bad |= json_object_set_new(o, "response_s", rtc__json_real((double)op->response_ns / 1e9));
    bad |= json_object_set_new(o, "headroom", rtc__json_real(op->headroom));
    bad |= json_object_set_new(o, "verdict", rtc__json_str(rtc_plan_verdict_name(op->verdict)));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int lists_json(json_t *doc, const rtc_plan *plan)
{
    json_t *units = json_array(), *util = json_array(), *opts = json_array();
    int bad = !units || !util || !opts;
    for (size_t i = 0; !bad && i < plan->n_units; i++)
        bad |= json_array_append_new(units, unit_json(&plan->units[i]));
    for (size_t t = 0; !bad && t < plan->n_threads; t++)
        bad |= json_array_append_new(util, rtc__json_real(plan->utilisation[t]));
    for (size_t i = 0; !bad && i < plan->n_options; i++)
        bad |= json_array_append_new(opts, option_json(&plan->options[i]));
    bad |= json_object_set_new(doc, "units", units);
    bad |= json_object_set_new(doc, "utilisation", util);
    return bad | json_object_set_new(doc, "options", opts);
}

static int run_json(json_t *doc, const rtc_plan *plan)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= json_object_set_new(o, "period_s", rtc__json_real((double)plan->o.period_ns / 1e9));
    bad |= json_object_set_new(o, "rtf", rtc__json_real(plan->o.rtf));
    bad |= json_object_set_new(o, "workers", json_integer(plan->o.workers));
    bad |= json_object_set_new(o, "substitute", json_boolean(plan->o.substitute));
    bad |= json_object_set_new(o, "percentile", rtc__json_real(plan->o.percentile));
    bad |= json_object_set_new(o, "margin", rtc__json_real(plan->o.margin));
    return bad | json_object_set_new(doc, "run", o);
}

static int verdict_json(json_t *doc, const rtc_plan *plan)
{
    int bad = 0;
    bad |= json_object_set_new(doc, "engine", dist_json(&plan->engine));
    bad |= json_object_set_new(doc, "wakeup", dist_json(&plan->wakeup));
    bad |= json_object_set_new(doc, "measured_tick", dist_json(&plan->measured));
    bad |= json_object_set_new(doc, "tick", dist_json(&plan->work));
    bad |= json_object_set_new(doc, "response", dist_json(&plan->response));
    bad |= json_object_set_new(doc, "worst_tick", dist_json(&plan->worst));
    bad |= json_object_set_new(doc, "worst_tick_units", rtc__json_str(plan->worst_units));
    bad |= json_object_set_new(doc, "patterns", rtc__json_uint(plan->n_patterns));
    bad |= json_object_set_new(doc, "hyperperiod_s",
                               rtc__json_real((double)plan->hyperperiod_ns / 1e9));
    bad |= json_object_set_new(doc, "response_s", rtc__json_real((double)plan->response_ns / 1e9));
    bad |= json_object_set_new(doc, "slack_s", rtc__json_real((double)plan->slack_ns / 1e9));
    bad |= json_object_set_new(doc, "headroom", rtc__json_real(plan->headroom));
    bad |= json_object_set_new(doc, "overrun_rate", rtc__json_real(plan->overrun_rate));
    bad |= json_object_set_new(doc, "overrun_rate_floor", rtc__json_real(plan->rate_floor));
    bad |= json_object_set_new(doc, "verdict", rtc__json_str(rtc_plan_verdict_name(plan->verdict)));
    bad |= json_object_set_new(doc, "confident", json_boolean(plan->confident));
    bad |= json_object_set_new(doc, "doubts", rtc__json_str(plan->doubts));
    return bad | json_object_set_new(doc, "reason", rtc__json_str(plan->reason));
}

static int write_json(const rtc_plan *plan, const rtc_profile *prof, const rtc_plan_meta *meta,
                      const char *path)
{
    json_t *doc = json_object();
    int bad = !doc;
    char when[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    bad |= json_object_set_new(doc, "format", rtc__json_str(PLAN_FORMAT));
    bad |= json_object_set_new(doc, "rtcosim", rtc__json_str(RTC_VERSION));
    bad |= json_object_set_new(doc, "created", rtc__json_str(when));
    bad |= json_object_set_new(doc, "key", rtc__json_str(meta->key));
    bad |= json_object_set_new(doc, "system", rtc__json_str(meta->system));
    bad |= json_object_set_new(doc, "machine", rtc__json_str(meta->machine));
    bad |= json_object_set_new(doc, "options", rtc__json_str(meta->options));
    bad |= profile_json(doc, prof, meta);
    bad |= run_json(doc, plan);
    bad |= lists_json(doc, plan);
    bad |= verdict_json(doc, plan);
    int rc = bad ? RTC_ENOMEM : rtc__json_write(doc, path);
    json_decref(doc);
    return rc;
}

/* ---- samples.csv ---- */

/* A unit name as a CSV field: quoted, quotes doubled. */
static void put_name(FILE *f, const char *name)
{
    fputs(",\"", f);
    for (const char *c = name; *c; c++)
        fputs(*c == '"' ? "\"\"" : (char[2]){*c, 0}, f);
    fputc('"', f);
}

static int write_samples(const rtc_profile *prof, const rtc_system *sys, const char *path)
{
    char tmp[4200];
    FILE *f = rtc_ofile_replace_begin(path, tmp, sizeof tmp);
    if (!f)
        return errno ? -errno : RTC_ESYS;
    size_t n = rtc_profile_units(prof);
    fputs("# " PLAN_FORMAT " samples: ns per tick; -1: no wake-up sample (late start) or no "
          "work in the tick\nk,wakeup_ns,step_ns,handoff_ns", f);
    for (size_t i = 0; i < n; i++)
        put_name(f, rtc_system_unit(sys, i)->name);
    fputc('\n', f);
    for (size_t t = 0; t < rtc_profile_ticks(prof); t++) {
        int64_t k;
        const int64_t *r = rtc_profile_row(prof, t, &k);
        fprintf(f, "%" PRId64, k);
        for (size_t c = 0; c < RTC_PROFILE_UNIT0 + n; c++)
            fprintf(f, ",%" PRId64, r[c]);
        fputc('\n', f);
    }
    return rtc_ofile_replace_commit(f, tmp, path);
}

int rtc_plan_save(const rtc_plan *plan, const rtc_profile *prof, const rtc_system *sys,
                  const rtc_plan_meta *meta, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    int rc = write_samples(prof, sys, path);
    snprintf(path, sizeof path, "%s/plan.json", dir);
    return rc == RTC_OK ? write_json(plan, prof, meta, path) : rc;
}

/* ---- reading back ---- */

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

/* The profile facts of plan.json into @p in; *asked: the ticks it was asked for. */
static int read_info(const char *dir, rtc_profile_info *in, int64_t *asked, char *key,
                     char *err, size_t cap)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/plan.json", dir);
    json_t *doc = NULL;
    int rc = rtc__json_read(path, &doc, err, cap);
    if (rc != RTC_OK)
        return rc;
    const json_t *p = rtc__json_need_obj(doc, "profile", path, err, cap);
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    const char *k = json_string_value(json_object_get(doc, "key"));
    if (p && (!fmt || strcmp(fmt, PLAN_FORMAT) != 0)) {
        snprintf(err, cap, "%s: not a %s file", path, PLAN_FORMAT);
        p = NULL;
    }
    if (p) {
        in->period_ns = (int64_t)(num(p, "period_s") * 1e9 + 0.5);
        in->budget_ns = (int64_t)(num(p, "budget_s") * 1e9 + 0.5);
        in->wall_s = num(p, "wall_s");
        in->budget_hit = json_is_true(json_object_get(p, "budget_hit"));
        snprintf(in->policy, sizeof in->policy, "%s",
                 json_string_value(json_object_get(p, "policy")) ?: "");
        in->priority = (int)num(p, "priority");
        in->cpu = (int)num(p, "cpu");
        in->memory_locked = json_is_true(json_object_get(p, "memory_locked"));
        in->loadavg = num(p, "load_average");
        in->cpus = (int)num(p, "cpus");
        in->late_starts = (uint64_t)num(p, "late_starts");
        in->dropped = (uint64_t)num(p, "dropped");
        in->hung_unit = (long)num(p, "hung_unit");
        *asked = (int64_t)num(p, "ticks_asked");
        snprintf(key, 65, "%s", k ? k : "");
    }
    json_decref(doc);
    return p ? RTC_OK : RTC_EPARSE;
}

/* One data line of samples.csv into @p row (cols values after k). */
static bool parse_row(const char *line, size_t cols, int64_t *k, int64_t *row)
{
    char *end;
    errno = 0;
    *k = strtoll(line, &end, 10);
    for (size_t c = 0; c < cols; c++) {
        if (*end != ',')
            return false;
        row[c] = strtoll(end + 1, &end, 10);
    }
    return errno == 0 && (*end == '\n' || *end == '\0');
}

static int read_samples(const char *path, size_t cols, rtc_profile *p, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, cap, "%s: %s", path, strerror(errno));
        return RTC_ENOTFOUND;
    }
    char line[8192];
    int64_t *row = malloc(cols * sizeof *row), k;
    int rc = row ? RTC_OK : RTC_ENOMEM;
    unsigned long lineno = 0;
    while (rc == RTC_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == 'k')
            continue;
        if (!parse_row(line, cols, &k, row)) {
            snprintf(err, cap, "%s:%lu: expected %zu integers", path, lineno, cols + 1);
            rc = RTC_EPARSE;
        } else if (rtc_profile_append(p, k, row) != RTC_OK) {
            break; /* more rows than the plan said: keep what fits */
        }
    }
    fclose(f);
    free(row);
    return rc;
}

int rtc_plan_load_profile(const char *dir, const rtc_system *sys, const char *key,
                          rtc_profile **out, int64_t *ticks_asked, char *err, size_t cap)
{
    rtc_profile_info in = {.hung_unit = -1};
    char k[65] = "", path[4200];
    int64_t asked = 0;
    int rc = read_info(dir, &in, &asked, k, err, cap);
    if (rc == RTC_OK && key && strcmp(k, key) != 0) {
        snprintf(err, cap, "%s/plan.json: measured for another system, options or machine "
                 "(key %.12s, not %.12s)", dir, k, key);
        rc = RTC_EINVAL;
    }
    rtc_profile *p = NULL;
    size_t n = rtc_system_unit_count(sys);
    if (rc == RTC_OK)
        rc = rtc_profile_new(n, asked > 0 ? (size_t)asked : 1, &p);
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    if (rc == RTC_OK)
        rc = read_samples(path, RTC_PROFILE_UNIT0 + n, p, err, cap);
    if (rc == RTC_OK && rtc_profile_ticks(p) == 0) {
        snprintf(err, cap, "%s: no ticks", path);
        rc = RTC_EPARSE;
    }
    if (rc != RTC_OK) {
        rtc_profile_free(p);
        return rc;
    }
    *rtc_profile_info_of(p) = in;
    *ticks_asked = asked;
    *out = p;
    return RTC_OK;
}
