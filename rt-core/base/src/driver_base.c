/*
 * The driver base (see rtcosim/driver_base.h): common keys, the I/O thread and its loop,
 * the safe-value hand-off, backoff, link state, counters and the stats copy-out.
 *
 * Memory orders. Counters and health are relaxed atomics: the I/O thread is their only
 * writer and readers want a recent value, never an ordering with other memory. The stop
 * flag is release/acquire, so whatever stop()'s caller wrote before asking is visible to
 * the loop. The two hand-offs are sequence words waited on with the engine's futex helper
 * (rtc_rt_wait_change_until): start() waits for `ready` (begin() done, its result in
 * start_rc); write_safe_values() bumps safe_req and waits, bounded, until safe_done
 * reaches its number (release by the I/O thread after storing safe_result, acquire by the
 * caller). Sequence numbers instead of a flag: two callers at once are both answered by
 * one write, and an answer that comes after its caller timed out is never taken for the
 * next request's.
 *
 * The I/O thread comes from the engine's one thread creator (rtc_rt_thread_start), so it
 * gets its policy, priority, CPU and prefaulted stack exactly as the RT thread does.
 */
#include "driver_priv.h"

#include "rtcosim/numparse.h"

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SLICE_NS INT64_C(10000000) /* the loop sees stop and safe requests this often */
/* Latency histogram range: 1000 s (longer exchanges land in the top bucket, max exact) */
#define LATENCY_MAX_NS INT64_C(1000000000000)

/* ---- messages and settings ---- */

void rtc__drv_vlog(const rtc_drv_base *b, int level, const char *fmt, va_list ap)
{
    char msg[320];
    vsnprintf(msg, sizeof msg, fmt, ap);
    rtc_log(b->lg, level, "%s '%s': %s", b->desc->name, b->component, msg);
}

int rtc_drv_error(const rtc_drv_base *b, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rtc__drv_vlog(b, RTC_LOG_ERROR, fmt, ap);
    va_end(ap);
    return rc;
}

int rtc_drv_bad(const rtc_drv_base *b, const char *sig, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (sig)
        return rtc_drv_error(b, RTC_EINVAL, "signal '%s': %s", sig, msg);
    return rtc_drv_error(b, RTC_EINVAL, "%s", msg);
}

int rtc_drv_get_double(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                       const char *key, double dflt, double lo, double hi, double *out)
{
    const char *v = rtc_kv_get(kv, n, key);
    if (!v) {
        *out = dflt;
        return RTC_OK;
    }
    double d;
    int rc = rtc_parse_f64(v, lo, hi, 0, &d);
    if (rc == RTC_EPARSE)
        return rtc_drv_bad(b, sig, "setting %s=%s: not a number", key, v);
    if (rc != RTC_OK)
        return rtc_drv_bad(b, sig, "setting %s=%s: out of range [%g, %g]", key, v, lo, hi);
    *out = d;
    return RTC_OK;
}

int rtc_drv_get_opt_double(const rtc_drv_base *b, const char *sig, const rtc_kv *kv,
                           size_t n, const char *key, bool *has, double *out)
{
    *has = rtc_kv_get(kv, n, key) != NULL;
    return rtc_drv_get_double(b, sig, kv, n, key, 0.0, -HUGE_VAL, HUGE_VAL, out);
}

int rtc_drv_get_int(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                    const char *key, long dflt, long lo, long hi, long *out)
{
    const char *v = rtc_kv_get(kv, n, key);
    if (!v) {
        *out = dflt;
        return RTC_OK;
    }
    int64_t x;
    int rc = rtc_parse_i64(v, lo, hi, RTC_PARSE_HEX, &x);
    if (rc == RTC_EPARSE)
        return rtc_drv_bad(b, sig, "setting %s=%s: not an integer", key, v);
    if (rc != RTC_OK)
        return rtc_drv_bad(b, sig, "setting %s=%s: out of range [%ld, %ld]", key, v, lo, hi);
    *out = (long)x;
    return RTC_OK;
}

int rtc_drv_get_bool(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                     const char *key, bool dflt, bool *out)
{
    const char *v = rtc_kv_get(kv, n, key);
    if (!v)
        *out = dflt;
    else if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0)
        *out = true;
    else if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0)
        *out = false;
    else
        return rtc_drv_bad(b, sig, "setting %s=%s: expected true or false", key, v);
    return RTC_OK;
}

int rtc_drv_get_choice(const rtc_drv_base *b, const char *sig, const rtc_kv *kv, size_t n,
                       const char *key, const char *const *choices, int dflt, int *out)
{
    const char *v = rtc_kv_get(kv, n, key);
    if (!v) {
        *out = dflt;
        return RTC_OK;
    }
    for (int i = 0; choices[i]; i++) {
        if (strcasecmp(v, choices[i]) == 0) {
            *out = i;
            return RTC_OK;
        }
    }
    char list[160] = "";
    for (int i = 0; choices[i]; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
    }
    return rtc_drv_bad(b, sig, "setting %s=%s: expected one of %s", key, v, list);
}

/* The I/O thread's keys and the period (in the driver's unit). */
static int read_thread_keys(rtc_drv_base *b, const rtc_kv *kv, size_t n)
{
    const rtc_drv_desc *dd = b->desc;
    long prio, cpu, safe_to;
    double per = dd->period_default;
    int rc = rtc_drv_get_int(b, NULL, kv, n, "priority", 20, 0, 99, &prio);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(b, NULL, kv, n, "cpu", -1, -1, rtc_rt_cpu_count() - 1, &cpu);
    if (rc == RTC_OK && dd->period_key)
        rc = rtc_drv_get_double(b, NULL, kv, n, dd->period_key, dd->period_default,
                                dd->period_min, dd->period_max, &per);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(b, NULL, kv, n, "safe_timeout_ms", 500, 1, 600000, &safe_to);
    if (rc != RTC_OK)
        return rc;
    b->priority = (int)prio;
    b->cpu = (int)cpu;
    b->period_ns = (int64_t)(dd->period_hz ? 1e9 / per : per * 1e6);
    b->safe_timeout_ms = (int)safe_to;
    return RTC_OK;
}

/* stale_ms and the reconnect bounds, when the driver has them. */
static int read_link_keys(rtc_drv_base *b, const rtc_kv *kv, size_t n)
{
    const rtc_drv_desc *dd = b->desc;
    double stale = 0, bmin = 100, bmax = 5000;
    int rc = RTC_OK;
    b->stale_set = rtc_kv_get(kv, n, "stale_ms") != NULL;
    if (dd->stale_periods >= 0)
        rc = rtc_drv_get_double(b, NULL, kv, n, "stale_ms",
                                dd->stale_periods * (double)b->period_ns / 1e6, 0, 1e7, &stale);
    if (rc == RTC_OK && dd->reconnects)
        rc = rtc_drv_get_double(b, NULL, kv, n, "reconnect_min_ms", 100, 1, 1e6, &bmin);
    if (rc == RTC_OK && dd->reconnects)
        rc = rtc_drv_get_double(b, NULL, kv, n, "reconnect_max_ms", 5000, 1, 1e7, &bmax);
    if (rc != RTC_OK)
        return rc;
    if (bmin > bmax)
        return rtc_drv_bad(b, NULL, "reconnect_min_ms %g is above reconnect_max_ms %g", bmin,
                           bmax);
    b->stale_set &= dd->stale_periods >= 0;
    b->stale_ns = (int64_t)(stale * 1e6);
    b->backoff_min_ns = (int64_t)(bmin * 1e6);
    b->backoff_max_ns = (int64_t)(bmax * 1e6);
    return RTC_OK;
}

static int init_signals(rtc_drv_base *b, const rtc_driver_config *cfg)
{
    b->sig = calloc(cfg->n_signals ? cfg->n_signals : 1, sizeof *b->sig);
    if (!b->sig)
        return RTC_ENOMEM;
    b->n_sig = cfg->n_signals;
    for (size_t i = 0; i < cfg->n_signals; i++) {
        const rtc_io_signal *in = &cfg->signals[i];
        if (!in->name || !in->mailbox)
            return rtc_drv_bad(b, NULL, "signal %zu has no name or no mailbox", i);
        b->sig[i].mb = in->mailbox;
        b->sig[i].dir = in->dir;
        int rc = rtc_drv_get_opt_double(b, in->name, in->settings, in->n_settings, "safe",
                                        &b->sig[i].has_safe, &b->sig[i].safe);
        if (rc != RTC_OK)
            return rc;
        bool out = in->dir == RTC_IO_TO_BENCH;
        b->n_to_bench += out;
        b->n_from_bench += !out;
        b->n_safe += out && b->sig[i].has_safe;
    }
    return RTC_OK;
}

static void free_base(rtc_drv_base *b)
{
    rtc_hist_free(b->latency);
    free(b->sig);
    free(b->component);
    free(b);
}

int rtc_drv_open(const rtc_drv_desc *desc, size_t size, const rtc_driver_config *cfg,
                 const rtc_logger *lg, rtc_drv_base **out)
{
    if (!desc || size < sizeof(rtc_drv_base) || !cfg || !out ||
        desc->n_counters > RTC_DRIVER_MAX_COUNTERS)
        return RTC_EINVAL;
    rtc_drv_base *b = calloc(1, size);
    if (!b)
        return RTC_ENOMEM;
    b->desc = desc;
    b->lg = lg;
    b->cpu = -1;
    b->component = strdup(cfg->component ? cfg->component : "?");
    int rc = b->component ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = read_thread_keys(b, cfg->settings, cfg->n_settings);
    if (rc == RTC_OK)
        rc = read_link_keys(b, cfg->settings, cfg->n_settings);
    if (rc == RTC_OK)
        rc = rtc__drv_contract_open(b, cfg->settings, cfg->n_settings);
    if (rc == RTC_OK)
        rc = init_signals(b, cfg);
    if (rc == RTC_OK)
        rc = rtc_hist_new(LATENCY_MAX_NS, &b->latency);
    if (rc != RTC_OK) {
        free_base(b); /* not rtc_drv_close: the driver's part was never set up */
        return rc;
    }
    b->rng = (uint64_t)rtc_time_now_ns() ^ (uint64_t)(uintptr_t)b;
    atomic_init(&b->link.held, cfg->hold);
    *out = b;
    return RTC_OK;
}

/* ---- the I/O thread ---- */

bool rtc_drv_should_stop(rtc_drv_base *b)
{
    return atomic_load_explicit(&b->stop, memory_order_acquire);
}

bool rtc_drv_sleep(rtc_drv_base *b, int64_t dur_ns)
{
    int64_t end = rtc_time_now_ns() + dur_ns;
    for (;;) {
        if (rtc_drv_should_stop(b))
            return true;
        int64_t now = rtc_time_now_ns();
        if (now >= end)
            return false;
        rtc_time_sleep_until_ns(now + (end - now < SLICE_NS ? end - now : SLICE_NS));
    }
}

int rtc_drv_poll(struct pollfd *pfd, size_t n, int64_t until_ns)
{
    int64_t wait = until_ns - rtc_time_now_ns();
    if (wait < 0)
        wait = 0;
    struct timespec ts = {.tv_sec = wait / 1000000000, .tv_nsec = (long)(wait % 1000000000)};
    return ppoll(pfd, (nfds_t)n, &ts, NULL);
}

/* Latch, write, count: the one way the safe values are written (request, caller, stop). */
static int run_safe(rtc_drv_base *b)
{
    if (!b->desc->safe)
        return RTC_OK;
    b->latched = true;
    int rc = b->desc->safe(b);
    if (rc == RTC_OK)
        rtc_drv_count(&b->st.safe_writes);
    return rc;
}

/* Answer a write_safe_values() request that came since the last one served. */
static void serve_safe(rtc_drv_base *b)
{
    uint32_t req = atomic_load_explicit(&b->safe_req, memory_order_acquire);
    if (req == b->safe_served)
        return;
    int rc = run_safe(b);
    b->safe_served = req;
    atomic_store_explicit(&b->safe_result, rc, memory_order_relaxed);
    atomic_store_explicit(&b->safe_done, req, memory_order_release); /* result first */
    rtc_rt_wake(&b->safe_done, &b->safe_waiters);
}

/* One period's work at now; returns the next deadline. */
static int64_t run_cycle(rtc_drv_base *b, int64_t now, int64_t next)
{
    if (!b->desc->cycle(b, now))
        return rtc_time_now_ns() + rtc_drv_backoff(b); /* link down: retry later */
    rtc_drv_count(&b->st.cycles);
    next += b->period_ns;
    now = rtc_time_now_ns();
    if (now > next) { /* skip the missed periods, keeping the phase, like cyclictest */
        rtc_drv_count(&b->st.overruns);
        next = now + b->period_ns - (now - next) % b->period_ns;
    }
    return next;
}

static void io_loop(rtc_drv_base *b)
{
    int64_t next = rtc_time_now_ns();
    while (!rtc_drv_should_stop(b)) {
        serve_safe(b);
        int64_t now = rtc_time_now_ns();
        if (now >= next)
            next = run_cycle(b, now, next);
        now = rtc_time_now_ns();
        int64_t until = next - now < SLICE_NS ? next : now + SLICE_NS;
        if (b->desc->wait)
            b->desc->wait(b, until);
        else
            rtc_time_sleep_until_ns(until);
        rtc__drv_link_judge(b, rtc_time_now_ns());
    }
}

/* Whether the stop path writes the safe values: as stop_safe says, but a bench this run
 * never reached (nothing was sent to it) is tried once, not again on the way out. */
static bool stop_writes_safe(rtc_drv_base *b)
{
    if (b->stop_safe == RTC_DRV_STOP_SAFE_ALWAYS)
        return !b->latched || atomic_load_explicit(&b->link.first_up_ns, memory_order_relaxed);
    return b->stop_safe == RTC_DRV_STOP_SAFE_UNLESS_LATCHED && !b->latched;
}

static void *io_thread(void *arg)
{
    rtc_drv_base *b = arg;
    int rc = b->desc->begin ? b->desc->begin(b) : RTC_OK;
    atomic_store_explicit(&b->start_rc, rc, memory_order_relaxed);
    atomic_store_explicit(&b->ready, 1, memory_order_release); /* start_rc first */
    rtc_rt_wake(&b->ready, &b->ready_waiters);
    if (rc == RTC_OK) {
        io_loop(b);
        if (stop_writes_safe(b))
            run_safe(b); /* the stop path: the hook logs when they could not be written */
    }
    if (b->desc->end)
        b->desc->end(b);
    return NULL;
}

int rtc_drv_start(void *self)
{
    rtc_drv_base *b = self;
    if (!b)
        return RTC_EINVAL;
    if (b->th)
        return RTC_ESTATE;
    b->latched = false;
    b->backoff_ns = 0;
    b->safe_served = atomic_load_explicit(&b->safe_req, memory_order_relaxed);
    atomic_store_explicit(&b->safe_done, b->safe_served, memory_order_relaxed);
    atomic_store_explicit(&b->stop, false, memory_order_relaxed);
    atomic_store_explicit(&b->ready, 0, memory_order_relaxed);
    rtc__drv_link_start(b);
    char name[16]; /* what ps/top show: the component, so two drivers are told apart */
    snprintf(name, sizeof name, "io-%s", b->component);
    rtc_rt_thread_opts o = {.priority = b->priority, .cpu = b->cpu, .name = name};
    int rc = rtc_rt_thread_start(&o, io_thread, b, b->lg, &b->th);
    if (rc != RTC_OK) {
        rtc_log(b->lg, RTC_LOG_ERROR, "%s '%s': cannot start the I/O thread: %s",
                b->desc->name, b->component, rtc_strerror(rc));
        rtc__drv_link_stop(b);
        return rc;
    }
    rtc_rt_wait_change(&b->ready, &b->ready_waiters, 0, 0);
    rc = atomic_load_explicit(&b->start_rc, memory_order_relaxed);
    if (rc != RTC_OK)
        rtc_drv_stop(b);
    return rc;
}

int rtc_drv_stop(void *self)
{
    rtc_drv_base *b = self;
    if (!b)
        return RTC_EINVAL;
    if (!b->th)
        return RTC_OK;
    atomic_store_explicit(&b->stop, true, memory_order_release);
    rtc_rt_thread_join(b->th);
    b->th = NULL;
    rtc__drv_link_stop(b);
    return RTC_OK;
}

int rtc_drv_write_safe_values(void *self, int timeout_ms)
{
    rtc_drv_base *b = self;
    if (!b)
        return RTC_EINVAL;
    if (!b->th) {
        int rc = run_safe(b); /* the caller is the only user of the endpoint now */
        rtc__drv_link_idle(b);
        return rc;
    }
    uint32_t req = atomic_fetch_add_explicit(&b->safe_req, 1, memory_order_release) + 1;
    int64_t deadline = rtc_time_now_ns() + (int64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000;
    uint32_t done = atomic_load_explicit(&b->safe_done, memory_order_acquire);
    while ((int32_t)(done - req) < 0) { /* wraps: compare as a distance */
        if (rtc_time_now_ns() >= deadline)
            return RTC_ETIMEDOUT;
        done = rtc_rt_wait_change_until(&b->safe_done, &b->safe_waiters, done, 0, deadline);
    }
    return atomic_load_explicit(&b->safe_result, memory_order_relaxed);
}

void rtc_drv_close(void *self)
{
    rtc_drv_base *b = self;
    if (!b)
        return;
    rtc_drv_stop(b);
    if (b->desc->clear)
        b->desc->clear(b);
    free_base(b);
}

/* ---- backoff ---- */

static uint64_t next_rand(uint64_t *s)
{
    /* xorshift64*: enough for jitter, no shared state, no locks (rand() has a lock). */
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

int64_t rtc_drv_backoff(rtc_drv_base *b)
{
    int64_t base = b->backoff_ns < b->backoff_min_ns ? b->backoff_min_ns : b->backoff_ns;
    b->backoff_ns = base > b->backoff_max_ns / 2 ? b->backoff_max_ns : base * 2;
    double f = 0.75 + 0.5 * (double)(next_rand(&b->rng) >> 11) / 9007199254740992.0;
    return (int64_t)((double)base * f);
}

/* ---- counters and signals ---- */

void rtc_drv_count(_Atomic uint64_t *c)
{
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

void rtc_drv_raise(_Atomic uint64_t *c, uint64_t v)
{
    if (v > atomic_load_explicit(c, memory_order_relaxed))
        atomic_store_explicit(c, v, memory_order_relaxed);
}

void rtc_drv_latency(rtc_drv_base *b, int64_t ns)
{
    rtc_hist_add(b->latency, ns);
}

void rtc_drv_publish(rtc_drv_base *b, size_t i, double v, int64_t sample_ns, int64_t arrival_ns)
{
    rtc_drv_signal *s = &b->sig[i];
    rtc_sample smp = {.value = v, .sample_ns = sample_ns, .arrival_ns = arrival_ns,
                      .quality = RTC_QUALITY_FRESH};
    rtc_mailbox_write(s->mb, &smp);
    atomic_store_explicit(&s->quality, RTC_QUALITY_FRESH, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->updates, 1, memory_order_relaxed);
    atomic_store_explicit(&s->last_ns, arrival_ns, memory_order_relaxed);
    rtc_drv_alive(b, arrival_ns);
}

void rtc_drv_sent(rtc_drv_base *b, size_t i)
{
    rtc_drv_signal *s = &b->sig[i];
    atomic_store_explicit(&s->quality, RTC_QUALITY_FRESH, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->updates, 1, memory_order_relaxed);
    atomic_store_explicit(&s->last_ns, rtc_time_now_ns(), memory_order_relaxed);
}

void rtc_drv_set_quality(rtc_drv_base *b, size_t i, rtc_quality q)
{
    rtc_drv_signal *s = &b->sig[i];
    if (atomic_load_explicit(&s->quality, memory_order_relaxed) == q)
        return;
    if (q == RTC_QUALITY_STALE)
        atomic_fetch_add_explicit(&s->stale_events, 1, memory_order_relaxed);
    atomic_store_explicit(&s->quality, (uint8_t)q, memory_order_relaxed);
    rtc_mailbox_set_quality(s->mb, q);
}

void rtc_drv_stale_all(rtc_drv_base *b)
{
    for (size_t i = 0; i < b->n_sig; i++)
        if (b->sig[i].dir == RTC_IO_FROM_BENCH &&
            atomic_load_explicit(&b->sig[i].last_ns, memory_order_relaxed) != 0)
            rtc_drv_set_quality(b, i, RTC_QUALITY_STALE);
}

void rtc_drv_check_stale(rtc_drv_base *b, int64_t now_ns)
{
    for (size_t i = 0; b->stale_ns && i < b->n_sig; i++) {
        int64_t last = atomic_load_explicit(&b->sig[i].last_ns, memory_order_relaxed);
        if (b->sig[i].dir == RTC_IO_FROM_BENCH && last && now_ns - last > b->stale_ns)
            rtc_drv_set_quality(b, i, RTC_QUALITY_STALE);
    }
}

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)

static void copy_health(const rtc_drv_base *b, rtc_driver_stats *out)
{
    out->n_signals = b->n_sig;
    for (size_t i = 0; out->signals && i < out->n_signals_cap && i < b->n_sig; i++) {
        const rtc_drv_signal *h = &b->sig[i];
        out->signals[i] = (rtc_signal_health){
            .quality = LD(h->quality), .updates = LD(h->updates),
            .stale_events = LD(h->stale_events), .errors = LD(h->errors),
            .clamped = LD(h->clamped), .last_ns = LD(h->last_ns)};
    }
}

int rtc_drv_stats(void *self, rtc_driver_stats *out)
{
    rtc_drv_base *b = self;
    if (!b || !out)
        return RTC_EINVAL;
    const rtc_drv_counters *st = &b->st;
    out->cycles = LD(st->cycles);
    out->overruns = LD(st->overruns);
    out->requests = LD(st->requests);
    out->errors = LD(st->errors);
    out->timeouts = LD(st->timeouts);
    out->reconnects = LD(st->reconnects);
    out->connects = LD(st->connects);
    out->rejected = LD(st->rejected);
    out->safe_writes = LD(st->safe_writes);
    out->port = LD(st->port);
    out->link = (rtc_link_state)LD(b->link.state);
    out->link_since_ns = LD(b->link.since_ns);
    out->connected = out->link == RTC_LINK_UP || out->link == RTC_LINK_LATE;
    rtc__drv_link_info(b, &out->contract);
    rtc_hist_summarize(b->latency, &out->latency);
    copy_health(b, out);
    const rtc_drv_desc *dd = b->desc;
    out->kind = dd->n_counters ? dd->kind : NULL;
    out->n_counters = dd->n_counters;
    for (size_t i = 0; i < dd->n_counters; i++)
        out->counters[i] = (rtc_driver_counter){.name = dd->counters[i], .value = LD(st->named[i])};
    return RTC_OK;
}
