/*
 * Feasibility planning for the CLI (plan_cli.h): the cache of plans, the profiling of a
 * copy of the system, and the check `run --realtime` makes before it arms.
 *
 * DESIGN: the profiled copy is loaded with replay units in place of the I/O components
 * (rtcosim/assemble.h): no driver is opened, no socket, no bench value — the check runs
 * before the real system is even loaded, so a refused run has touched nothing outside.
 * Without --inputs their signals have no samples (the FMUs see the start values); with
 * --inputs SESSION they get the session's recorded samples and commands at the same
 * ticks, as `rtcosim replay` does. The cache key is the SHA-256 of the machine, the
 * system file, every unit's file and the options the work depends on, so a plan is
 * reused exactly when the measurement would be the same (a plan made with --inputs
 * replaces the one without: same key, a more realistic measurement).
 */
#include "cli.h"
#include "plan_cli.h"

#include "rtcosim/archive.h"
#include "rtcosim/assemble.h"
#include "rtcosim/fmu.h"
#include "rtcosim/rt.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/sha256.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* ---- where plans are kept ---- */

static void cache_root(char *buf, size_t cap)
{
    const char *d = getenv("RTCOSIM_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME");
    const char *h = getenv("HOME");
    if (d && *d)
        snprintf(buf, cap, "%s", d);
    else if (x && *x)
        snprintf(buf, cap, "%s/rtcosim", x);
    else
        snprintf(buf, cap, "%s/.cache/rtcosim", h && *h ? h : "/tmp");
}

/* mkdir -p; errors show when the plan is written. */
static void make_dirs(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    mkdir(p, 0755);
}

/* First line of @p path whose text starts with @p prefix, after it (or ""). */
static void file_field(const char *path, const char *prefix, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, prefix, strlen(prefix)) != 0)
            continue;
        const char *v = line + strlen(prefix);
        v += strspn(v, " \t:");
        snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
        break;
    }
    if (f)
        fclose(f);
}

/* One line naming this machine as far as timing goes. */
static void machine_line(char *buf, size_t cap)
{
    char host[256] = "", id[64], cpu[160];
    struct utsname u;
    gethostname(host, sizeof host - 1);
    file_field("/etc/machine-id", "", id, sizeof id);
    file_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
    if (uname(&u) != 0)
        u.release[0] = '\0';
    snprintf(buf, cap, "host %s, machine-id %.12s, %s, %d CPUs, Linux %s", host, id, cpu,
             rtc_rt_cpu_count(), u.release);
}

/* The options the profile's numbers depend on, in one line. A session's inputs are not
 * among them: they make the same measurement more realistic, so a plan made with
 * --inputs replaces the one without, and the run's check finds it. */
static void options_line(const rtc_system *sys, const rtc_system_options *so,
                         const rtc_cli_rt *rt, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "algorithm %s, tick %lld ns, workers %u%s, "
                                "rtf %.17g, priority %d, cpu %d, spin %ld us",
                                rtc_master_name(rtc_system_algorithm(sys)),
                                (long long)rtc_system_tick_ns(sys), so->workers,
                                so->iterate ? ", iterate" : "", rt->rtf, rt->priority, rt->cpu,
                                rt->spin_us);
    for (size_t i = 0; i < so->n_sets && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, ", set %s", so->sets[i]);
    for (size_t i = 0; i < rtc_system_unit_count(sys) && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, ", %s step %lld", rtc_system_unit(sys, i)->name,
                              (long long)rtc_system_unit_step_ns(sys, i));
}

/* The system file itself (a folder: its SystemStructure.ssd). */
static void system_hash(const char *path, char hex[65])
{
    struct stat st;
    char ssd[4200];
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(ssd, sizeof ssd, "%s/SystemStructure.ssd", path);
    else
        snprintf(ssd, sizeof ssd, "%s", path);
    if (rtc_sha256_file(ssd, hex) != RTC_OK)
        snprintf(hex, 65, "unreadable");
}

static void key_of(const rtc_system *sys, const char *path, const char *machine,
                   const char *options, char key[65])
{
    rtc_sha256 s;
    char hex[65];
    uint8_t d[32];
    rtc_sha256_init(&s);
    rtc_sha256_update(&s, RTC_VERSION "\n", strlen(RTC_VERSION) + 1);
    rtc_sha256_update(&s, machine, strlen(machine) + 1);
    rtc_sha256_update(&s, options, strlen(options) + 1);
    system_hash(path, hex);
    rtc_sha256_update(&s, hex, 64);
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++) {
        const char *h = rtc_system_unit_sha256(sys, i);
        rtc_sha256_update(&s, h ? h : "-", h ? 64 : 1);
    }
    rtc_sha256_final(&s, d);
    for (size_t i = 0; i < 32; i++)
        snprintf(key + 2 * i, 3, "%02x", d[i]);
}

/* ---- the profiled copy's I/O units: no samples, or a session's ---- */

static long no_lookup(void *user, const char *unit, const char *signal)
{
    (void)user, (void)unit, (void)signal;
    return -1;
}

static bool no_next(void *user, long signal, int64_t t_ns, double *value, int64_t *sample_ns,
                    int64_t *arrival_ns)
{
    (void)user, (void)signal, (void)t_ns, (void)value, (void)sample_ns, (void)arrival_ns;
    return false;
}

static const rtc_io_sample_source no_samples = {no_lookup, no_next, NULL};

/* A session's inputs for the profile (--inputs). */
typedef struct session_feed {
    rtc_inputs in;
    rtc_replay *rp;
} session_feed;

static int feed_open(const char *dir, session_feed *sf, const rtc_logger *lg)
{
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/inputs.bin", dir);
    int rc = rtc_inputs_read(path, &sf->in, err, sizeof err);
    if (rc == RTC_OK)
        rc = rtc_replay_new(&sf->in, &sf->rp);
    if (rc != RTC_OK)
        rtc_log(lg, RTC_LOG_ERROR, "--inputs %s: %s", dir, err[0] ? err : rtc_strerror(rc));
    return rc;
}

static void replay_step(void *user, int64_t k)
{
    rtc_replay_before_step(user, k);
}

/* ---- profiling ---- */

/* Model Exchange units' solver and substeps, for the options (rtcosim/fmu.h). */
static rtc_plan_unit_hint *hints_of(const rtc_system *sys)
{
    size_t n = rtc_system_unit_count(sys);
    rtc_plan_unit_hint *h = calloc(n + 1, sizeof *h);
    for (size_t i = 0; h && i < n; i++) {
        rtc_me_solver s;
        h[i].me = rtc_fmu_unit_solver(rtc_system_unit(sys, i), &s, &h[i].substeps);
        h[i].solver = h[i].me ? rtc_me_solver_name(s) : NULL;
    }
    return h;
}

/* The profiling period: the run's, but no longer than RTC_CLI_PLAN_MAX_PERIOD_NS. */
static int64_t profile_period(const rtc_system *sys, double rtf)
{
    double p = (double)rtc_system_tick_ns(sys) / rtf + 0.5;
    int64_t period = p < 1 ? 1 : (int64_t)p;
    return period < RTC_CLI_PLAN_MAX_PERIOD_NS ? period : RTC_CLI_PLAN_MAX_PERIOD_NS;
}

/* Initialize the copy, record as the run would (into /dev/null), and profile it. */
static int measure(rtc_system *sys, const rtc_cli_feas_opts *o, const rtc_cli_rt *rt,
                   session_feed *sf, rtc_profile *prof)
{
    rtc_record *rec = NULL;
    rtc_csv *csv = NULL;
    rtc_recorder *r = NULL;
    rtc_logger quiet = *o->lg;
    quiet.max_level = RTC_LOG_ERROR; /* the profile's overruns are what it measures */
    rtc_system_set_threads(sys, rt->priority, rt->cpu);
    int rc = rtc_record_new(&rec);
    if (rc == RTC_OK)
        rc = rtc_system_record(sys, rec, o->records, o->n_records);
    if (rc == RTC_OK)
        rc = rtc_system_init(sys);
    char err[512] = "";
    if (rc == RTC_OK && sf && (rc = rtc_replay_bind(sf->rp, sys, err, sizeof err)) != RTC_OK)
        rtc_log(o->lg, RTC_LOG_ERROR, "--inputs: %s", err);
    rtc_recorder_opts ro = {.ring_rows = RTC_CLI_RT_RING_ROWS, .lossless = false};
    if (rc == RTC_OK)
        rc = rtc_cli_recording_open("/dev/null", rec, &ro, &csv, &r);
    rtc_profile_opts po = {.max_ticks = o->ticks, .budget_ns = (int64_t)(o->seconds * 1e9),
                           .period_ns = profile_period(sys, rt->rtf), .rtf = rt->rtf,
                           .priority = rt->priority, .cpu = rt->cpu, .recorder = r,
                           .decimation = 1, .lg = &quiet,
                           .before_step = sf ? replay_step : NULL, .user = sf ? sf->rp : NULL};
    if (rc == RTC_OK)
        rc = rtc_profile_run(sys, &po, prof);
    if (rc == RTC_ETIME)
        return rc; /* a unit is stuck in the copy: leave everything as it is */
    rtc_cli_recording_close(r, csv, NULL, NULL, 0);
    rtc_record_free(rec);
    return rc;
}

static int analyse(const rtc_system *sys, const rtc_profile *prof, const rtc_cli_feas_opts *o,
                   const rtc_cli_rt *rt, rtc_cli_feas *out)
{
    rtc_plan_unit_hint *hints = hints_of(sys);
    double p = (double)rtc_system_tick_ns(sys) / rt->rtf + 0.5;
    rtc_plan_opts po = {.period_ns = p < 1 ? 1 : (int64_t)p, .rtf = rt->rtf,
                        .workers = o->so->workers, .substitute = rt->overrun == RTC_EXEC_SUBSTITUTE,
                        .iterate = o->so->iterate, .profile_workers = o->so->workers,
                        .percentile = o->percentile, .margin = o->margin, .hints = hints};
    int rc = rtc_plan_new(sys, prof, &po, &out->plan);
    free(hints);
    if (rc != RTC_OK)
        return rc;
    out->n_units = rtc_system_unit_count(sys) < 256 ? rtc_system_unit_count(sys) : 256;
    for (size_t i = 0; i < out->n_units; i++)
        out->pf_d[i] = out->plan->units[i].d;
    out->info = *rtc_profile_info_get(prof);
    out->ticks = rtc_profile_ticks(prof);
    return RTC_OK;
}

/* ---- placement on nodes (--nodes, --place) ---- */

/* "A,B,C" into names; the count, or 0 with the reason logged. */
static size_t node_list(const char *text, char names[][64], const rtc_logger *lg)
{
    size_t n = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        bool ok = len > 0 && len < 64 && strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
                                                   "qrstuvwxyz0123456789_-.") >= len;
        for (size_t j = 0; ok && j < n; j++)
            ok = strncmp(names[j], p, len) != 0 || names[j][len] != '\0';
        if (!ok || n == RTC_PLAN_MAX_NODES) {
            rtc_log(lg, RTC_LOG_ERROR, "--nodes %s: expected up to %d distinct names of letters, "
                    "digits, '_', '-', '.', comma-separated", text, RTC_PLAN_MAX_NODES);
            return 0;
        }
        snprintf(names[n++], 64, "%.*s", (int)len, p);
        p += len + (p[len] == ',');
    }
    return n;
}

/* --place UNIT=NODE into per-unit pins (SIZE_MAX: free). */
static int pins_of(const rtc_system *sys, const rtc_cli_feas_opts *o, char names[][64],
                   size_t n_nodes, size_t *pin)
{
    for (size_t i = 0; i < rtc_system_unit_count(sys); i++)
        pin[i] = SIZE_MAX;
    for (size_t k = 0; k < o->n_pins; k++) {
        const char *eq = strchr(o->pins[k], '=');
        size_t u = 0, j = 0, ulen = eq ? (size_t)(eq - o->pins[k]) : 0;
        while (u < rtc_system_unit_count(sys) &&
               (strlen(rtc_system_unit(sys, u)->name) != ulen ||
                strncmp(rtc_system_unit(sys, u)->name, o->pins[k], ulen) != 0))
            u++;
        while (eq && j < n_nodes && strcmp(names[j], eq + 1) != 0)
            j++;
        if (!eq || u == rtc_system_unit_count(sys) || j == n_nodes) {
            rtc_log(o->lg, RTC_LOG_ERROR, "--place %s: expected COMPONENT=NODE, a component of "
                    "%s and a node of --nodes", o->pins[k], o->path);
            return RTC_EINVAL;
        }
        pin[u] = j;
    }
    return RTC_OK;
}

static int place(const rtc_system *sys, const rtc_profile *prof, const rtc_cli_feas_opts *o,
                 rtc_cli_feas *out)
{
    size_t k = node_list(o->nodes, out->node_names, o->lg);
    size_t *pin = calloc(rtc_system_unit_count(sys) + 1, sizeof *pin);
    int rc = k && pin ? pins_of(sys, o, out->node_names, k, pin) : k ? RTC_ENOMEM : RTC_EINVAL;
    if (rc == RTC_OK)
        rc = rtc_plan_place(out->plan, sys, prof, k, pin, &out->place);
    out->placed = rc == RTC_OK;
    free(pin);
    return rc;
}

/* A plan file that fits: --plan, else the cache (unless --reprofile or --inputs). */
static rtc_profile *from_file(const rtc_system *sys, const rtc_cli_feas_opts *o,
                              const char *key, rtc_cli_feas *out)
{
    char err[1024] = "";
    if (o->plan) { /* a plan.json or its folder */
        size_t n = strlen(o->plan);
        snprintf(out->dir, sizeof out->dir, "%.*s", (int)(n > 10 && !strcmp(o->plan + n - 10,
                 "/plan.json") ? n - 10 : n), o->plan);
    }
    rtc_profile *p = NULL;
    int64_t asked = 0;
    bool fresh = (o->reprofile || o->inputs) && !o->plan; /* --inputs: measure with them */
    int rc = fresh ? RTC_ENOTFOUND
                   : rtc_plan_load_profile(out->dir, sys, key, &p, &asked, err, sizeof err);
    if (rc != RTC_OK && o->plan)
        rtc_log(o->lg, RTC_LOG_ERROR, "--plan %s: %s", o->plan, err[0] ? err
                                                                       : rtc_strerror(rc));
    if (rc == RTC_OK && !o->plan && !o->any_length && asked < o->ticks) {
        rtc_profile_free(p); /* a quick profile: `plan` measures the full length */
        return NULL;
    }
    return rc == RTC_OK ? p : NULL;
}

static int plan_copy(rtc_system *sys, const rtc_cli_feas_opts *o, session_feed *sf,
                     rtc_cli_feas *out)
{
    rtc_cli_rt rt = *o->rt;
    rtc_cli_rt_hints(sys, &rt);
    char machine[512], options[4096], key[65], root[4000];
    machine_line(machine, sizeof machine);
    options_line(sys, o->so, &rt, options, sizeof options);
    key_of(sys, o->path, machine, options, key);
    cache_root(root, sizeof root);
    snprintf(out->dir, sizeof out->dir, "%s/plans/%.16s", root, key);
    rtc_profile *prof = from_file(sys, o, key, out);
    if (o->plan && !prof)
        return RTC_EINVAL;
    out->cached = prof != NULL;
    int rc = prof ? RTC_OK : rtc_profile_new(rtc_system_unit_count(sys), (size_t)o->ticks,
                                               &prof);
    if (rc == RTC_OK && !out->cached)
        rc = measure(sys, o, &rt, sf, prof);
    if (rc != RTC_OK && rc != RTC_ETIME && prof && rtc_profile_ticks(prof) > 0)
        rc = RTC_OK; /* a unit failed: the ticks before are still a profile (doubted) */
    if (rc == RTC_OK && rtc_profile_ticks(prof) == 0) {
        rtc_log(o->lg, RTC_LOG_INFO, "%s: the profile measured no tick (%s)", o->path,
                rtc_strerror(rtc_profile_info_get(prof)->status ? rtc_profile_info_get(prof)->status
                                                               : RTC_ETERMINATED));
        rc = RTC_ESTATE;
    }
    if (rc == RTC_ETIME) {
        long u = rtc_profile_info_get(prof)->hung_unit;
        snprintf(out->hung, sizeof out->hung, "%s", u >= 0 && (size_t)u <
                 rtc_system_unit_count(sys) ? rtc_system_unit(sys, (size_t)u)->name : "?");
        return rc; /* the profile and the copy stay: a thread is inside them */
    }
    if (rc == RTC_OK)
        rc = analyse(sys, prof, o, &rt, out);
    if (rc == RTC_OK && o->nodes)
        rc = place(sys, prof, o, out);
    rtc_plan_meta meta = {.system = o->path, .machine = machine, .options = options,
                          .inputs = o->inputs, .ticks_asked = o->ticks};
    snprintf(meta.key, sizeof meta.key, "%s", key);
    if (rc == RTC_OK && !out->cached && rtc_profile_info_get(prof)->status != RTC_OK)
        out->dir[0] = '\0'; /* a profile cut short by a unit's error is not kept */
    else if (rc == RTC_OK && !out->cached) {
        make_dirs(out->dir);
        int st = rtc_plan_save(out->plan, prof, sys, &meta, out->dir);
        if (st != RTC_OK) {
            rtc_log(o->lg, RTC_LOG_WARNING, "%s: cannot keep the plan: %s", out->dir,
                    rtc_strerror(st));
            out->dir[0] = '\0';
        }
    }
    rtc_profile_free(prof);
    return rc;
}

int rtc_cli_feasibility(const rtc_cli_feas_opts *o, rtc_cli_feas *out)
{
    *out = (rtc_cli_feas){0};
    session_feed sf = {0}, *feed = NULL;
    int rc = RTC_OK;
    if (o->inputs) {
        rc = feed_open(o->inputs, &sf, o->lg);
        feed = &sf;
    }
    rtc_system *sys = NULL;
    if (rc == RTC_OK)
        rc = rtc_load_system_replay(o->path, o->so, feed ? rtc_replay_feed(sf.rp) : &no_samples,
                                    o->copy_lg ? o->copy_lg : o->lg, &sys);
    if (rc == RTC_OK)
        rc = plan_copy(sys, o, feed, out);
    if (rc == RTC_ETIME)
        return rc; /* nothing is freed: the copy's RT thread is inside a unit */
    rtc_system_free(sys);
    rtc_replay_free(sf.rp);
    if (feed)
        rtc_inputs_clear(&sf.in);
    return rc;
}

void rtc_cli_feas_clear(rtc_cli_feas *f)
{
    rtc_plan_free(f->plan);
    f->plan = NULL;
    rtc_plan_placement_clear(&f->place);
}
