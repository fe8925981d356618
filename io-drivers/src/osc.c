/*
 * OSC driver (liblo, UDP): operators move set-points and parameters from a control
 * surface; chosen engine outputs are streamed back.
 *
 * Inbound: every message reaches one generic handler, which checks in this order
 *   sender allowed?  (liblo 0.31 binds every interface, so "bind=127.0.0.1" is enforced
 *                     here: only 127.0.0.0/8 senders; "allow" narrows to a list)
 *   path exposed?    (a from-bench signal's path; a to-bench path is refused as rejected,
 *                     anything else is counted unknown)
 *   one numeric arg? (i h f d T F; anything else is malformed)
 *   in type?         (finite, and representable in the signal's engine-side type: an
 *                     int16 signal refuses 1e6, any signal refuses NaN/Inf and an int64
 *                     argument beyond 2^53; refused and counted malformed, never converted)
 * then clamps to min/max (counted) and publishes a sample. A message inside a bundle with
 * a real timetag is dated by that timetag (converted from NTP wall time to CLOCK_MONOTONIC);
 * otherwise its sample time is its arrival. A timetag farther than timetag_bound_s from the
 * arrival — either way — is clamped to the arrival and counted (timetags_clamped): one
 * bundle dated next year would otherwise make every later sample "older" and freeze the
 * input for the rest of the run. Bundles are dispatched at once (queueing off): within
 * the bound, the estimators, not liblo, decide what a late or early sample means.
 * Nothing here logs per datagram: refusals are counters (summary.json "io").
 *
 * Outbound: every 1/rate_hz the to-bench mailboxes are read and sent to each target as
 * bundles whose timetag is the samples' time (one bundle per distinct sample time). The
 * messages are built once at start; each period only their argument is overwritten and
 * the bundle is serialised into a buffer sized at start, then sent with sendto() from the
 * server's socket, so replies find their way back and nothing is allocated per period.
 *
 * Threads: liblo runs only in the I/O thread, which is the driver base's
 * (rtcosim/driver_base.h): begin binds the port, cycle streams, wait receives. liblo's
 * error callback has no user pointer, so a thread-local pointer names the driver whose
 * recv is in progress.
 */
#include "rtcosim/driver_base.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/osc_args.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <float.h>
#include <lo/lo.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OSC_MAX_PEERS RTC_OSC_MAX_PEERS
#define NTP_UNIX_OFFSET 2208988800ull /* seconds from 1900-01-01 to 1970-01-01 */

typedef struct osc_sig {
    char *path;
    rtc_io_dir dir;
    char osc_type;
    rtc_type type; /* engine-side type: the range an inbound value must fit */
    bool has_min, has_max; /* the safe value is the base's (rtc_drv_signal) */
    double min, max;
    lo_message msg; /* to-bench: prebuilt message with one argument */
    bool in_bundle; /* scratch while grouping by sample time */
} osc_sig;

/* OSC's own counters (rtc_driver_stats.counters, kind "osc"): undecodable packets and
 * wrong argument types; messages for unmapped paths; bundles sent (per target); bundle
 * timetags farther than timetag_bound_s from arrival, replaced by the arrival time. */
enum { OSC_MALFORMED, OSC_UNKNOWN, OSC_SENT, OSC_TIMETAGS_CLAMPED, OSC_N_COUNTERS };
static const char *const osc_counters[OSC_N_COUNTERS] = {"malformed", "unknown", "sent",
                                                         "timetags_clamped"};

typedef struct osc {
    rtc_drv_base b; /* first: the base's ops take the object as their base */
    char *port;
    osc_sig *sigs;
    size_t n;
    bool loopback_only;
    struct in_addr allow[OSC_MAX_PEERS];
    int n_allow;
    struct sockaddr_in targets[OSC_MAX_PEERS];
    int n_targets;
    int64_t tt_bound_ns; /* timetag_bound_s */
    char *hb_path;
    lo_message hb_msg;
    bool hb_count;
    int32_t hb_value;
    /* I/O thread */
    lo_server srv;
    int send_fd;      /* the server's socket, or a temporary one when not running */
    rtc_sample *smp;  /* scratch: one sample per signal, sized at open */
    int64_t arrival_ns;
    unsigned char *buf;
    size_t buf_cap;
} osc;
static_assert(offsetof(osc, b) == 0, "the base must come first");

static _Thread_local osc *current; /* the driver inside lo_server_recv_noblock() */

static const char *const hb_modes[] = {"toggle", "count", NULL};

/* ---- settings ---- */

static int parse_allow(osc *d, const char *list)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *save, *tok = strtok_r(tmp, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (d->n_allow == OSC_MAX_PEERS)
            return rtc_drv_bad(&d->b, NULL, "setting allow: more than %d addresses",
                               OSC_MAX_PEERS);
        if (inet_pton(AF_INET, tok, &d->allow[d->n_allow]) != 1)
            return rtc_drv_bad(&d->b, NULL, "setting allow: '%s' is not an IPv4 address", tok);
        d->n_allow++;
    }
    return RTC_OK;
}

static int parse_targets(osc *d, const char *list)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *save, *tok = strtok_r(tmp, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        char *colon = strrchr(tok, ':');
        if (!colon || d->n_targets == OSC_MAX_PEERS)
            return rtc_drv_bad(&d->b, NULL, "setting targets: '%s' is not host:port (at most %d)",
                               tok, OSC_MAX_PEERS);
        *colon = '\0';
        struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *ai;
        if (getaddrinfo(tok, colon + 1, &hints, &ai) != 0)
            return rtc_drv_bad(&d->b, NULL, "setting targets: cannot resolve %s:%s", tok,
                               colon + 1);
        memcpy(&d->targets[d->n_targets++], ai->ai_addr, sizeof d->targets[0]);
        freeaddrinfo(ai);
    }
    return RTC_OK;
}

static int parse_component(osc *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    long port;
    double bound;
    int hbm = 0;
    int rc = rtc_drv_get_int(&d->b, NULL, kv, n, "port", 0, 0, 65535, &port);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(&d->b, NULL, kv, n, "timetag_bound_s", 1, 0.001, 3600, &bound);
    if (rc == RTC_OK)
        rc = rtc_drv_get_choice(&d->b, NULL, kv, n, "heartbeat_mode", hb_modes, 0, &hbm);
    if (rc != RTC_OK)
        return rc;
    const char *bind = rtc_kv_get(kv, n, "bind"), *allow = rtc_kv_get(kv, n, "allow");
    const char *targets = rtc_kv_get(kv, n, "targets"), *hb = rtc_kv_get(kv, n, "heartbeat");
    if (bind && strcmp(bind, "127.0.0.1") != 0 && strcmp(bind, "0.0.0.0") != 0)
        return rtc_drv_bad(&d->b, NULL, "setting bind=%s: liblo 0.31 binds every interface; use "
                           "127.0.0.1 (loopback senders only) or 0.0.0.0 with allow", bind);
    d->loopback_only = !bind || strcmp(bind, "127.0.0.1") == 0;
    if (allow && (rc = parse_allow(d, allow)) != RTC_OK)
        return rc;
    if (targets && (rc = parse_targets(d, targets)) != RTC_OK)
        return rc;
    if (hb && hb[0] != '/')
        return rtc_drv_bad(&d->b, NULL, "setting heartbeat=%s: an OSC path starts with '/'", hb);
    char p[16];
    snprintf(p, sizeof p, "%ld", port);
    d->port = strdup(p);
    d->hb_path = hb ? strdup(hb) : NULL;
    d->hb_count = hbm == 1;
    d->tt_bound_ns = (int64_t)(bound * 1e9);
    return d->port && (!hb || d->hb_path) ? RTC_OK : RTC_ENOMEM;
}

static int parse_signal(osc *d, osc_sig *s, const rtc_io_signal *in)
{
    static const char *const types[] = {"f", "d", "i", NULL};
    int t = 0;
    char path[256];
    const char *p = rtc_kv_get(in->settings, in->n_settings, "path");
    snprintf(path, sizeof path, p ? "%s" : "/%s", p ? p : in->name);
    if (path[0] != '/' || strpbrk(path, " #*,?[]{}"))
        return rtc_drv_bad(&d->b, in->name, "setting path=%s: must start with '/' and contain no "
                           "pattern characters", path);
    int rc = rtc_drv_get_choice(&d->b, in->name, in->settings, in->n_settings, "osc_type",
                                types, 0, &t);
    if (rc == RTC_OK)
        rc = rtc_drv_get_opt_double(&d->b, in->name, in->settings, in->n_settings, "min",
                                    &s->has_min, &s->min);
    if (rc == RTC_OK)
        rc = rtc_drv_get_opt_double(&d->b, in->name, in->settings, in->n_settings, "max",
                                    &s->has_max, &s->max);
    if (rc != RTC_OK)
        return rc;
    if (s->has_min && s->has_max && s->min > s->max)
        return rtc_drv_bad(&d->b, in->name, "min %g is above max %g", s->min, s->max);
    for (size_t k = 0; k < (size_t)(s - d->sigs); k++)
        if (strcmp(d->sigs[k].path, path) == 0)
            return rtc_drv_bad(&d->b, in->name, "path %s is already used by another signal", path);
    s->osc_type = "fdi"[t];
    s->type = in->type;
    s->dir = in->dir;
    s->path = strdup(path);
    return s->path ? RTC_OK : RTC_ENOMEM;
}

/* Prebuild the outbound messages and size the bundle buffer for the worst case. */
static int build_outbound(osc *d)
{
    size_t need = 16; /* "#bundle\0" + timetag */
    for (size_t i = 0; i < d->n; i++) {
        osc_sig *s = &d->sigs[i];
        if (s->dir != RTC_IO_TO_BENCH)
            continue;
        s->msg = lo_message_new();
        if (!s->msg)
            return RTC_ENOMEM;
        if (s->osc_type == 'f')
            lo_message_add_float(s->msg, 0.0f);
        else if (s->osc_type == 'd')
            lo_message_add_double(s->msg, 0.0);
        else
            lo_message_add_int32(s->msg, 0);
        lo_message_get_argv(s->msg); /* build argv now: later writes go through it */
        need += 4 + lo_message_length(s->msg, s->path);
    }
    if (d->hb_path) {
        if (!(d->hb_msg = lo_message_new()))
            return RTC_ENOMEM;
        lo_message_add_int32(d->hb_msg, 0);
        lo_message_get_argv(d->hb_msg);
        need += 4 + lo_message_length(d->hb_msg, d->hb_path);
    }
    d->buf_cap = need;
    d->buf = malloc(need);
    return d->buf ? RTC_OK : RTC_ENOMEM;
}

static const rtc_drv_desc osc_desc; /* below: what the base needs to know */

static int osc_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    if (!cfg || !self)
        return RTC_EINVAL;
    rtc_drv_base *b;
    int rc = rtc_drv_open(&osc_desc, sizeof(osc), cfg, lg, &b);
    if (rc != RTC_OK)
        return rc;
    osc *d = (osc *)b;
    d->send_fd = -1;
    d->sigs = calloc(cfg->n_signals ? cfg->n_signals : 1, sizeof *d->sigs);
    d->smp = calloc(cfg->n_signals ? cfg->n_signals : 1, sizeof *d->smp);
    rc = d->sigs && d->smp ? RTC_OK : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = parse_component(d, cfg);
    for (size_t i = 0; rc == RTC_OK && i < cfg->n_signals; i++, d->n++)
        rc = parse_signal(d, &d->sigs[i], &cfg->signals[i]);
    if (rc == RTC_OK)
        rc = build_outbound(d);
    if (rc != RTC_OK) {
        rtc_drv_close(b);
        return rc;
    }
    /* stop(): stream the safe values once, unless write_safe_values() already did */
    if (d->n_targets > 0 && b->n_safe > 0)
        b->stop_safe = RTC_DRV_STOP_SAFE_UNLESS_LATCHED;
    *self = d;
    return RTC_OK;
}

/* ---- time conversion ---- */

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_MONOTONIC ns -> NTP timetag of the same instant on the wall clock. */
static lo_timetag mono_to_tt(int64_t mono_ns)
{
    int64_t wall = realtime_ns() - (rtc_time_now_ns() - mono_ns);
    lo_timetag tt;
    tt.sec = (uint32_t)((uint64_t)(wall / 1000000000) + NTP_UNIX_OFFSET);
    tt.frac = (uint32_t)(((uint64_t)(wall % 1000000000) << 32) / 1000000000u);
    return tt;
}

static int64_t tt_to_mono(lo_timetag tt)
{
    int64_t wall = ((int64_t)tt.sec - (int64_t)NTP_UNIX_OFFSET) * 1000000000 +
                   (int64_t)(((uint64_t)tt.frac * 1000000000u) >> 32);
    return rtc_time_now_ns() - (realtime_ns() - wall);
}

/* ---- inbound ---- */

static bool sender_allowed(const osc *d, lo_message msg)
{
    lo_address src = lo_message_get_source(msg);
    const char *host = src ? lo_address_get_hostname(src) : NULL;
    struct in_addr a;
    if (!host || inet_pton(AF_INET, host, &a) != 1)
        return false;
    if (d->loopback_only && (ntohl(a.s_addr) >> 24) != 127)
        return false;
    if (d->n_allow == 0)
        return true;
    for (int k = 0; k < d->n_allow; k++)
        if (d->allow[k].s_addr == a.s_addr)
            return true;
    return false;
}

/* Does @p v fit the engine-side type? Integers: the type's range (the engine rounds; the
 * bounds are exact doubles: 2^63 and 2^64 are excluded). FLOAT32: its finite range. */
static bool fits_type(rtc_type t, double v)
{
    switch (t) {
    case RTC_TYPE_FLOAT32: return fabs(v) <= FLT_MAX;
    case RTC_TYPE_INT8: return v >= -128.5 && v < 127.5;
    case RTC_TYPE_UINT8: return v > -0.5 && v < 255.5;
    case RTC_TYPE_INT16: return v >= -32768.5 && v < 32767.5;
    case RTC_TYPE_UINT16: return v > -0.5 && v < 65535.5;
    case RTC_TYPE_INT32: case RTC_TYPE_ENUM: return v >= -2147483648.5 && v < 2147483647.5;
    case RTC_TYPE_UINT32: return v > -0.5 && v < 4294967295.5;
    case RTC_TYPE_INT64: return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    case RTC_TYPE_UINT64: return v > -0.5 && v < 18446744073709551616.0;
    default: return true;
    }
}

/* A numeric or boolean argument as a finite double that the signal's type holds. An int64
 * argument beyond 2^53 has no exact double: refused rather than rounded. */
static bool numeric_arg(const osc_sig *s, char type, lo_arg *a, double *v)
{
    if (type == LO_TRUE || type == LO_FALSE) {
        *v = type == LO_TRUE;
        return true;
    }
    int64_t big = type == LO_INT64 ? rtc_osc_i64(a) : 0;
    if (big > (1LL << 53) || big < -(1LL << 53))
        return false;
    return rtc_osc_number(type, a, v) && isfinite(*v) && fits_type(s->type, *v);
}

/* The sample time of a message: its timetag when it has one within the bound of the
 * arrival, else the arrival (counted when a timetag was there but too far off). */
static int64_t sample_time(osc *d, lo_message msg)
{
    lo_timetag tt = lo_message_get_timestamp(msg);
    if (tt.sec == 0 && tt.frac <= 1) /* 0/1 is OSC's "immediately" */
        return d->arrival_ns;
    int64_t t = tt_to_mono(tt);
    if (llabs(t - d->arrival_ns) <= d->tt_bound_ns)
        return t;
    rtc_drv_count(&d->b.st.named[OSC_TIMETAGS_CLAMPED]);
    return d->arrival_ns;
}

/* One message: checked in the order of the file comment, then published. */
static void take_message(osc *d, const char *path, const char *types, lo_arg **argv, int argc,
                         lo_message msg)
{
    if (!sender_allowed(d, msg)) {
        rtc_drv_count(&d->b.st.rejected);
        return;
    }
    size_t i = 0;
    while (i < d->n && strcmp(d->sigs[i].path, path) != 0)
        i++;
    if (i == d->n) {
        rtc_drv_count(&d->b.st.named[OSC_UNKNOWN]);
        return;
    }
    osc_sig *s = &d->sigs[i];
    double v;
    if (s->dir != RTC_IO_FROM_BENCH) { /* an engine output is not writable */
        rtc_drv_count(&d->b.st.rejected);
        return;
    }
    if (argc != 1 || !numeric_arg(s, types[0], argv[0], &v)) {
        rtc_drv_count(&d->b.st.named[OSC_MALFORMED]);
        rtc_drv_count(&d->b.sig[i].errors);
        return;
    }
    if ((s->has_min && v < s->min) || (s->has_max && v > s->max)) {
        v = s->has_min && v < s->min ? s->min : s->max;
        rtc_drv_count(&d->b.sig[i].clamped);
    }
    rtc_drv_publish(&d->b, i, v, sample_time(d, msg), d->arrival_ns);
    if (!d->b.link.conn) { /* a receiving link is up once a peer has spoken */
        rtc_drv_count(&d->b.st.connects);
        rtc_drv_link_up(&d->b);
    }
}

static int on_message(const char *path, const char *types, lo_arg **argv, int argc,
                      lo_message msg, void *user)
{
    take_message(user, path, types, argv, argc, msg);
    /* counted once handled: whoever sees requests reach n sees the n-th message's effect */
    rtc_drv_count(&((osc *)user)->b.st.requests);
    return 0;
}

static void on_error(int num, const char *msg, const char *where)
{
    (void)num;
    (void)msg;
    (void)where;
    if (current) /* undecodable packet, bad type tag, truncated bundle, ... */
        rtc_drv_count(&current->b.st.named[OSC_MALFORMED]);
}

static void receive_all(osc *d)
{
    current = d;
    d->arrival_ns = rtc_time_now_ns();
    for (int k = 0; k < 256 && lo_server_recv_noblock(d->srv, 0) > 0; k++)
        d->arrival_ns = rtc_time_now_ns();
    current = NULL;
}

/* ---- outbound ---- */

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void set_arg(osc_sig *s, double v)
{
    lo_arg *a = lo_message_get_argv(s->msg)[0];
    if (s->osc_type == 'f')
        a->f = (float)v;
    else if (s->osc_type == 'd')
        a->d = v;
    else
        a->i = (int32_t)lrint(fmax(-2147483648.0, fmin(2147483647.0, v)));
}

/* Append one message as a bundle element; returns the new length. */
static size_t add_element(osc *d, size_t len, lo_message m, const char *path)
{
    size_t sz = d->buf_cap - len - 4;
    if (!lo_message_serialise(m, path, d->buf + len + 4, &sz))
        return len;
    put_be32(d->buf + len, (uint32_t)sz);
    return len + 4 + sz;
}

static void send_buf(osc *d, size_t len)
{
    int fd = d->send_fd;
    for (int k = 0; k < d->n_targets; k++) {
        int64_t t0 = rtc_time_now_ns();
        if (sendto(fd, d->buf, len, 0, (const struct sockaddr *)&d->targets[k],
                   sizeof d->targets[k]) < 0) {
            rtc_drv_count(&d->b.st.errors);
            continue;
        }
        rtc_drv_latency(&d->b, rtc_time_now_ns() - t0);
        rtc_drv_count(&d->b.st.named[OSC_SENT]);
    }
}

/* Send the outputs whose sample time is t (or all pending when safe) as one bundle. */
static void send_group(osc *d, const rtc_sample *smp, int64_t t, bool with_hb)
{
    lo_timetag tt = mono_to_tt(t);
    memcpy(d->buf, "#bundle", 8);
    put_be32(d->buf + 8, tt.sec);
    put_be32(d->buf + 12, tt.frac);
    size_t len = 16;
    for (size_t i = 0; i < d->n; i++) {
        osc_sig *s = &d->sigs[i];
        if (!s->in_bundle || smp[i].sample_ns != t)
            continue;
        s->in_bundle = false;
        set_arg(s, smp[i].value); /* the safe value while latched (send_outputs) */
        len = add_element(d, len, s->msg, s->path);
        rtc_drv_sent(&d->b, i);
    }
    if (with_hb) {
        d->hb_value = d->hb_count ? d->hb_value + 1 : !d->hb_value;
        lo_message_get_argv(d->hb_msg)[0]->i = d->hb_value;
        len = add_element(d, len, d->hb_msg, d->hb_path);
    }
    send_buf(d, len);
}

static void send_outputs(osc *d, rtc_sample *smp)
{
    bool any = false;
    int64_t now = rtc_time_now_ns();
    for (size_t i = 0; i < d->n; i++) {
        osc_sig *s = &d->sigs[i];
        s->in_bundle = false;
        if (s->dir != RTC_IO_TO_BENCH)
            continue;
        if (d->b.latched && d->b.sig[i].has_safe) {
            smp[i] = (rtc_sample){.value = d->b.sig[i].safe, .sample_ns = now, .seq = 1};
        } else if (!rtc_mailbox_read(d->b.sig[i].mb, &smp[i]) || smp[i].seq == 0) {
            continue; /* never written yet: nothing to say */
        }
        s->in_bundle = any = true;
    }
    bool hb = d->hb_path && !d->b.latched;
    for (size_t i = 0; i < d->n; i++)
        if (d->sigs[i].in_bundle) {
            send_group(d, smp, smp[i].sample_ns, hb);
            hb = false;
        }
    if (hb && !any) /* no output to send: the heartbeat still goes out, dated now */
        send_group(d, smp, now, true);
}

/* ---- the driver base's hooks ---- */

/* The safe hook: stream the safe values once (b->latched keeps them in later bundles). */
static int osc_safe(rtc_drv_base *b)
{
    osc *d = (osc *)b;
    bool own = d->send_fd < 0; /* not running: a plain UDP socket carries the bundle */
    if (own && (d->send_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
        return rtc_status_from_errno(errno);
    send_outputs(d, d->smp);
    if (own) {
        close(d->send_fd);
        d->send_fd = -1;
    }
    return RTC_OK;
}

/* The begin hook: bind the UDP port; start() returns the result. */
static int osc_begin(rtc_drv_base *b)
{
    osc *d = (osc *)b;
    d->srv = lo_server_new_with_proto(d->port, LO_UDP, on_error);
    if (!d->srv)
        return rtc_drv_error(b, RTC_EIO, "cannot open UDP port %s", d->port);
    d->send_fd = lo_server_get_socket_fd(d->srv);
    lo_server_enable_queue(d->srv, 0, 1);
    lo_server_add_method(d->srv, NULL, NULL, on_message, d);
    /* getsockname, not lo_server_get_port(): with port "0" the kernel picks the port and
     * liblo 0.31 reports the 0 it was given. */
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    if (getsockname(d->send_fd, (struct sockaddr *)&sa, &sl) != 0 || sa.sin_family != AF_INET)
        return RTC_OK;
    int port = ntohs(sa.sin_port);
    atomic_store_explicit(&b->st.port, port, memory_order_relaxed);
    rtc_drv_link_address(b, "%s:%d", d->loopback_only ? "127.0.0.1" : "0.0.0.0", port);
    rtc_log(b->lg, RTC_LOG_INFO, "osc '%s': listening on UDP %s%s", b->component,
            b->link.address, sa.sin_addr.s_addr == htonl(INADDR_ANY) && d->loopback_only
                                 ? " (liblo bound every interface: only loopback senders "
                                   "are accepted)" : "");
    if (b->n_from_bench == 0) /* it only sends: up while it can */
        rtc_drv_link_up(b);
    else
        rtc_drv_link_error(b, "nothing received"); /* (the reason while it waits) */
    return RTC_OK;
}

/* The cycle hook, every 1/rate_hz: stream the outputs. */
static bool osc_cycle(rtc_drv_base *b, int64_t now)
{
    (void)now;
    osc *d = (osc *)b;
    if (d->n_targets > 0 && (!rtc_drv_held(b) || b->latched)) /* (held: before the run) */
        send_outputs(d, d->smp);
    return true;
}

/* The wait hook: receive what arrives until the next send. */
static void osc_wait(rtc_drv_base *b, int64_t until)
{
    osc *d = (osc *)b;
    struct pollfd p = {.fd = d->send_fd, .events = POLLIN};
    if (rtc_drv_poll(&p, 1, until) > 0)
        receive_all(d);
}

static void osc_end(rtc_drv_base *b)
{
    osc *d = (osc *)b;
    if (d->srv)
        lo_server_free(d->srv);
    d->srv = NULL;
    d->send_fd = -1;
}

static void osc_clear(rtc_drv_base *b)
{
    osc *d = (osc *)b;
    free(d->smp);
    for (size_t i = 0; d->sigs && i < d->n; i++) {
        free(d->sigs[i].path);
        if (d->sigs[i].msg)
            lo_message_free(d->sigs[i].msg);
    }
    if (d->hb_msg)
        lo_message_free(d->hb_msg);
    free(d->sigs);
    free(d->buf);
    free(d->hb_path);
    free(d->port);
}

static const rtc_drv_desc osc_desc = {
    .name = "osc",
    .kind = "osc",
    .counters = osc_counters,
    .n_counters = OSC_N_COUNTERS,
    .period_key = "rate_hz",
    .period_hz = true,
    .period_default = 50,
    .period_min = 0.01,
    .period_max = 10000,
    .stale_periods = -1,
    .optional = true,  /* an operator may never send: the run does not wait for one */
    .connect_ms = -1,  /* nor does its link turn degraded while nobody has spoken */
    .begin = osc_begin,
    .cycle = osc_cycle,
    .wait = osc_wait,
    .safe = osc_safe,
    .end = osc_end,
    .clear = osc_clear,
};

const rtc_driver_ops rtc_osc_ops = {
    .name = "osc",
    .open = osc_open,
    .start = rtc_drv_start,
    .stop = rtc_drv_stop,
    .write_safe_values = rtc_drv_write_safe_values,
    .close = rtc_drv_close,
    .stats = rtc_drv_stats,
    .link = rtc_drv_link,
};
