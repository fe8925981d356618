/*
 * `rtcosim replay SESSION_DIR [--output-dir DIR]`: re-run a recorded real-time session
 * offline, as fast as possible, and compare its results with the session's.
 *
 * Order of work: the FMU hashes of fmus.sha256 are checked first (a changed FMU makes the
 * comparison meaningless, so it is named and the replay stops); then inputs.bin is read
 * and checked; the session's copy of the system is loaded with its relative sources
 * resolved where the original was (session.conf source_dir), every I/O component replaced
 * by a replay unit (rtc_io_unit_replay_factory) fed from inputs.bin; the recorded operator
 * commands are applied before the same steps; rows are recorded with the same selection
 * and decimation; finally DIR/results.csv is compared with the session's byte for byte.
 */
#include "cli.h"
#include "rt_cli.h"
#include "json_util.h"

#include "rtcosim/assemble.h"
#include "rtcosim/placement.h"
#include "rtcosim/recorder.h"
#include "rtcosim/session.h"
#include "rtcosim/sha256.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char replay_help[] =
    "usage: rtcosim replay SESSION_DIR [--output-dir DIR]\n"
    "\n"
    "Re-run a real-time session (the --output-dir of 'rtcosim run --realtime') offline, as\n"
    "fast as possible: the FMU hashes (fmus.sha256) are checked first, the session's copy\n"
    "of the system is loaded, every I/O component is replaced by the samples recorded in\n"
    "inputs.bin (fed to the same estimators at the same steps), the recorded operator\n"
    "commands are applied at the same steps, and DIR/results.csv (default\n"
    "SESSION_DIR/replay) is compared with the session's results.csv. Prints \"identical\"\n"
    "(exit 0) or the first differing row and column (exit 1); DIR/summary.json holds the\n"
    "replay's connections and I/O signals with each estimator's coupling monitor. A session\n"
    "that did not end (killed: no summary.json, no end record in inputs.bin) is replayed as\n"
    "far as it recorded complete rows: \"identical over the N rows recorded; the session\n"
    "ended abnormally at t=T s\" (exit 5) when they match. A session run with\n"
    "--overrun substitute in which a unit was actually late is not reproducible (its\n"
    "consumers extrapolated its outputs while it ran on): the replay shows where it differs.\n"
    "\n"
    "options:\n";

typedef rtc_cli_session_conf conf;

void rtc_cli_session_conf_clear(conf *c)
{
    free(c->system);
    free(c->source_dir);
    for (size_t i = 0; i < c->n_records; i++)
        free(c->records[i]);
    free(c->records);
    for (size_t i = 0; i < c->so.n_sets; i++)
        free(c->sets[i]);
    free(c->sets);
    free(c->node);
    for (size_t i = 0; i < c->n_places; i++)
        free(c->places[i]);
    free(c->places);
    for (size_t i = 0; i < c->so.n_unit_settings; i++)
        free(c->unit_text[i][0]), free(c->unit_text[i][1]);
}

/* "unit.KEY=VALUE": a single FMU's unit setting (--interface, --solver, --substeps). */
static int conf_unit(conf *c, const char *key, const char *v)
{
    size_t n = c->so.n_unit_settings;
    if (n == sizeof c->unit / sizeof c->unit[0])
        return RTC_OK; /* more than this replay knows of: the load names what it lacks */
    c->unit_text[n][0] = strdup(key);
    c->unit_text[n][1] = strdup(v);
    if (!c->unit_text[n][0] || !c->unit_text[n][1]) {
        free(c->unit_text[n][0]);
        free(c->unit_text[n][1]);
        return RTC_ENOMEM;
    }
    c->unit[n] = (rtc_kv){c->unit_text[n][0], c->unit_text[n][1]};
    c->so.unit_settings = c->unit;
    c->so.n_unit_settings = n + 1;
    return RTC_OK;
}

/* The numbers of session.conf and their ranges: those `rtcosim run` accepts for the
 * options they record (0 where the option was not given: the file's or the default
 * value), so that a damaged or edited file is refused with one line before anything is
 * sized from it (workers=1000000 would make the replay allocate for a million threads). */
static const struct conf_num {
    const char *key;
    long lo, hi;
} conf_nums[] = {
    {"step_ns", 0, LONG_MAX},     {"sync_step_ns", 0, LONG_MAX},
    {"start_ns", LONG_MIN, LONG_MAX}, {"stop_ns", LONG_MIN, LONG_MAX},
    {"iterate", 0, 1},            {"max_iterations", 0, 1000000}, /* --max-iterations */
    {"workers", 0, 256},          /* --workers */
    {"decimation", 1, 1000000000}, /* --decimation */
    {"tolerance", 0, 1},          /* --tolerance, a real */
};

/* One number of session.conf, checked against its range (logged: RTC_EPARSE). */
static int conf_number(const struct conf_num *k, const char *v, long *n, double *x)
{
    /* a damaged session.conf is named, never replayed with a prefix of a number */
    const char *why = strcmp(k->key, "tolerance")
                          ? rtc_cli_num_long(v, k->lo, k->hi, n)
                          : rtc_cli_num_double(v, (double)k->lo, (double)k->hi, x);
    if (!why)
        return RTC_OK;
    if (k->lo == LONG_MIN)
        fprintf(stderr, "rtcosim replay: session.conf: %s=%s: %s\n", k->key, v, why);
    else
        fprintf(stderr, "rtcosim replay: session.conf: %s=%s: %s (expected %ld..%ld)\n", k->key,
                v, why, k->lo, k->hi);
    return RTC_EPARSE;
}

/* A repeatable key's value appended to *list (count *n). */
static int conf_push(char ***list, size_t *n, const char *v)
{
    char **r = realloc(*list, (*n + 1) * sizeof *r);
    if (!r)
        return RTC_ENOMEM;
    *list = r;
    if (!(r[*n] = strdup(v)))
        return RTC_ENOMEM;
    (*n)++;
    return RTC_OK;
}

/* A key given once; a second one replaces the first (as a later option would). */
static int conf_string(char **dst, const char *v)
{
    free(*dst);
    *dst = strdup(v);
    return *dst ? RTC_OK : RTC_ENOMEM;
}

/* Unknown keys are ignored: a newer session.conf stays readable by this replay. */
static int conf_line(conf *c, const char *key, const char *v)
{
    long n = 0;
    double x = 0;
    for (size_t i = 0; i < sizeof conf_nums / sizeof conf_nums[0]; i++)
        if (!strcmp(key, conf_nums[i].key) && conf_number(&conf_nums[i], v, &n, &x) != RTC_OK)
            return RTC_EPARSE;
    if (!strcmp(key, "system"))
        return conf_string(&c->system, v);
    if (!strcmp(key, "source_dir")) {
        int rc = conf_string(&c->source_dir, v);
        c->so.source_dir = c->source_dir;
        return rc;
    }
    if (!strcmp(key, "algorithm")) {
        c->so.has_algorithm = true;
        if (rtc_master_parse(v, &c->so.algorithm) == RTC_OK)
            return RTC_OK;
        fprintf(stderr, "rtcosim replay: session.conf: algorithm=%s: not an algorithm of this "
                "rtcosim\n", v);
        return RTC_EPARSE;
    }
    if (!strcmp(key, "step_ns"))
        c->so.step_ns = n;
    else if (!strcmp(key, "sync_step_ns"))
        c->so.sync_step_ns = n;
    else if (!strcmp(key, "start_ns"))
        c->so.has_start = true, c->so.start_ns = n;
    else if (!strcmp(key, "stop_ns"))
        c->so.has_stop = true, c->so.stop_ns = n;
    else if (!strcmp(key, "iterate"))
        c->so.iterate = n != 0;
    else if (!strcmp(key, "tolerance"))
        c->so.tolerance = x;
    else if (!strcmp(key, "max_iterations"))
        c->so.max_iterations = (unsigned)n;
    else if (!strcmp(key, "workers"))
        c->so.workers = (unsigned)n;
    else if (!strcmp(key, "decimation"))
        c->decimation = n;
    else if (!strcmp(key, "record"))
        return conf_push(&c->records, &c->n_records, v);
    else if (!strncmp(key, "unit.", 5))
        return conf_unit(c, key + 5, v);
    else if (!strcmp(key, "fmu_logging"))
        c->so.fmu_logging = !strcmp(v, "1");
    else if (!strcmp(key, "set")) {
        int rc = conf_push(&c->sets, &c->so.n_sets, v);
        c->so.sets = (const char *const *)c->sets;
        return rc;
    } else if (!strcmp(key, "node"))
        return conf_string(&c->node, v);
    else if (!strcmp(key, "place"))
        return conf_push(&c->places, &c->n_places, v);
    return RTC_OK;
}

int rtc_cli_session_conf_read(const char *dir, conf *c)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/session.conf", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        int rc = rtc_status_from_errno(errno);
        fprintf(stderr, "rtcosim replay: %s: cannot open: %s (not a session directory?)\n",
                path, rtc_strerror(rc));
        return rc;
    }
    *c = (conf){.decimation = 1};
    int rc = RTC_OK;
    while (rc == RTC_OK && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq)
            continue;
        *eq = '\0';
        rc = conf_line(c, line, eq + 1);
    }
    fclose(f);
    if (rc != RTC_OK)
        rtc_cli_session_conf_clear(c); /* nothing of a refused file stays allocated */
    return rc;
}

/* ---- FMU hashes ---- */

typedef struct hash_ent {
    char hash[65], unit[256], path[3000];
} hash_ent;

static int read_hashes(const char *dir, hash_ent **out, size_t *n)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/fmus.sha256", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        int rc = rtc_status_from_errno(errno);
        fprintf(stderr, "rtcosim replay: %s: cannot open: %s\n", path, rtc_strerror(rc));
        return rc;
    }
    *out = NULL;
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        hash_ent e = {0};
        if (sscanf(line, "%64s %255s %2999[^\n]", e.hash, e.unit, e.path) != 3)
            continue;
        hash_ent *a = realloc(*out, (*n + 1) * sizeof *a);
        if (!a)
            break;
        *out = a;
        a[(*n)++] = e;
    }
    fclose(f);
    return RTC_OK;
}

/* Before loading: every recorded FMU that still exists must hash the same. */
static bool fmus_unchanged(const hash_ent *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char hex[65];
        if (access(h[i].path, R_OK) != 0)
            continue; /* e.g. inside a package's extraction directory: checked after load */
        if (rtc_sha256_file(h[i].path, hex) != RTC_OK || strcmp(hex, h[i].hash) != 0) {
            fprintf(stderr, "rtcosim replay: the FMU of unit %s changed since the session: %s "
                    "(sha256 now %s, recorded %s)\n", h[i].unit, h[i].path,
                    rtc_sha256_file(h[i].path, hex) == RTC_OK ? hex : "unreadable",
                    h[i].hash);
            return false;
        }
    }
    return true;
}

/* After loading: each unit's FMU (as the system copy names it) hashes as recorded. */
static bool units_match(const rtc_system *sys, const hash_ent *h, size_t n)
{
    for (size_t u = 0; u < rtc_system_unit_count(sys); u++) {
        const char *src = rtc_system_unit_source(sys, u), *name = rtc_system_unit(sys, u)->name;
        size_t size = src ? strlen(src) : 0;
        if (!src || (size > 4 && (!strcmp(src + size - 4, ".ssd") ||
                                  !strcmp(src + size - 4, ".ssp"))))
            continue;
        const hash_ent *e = NULL;
        for (size_t i = 0; i < n && !e; i++)
            e = !strcmp(h[i].unit, name) ? &h[i] : NULL;
        const char *hex = rtc_system_unit_sha256(sys, u); /* hashed when loaded */
        bool same = e && hex && !strcmp(hex, e->hash);
        hex = hex ? hex : "unreadable";
        if (!same) {
            fprintf(stderr, "rtcosim replay: the FMU of unit %s changed since the session: %s "
                    "(sha256 %s; the session used %s, sha256 %s)\n", name, src, hex,
                    e ? e->path : "no recorded FMU", e ? e->hash : "-");
            return false;
        }
    }
    return true;
}

/* ---- the session's own counters ---- */

/* What the replay takes from the session's summary.json (parsed with jansson). */
typedef struct session_summary {
    bool exists;  /* false: no summary.json (a killed session) */
    bool ended;   /* a status other than "running" and a cause other than "write" */
    uint64_t rows_dropped, inputs_dropped, commands_dropped;
} session_summary;

/* The optional "session" counters (a watchdog's summary has none: the stepping thread's
 * statistics were not read). */
static bool read_session_counts(const json_t *root, const char *path, session_summary *ss,
                                char *err, size_t cap)
{
    if (!json_object_get(root, "session"))
        return true;
    char where[4200]; /* the messages name the object: "FILE: session: key ..." */
    snprintf(where, sizeof where, "%s: session", path);
    const json_t *s = rtc__json_need_obj(root, "session", path, err, cap);
    return s && rtc__json_need_uint(s, "inputs_dropped", where, &ss->inputs_dropped, err, cap)
           && rtc__json_need_uint(s, "commands_dropped", where, &ss->commands_dropped, err, cap);
}

/* Read DIR/summary.json into @p ss. A missing file is a killed session (RTC_OK, exists
 * false); one that does not parse or lacks a key the replay needs, or holds it with the
 * wrong type, is refused with one line naming the file and the key (RTC_EPARSE). */
static int read_summary(const char *dir, session_summary *ss)
{
    char path[4096], err[4400] = "";
    snprintf(path, sizeof path, "%s/summary.json", dir);
    *ss = (session_summary){0};
    json_t *root = NULL;
    int rc = rtc__json_read(path, &root, err, sizeof err);
    if (rc == RTC_ENOTFOUND)
        return RTC_OK;
    const char *status = NULL, *cause = NULL;
    if (rc == RTC_OK && (!(status = rtc__json_need_str(root, "status", path, err, sizeof err))
                         || !(cause = rtc__json_need_str(root, "cause", path, err, sizeof err))
                         || !rtc__json_need_uint(root, "rows_dropped", path, &ss->rows_dropped,
                                                 err, sizeof err)
                         || !read_session_counts(root, path, ss, err, sizeof err)))
        rc = RTC_EPARSE;
    if (rc == RTC_OK) {
        ss->exists = true;
        /* a write error ended the recording early: its rows are a prefix, like a kill's */
        ss->ended = strcmp(status, "running") != 0 && strcmp(cause, "write") != 0;
    } else {
        fprintf(stderr, "rtcosim replay: %s\n", err);
    }
    json_decref(root);
    return rc;
}

/* A session ended (however: completed, error, signal, ...) when inputs.bin has its end
 * record and summary.json exists with a status other than "running". A killed session
 * (SIGKILL, OOM, power cut) has neither, and one stopped by a write error recorded only
 * part of its rows: for those only the prefix recorded can be compared. */
static bool session_ended(const session_summary *ss, const rtc_inputs *in)
{
    return in->has_end && ss->exists && ss->ended;
}

static void warn_losses(const session_summary *ss)
{
    if (ss->rows_dropped || ss->inputs_dropped || ss->commands_dropped)
        fprintf(stderr, "rtcosim replay: warning: the session lost %llu result row(s), %llu "
                "input record(s) and %llu command(s) (ring full): the replay cannot be "
                "identical\n", (unsigned long long)ss->rows_dropped,
                (unsigned long long)ss->inputs_dropped, (unsigned long long)ss->commands_dropped);
}

/* ---- the run ---- */

/* inputs.bin dates its records in ticks of the live system (header tick_ns, start_ns):
 * replayed on another grid, every sample and command would land at another time and the
 * results could only differ. Logged; false when they do not match. */
static bool same_clock(const rtc_system *sys, const rtc_inputs *in)
{
    int64_t tick = rtc_system_tick_ns(sys), start = rtc_system_start_ns(sys);
    if (in->tick_ns == tick && in->start_ns == start)
        return true;
    char a[32], b[32];
    bool t = in->tick_ns != tick;
    rtc_time_format_s(t ? in->tick_ns : in->start_ns, a, sizeof a);
    rtc_time_format_s(t ? tick : start, b, sizeof b);
    fprintf(stderr, "rtcosim replay: inputs.bin was recorded with %s %s s, the session's "
            "system has %s s: not this system's recording (session.conf or the system copy "
            "changed?)\n", t ? "a base tick of" : "a start time of", a, b);
    return false;
}

/* The session's copy of the system, never the original (which may have been edited
 * since); FMU units are made as live, I/O components become replay units that open no
 * driver, so a replay needs no bench and no network. */
int rtc_cli_session_load(const char *dir, const conf *c, const rtc_io_sample_source *feed,
                         rtc_system **sys)
{
    static const char *const copies[] = {"system.ssd", "system.ssp", "system.fmu"};
    char path[4096] = "";
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, copies[i]);
        if (access(path, R_OK) == 0)
            break;
    }
    if (!c->node)
        return rtc_load_system_replay(path, &c->so, feed, &rtc_cli_log, sys);
    /* a node of a distributed run: the same part of the system, its bridges replayed */
    rtc_placement_opts po = {.node = c->node, .places = (const char *const *)c->places,
                             .n_places = c->n_places};
    return rtc_load_system_node_replay(path, &c->so, &po, feed, &rtc_cli_log, sys);
}

/* Step as the live run did: commands before each step, a row every decimation ticks. */
/* The recorder runs in lossless mode here (the producer waits): a replay has no
 * deadline, and a dropped row would be a false difference. */
static int run_steps(rtc_system *sys, rtc_replay *rp, rtc_recorder *rec, long dec, int64_t end)
{
    int64_t start = rtc_system_start_ns(sys);
    int rc = rtc_recorder_push(rec, start);
    for (int64_t k = 0; rc == RTC_OK && k < end; k++) {
        rc = rtc_replay_before_step(rp, k);
        if (rc == RTC_OK)
            rc = rtc_system_step(sys);
        if (rc == RTC_OK && rtc_system_tick_index(sys) % dec == 0)
            rc = rtc_recorder_push(rec, start + rtc_system_time_ns(sys));
    }
    return rc == RTC_ETERMINATED ? RTC_OK : rc;
}

/* What the session recorded: whether it ended, and (when it did not) the complete rows
 * of its results.csv — a line cut short is not data — and the time of the last one. */
typedef struct recorded {
    bool ended;
    size_t rows;     /* complete data rows (header excluded) */
    size_t bytes;    /* length of the complete lines */
    char last_t[64]; /* time column of the last complete row */
    int64_t inputs_k; /* a killed session with inputs: inputs.bin is complete for the
                         steps before this one (its last progress record; it may lag
                         results.csv); -1: no such bound */
} recorded;

static void field(const char *line, size_t i, char *out, size_t cap);
static char *slurp(const char *path, size_t *len);

static void count_recorded(const char *path, recorded *rs)
{
    size_t n = 0;
    char *a = slurp(path, &n);
    const char *last = NULL, *line = a;
    for (size_t i = 0; a && i < n; i++) {
        if (a[i] != '\n')
            continue;
        last = line;
        line = a + i + 1;
        rs->bytes = i + 1;
        rs->rows++;
    }
    rs->rows = rs->rows ? rs->rows - 1 : 0;
    if (last && rs->rows)
        field(last, 0, rs->last_t, sizeof rs->last_t);
    free(a);
}

/* The step count to replay: the end record's, else up to the stop time; a session that
 * did not end is replayed only as far as it recorded rows. */
static int64_t end_step(const rtc_inputs *in, const rtc_system *sys, const recorded *rs,
                        long dec)
{
    int64_t end = in->has_end ? in->end_k : rtc_system_stop_ns(sys) / rtc_system_tick_ns(sys);
    if (!in->has_end && rs->ended)
        fprintf(stderr, "rtcosim replay: warning: inputs.bin has no end record (the session "
                "did not close cleanly): replaying to the stop time\n");
    if (!rs->ended) {
        int64_t cap = rs->rows ? (int64_t)(rs->rows - 1) * dec : 0;
        end = end < cap ? end : cap;
        end = rs->inputs_k >= 0 && rs->inputs_k < end ? rs->inputs_k : end;
    }
    return end;
}

/* DIR/summary.json of the replay (summary_system.c): how it ended, the connections and
 * I/O signals with each estimator's coupling monitor — what the estimators did on the
 * recorded samples, e.g. after the session's system.ssd was given another estimator. */
static void replay_summary(const char *out_dir, const rtc_system *sys, const char *dir, int rc,
                           double wall_s, const rtc_recorder_stats *st)
{
    rtc_cli_end e = {.cause = rc == RTC_OK ? "end" : "error",
                     .last_tick = rtc_system_tick_index(sys),
                     .last_time_ns = rtc_system_start_ns(sys) + rtc_system_time_ns(sys)};
    snprintf(e.reason, sizeof e.reason, "%s", rc == RTC_OK ? "replayed the session"
                                                           : rtc_cli_last_error());
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/summary.json", out_dir);
    rtc_cli_rt no_session; /* a replay has no live session: only where its summary goes */
    rtc_cli_rt_init(&no_session);
    no_session.summary_path = path;
    rtc_cli_write_summary(sys, dir, &e, wall_s, st, &no_session, true);
}

static int replay_run(const char *dir, const char *out_dir, const conf *c, rtc_inputs *in,
                      rtc_replay *rp, const hash_ent *h, size_t nh, const recorded *rs)
{
    rtc_system *sys = NULL;
    rtc_record *rec = NULL;
    rtc_csv *csv = NULL;
    rtc_recorder *r = NULL;
    char err[1024] = "", file[4096];
    snprintf(file, sizeof file, "%.4000s/results.csv", out_dir);
    int rc = rtc_cli_session_load(dir, c, rtc_replay_feed(rp), &sys);
    if (rc == RTC_OK && (!same_clock(sys, in) || !units_match(sys, h, nh)))
        rc = RTC_EINVAL;
    if (rc == RTC_OK && (rc = rtc_record_new(&rec)) == RTC_OK)
        rc = rtc_system_record(sys, rec, (const char *const *)c->records, c->n_records);
    if (rc == RTC_OK)
        rc = rtc_system_init(sys);
    if (rc == RTC_OK && (rc = rtc_replay_bind(rp, sys, err, sizeof err)) != RTC_OK)
        fprintf(stderr, "rtcosim replay: %s\n", err);
    rtc_recorder_opts ro = {.ring_rows = RTC_RECORDER_ROWS, .lossless = true};
    if (rc == RTC_OK)
        rc = rtc_cli_recording_open(file, rec, &ro, &csv, &r);
    double t0 = rtc_cli_now_s();
    if (rc == RTC_OK)
        rc = run_steps(sys, rp, r, c->decimation, end_step(in, sys, rs, c->decimation));
    rtc_recorder_stats st = {0};
    int wst = rtc_cli_recording_close(r, csv, &st, NULL, 0);
    rc = rc == RTC_OK ? wst : rc;
    if (sys && csv) /* the replay's own summary: its estimators' coupling monitor */
        replay_summary(out_dir, sys, dir, rc, rtc_cli_now_s() - t0, &st);
    if (rc == RTC_OK && rtc_replay_unconsumed(rp))
        fprintf(stderr, "rtcosim replay: warning: %zu recorded sample(s) were not consumed\n",
                rtc_replay_unconsumed(rp));
    rtc_system_free(sys);
    rtc_record_free(rec);
    return rc;
}

/* ---- comparison ---- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 65536 + 1 > cap) {
            char *nb = realloc(buf, cap = cap * 2 + 65536 + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Field @p i of a CSV line (quotes respected), copied into out. */
static void field(const char *line, size_t i, char *out, size_t cap)
{
    size_t f = 0, w = 0;
    bool q = false;
    for (const char *p = line; *p && *p != '\n'; p++) {
        if (*p == '"')
            q = !q;
        else if (*p == ',' && !q)
            f++;
        else if (f == i && w + 1 < cap)
            out[w++] = *p;
    }
    out[w] = '\0';
}

static size_t field_count(const char *line)
{
    size_t n = 1;
    bool q = false;
    for (const char *p = line; *p && *p != '\n'; p++) {
        q ^= *p == '"';
        n += *p == ',' && !q;
    }
    return n;
}

static bool same_line(const char *a, const char *b)
{
    size_t n = (size_t)(strchrnul(a, '\n') - a);
    return n == (size_t)(strchrnul(b, '\n') - b) && !strncmp(a, b, n);
}

static const char *next_line(const char *p)
{
    p = strchrnul(p, '\n');
    return *p ? p + 1 : p;
}

/* Cut @p a (length *@p na) to as many lines as @p b has; returns its data rows then. */
static size_t cut_to_lines_of(char *a, size_t *na, const char *b)
{
    const char *p = a;
    for (const char *q = b; *q; q = next_line(q))
        p = next_line(p);
    *na = (size_t)(p - a);
    a[*na] = '\0';
    size_t rows = 0;
    for (size_t i = 0; i < *na; i++)
        rows += a[i] == '\n';
    return rows ? rows - 1 : 0;
}

/* Print the first difference of two result files; 0 when identical, 2 when the session
 * did not end and the rows it recorded are identical (a prefix of the replay's). */
/* Byte comparison decides; the line/field walk only explains where. Numbers are
 * compared as text on purpose: results.csv holds 17 significant digits, so equal text is
 * equal doubles, and any difference is a real one. */
static int compare(const char *live_path, const char *new_path, const recorded *rs)
{
    size_t na = 0, nb = 0;
    char *a = slurp(live_path, &na), *b = slurp(new_path, &nb);
    int rc = 1;
    size_t rows = rs->rows;
    if (a && !rs->ended && rs->bytes <= na)
        a[na = rs->bytes] = '\0'; /* the complete rows only */
    if (a && b && !rs->ended && nb < na) /* replayed fewer (inputs.bin lagged): as many */
        rows = cut_to_lines_of(a, &na, b);
    if (!a || !b) {
        fprintf(stderr, "rtcosim replay: cannot read %s\n", a ? new_path : live_path);
    } else if (rs->ended && na == nb && !memcmp(a, b, na)) {
        printf("identical\n");
        rc = 0;
    } else if (!rs->ended && na <= nb && !memcmp(a, b, na) && rows == rs->rows) {
        printf("identical over the %zu rows recorded; the session ended abnormally at t=%s s\n",
               rs->rows, rs->rows ? rs->last_t : "?");
        rc = 2;
    } else if (!rs->ended && na <= nb && !memcmp(a, b, na)) {
        printf("identical over the first %zu of the %zu rows recorded (inputs.bin was "
               "written up to step %lld); the session ended abnormally at t=%s s\n", rows,
               rs->rows, (long long)rs->inputs_k, rs->rows ? rs->last_t : "?");
        rc = 2;
    } else {
        const char *la = a, *lb = b, *hdr = a;
        size_t row = 0;
        while (*la && *lb && same_line(la, lb)) {
            la = next_line(la);
            lb = next_line(lb);
            row++;
        }
        if (!*la || !*lb) {
            printf("results differ: the %s has fewer rows (first missing row %zu)\n",
                   !*lb ? "replay" : "session", row);
        } else {
            size_t col = 0, n = field_count(la);
            char fa[256], fb[256], name[256], t[64];
            for (; col < n; col++) {
                field(la, col, fa, sizeof fa);
                field(lb, col, fb, sizeof fb);
                if (strcmp(fa, fb))
                    break;
            }
            field(hdr, col, name, sizeof name);
            field(la, 0, t, sizeof t);
            if (row == 0)
                printf("results differ in the header, column %zu: session \"%s\", replay "
                       "\"%s\"\n", col + 1, fa, fb);
            else
                printf("results differ at row %zu (time %s), column %zu \"%s\": session %s, "
                       "replay %s\n", row, t, col + 1, name, fa, fb);
        }
    }
    free(a);
    free(b);
    return rc;
}

static int parse_args(int argc, char **argv, const char **dir, const char **out)
{
    const rtc_cli_command *cmd = rtc_cli_command_find("replay");
    rtc_cli_args a;
    int st = rtc_cli_parse(cmd, argc, argv, &a);
    for (size_t i = 0; st == RTC_EXIT_OK && i < a.n; i++) {
        if (a.args[i].opt->id == RTC_CLI_VERBOSE)
            rtc_cli_log.max_level = RTC_LOG_INFO;
        if (a.args[i].opt->id == RTC_CLI_OUTPUT_DIR)
            *out = a.args[i].v.text;
    }
    if (st == RTC_EXIT_OK && a.help) {
        fputs(replay_help, stdout);
        rtc_cli_print_options(cmd, RTC_CLI_G_OPTIONS, stdout);
        st = -1;
    }
    *dir = st == RTC_EXIT_OK ? a.words[0] : NULL;
    rtc_cli_args_clear(&a);
    return st;
}

int rtc_cmd_replay(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    int st = parse_args(argc, argv, &dir, &out);
    if (st != RTC_EXIT_OK)
        return st < 0 ? RTC_EXIT_OK : st;
    char out_buf[3000], path[4096], err[1024] = "";
    if (!out) {
        snprintf(out_buf, sizeof out_buf, "%.2900s/replay", dir);
        out = out_buf;
    }
    conf c;
    hash_ent *h = NULL;
    size_t nh = 0;
    rtc_inputs in = {0};
    rtc_replay *rp = NULL;
    int rc = rtc_cli_session_conf_read(dir, &c);
    if (rc != RTC_OK)
        return RTC_EXIT_ERROR;
    rc = read_hashes(dir, &h, &nh);
    if (rc == RTC_OK && !fmus_unchanged(h, nh))
        rc = RTC_EINVAL;
    snprintf(path, sizeof path, "%s/inputs.bin", dir);
    if (rc == RTC_OK && (rc = rtc_inputs_read(path, &in, err, sizeof err)) != RTC_OK)
        fprintf(stderr, "rtcosim replay: %s\n", err);
    if (rc == RTC_OK)
        rc = rtc_replay_new(&in, &rp);
    session_summary ss = {0};
    if (rc == RTC_OK)
        rc = read_summary(dir, &ss);
    recorded rs = {.ended = rc == RTC_OK && session_ended(&ss, &in)};
    char live[4096];
    snprintf(live, sizeof live, "%.4000s/results.csv", dir);
    rs.inputs_k = -1;
    if (rc == RTC_OK && !rs.ended)
        count_recorded(live, &rs);
    if (rc == RTC_OK && !rs.ended && !in.has_end && (in.n_signals || in.n_vars))
        rs.inputs_k = in.progress_k > 0 ? in.progress_k : 0; /* none: nothing vouched for */
    if (rc == RTC_OK) {
        warn_losses(&ss);
        rc = rtc_cli_make_dir(out, NULL);
    }
    if (rc == RTC_OK)
        rc = replay_run(dir, out, &c, &in, rp, h, nh, &rs);
    int exit_code = RTC_EXIT_ERROR;
    if (rc == RTC_OK) {
        char again[4096];
        snprintf(again, sizeof again, "%.4000s/results.csv", out);
        int cmp = compare(live, again, &rs);
        exit_code = cmp == 0 ? RTC_EXIT_OK : cmp == 2 ? RTC_EXIT_PARTIAL : RTC_EXIT_ERROR;
    }
    rtc_replay_free(rp);
    rtc_inputs_clear(&in);
    free(h);
    rtc_cli_session_conf_clear(&c);
    return exit_code;
}
