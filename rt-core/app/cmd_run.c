/*
 * rtcosim run FMU — simulate one FMU (co-simulation, or model exchange integrated by the
 * engine's fixed-step solvers) as fast as possible and stream its outputs to CSV.
 *
 * Communication points are t0 + k·h from the integer step count k (nanoseconds inside,
 * converted once to double for the FMU), so a million steps land exactly where the FMU's
 * own clock expects them. Rows are sampled into the recorder's ring and formatted on the
 * recorder thread through a fixed buffer to disk: memory does not grow with the run length.
 */
#include "cli.h"
#include "summary.h"

#include "rtcosim/csv.h"
#include "rtcosim/fmu.h"
#include "rtcosim/nonfinite.h"
#include "rtcosim/numparse.h"
#include "rtcosim/record.h"
#include "rtcosim/recorder.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

const char rtc_cli_fmu_help[] =
    "FMU options (rtcosim run [options] FMU): simulate an FMI 2.0 or 3.0 FMU (Co-Simulation,\n"
    "or Model Exchange: --interface) at a fixed communication step, as fast as possible,\n"
    "one CSV row per communication point (including the start). Start, stop and step\n"
    "default to the FMU's DefaultExperiment (else 0, 1 and (stop-start)/500).\n"
    "  --start T            start time in seconds\n"
    "  --stop T             stop time in seconds\n"
    "  --step H             communication step size in seconds (a whole number of ns)\n"
    "  -o, --output FILE    result file (default results.csv; '-' for standard output)\n"
    "  --no-output          write no result file\n"
    "  --set NAME=VALUE     set a parameter or input (repeatable; arrays: space-separated\n"
    "                       values; enumerations: number or item; NAME may be an FMI 3\n"
    "                       alias). Set twice, as FMI 2.0 and 3.0 both allow: before\n"
    "                       initialization and again in Initialization Mode (some FMUs\n"
    "                       honour parameters only there)\n"
    "  --record NAME        record this variable (repeatable; default: all outputs)\n"
    "  --interface I        cs | me | auto: the FMU's Co-Simulation or Model Exchange\n"
    "                       interface (default auto: Co-Simulation when the FMU has it)\n"
    "  --solver S           Model Exchange solver: euler | heun | rk4 | implicit (linearly\n"
    "                       implicit Euler for stiff models; default rk4)\n"
    "  --substeps N         Model Exchange: fixed solver steps per communication step\n"
    "                       (default 1); time and state events are located inside them\n"
    "  --fmu-logging        enable the FMU's own debug logging\n"
    "  --on-nonfinite P     warn | stop: what an output that becomes NaN or Inf does\n"
    "                       (checked after every step unless --no-output without --summary)\n"
    "                       (default warn: one line per variable, status\n"
    "                       completed-nonfinite; stop: the run ends there, status failed)\n"
    "  --summary FILE       how the run ended, as JSON (default: summary.json beside the\n"
    "                       result file; none with '-o -' or --no-output)\n"
    "  CSV: quoted header \"time\",\"name\",...; booleans 0/1; doubles with 17 significant\n"
    "  digits; arrays as name[1], name[2], ...; the time column is exactly start + k*step.\n";

typedef struct run_opts {
    const char *fmu_path;
    const char *start, *stop, *step;
    const char *output, *summary;
    bool no_output, fmu_logging, write_continue;
    rtc_nonfinite_policy on_nonfinite;
    const char **sets, **records;
    size_t n_sets, n_records;
    rtc_fmu_unit_opts unit; /* --interface, --solver, --substeps */
} run_opts;

typedef struct run_ctx {
    const run_opts *o;
    rtc_fmu *fmu;
    rtc_unit *unit;
    rtc_record *rec;
    rtc_csv *csv;
    rtc_recorder *recorder;
    int64_t start_ns, stop_ns, step_ns;
    bool failed; /* an FMU call failed: no terminate */
    bool ended_at_init; /* the FMU ended the simulation at its initial event */
    /* non-finite check: every Float64/Float32 output, after each step: read from the row
     * just recorded when the recording fetched exactly them (nf_in_row), else fetched */
    rtc_nonfinite *nf;
    uint32_t *vr[2];
    size_t n_vr[2], n_val[2];
    bool nf_in_row[2];
    size_t nf_row_off[2];
    char **name_of; /* name_of[id]: the variable's name (copies: the summary outlives md) */
    void *vals[2];
    rtc_cli_end end;
    json_t *me_events; /* a Model Exchange unit's event counts, taken before it is freed */
    /* events the FMU handled inside its steps (rtc_step_result), for the summary */
    uint64_t events, early_returns;
    unsigned max_microsteps;
    bool started; /* the stepping began: the run ends with its final line */
} run_ctx;

static int push(const char ***list, size_t *n, const char *v)
{
    const char **l = realloc(*list, (*n + 1) * sizeof *l);
    if (!l)
        return RTC_ENOMEM;
    l[(*n)++] = v;
    *list = l;
    return RTC_OK;
}

enum { OPT_START = 256, OPT_STOP, OPT_STEP, OPT_NO_OUTPUT, OPT_SET, OPT_RECORD, OPT_FAST,
       OPT_FMU_LOG, OPT_ON_WRITE_ERROR, OPT_NONFINITE, OPT_SUMMARY, OPT_INTERFACE, OPT_SOLVER,
       OPT_SUBSTEPS };

/* --interface, --solver, --substeps: the unit options of fmu.h, same words as in systems. */
static int unit_opt(run_opts *o, const char *key, const char *value)
{
    char err[160];
    if (rtc_fmu_unit_opt_set(&o->unit, key, value, err, sizeof err) != RTC_OK)
        return rtc_cli_usage_error("run", "--%s", err);
    return RTC_EXIT_OK;
}

static int parse_args(int argc, char **argv, run_opts *o)
{
    static const struct option opts[] = {
        {"start", required_argument, NULL, OPT_START},
        {"stop", required_argument, NULL, OPT_STOP},
        {"step", required_argument, NULL, OPT_STEP},
        {"output", required_argument, NULL, 'o'},
        {"no-output", no_argument, NULL, OPT_NO_OUTPUT},
        {"set", required_argument, NULL, OPT_SET},
        {"record", required_argument, NULL, OPT_RECORD},
        {"fast", no_argument, NULL, OPT_FAST},
        {"fmu-logging", no_argument, NULL, OPT_FMU_LOG},
        {"on-write-error", required_argument, NULL, OPT_ON_WRITE_ERROR},
        {"on-nonfinite", required_argument, NULL, OPT_NONFINITE},
        {"summary", required_argument, NULL, OPT_SUMMARY},
        {"interface", required_argument, NULL, OPT_INTERFACE},
        {"solver", required_argument, NULL, OPT_SOLVER},
        {"substeps", required_argument, NULL, OPT_SUBSTEPS},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:qvh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_START: o->start = optarg; break;
        case OPT_STOP: o->stop = optarg; break;
        case OPT_STEP: o->step = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_NO_OUTPUT: o->no_output = true; break;
        case OPT_SET: push(&o->sets, &o->n_sets, optarg); break;
        case OPT_RECORD: push(&o->records, &o->n_records, optarg); break;
        case OPT_FAST: break;
        case OPT_FMU_LOG: o->fmu_logging = true; break;
        case OPT_ON_WRITE_ERROR:
            if (rtc_cli_on_write_error("run", optarg, &o->write_continue) != RTC_EXIT_OK)
                return RTC_EXIT_USAGE;
            break;
        case OPT_SUMMARY: o->summary = optarg; break;
        case OPT_NONFINITE:
            if (rtc_nonfinite_policy_parse(optarg, &o->on_nonfinite) != RTC_OK)
                return rtc_cli_usage_error("run", "--on-nonfinite %s: expected warn or stop",
                                           optarg);
            break;
        case OPT_INTERFACE:
        case OPT_SOLVER:
        case OPT_SUBSTEPS:
            if (unit_opt(o, c == OPT_INTERFACE ? "interface" : c == OPT_SOLVER ? "solver"
                                                                                : "substeps",
                         optarg) != RTC_EXIT_OK)
                return RTC_EXIT_USAGE;
            break;
        case 'v': rtc_cli_log.max_level = RTC_LOG_INFO; break;
        case 'q': rtc_cli_quiet = true; break;
        case 'h': rtc_cli_run_help(); return -1;
        default: return rtc_cli_getopt_error("run", c, argc, argv);
        }
    }
    if (optind != argc - 1)
        return rtc_cli_usage_error("run", "expected exactly one FMU");
    o->fmu_path = argv[optind];
    return RTC_EXIT_OK;
}

/* A time from the command line, else the DefaultExperiment text, else the fallback. */
static int pick_time(const char *what, const char *cli, bool has_dex, const char *dex,
                     int64_t fallback, int64_t *ns)
{
    const char *text = cli ? cli : has_dex ? dex : NULL;
    if (!text) {
        *ns = fallback;
        return RTC_OK;
    }
    int rc = rtc_parse_seconds(text, ns);
    if (rc != RTC_OK)
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "%s%s \"%s\": %s", cli ? "--" : "DefaultExperiment ",
                what, text,
                rc == RTC_ETIME ? "not a whole number of nanoseconds" : "not a number");
    return rc;
}

static int resolve_times(run_ctx *r)
{
    const rtc_default_experiment *x = &rtc_fmu_model(r->fmu)->experiment;
    const run_opts *o = r->o;
    if (pick_time("start", o->start, x->has_start, x->start_text, 0, &r->start_ns) ||
        pick_time("stop", o->stop, x->has_stop, x->stop_text, r->start_ns + RTC_NS_PER_S,
                  &r->stop_ns))
        return RTC_EPARSE;
    int64_t span = r->stop_ns - r->start_ns;
    if (span < 0) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "stop time is before start time");
        return RTC_EINVAL;
    }
    if (pick_time("step", o->step, x->has_step, x->step_text, span / 500 ? span / 500 : 1,
                  &r->step_ns))
        return RTC_EPARSE;
    if (r->step_ns <= 0) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "step size must be positive");
        return RTC_EINVAL;
    }
    return RTC_OK;
}

/* Enumeration values may be given by item name. */
static bool enum_item(const rtc_model_desc *md, const rtc_var *v, const char *text, int64_t *out)
{
    for (size_t i = 0; v->declared_type && i < md->n_type_defs; i++) {
        const rtc_type_def *t = &md->type_defs[i];
        if (strcmp(t->name, v->declared_type) != 0)
            continue;
        for (size_t k = 0; k < t->n_items; k++) {
            if (!strcmp(t->items[k].name, text)) {
                *out = t->items[k].value;
                return true;
            }
        }
    }
    return false;
}

/* Parse the values of one --set into a typed array (arrays: space-separated). */
static int parse_values(const rtc_model_desc *md, const rtc_var *v, char *text, void *vals,
                        uint8_t *bin, size_t count)
{
    size_t n = 0;
    char *save = NULL;
    char *tok = v->type == RTC_TYPE_STRING || count == 1 ? text : strtok_r(text, " \t", &save);
    for (; tok && n < count; n++) {
        rtc_value val;
        int rc;
        if (v->type == RTC_TYPE_BINARY) {
            size_t len;
            rc = rtc_hex_decode(tok, bin, 4096, &len);
            val.bin = (rtc_binary){bin, len};
        } else {
            rc = rtc_value_parse(v->type, tok, &val);
            if (rc == RTC_EPARSE && v->type == RTC_TYPE_ENUM && enum_item(md, v, tok, &val.i64))
                rc = RTC_OK;
        }
        if (rc != RTC_OK) {
            rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--set %s: \"%s\" is %s for a %s variable",
                    v->name, tok, rc == RTC_ELIMIT ? "out of range" : "not a valid value",
                    rtc_type_name(v->type));
            return rc;
        }
        rtc_value_store(v->type, &val, vals, n);
        tok = count == 1 ? NULL : strtok_r(NULL, " \t", &save);
    }
    if (n != count || tok) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--set %s: expected %zu value(s)", v->name, count);
        return RTC_EINVAL;
    }
    return RTC_OK;
}

/* One --set; called before initialization and again in Initialization Mode (see
 * rtc_var_settable_at_init()). */
static int apply_set(run_ctx *r, const char *assignment)
{
    const rtc_model_desc *md = rtc_fmu_model(r->fmu);
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--set %s: expected NAME=VALUE", assignment);
        return RTC_EINVAL;
    }
    char name[512];
    snprintf(name, sizeof name, "%.*s", (int)(eq - assignment), assignment);
    long idx = rtc_model_find_var(md, name);
    if (idx < 0) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--set %s: no variable of that name in %s", name,
                r->o->fmu_path);
        return RTC_ENOTFOUND;
    }
    const rtc_var *v = &md->vars[idx];
    if (v->causality == RTC_CAUSALITY_STRUCTURAL_PARAMETER) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR,
                "--set %s: a structural parameter changes only in Configuration Mode, which "
                "is not supported",
                name);
        return RTC_EUNSUPPORTED;
    }
    if (!rtc_var_settable_at_init(v)) {
        rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--set %s: a %s %s variable cannot be set", name,
                rtc_variability_name(v->variability), rtc_causality_name(v->causality));
        return RTC_EINVAL;
    }
    size_t count = rtc_var_count(v);
    char *text = strdup(eq + 1);
    void *vals = calloc(count, rtc_type_size(v->type));
    uint8_t *bin = malloc(4096 * count);
    int rc = text && vals && bin ? parse_values(md, v, text, vals, bin, count) : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = r->unit->ops->set(r->unit->self, v->type, &v->vr, 1, vals, count);
    free(bin);
    free(vals);
    free(text);
    return rc;
}

static int setup_recording(run_ctx *r)
{
    const rtc_model_desc *md = rtc_fmu_model(r->fmu);
    int rc = rtc_record_new(&r->rec);
    for (size_t i = 0; rc == RTC_OK && i < r->o->n_records; i++) {
        long idx = rtc_model_find_var(md, r->o->records[i]);
        if (idx < 0) {
            rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--record %s: no variable of that name in %s",
                    r->o->records[i], r->o->fmu_path);
            return RTC_ENOTFOUND;
        }
        rc = rtc_record_add(r->rec, r->unit, (size_t)idx, NULL);
        if (rc == RTC_EUNSUPPORTED)
            rtc_log(&rtc_cli_log, RTC_LOG_ERROR, "--record %s: clocks cannot be recorded",
                    r->o->records[i]);
    }
    if (rc == RTC_OK && r->o->n_records == 0)
        rc = rtc_record_add_outputs(r->rec, r->unit, NULL);
    if (rc != RTC_OK)
        return rc;
    /* Rows are formatted on the recorder thread; lossless: the loop waits if it is full. */
    rtc_recorder_opts ro = {.ring_rows = RTC_RECORDER_ROWS, .lossless = true,
                            .continue_on_error = r->o->write_continue};
    return rtc_cli_recording_open(r->o->output, r->rec, &ro, &r->csv, &r->recorder);
}

static int record_row(run_ctx *r, int64_t t_ns)
{
    return r->recorder ? rtc_recorder_push(r->recorder, t_ns) : RTC_OK;
}

/* An FMU that ends the run itself: record where it stopped (if it got past the step's
 * start) and say why. @p t_ns is the absolute start of the step. */
static int step_ended(run_ctx *r, const rtc_step_result *res, int64_t t_ns)
{
    int64_t last_ns;
    if (rtc_time_from_s(res->last_time_s, &last_ns) != RTC_OK || last_ns < t_ns)
        last_ns = t_ns;
    char when[32];
    rtc_time_format_s(last_ns, when, sizeof when);
    rtc_cli_end *e = &r->end;
    if (res->outcome == RTC_STEP_TERMINATE)
        snprintf(e->reason, sizeof e->reason,
                 "%s: the FMU requested to terminate the simulation at t=%s; stopping there",
                 r->unit->name, when);
    else
        snprintf(e->reason, sizeof e->reason,
                 "%s: the FMU %s the step at t=%s; a fixed-step run cannot retry: stopping",
                 r->unit->name, res->outcome == RTC_STEP_EARLY ? "returned early from" : "discarded",
                 when);
    rtc_log(&rtc_cli_log, RTC_LOG_WARNING, "%s", e->reason);
    e->last_time_ns = last_ns;
    return last_ns > t_ns ? record_row(r, last_ns) : RTC_OK;
}

static const rtc_type nf_types[2] = {RTC_TYPE_FLOAT64, RTC_TYPE_FLOAT32};

static bool nf_watched(const rtc_var *v, int t)
{
    return v->causality == RTC_CAUSALITY_OUTPUT && v->type == nf_types[t];
}

/* Every Float64/Float32 output, fetched after each step for the non-finite check — when
 * the run keeps results (a file or a summary): --no-output alone is the timing loop of
 * the benchmarks, where one more get per step would be most of the cost. */
static int setup_nonfinite(run_ctx *r)
{
    const rtc_model_desc *md = rtc_fmu_model(r->fmu);
    if (r->o->no_output && !r->o->summary)
        return RTC_OK;
    size_t total = 0;
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < md->n_vars; i++)
            if (nf_watched(&md->vars[i], t)) {
                r->n_vr[t]++;
                r->n_val[t] += rtc_var_count(&md->vars[i]);
            }
    total = r->n_val[0] + r->n_val[1];
    r->name_of = calloc(total + 1, sizeof *r->name_of);
    int rc = r->name_of ? rtc_nonfinite_new(total, &r->nf) : RTC_ENOMEM;
    size_t id = 0;
    for (int t = 0; rc == RTC_OK && t < 2; t++) {
        r->vr[t] = calloc(r->n_vr[t] + 1, sizeof *r->vr[t]);
        r->vals[t] = calloc(r->n_val[t] + 1, rtc_type_size(nf_types[t]));
        if (!r->vr[t] || !r->vals[t])
            return RTC_ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < md->n_vars; i++) {
            if (!nf_watched(&md->vars[i], t))
                continue;
            r->vr[t][k++] = md->vars[i].vr;
            for (size_t c = 0; c < rtc_var_count(&md->vars[i]); c++)
                if (!(r->name_of[id++] = strdup(md->vars[i].name)))
                    return RTC_ENOMEM;
        }
    }
    return rc;
}

/* The check reads the recorded row for a type whose watched outputs the recording fetches
 * as they are (the default recording: every output), instead of a second get per step. */
static void nf_use_rows(run_ctx *r)
{
    for (int t = 0; r->nf && r->rec && t < 2; t++) {
        rtc_record_values v;
        r->nf_in_row[t] = r->n_vr[t] &&
                          rtc_record_find_values(r->rec, r->unit, nf_types[t], &v) &&
                          v.n_vr == r->n_vr[t] && v.n_values == r->n_val[t] &&
                          !memcmp(v.vr, r->vr[t], v.n_vr * sizeof *v.vr);
        r->nf_row_off[t] = r->nf_in_row[t] ? v.offset : 0;
    }
}

static void nf_name(const void *user, size_t id, char *buf, size_t cap)
{
    const run_ctx *r = user;
    snprintf(buf, cap, "%s", r->name_of[id]);
}

/* Report the @p found non-finite values just recorded (once each) at @p t_ns; true when
 * the run must stop for them (--on-nonfinite stop). Kept apart from the check so that
 * the check, run after every step, stays small. */
static bool nonfinite_report(run_ctx *r, size_t found, int64_t t_ns)
{
    size_t after = rtc_nonfinite_count(r->nf), before = after - found;
    for (size_t i = before; i < after; i++) {
        rtc_nonfinite_event e = rtc_nonfinite_get(r->nf, i);
        char name[300];
        nf_name(r, e.id, name, sizeof name);
        rtc_log(&rtc_cli_log, RTC_LOG_WARNING, "non-finite value: %s.%s = %s at t = %.9g s "
                "(reported once per variable)", r->unit->name, name,
                e.value != e.value ? "nan" : e.value > 0 ? "inf" : "-inf", (double)t_ns / 1e9);
    }
    if (r->o->on_nonfinite != RTC_NONFINITE_STOP)
        return false;
    r->end.cause = "nonfinite";
    snprintf(r->end.reason, sizeof r->end.reason, "an output became non-finite at t = %.9g s "
             "(--on-nonfinite stop)", (double)t_ns / 1e9);
    return true;
}

/* Check the outputs after the step that ended at @p t_ns (in the row just recorded, or
 * fetched); report each new non-finite value once. Returns true when the run must stop
 * for one (--on-nonfinite stop). */
static bool nonfinite_stop(run_ctx *r, int64_t t_ns)
{
    const char *row = r->recorder ? rtc_recorder_last_row(r->recorder) : NULL;
    size_t base = 0, found = 0;
    for (int t = 0; t < 2; base += r->n_val[t], t++) {
        const void *vals = r->vals[t];
        if (!r->n_vr[t])
            continue;
        if (row && r->nf_in_row[t])
            vals = row + r->nf_row_off[t];
        else if (r->unit->ops->get(r->unit->self, nf_types[t], r->vr[t], r->n_vr[t],
                                   r->vals[t], r->n_val[t]) != RTC_OK)
            continue;
        if (!rtc_nonfinite_all_finite(vals, r->n_val[t], t == 1))
            found += rtc_nonfinite_check(r->nf, base, vals, r->n_val[t], t == 1, t_ns);
    }
    return found && nonfinite_report(r, found, t_ns);
}

/* After a good step to @p t_ns: a stop signal or a non-finite stop ends the loop. */
static bool must_stop(run_ctx *r, int64_t t_ns)
{
    r->end.last_time_ns = t_ns;
    if (r->nf && nonfinite_stop(r, t_ns))
        return true;
    int sig = rtc_cli_stop_signal();
    if (!sig)
        return false;
    r->end.cause = "signal";
    r->end.signo = sig;
    snprintf(r->end.reason, sizeof r->end.reason, "stopped by %s at t = %.9g s",
             rtc_cli_signal_name(sig), (double)t_ns / 1e9);
    return true;
}

/* The stepping loop: row at t0, then (do_step, row) per communication point. */
static int run_loop(run_ctx *r)
{
    const rtc_unit_ops *ops = r->unit->ops;
    void *self = r->unit->self;
    int64_t span = r->stop_ns - r->start_ns;
    int64_t n_full = span / r->step_ns, rest = span % r->step_ns;
    if (rest && !(r->unit->caps & RTC_UNIT_CAN_VARY_STEP)) {
        rtc_log(&rtc_cli_log, RTC_LOG_WARNING,
                "stop time is not a multiple of the step and the FMU cannot vary its step: "
                "ending at the last full step");
        rest = 0;
    }
    int64_t t0 = rtc_time_now_ns();
    r->started = true;
    rtc_cli_progress bar;
    rtc_cli_progress_start(&bar, r->start_ns, r->stop_ns);
    int64_t k = 0;
    int rc = record_row(r, r->start_ns);
    if (rc == RTC_OK && r->ended_at_init) { /* the start's row is the whole run (warned) */
        rtc_cli_progress_end(&bar);
        snprintf(r->end.reason, sizeof r->end.reason, "%s: the FMU requested to terminate the "
                 "simulation at its initial event (t=%.9g s); stopping there", r->unit->name,
                 rtc_time_to_s(r->start_ns));
        return RTC_OK;
    }
    bool stop = rc == RTC_OK && must_stop(r, r->start_ns);
    const double step_s = rtc_time_to_s(r->step_ns); /* converted once, not per step */
    for (; rc == RTC_OK && !stop && k < n_full + (rest != 0); k++) {
        int64_t t_ns = r->start_ns + k * r->step_ns;
        int64_t h_ns = k < n_full ? r->step_ns : rest;
        rtc_step_result res = {0};
        rc = ops->do_step(self, rtc_time_to_s(t_ns), k < n_full ? step_s : rtc_time_to_s(rest),
                          &res);
        if (rc != RTC_OK) {
            r->failed = true;
            break;
        }
        r->end.last_tick = k + 1;
        r->events += res.events;
        r->early_returns += res.early_returns;
        r->max_microsteps = res.microsteps > r->max_microsteps ? res.microsteps : r->max_microsteps;
        if (res.outcome != RTC_STEP_DONE) {
            rtc_cli_progress_end(&bar);
            return step_ended(r, &res, t_ns);
        }
        rc = record_row(r, t_ns + h_ns);
        stop = rc == RTC_OK && must_stop(r, t_ns + h_ns);
        rtc_cli_progress_tick(&bar, t_ns + h_ns);
    }
    rtc_cli_progress_end(&bar);
    double dt = rtc_time_to_s(rtc_time_now_ns() - t0);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    rtc_log(&rtc_cli_log, RTC_LOG_INFO, "%lld steps in %.6f s (%.1f ns/step), max RSS %ld KiB",
            (long long)k, dt, k ? dt / (double)k * 1e9 : 0.0, ru.ru_maxrss);
    return rc;
}

static int initialize(run_ctx *r)
{
    const rtc_model_desc *md = rtc_fmu_model(r->fmu);
    int rc = rtc_fmu_unit_new_opts(r->fmu, md->model_name, &r->o->unit, &rtc_cli_log, &r->unit);
    if (rc != RTC_OK)
        return rc;
    rtc_unit_setup setup = {
        .instance_name = md->model_name,
        .logging_on = r->o->fmu_logging,
        .start_time_s = rtc_time_to_s(r->start_ns),
        .stop_time_defined = true,
        .stop_time_s = rtc_time_to_s(r->stop_ns),
        .tolerance_defined = md->experiment.has_tolerance,
        .tolerance = md->experiment.tolerance,
    };
    rc = r->unit->ops->instantiate(r->unit->self, &setup);
    for (size_t i = 0; rc == RTC_OK && i < r->o->n_sets; i++)
        rc = apply_set(r, r->o->sets[i]);
    if (rc == RTC_OK)
        rc = r->unit->ops->enter_init(r->unit->self);
    for (size_t i = 0; rc == RTC_OK && i < r->o->n_sets; i++)
        rc = apply_set(r, r->o->sets[i]);
    if (rc == RTC_OK)
        rc = r->unit->ops->exit_init(r->unit->self);
    /* an end at the initial event, like one in a later step: the start's row, terminate,
     * status completed — as `run SYSTEM` does (rtcosim/system.h, rtc_system_init) */
    r->ended_at_init = rc == RTC_ETERMINATED;
    rc = r->ended_at_init ? RTC_OK : rc;
    if (rc == RTC_EFMU || rc == RTC_EFATAL)
        r->failed = true;
    return rc;
}

/* Release in reverse order; the CSV keeps every row written before an error. */
static int finish(run_ctx *r, int rc, rtc_recorder_stats *rs)
{
    if (r->unit) {
        if (rc == RTC_OK && !r->failed)
            rc = r->unit->ops->terminate(r->unit->self);
        r->me_events = json_object();
        if (r->me_events && rtc_cli_me_events_json(r->me_events, r->unit) != 0)
            json_decref(r->me_events), r->me_events = NULL;
        r->unit->ops->free(r->unit->self);
    }
    char werr[sizeof r->end.reason] = "";
    int wst = rtc_cli_recording_close(r->recorder, r->csv, rs, werr, sizeof werr);
    if (wst != RTC_OK) {
        r->end.cause = "write"; /* reported once, naming the file */
        snprintf(r->end.reason, sizeof r->end.reason, "%s", werr);
        rc = rc == RTC_OK ? wst : rc;
    }
    rtc_record_free(r->rec);
    rtc_fmu_close(r->fmu);
    return rc;
}

/* Where summary.json goes: --summary, else beside the result file (none for stdout). */
static bool summary_path(const run_opts *o, char *buf, size_t cap)
{
    if (o->summary) {
        snprintf(buf, cap, "%s", o->summary);
        return true;
    }
    if (o->no_output || !strcmp(o->output, "-"))
        return false;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", o->output);
    snprintf(buf, cap, "%s/summary.json", dirname(copy));
    return true;
}

/* The end of the run for the summary and the exit status; @p rc is the run's status. */
static void settle_end(run_ctx *r, int rc)
{
    rtc_cli_end *e = &r->end;
    e->nonfinite = rtc_nonfinite_count(r->nf);
    if (rc != RTC_OK && (!strcmp(e->cause, "end") || !strcmp(e->cause, "signal"))) {
        e->cause = "error";
        snprintf(e->reason, sizeof e->reason, "%s", *rtc_cli_last_error() ? rtc_cli_last_error()
                                                                          : rtc_strerror(rc));
    } else if (!strcmp(e->cause, "end") && !e->reason[0]) {
        snprintf(e->reason, sizeof e->reason, "reached the stop time%s",
                 e->nonfinite ? "; outputs became non-finite (--on-nonfinite warn)" : "");
    }
}

/* Returns whether summary.json was written (into @p path); one that was due and could
 * not be written turns a success into a write error (rtc_cli_summary_failed). */
static bool write_run_summary(run_ctx *r, const rtc_recorder_stats *rs, char *path,
                              size_t cap)
{
    struct stat st;
    char dir[4200];
    if (!summary_path(r->o, path, cap))
        return false;
    /* no summary where the result file could not go either (one error line is enough) */
    snprintf(dir, sizeof dir, "%s", path);
    if (stat(dirname(dir), &st) != 0 && rtc_cli_end_exit(&r->end) != RTC_EXIT_OK)
        return false;
    json_t *doc = json_object();
    int bad = !doc;
    bad |= json_object_set_new(doc, "fmu", rtc__json_str(r->o->fmu_path));
    bad |= rtc_cli_summary_end(doc, &r->end, r->nf, nf_name, r);
    bad |= json_object_set_new(doc, "step_ns", json_integer(r->step_ns));
    bad |= json_object_set_new(doc, "rows_written", rtc__json_uint(rs->rows_written));
    bad |= json_object_set_new(doc, "rows_dropped", rtc__json_uint(rs->rows_dropped));
    bad |= json_object_set_new(doc, "rows_lost", rtc__json_uint(rs->rows_lost));
    json_t *me = r->me_events ? json_object_get(r->me_events, "me_events") : NULL;
    if (me)
        bad |= json_object_set(doc, "me_events", me);
    bad |= json_object_set_new(doc, "events", rtc__json_uint(r->events));
    bad |= json_object_set_new(doc, "early_returns", rtc__json_uint(r->early_returns));
    bad |= json_object_set_new(doc, "max_microsteps", rtc__json_uint(r->max_microsteps));
    if (rtc_cli_summary_write(doc, bad, path))
        return true;
    rtc_cli_summary_failed(&r->end, path);
    return false;
}

static void free_ctx(run_ctx *r)
{
    json_decref(r->me_events);
    for (size_t i = 0; r->name_of && i < r->n_val[0] + r->n_val[1]; i++)
        free(r->name_of[i]);
    free(r->name_of);
    rtc_nonfinite_free(r->nf);
    for (int t = 0; t < 2; t++) {
        free(r->vr[t]);
        free(r->vals[t]);
    }
}

int rtc_cmd_run(int argc, char **argv)
{
    run_opts o = {.output = "results.csv"};
    int st = parse_args(argc, argv, &o);
    if (st != RTC_EXIT_OK) {
        free(o.sets);
        free(o.records);
        return st < 0 ? RTC_EXIT_OK : st;
    }
    run_ctx r = {.o = &o, .end = {.cause = "end"}};
    rtc_cli_stop_signals(true);
    int rc = rtc_fmu_open(o.fmu_path, NULL, &rtc_cli_log, &r.fmu);
    if (rc == RTC_OK)
        rc = resolve_times(&r);
    if (rc == RTC_OK)
        rc = initialize(&r);
    if (rc == RTC_OK)
        rc = setup_nonfinite(&r);
    if (rc == RTC_OK && !o.no_output)
        rc = setup_recording(&r);
    if (rc == RTC_OK)
        nf_use_rows(&r);
    r.end.last_time_ns = r.start_ns;
    if (rc == RTC_OK)
        rc = run_loop(&r);
    rtc_recorder_stats rs = {0};
    rc = finish(&r, rc, &rs);
    settle_end(&r, rc);
    char summary[4200];
    bool has_summary = write_run_summary(&r, &rs, summary, sizeof summary);
    rtc_cli_stop_signals(false);
    if (r.started) /* a failure before it is its one error line */
        rtc_cli_final_line(o.no_output ? NULL : o.output, rs.rows_written,
                           rs.rows_dropped + rs.rows_lost, has_summary ? summary : NULL, &r.end);
    free_ctx(&r);
    free(o.sets);
    free(o.records);
    return rtc_cli_end_exit(&r.end);
}
