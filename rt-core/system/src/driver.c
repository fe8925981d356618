/*
 * Driver registry, settings lookup, the driver-specific counter lookup and the log-linear
 * latency histogram (see rtcosim/driver.h). The registry is written only during load on
 * the main thread, before the threads that look drivers up exist, so it needs no
 * synchronisation.
 */
#include "rtcosim/driver.h"
#include "rtcosim/status.h"

#include <string.h>
#include <time.h>

static struct {
    const char *type;
    const rtc_driver_ops *ops;
} registry[RTC_DRIVER_MAX_TYPES];
static size_t n_registered;

int rtc_driver_register(const char *type, const rtc_driver_ops *ops)
{
    if (!type || !ops)
        return RTC_EINVAL;
    for (size_t i = 0; i < n_registered; i++) {
        if (strcmp(registry[i].type, type) == 0) {
            registry[i].ops = ops;
            return RTC_OK;
        }
    }
    if (n_registered == RTC_DRIVER_MAX_TYPES)
        return RTC_ELIMIT;
    registry[n_registered].type = type;
    registry[n_registered].ops = ops;
    n_registered++;
    return RTC_OK;
}

const rtc_driver_ops *rtc_driver_find(const char *type)
{
    if (!type)
        return NULL;
    for (size_t i = 0; i < n_registered; i++)
        if (strcmp(registry[i].type, type) == 0)
            return registry[i].ops;
    return NULL;
}

size_t rtc_driver_types(const char **types, size_t cap)
{
    for (size_t i = 0; types && i < n_registered && i < cap; i++)
        types[i] = registry[i].type;
    return n_registered;
}

bool rtc_driver_is_io_type(const char *type)
{
    return type && strncmp(type, "application/x-rtcosim-", 22) == 0;
}

const char *rtc_kv_get(const rtc_kv *kv, size_t n, const char *key)
{
    const char *found = NULL;
    for (size_t i = 0; kv && i < n; i++)
        if (kv[i].key && strcmp(kv[i].key, key) == 0)
            found = kv[i].value; /* last one wins, like a later annotation overriding */
    return found;
}

int64_t rtc_driver_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool rtc_driver_stats_counter(const rtc_driver_stats *st, const char *name, uint64_t *value)
{
    for (size_t i = 0; st && name && i < st->n_counters && i < RTC_DRIVER_MAX_COUNTERS; i++) {
        if (st->counters[i].name && strcmp(st->counters[i].name, name) == 0) {
            *value = st->counters[i].value;
            return true;
        }
    }
    return false;
}

const char *rtc_quality_name(int quality)
{
    switch (quality) {
    case RTC_QUALITY_NONE: return "none";
    case RTC_QUALITY_FRESH: return "fresh";
    case RTC_QUALITY_STALE: return "stale";
    case RTC_QUALITY_ERROR: return "error";
    default: return "unknown";
    }
}

/*
 * Log-linear bins: [0, 1024) ns is bin 0; each power of two [2^e, 2^(e+1)) for e >= 10 is
 * split into RTC_LATHIST_SUB equal bins, so the relative resolution is 1/8 everywhere
 * (HdrHistogram's idea at a fixed, small size). Values past the last octave go to the
 * last bin.
 */
size_t rtc_lathist_bin(int64_t ns)
{
    if (ns < 1024)
        return 0;
    unsigned e = 63u - (unsigned)__builtin_clzll((unsigned long long)ns);
    if (e >= 10u + RTC_LATHIST_OCTAVES)
        return RTC_LATHIST_BINS - 1;
    unsigned sub = (unsigned)((unsigned long long)ns >> (e - 3)) & (RTC_LATHIST_SUB - 1);
    return 1 + (size_t)(e - 10) * RTC_LATHIST_SUB + sub;
}

int64_t rtc_lathist_bin_lower_ns(size_t bin)
{
    if (bin == 0)
        return 0;
    size_t e = 10 + (bin - 1) / RTC_LATHIST_SUB, sub = (bin - 1) % RTC_LATHIST_SUB;
    return (int64_t)(((uint64_t)RTC_LATHIST_SUB + sub) << (e - 3));
}

void rtc_lathist_add(rtc_lathist *h, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    h->count[rtc_lathist_bin(ns)]++;
    if (h->n == 0 || ns < h->min_ns)
        h->min_ns = ns;
    if (ns > h->max_ns)
        h->max_ns = ns;
    h->n++;
    h->sum_ns += ns;
}

int64_t rtc_lathist_quantile_ns(const rtc_lathist *h, double q)
{
    if (h->n == 0)
        return 0;
    uint64_t need = (uint64_t)(q * (double)h->n + 0.999999);
    if (need == 0)
        need = 1;
    uint64_t acc = 0;
    for (size_t b = 0; b < RTC_LATHIST_BINS; b++) {
        acc += h->count[b];
        if (acc >= need) {
            int64_t upper = b + 1 < RTC_LATHIST_BINS ? rtc_lathist_bin_lower_ns(b + 1) : h->max_ns;
            return upper < h->max_ns ? upper : h->max_ns;
        }
    }
    return h->max_ns;
}
