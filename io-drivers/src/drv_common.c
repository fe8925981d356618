/*
 * Shared driver plumbing (see drv_common.h).
 *
 * Counters are relaxed atomics: the I/O thread is their only writer and readers only want
 * a recent value, never an ordering with other memory. The stop flag uses release/acquire
 * so that whatever stop()'s caller wrote before asking is visible to the loop. The
 * safe-values hand-off is a request flag plus a semaphore, because the caller must wait
 * (with a timeout) for libmodbus/liblo work that only the I/O thread may do. The I/O
 * thread itself comes from the engine's one thread creator (rtc_rt_thread_start), so it
 * gets its policy, priority, CPU and prefaulted stack exactly as the RT thread does.
 */
#include "drv_common.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- settings ---- */

int rtc__drv_bad(const drv_ctx *c, const char *sig, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (sig)
        rtc_log(c->lg, RTC_LOG_ERROR, "%s '%s' signal '%s': %s", c->driver, c->component, sig,
                msg);
    else
        rtc_log(c->lg, RTC_LOG_ERROR, "%s '%s': %s", c->driver, c->component, msg);
    return RTC_EINVAL;
}

int rtc__drv_get_double(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
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
        return rtc__drv_bad(c, sig, "setting %s=%s: not a number", key, v);
    if (rc != RTC_OK)
        return rtc__drv_bad(c, sig, "setting %s=%s: out of range [%g, %g]", key, v, lo, hi);
    *out = d;
    return RTC_OK;
}

int rtc__drv_get_opt_double(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
                            const char *key, bool *has, double *out)
{
    *has = rtc_kv_get(kv, n, key) != NULL;
    return rtc__drv_get_double(c, sig, kv, n, key, 0.0, -HUGE_VAL, HUGE_VAL, out);
}

int rtc__drv_get_int(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n, const char *key,
                     long dflt, long lo, long hi, long *out)
{
    const char *v = rtc_kv_get(kv, n, key);
    if (!v) {
        *out = dflt;
        return RTC_OK;
    }
    int64_t x;
    int rc = rtc_parse_i64(v, lo, hi, RTC_PARSE_HEX, &x);
    if (rc == RTC_EPARSE)
        return rtc__drv_bad(c, sig, "setting %s=%s: not an integer", key, v);
    if (rc != RTC_OK)
        return rtc__drv_bad(c, sig, "setting %s=%s: out of range [%ld, %ld]", key, v, lo, hi);
    *out = (long)x;
    return RTC_OK;
}

int rtc__drv_get_bool(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
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
        return rtc__drv_bad(c, sig, "setting %s=%s: expected true or false", key, v);
    return RTC_OK;
}

int rtc__drv_get_choice(const drv_ctx *c, const char *sig, const rtc_kv *kv, size_t n,
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
    return rtc__drv_bad(c, sig, "setting %s=%s: expected one of %s", key, v, list);
}

/* ---- counters ---- */

/* Latency histogram range: 1000 s (longer requests land in the top bucket, max stays exact) */
#define LATENCY_MAX_NS INT64_C(1000000000000)

int rtc__drv_stats_init(drv_stats *st, size_t n_signals, const char *kind,
                        const char *const *names, size_t n_named)
{
    assert(n_named <= RTC_DRIVER_MAX_COUNTERS);
    memset(st, 0, sizeof *st);
    st->health = calloc(n_signals ? n_signals : 1, sizeof *st->health);
    if (!st->health || rtc_hist_new(LATENCY_MAX_NS, &st->latency) != RTC_OK) {
        rtc__drv_stats_clear(st);
        return RTC_ENOMEM;
    }
    st->n_signals = n_signals;
    st->kind = kind;
    st->names = names;
    st->n_named = n_named;
    return RTC_OK;
}

void rtc__drv_stats_clear(drv_stats *st)
{
    free(st->health);
    st->health = NULL;
    rtc_hist_free(st->latency);
    st->latency = NULL;
}

void rtc__drv_count(_Atomic uint64_t *c)
{
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

void rtc__drv_raise(_Atomic uint64_t *c, uint64_t v)
{
    if (v > atomic_load_explicit(c, memory_order_relaxed))
        atomic_store_explicit(c, v, memory_order_relaxed);
}

void rtc__drv_latency(drv_stats *st, int64_t ns)
{
    rtc_hist_add(st->latency, ns); /* the single writer: the I/O thread */
}

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)

static void snapshot_health(drv_stats *st, rtc_driver_stats *out)
{
    out->n_signals = st->n_signals;
    for (size_t i = 0; out->signals && i < out->n_signals_cap && i < st->n_signals; i++) {
        drv_health *h = &st->health[i];
        out->signals[i] = (rtc_signal_health){
            .quality = LD(h->quality), .updates = LD(h->updates),
            .stale_events = LD(h->stale_events), .errors = LD(h->errors),
            .clamped = LD(h->clamped), .last_ns = LD(h->last_ns)};
    }
}

int rtc__drv_stats(void *self, rtc_driver_stats *out)
{
    if (!self || !out)
        return RTC_EINVAL;
    drv_stats *st = self;
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
    out->connected = LD(st->connected);
    rtc_hist_summarize(st->latency, &out->latency);
    snapshot_health(st, out);
    out->kind = st->n_named ? st->kind : NULL;
    out->n_counters = st->n_named;
    for (size_t i = 0; i < st->n_named; i++)
        out->counters[i] = (rtc_driver_counter){.name = st->names[i], .value = LD(st->named[i])};
    return RTC_OK;
}

void rtc__drv_publish(drv_stats *st, size_t i, rtc_mailbox *mb, double v, int64_t sample_ns,
                      int64_t arrival_ns)
{
    rtc_sample s = {.value = v, .sample_ns = sample_ns, .arrival_ns = arrival_ns,
                    .quality = RTC_QUALITY_FRESH};
    if (mb)
        rtc_mailbox_write(mb, &s);
    drv_health *h = &st->health[i];
    atomic_store_explicit(&h->quality, RTC_QUALITY_FRESH, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->updates, 1, memory_order_relaxed);
    atomic_store_explicit(&h->last_ns, arrival_ns, memory_order_relaxed);
}

void rtc__drv_publish_sent(drv_stats *st, size_t i)
{
    atomic_store_explicit(&st->health[i].quality, RTC_QUALITY_FRESH, memory_order_relaxed);
    atomic_fetch_add_explicit(&st->health[i].updates, 1, memory_order_relaxed);
    atomic_store_explicit(&st->health[i].last_ns, rtc_time_now_ns(), memory_order_relaxed);
}

void rtc__drv_set_quality(drv_stats *st, size_t i, rtc_mailbox *mb, rtc_quality q)
{
    drv_health *h = &st->health[i];
    uint8_t old = atomic_load_explicit(&h->quality, memory_order_relaxed);
    if (old == q)
        return;
    if (q == RTC_QUALITY_STALE)
        atomic_fetch_add_explicit(&h->stale_events, 1, memory_order_relaxed);
    atomic_store_explicit(&h->quality, (uint8_t)q, memory_order_relaxed);
    if (mb)
        rtc_mailbox_set_quality(mb, q);
}

/* ---- I/O thread ---- */

int rtc__drv_thread_init(drv_thread *t)
{
    memset(t, 0, sizeof *t);
    atomic_init(&t->stop, false);
    atomic_init(&t->safe_req, 0);
    atomic_init(&t->safe_result, RTC_OK);
    t->priority = 20;
    t->cpu = -1;
    return sem_init(&t->safe_done, 0, 0) == 0 ? RTC_OK : RTC_ESYS;
}

void rtc__drv_thread_clear(drv_thread *t)
{
    sem_destroy(&t->safe_done);
}

int rtc__drv_get_thread(const drv_ctx *c, const rtc_kv *kv, size_t n, drv_thread *t)
{
    long prio, cpu;
    int rc = rtc__drv_get_int(c, NULL, kv, n, "priority", 20, 0, 99, &prio);
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(c, NULL, kv, n, "cpu", -1, -1, rtc_rt_cpu_count() - 1, &cpu);
    if (rc != RTC_OK)
        return rc;
    t->priority = (int)prio;
    t->cpu = (int)cpu;
    return RTC_OK;
}

int rtc__drv_thread_start(drv_thread *t, const drv_ctx *c, void *(*fn)(void *), void *arg)
{
    if (t->th)
        return RTC_ESTATE;
    atomic_store_explicit(&t->stop, false, memory_order_release);
    char name[16]; /* what ps/top show: the component, so two drivers are told apart */
    snprintf(name, sizeof name, "io-%s", c->component ? c->component : c->driver);
    rtc_rt_thread_opts o = {.priority = t->priority, .cpu = t->cpu, .name = name};
    int rc = rtc_rt_thread_start(&o, fn, arg, c->lg, &t->th);
    if (rc != RTC_OK)
        rtc_log(c->lg, RTC_LOG_ERROR, "%s '%s': cannot start the I/O thread: %s", c->driver,
                c->component, rtc_strerror(rc));
    return rc;
}

void rtc__drv_thread_stop(drv_thread *t)
{
    if (!t->th)
        return;
    atomic_store_explicit(&t->stop, true, memory_order_release);
    rtc_rt_thread_join(t->th);
    t->th = NULL;
}

int rtc__drv_safe_request(drv_thread *t, int timeout_ms, int (*fn)(void *), void *arg)
{
    if (!t->th)
        return fn(arg);
    while (sem_trywait(&t->safe_done) == 0) {
        /* drain an answer left over from an earlier timed-out request */
    }
    /* Release: the I/O thread's acquire read of the flag sees everything before it. */
    atomic_store_explicit(&t->safe_req, 1, memory_order_release);
    int64_t ns = rtc_time_now_ns() + (int64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000;
    struct timespec dl = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    while (sem_clockwait(&t->safe_done, CLOCK_MONOTONIC, &dl) != 0) {
        if (errno != EINTR)
            return RTC_ETIME;
    }
    return atomic_load_explicit(&t->safe_result, memory_order_acquire);
}

void rtc__drv_safe_serve(drv_thread *t, int (*fn)(void *), void *arg)
{
    int expected = 1;
    if (!atomic_compare_exchange_strong_explicit(&t->safe_req, &expected, 0,
                                                 memory_order_acquire, memory_order_relaxed))
        return;
    atomic_store_explicit(&t->safe_result, fn(arg), memory_order_release);
    sem_post(&t->safe_done);
}

/* ---- time and backoff ---- */

bool rtc__drv_sleep_interruptible(drv_thread *t, int64_t dur_ns)
{
    int64_t end = rtc_time_now_ns() + dur_ns;
    for (;;) {
        if (rtc__drv_should_stop(t))
            return true;
        int64_t now = rtc_time_now_ns();
        if (now >= end)
            return false;
        rtc_time_sleep_until_ns(now + (end - now < 10000000 ? end - now : 10000000));
    }
}

uint64_t rtc__drv_rand(uint64_t *s)
{
    /* xorshift64*: enough for jitter, no shared state, no locks (rand() has a lock). */
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

int64_t rtc__drv_backoff_next(int64_t *cur_ns, int64_t min_ns, int64_t max_ns, uint64_t *rng)
{
    int64_t base = *cur_ns < min_ns ? min_ns : *cur_ns;
    *cur_ns = base > max_ns / 2 ? max_ns : base * 2;
    /* Jitter of +-25 % keeps several clients from reconnecting in lockstep. */
    double f = 0.75 + 0.5 * (double)(rtc__drv_rand(rng) >> 11) / 9007199254740992.0;
    return (int64_t)((double)base * f);
}
