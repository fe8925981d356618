/*
 * Profiles (rtcosim/profile.h): the table of measured ticks, and the profiling run made
 * with the executive itself.
 *
 * DESIGN: the table is one preallocated, prefaulted block of int64 (rows × columns), so
 * the RT thread only stores numbers into it; a row counter is the one thing it advances.
 * The profiling run is an ordinary executive run with three differences: the overrun
 * policy is skip (a tick that overran is measured, the next starts on a fresh deadline,
 * so later ticks keep measuring wake-up latency instead of catch-up lateness), the
 * executive's max_wall_ns bounds it in wall time, and a unit still inside its step when
 * that runs out is abandoned after a short grace — the caller is told, never blocked.
 */
#include "rtcosim/profile.h"

#include "rtcosim/exec.h"
#include "rtcosim/rt.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long a profile waits for a unit still in its step once its budget is spent. */
#define PROFILE_GRACE_NS INT64_C(1000000000)

struct rtc_profile {
    size_t n_units, cols, cap, n;
    int64_t *k;      /* tick index of each row */
    int64_t *rows;   /* cap × cols */
    int64_t last_end; /* when the previous tick finished (late starts) */
    rtc_profile_info info;
};

int rtc_profile_new(size_t n_units, size_t cap_ticks, rtc_profile **out)
{
    if (cap_ticks == 0 || cap_ticks > (size_t)1 << 26 || n_units > (size_t)1 << 16 || !out)
        return RTC_EINVAL;
    rtc_profile *p = calloc(1, sizeof *p);
    if (!p)
        return RTC_ENOMEM;
    p->n_units = n_units;
    p->cols = RTC_PROFILE_UNIT0 + n_units;
    p->cap = cap_ticks;
    p->k = calloc(cap_ticks, sizeof *p->k);
    p->rows = calloc(cap_ticks * p->cols, sizeof *p->rows);
    if (!p->k || !p->rows) {
        rtc_profile_free(p);
        return RTC_ENOMEM;
    }
    /* touched now: the run phase must not fault on it (calloc may hand out fresh pages) */
    memset(p->rows, 0, cap_ticks * p->cols * sizeof *p->rows);
    memset(p->k, 0, cap_ticks * sizeof *p->k);
    p->info.hung_unit = -1;
    p->info.cpu = -1;
    *out = p;
    return RTC_OK;
}

void rtc_profile_free(rtc_profile *p)
{
    if (!p)
        return;
    free(p->k);
    free(p->rows);
    free(p);
}

void rtc_profile_add(rtc_profile *p, int64_t j, const int64_t t[4], const rtc_system *sys)
{
    bool late = p->last_end > t[0];
    p->last_end = t[3];
    if (late)
        p->info.late_starts++;
    if (p->n == p->cap) {
        p->info.dropped++;
        return;
    }
    int64_t *r = p->rows + p->n * p->cols;
    r[RTC_PROFILE_WAKEUP] = late ? -1 : t[1] - t[0];
    r[RTC_PROFILE_STEP] = t[2] - t[1];
    r[RTC_PROFILE_HANDOFF] = t[3] - t[2];
    for (size_t i = 0; i < p->n_units; i++)
        r[RTC_PROFILE_UNIT0 + i] = sys ? rtc_system_unit_work_ns(sys, i) : -1;
    p->k[p->n++] = j;
}

int rtc_profile_append(rtc_profile *p, int64_t k, const int64_t *row)
{
    if (p->n == p->cap)
        return RTC_ELIMIT;
    memcpy(p->rows + p->n * p->cols, row, p->cols * sizeof *row);
    p->k[p->n++] = k;
    return RTC_OK;
}

size_t rtc_profile_ticks(const rtc_profile *p)
{
    return p->n;
}

size_t rtc_profile_units(const rtc_profile *p)
{
    return p->n_units;
}

const int64_t *rtc_profile_row(const rtc_profile *p, size_t i, int64_t *k)
{
    if (k)
        *k = p->k[i];
    return p->rows + i * p->cols;
}

rtc_profile_info *rtc_profile_info_of(rtc_profile *p)
{
    return &p->info;
}

const rtc_profile_info *rtc_profile_info_get(const rtc_profile *p)
{
    return &p->info;
}

/* The 1-minute load average (/proc/loadavg), -1 when unknown. */
static double loadavg(void)
{
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* The executive's hook: only the step point concerns a profile. */
typedef struct hook_ctx {
    void (*fn)(void *user, int64_t k);
    void *user;
} hook_ctx;

static void hook(void *user, int at, int64_t k)
{
    const hook_ctx *h = user;
    if (at == RTC_EXEC_AT_STEP)
        h->fn(h->user, k);
}

static void exec_opts(const rtc_profile_opts *o, rtc_profile *p, hook_ctx *h,
                      rtc_exec_options *eo)
{
    rtc_exec_options_init(eo);
    eo->rtf = o->rtf;
    eo->period_ns = o->period_ns;
    eo->max_steps = o->max_ticks;
    eo->priority = o->priority;
    eo->cpu = o->cpu;
    eo->overrun = RTC_EXEC_SKIP;
    eo->stop_grace_ns = PROFILE_GRACE_NS;
    eo->max_wall_ns = o->budget_ns;
    eo->recorder = o->recorder;
    eo->decimation = o->decimation > 0 ? o->decimation : 1;
    eo->lg = o->lg;
    eo->profile = p;
    if (o->before_step) {
        *h = (hook_ctx){o->before_step, o->user};
        eo->hook = hook;
        eo->hook_user = h;
    }
}

int rtc_profile_run(rtc_system *sys, const rtc_profile_opts *o, rtc_profile *p)
{
    if (!sys || !o || !p || o->max_ticks <= 0 || o->budget_ns <= 0 || o->period_ns <= 0 ||
        rtc_profile_units(p) != rtc_system_unit_count(sys))
        return RTC_EINVAL;
    static hook_ctx h; /* outlives an abandoned run's RT thread */
    rtc_exec_options eo;
    exec_opts(o, p, &h, &eo);
    rtc_profile_info *in = &p->info;
    in->period_ns = o->period_ns;
    in->budget_ns = o->budget_ns;
    in->cpus = rtc_rt_cpu_count();
    in->loadavg = loadavg();
    rtc_exec *ex = NULL;
    int rc = rtc_exec_new(sys, &eo, &ex);
    if (rc != RTC_OK)
        return rc;
    int64_t t0 = rtc_time_now_ns();
    rc = rtc_exec_run(ex);
    in->wall_s = (double)(rtc_time_now_ns() - t0) / 1e9;
    rtc_exec_stats st;
    rtc_exec_stats_get(ex, &st);
    snprintf(in->policy, sizeof in->policy, "%s", st.sched_policy);
    in->priority = st.priority;
    in->cpu = st.cpu;
    in->memory_locked = st.rt.memory_locked;
    in->budget_hit = st.stop == RTC_EXEC_REQUEST;
    double l = loadavg();
    in->loadavg = l > in->loadavg ? l : in->loadavg;
    long u;
    if (rtc_exec_abandoned(ex, &u)) {
        in->hung_unit = u;
        return RTC_ETIME; /* the RT thread is parked inside the unit: nothing is freed */
    }
    rtc_exec_free(ex);
    in->status = rc == RTC_ETERMINATED ? RTC_OK : rc;
    return in->status;
}
