/*
 * Driver registry, settings lookup and the driver-specific counter lookup (see
 * rtcosim/driver.h). The registry is written only during load on
 * the main thread, before the threads that look drivers up exist, so it needs no
 * synchronisation.
 */
#include "rtcosim/driver.h"
#include "rtcosim/status.h"

#include <stdio.h>
#include <string.h>

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

const char *rtc_link_state_name(int state)
{
    switch (state) {
    case RTC_LINK_IDLE: return "idle";
    case RTC_LINK_CONNECTING: return "connecting";
    case RTC_LINK_UP: return "up";
    case RTC_LINK_LOST: return "lost";
    case RTC_LINK_LATE: return "late";
    case RTC_LINK_DEGRADED: return "degraded";
    default: return "unknown";
    }
}

double rtc_link_up_share(const rtc_link_info *c)
{
    if (!c->first_up_ns)
        return -1;
    int64_t span = c->end_ns - c->first_up_ns;
    double share = span > 0 ? (double)c->up_ns / (double)span : 1.0;
    return share > 1.0 ? 1.0 : share;
}

const char *rtc_link_policy_text(const rtc_link_info *c, char *buf, size_t cap)
{
    if (!buf || !cap)
        return "";
    if (c->on_loss == RTC_LINK_STOP)
        snprintf(buf, cap, "stop");
    else if (c->on_loss == RTC_LINK_CONTINUE)
        snprintf(buf, cap, "continue");
    else
        snprintf(buf, cap, "estimate:%.9gs", (double)c->estimate_ns / 1e9);
    return buf;
}
