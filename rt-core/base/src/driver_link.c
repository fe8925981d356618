/*
 * The link contract of the driver base (rtcosim/driver_base.h, DESIGN.md T2): the keys
 * required, connect_ms, on_loss, loss_ms and timeout_ms; the timeouts derived from the
 * period and the round trip measured while connecting; the judge that turns what the
 * driver says (made, gone, fresh) into the link's state after every turn of the I/O loop,
 * with the bookkeeping of how the link held (first up, outages, time up) and one log line
 * per change; and the engine's two checks (rtc_link_connect_check before t0,
 * rtc_link_must_stop on the RT thread every tick).
 *
 * DESIGN: one writer, many readers. Every field of the link is written by the I/O thread
 * (or by start/stop while it does not run) and published as a relaxed atomic: a reader
 * wants each value whole and recent, not an ordering between them; the engine's checks
 * read the same atomics, so the RT thread takes no lock and calls nothing of the
 * driver's. The judge's rules are in one function (judged), and rtc_link_must_stop
 * applies the same silence rule itself, so a driver stuck in a call cannot hide a loss.
 */
#include "driver_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_CONNECT_MS 2000.0
#define DEFAULT_ESTIMATE_NS INT64_C(500000000) /* on_loss=estimate without a T */
#define LINES_WINDOW_NS INT64_C(10000000000)   /* change lines: 6 per 10 s, then counted */

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* ---- the keys (open) ---- */

/* on_loss: "estimate:T" (T a duration: "0.5", "500ms"), "estimate", "stop", "continue". */
static int read_on_loss(rtc_drv_base *b, const char *v)
{
    rtc_link *l = &b->link;
    l->estimate_ns = DEFAULT_ESTIMATE_NS;
    if (!v)
        l->on_loss = l->required ? RTC_LINK_ESTIMATE : RTC_LINK_CONTINUE;
    else if (strcasecmp(v, "stop") == 0)
        l->on_loss = RTC_LINK_STOP;
    else if (strcasecmp(v, "continue") == 0)
        l->on_loss = RTC_LINK_CONTINUE;
    else if (strcasecmp(v, "estimate") == 0)
        l->on_loss = RTC_LINK_ESTIMATE;
    else if (strncasecmp(v, "estimate:", 9) == 0 &&
             rtc_parse_duration(v + 9, &l->estimate_ns) == RTC_OK && l->estimate_ns > 0)
        l->on_loss = RTC_LINK_ESTIMATE;
    else
        return rtc_drv_bad(b, NULL, "setting on_loss=%s: expected estimate:T (T a duration "
                           "above 0, e.g. 0.5s or 200ms), stop or continue", v);
    return RTC_OK;
}

/* loss_ms, and timeout_ms of a driver that sends requests (below the period). */
static int read_times(rtc_drv_base *b, const rtc_kv *kv, size_t n, double *loss, double *tmo)
{
    const rtc_drv_desc *dd = b->desc;
    bool has = false;
    double per_ms = (double)b->period_ns / 1e6;
    *loss = *tmo = -1;
    int rc = rtc_drv_get_opt_double(b, NULL, kv, n, "loss_ms", &has, loss);
    if (rc == RTC_OK && has && !(*loss >= 0 && *loss <= 1e7))
        return rtc_drv_bad(b, NULL, "setting loss_ms=%g: out of range [0, 1e+07]", *loss);
    if (!has)
        *loss = -1;
    has = false;
    if (rc == RTC_OK && dd->requests)
        rc = rtc_drv_get_opt_double(b, NULL, kv, n, "timeout_ms", &has, tmo);
    if (rc != RTC_OK)
        return rc;
    if (!has) {
        *tmo = -1;
        return RTC_OK;
    }
    if (!(*tmo >= 0.1 && *tmo <= 60000))
        return rtc_drv_bad(b, NULL, "setting timeout_ms=%g: out of range [0.1, 60000]", *tmo);
    if (*tmo >= per_ms)
        return rtc_drv_bad(b, NULL, "setting timeout_ms=%g must be below %s=%g", *tmo,
                           dd->period_key ? dd->period_key : "the period", per_ms);
    return RTC_OK;
}

/* The loss time without loss_ms: max(3 periods, 3 rtt, stale_ms when set) — a link is not
 * lost before its values are stale. */
static int64_t derived_loss(const rtc_drv_base *b, int64_t rtt_ns)
{
    int64_t t = 3 * b->period_ns > 3 * rtt_ns ? 3 * b->period_ns : 3 * rtt_ns;
    return b->stale_set && b->stale_ns > t ? b->stale_ns : t;
}

int rtc__drv_contract_open(rtc_drv_base *b, const rtc_kv *kv, size_t n)
{
    const rtc_drv_desc *dd = b->desc;
    rtc_link *l = &b->link;
    double conn, loss, tmo;
    int rc = rtc_drv_get_bool(b, NULL, kv, n, "required", !dd->optional, &l->required);
    /* a required link needs a deadline: the driver's, else the common one */
    double dflt = dd->connect_ms < 0 && l->required ? DEFAULT_CONNECT_MS : dd->connect_ms;
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(b, NULL, kv, n, "connect_ms", dflt, 0, 3.6e6, &conn);
    if (rc == RTC_OK)
        rc = read_times(b, kv, n, &loss, &tmo);
    if (rc == RTC_OK)
        rc = read_on_loss(b, rtc_kv_get(kv, n, "on_loss"));
    if (rc != RTC_OK)
        return rc;
    l->connect_ns = conn < 0 ? -1 : (int64_t)(conn * 1e6);
    l->loss_set_ns = loss < 0 ? -1 : (int64_t)(loss * 1e6);
    l->timeout_set_ns = tmo < 0 ? -1 : (int64_t)(tmo * 1e6);
    /* until a round trip is measured: the keys, else derived without it */
    atomic_init(&l->loss_ns, l->loss_set_ns >= 0 ? l->loss_set_ns
                             : dd->judge_silence ? derived_loss(b, 0) : 0);
    atomic_init(&l->timeout_ns, l->timeout_set_ns >= 0 ? l->timeout_set_ns
                                : dd->requests ? b->period_ns / 2 : 0);
    l->lines = (rtc_ratelimit){.window_ns = LINES_WINDOW_NS, .burst = 6};
    return RTC_OK;
}

/* ---- what the driver says (I/O thread) ---- */

static void set_state(rtc_link *l, rtc_link_state s, int64_t now)
{
    if (LD(l->state) == (int)s)
        return;
    ST(l->since_ns, now);
    ST(l->state, (int)s);
}

void rtc_drv_link_up(rtc_drv_base *b)
{
    rtc_link *l = &b->link;
    if (l->conn)
        return;
    if (l->ever_up)
        rtc_drv_count(&b->st.reconnects);
    l->ever_up = true;
    b->backoff_ns = 0;
    l->conn = true;
    ST(l->down_ns, 0);
    ST(l->alive_ns, rtc_time_now_ns());
}

void rtc_drv_link_down(rtc_drv_base *b, const char *why)
{
    rtc_link *l = &b->link;
    if (!l->conn)
        return; /* (the reason of a link that was not made stays as it was) */
    if (why)
        ST(l->error, why);
    l->conn = false;
    ST(l->down_ns, rtc_time_now_ns());
}

const char *rtc_drv_strerror(int e)
{
    const char *t = strerrordesc_np(e); /* static, unlike strerror()'s unknown-value text */
    return t ? t : "unknown error";
}

void rtc_drv_link_error(rtc_drv_base *b, const char *why)
{
    if (why)
        ST(b->link.error, why);
}

void rtc_drv_alive(rtc_drv_base *b, int64_t now_ns)
{
    ST(b->link.alive_ns, now_ns);
}

void rtc_drv_link_measured(rtc_drv_base *b, int64_t rtt_ns)
{
    rtc_link *l = &b->link;
    const rtc_drv_desc *dd = b->desc;
    int64_t per = b->period_ns;
    ST(l->rtt_ns, rtt_ns);
    if (l->loss_set_ns < 0 && dd->judge_silence)
        ST(l->loss_ns, derived_loss(b, rtt_ns));
    if (l->timeout_set_ns < 0 && dd->requests) {
        int64_t t = 2 * rtt_ns > per / 2 ? 2 * rtt_ns : per / 2;
        ST(l->timeout_ns, t < per ? t : per);
    }
    if (!b->stale_set && dd->stale_periods > 0)
        b->stale_ns = LD(l->loss_ns);
}

int64_t rtc_drv_timeout_ns(rtc_drv_base *b)
{
    return LD(b->link.timeout_ns);
}

void rtc_drv_link_address(rtc_drv_base *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->link.address, sizeof b->link.address, fmt, ap);
    va_end(ap);
}

bool rtc_drv_held(rtc_drv_base *b)
{
    /* acquire: pairs with rtc_link_release(), so what the RT thread wrote into the
     * mailboxes before it released is what the first send takes */
    return atomic_load_explicit(&b->link.held, memory_order_acquire);
}

rtc_link_state rtc_drv_link_state(rtc_drv_base *b)
{
    return (rtc_link_state)LD(b->link.state);
}

rtc_link *rtc_drv_link(void *self)
{
    return self ? &((rtc_drv_base *)self)->link : NULL;
}

/* ---- the judge (I/O thread, after every turn) ---- */

/* The state the rules of driver_base.h give at @p now; *lost_at: when a loss began. */
static rtc_link_state judged(const rtc_link *l, int64_t now, int64_t *lost_at)
{
    int64_t loss = LD(l->loss_ns), alive = LD(l->alive_ns);
    *lost_at = 0;
    if (!l->conn && LD(l->first_up_ns) == 0) {
        bool late = l->connect_ns >= 0 && now - LD(l->start_ns) >= l->connect_ns;
        return !l->required && late ? RTC_LINK_DEGRADED : RTC_LINK_CONNECTING;
    }
    rtc_link_state s = RTC_LINK_UP;
    if (!l->conn)
        *lost_at = LD(l->down_ns), s = RTC_LINK_LOST;
    else if (loss > 0 && now - alive > loss)
        *lost_at = alive + loss, s = RTC_LINK_LOST;
    else if (loss > 0 && now - alive > loss / 2)
        s = RTC_LINK_LATE;
    return s == RTC_LINK_LOST && l->on_loss == RTC_LINK_CONTINUE ? RTC_LINK_DEGRADED : s;
}

static void line(rtc_drv_base *b, int level, int64_t now, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One change line, "<name> '<component>': ...", within the rate limit. */
static void line(rtc_drv_base *b, int level, int64_t now, const char *fmt, ...)
{
    if (!rtc_log_enabled(b->lg, level) || !rtc_ratelimit_take(&b->link.lines, now))
        return;
    va_list ap;
    va_start(ap, fmt);
    rtc__drv_vlog(b, level, fmt, ap);
    va_end(ap);
}

static const char *why_lost(const rtc_link *l, char *buf, size_t cap)
{
    const char *e = LD(l->error);
    if (!l->conn)
        return e ? e : "the peer went away";
    snprintf(buf, cap, "nothing fresh for %.0f ms", (double)LD(l->loss_ns) / 1e6);
    return buf;
}

static void log_change(rtc_drv_base *b, rtc_link_state was, rtc_link_state s, int64_t now,
                       int64_t outage_ns)
{
    rtc_link *l = &b->link;
    char pol[48], why[64];
    rtc_link_info c = {.on_loss = l->on_loss, .estimate_ns = l->estimate_ns};
    bool up = s == RTC_LINK_UP || s == RTC_LINK_LATE;
    bool out = s == RTC_LINK_LOST || (s == RTC_LINK_DEGRADED && LD(l->first_up_ns));
    if (up && (was == RTC_LINK_CONNECTING || was == RTC_LINK_IDLE) && LD(l->rtt_ns))
        line(b, RTC_LOG_INFO, now, "link up after %.3f s (%s; round trip %.2f ms, request "
             "timeout %.2f ms, loss after %.1f ms)", (double)(now - LD(l->start_ns)) / 1e9,
             l->address, (double)LD(l->rtt_ns) / 1e6, (double)LD(l->timeout_ns) / 1e6,
             (double)LD(l->loss_ns) / 1e6);
    else if (up && (was == RTC_LINK_CONNECTING || was == RTC_LINK_IDLE))
        line(b, RTC_LOG_INFO, now, "link up after %.3f s (%s)",
             (double)(now - LD(l->start_ns)) / 1e9, l->address);
    else if (up && (was == RTC_LINK_LOST || was == RTC_LINK_DEGRADED))
        line(b, RTC_LOG_INFO, now, "link back after a %.3f s outage (%llu so far)",
             (double)outage_ns / 1e9, (unsigned long long)LD(l->outages));
    else if (out && (was == RTC_LINK_UP || was == RTC_LINK_LATE))
        line(b, RTC_LOG_WARNING, now, "link lost (%s): %s; on_loss %s", l->address,
             why_lost(l, why, sizeof why), rtc_link_policy_text(&c, pol, sizeof pol));
    else if (s == RTC_LINK_DEGRADED && was == RTC_LINK_CONNECTING)
        line(b, RTC_LOG_WARNING, now, "not up within connect_ms=%.0f (%s%s%s): running "
             "without it (optional)", (double)l->connect_ns / 1e6, l->address,
             LD(l->error) ? ": " : "", LD(l->error) ? LD(l->error) : "");
}

/* The stretch up under way (if any) ends at @p at. */
static void close_up(rtc_link *l, int64_t at)
{
    int64_t up = LD(l->up_since_ns);
    if (up && at > up)
        ST(l->up_total_ns, LD(l->up_total_ns) + (at - up));
    ST(l->up_since_ns, 0);
}

/* The outage under way ends at @p now, counted; returns how long it lasted. */
static int64_t end_outage(rtc_link *l, int64_t now)
{
    int64_t d = now - LD(l->lost_ns);
    ST(l->outages, LD(l->outages) + 1);
    ST(l->outage_total_ns, LD(l->outage_total_ns) + d);
    if (d > LD(l->outage_max_ns))
        ST(l->outage_max_ns, d);
    ST(l->lost_ns, 0);
    return d;
}

void rtc__drv_link_judge(rtc_drv_base *b, int64_t now)
{
    rtc_link *l = &b->link;
    int64_t lost_at, ended = 0;
    rtc_link_state s = judged(l, now, &lost_at), was = (rtc_link_state)LD(l->state);
    bool up = s == RTC_LINK_UP || s == RTC_LINK_LATE;
    bool out = s == RTC_LINK_LOST || (s == RTC_LINK_DEGRADED && LD(l->first_up_ns));
    if (out && !LD(l->lost_ns)) { /* an outage begins (backdated to when it began) */
        int64_t at = lost_at && lost_at < now ? lost_at : now;
        close_up(l, at);
        ST(l->lost_ns, at);
        ST(l->lost_why, l->conn ? "nothing fresh within its loss time"
                        : LD(l->error) ? LD(l->error) : "the peer went away");
    } else if (up && !LD(l->first_up_ns)) {
        ST(l->first_up_ns, now);
        ST(l->up_since_ns, now);
    } else if (up && LD(l->lost_ns)) {
        ended = end_outage(l, now);
        ST(l->up_since_ns, now);
    }
    if (s != was) {
        set_state(l, s, now);
        log_change(b, was, s, now, ended);
    }
    uint64_t more = rtc_ratelimit_due(&l->lines, now, false);
    if (more)
        rtc_log(b->lg, RTC_LOG_WARNING, "%s '%s': %llu more link change(s) in the last %.0f s",
                b->desc->name, b->component, (unsigned long long)more,
                (double)LINES_WINDOW_NS / 1e9);
}

void rtc__drv_link_start(rtc_drv_base *b)
{
    rtc_link *l = &b->link;
    int64_t now = rtc_time_now_ns();
    l->conn = false;
    ST(l->start_ns, now);
    ST(l->stop_ns, 0);
    ST(l->first_up_ns, 0);
    ST(l->lost_ns, 0);
    ST(l->lost_why, NULL);
    ST(l->down_ns, 0);
    ST(l->outages, 0);
    ST(l->outage_total_ns, 0);
    ST(l->outage_max_ns, 0);
    ST(l->up_total_ns, 0);
    ST(l->up_since_ns, 0);
    set_state(l, RTC_LINK_CONNECTING, now);
}

void rtc__drv_link_stop(rtc_drv_base *b)
{
    rtc_link *l = &b->link;
    int64_t now = rtc_time_now_ns();
    if (LD(l->lost_ns))
        end_outage(l, now); /* counted whole: it lasted to the end */
    close_up(l, now);
    ST(l->stop_ns, now);
    l->conn = false;
    set_state(l, RTC_LINK_IDLE, now);
}

void rtc__drv_link_idle(rtc_drv_base *b)
{
    set_state(&b->link, RTC_LINK_IDLE, rtc_time_now_ns());
}

/* ---- stats ---- */

void rtc__drv_link_info(const rtc_drv_base *b, rtc_link_info *c)
{
    const rtc_link *l = &b->link;
    int64_t start = LD(l->start_ns), stop = LD(l->stop_ns);
    int64_t end = stop ? stop : rtc_time_now_ns();
    int64_t lost = LD(l->lost_ns), up_since = LD(l->up_since_ns);
    int64_t ongoing = lost && end > lost ? end - lost : 0;
    *c = (rtc_link_info){
        .required = l->required, .on_loss = l->on_loss, .estimate_ns = l->estimate_ns,
        .connect_ns = l->connect_ns, .loss_ns = LD(l->loss_ns),
        .timeout_ns = LD(l->timeout_ns),
        .derived = LD(l->rtt_ns) > 0 && (l->loss_set_ns < 0 || l->timeout_set_ns < 0),
        .rtt_ns = LD(l->rtt_ns), .address = l->address, .error = LD(l->error),
        .lost_why = LD(l->lost_why),
        .start_ns = start, .first_up_ns = LD(l->first_up_ns), .lost_ns = lost,
        .outages = LD(l->outages) + (lost != 0),
        .outage_total_ns = LD(l->outage_total_ns) + ongoing,
        .outage_max_ns = ongoing > LD(l->outage_max_ns) ? ongoing : LD(l->outage_max_ns),
        .up_ns = LD(l->up_total_ns) + (up_since && end > up_since ? end - up_since : 0),
        .run_ns = start ? end - start : 0, .end_ns = end};
}

/* ---- the engine's checks ---- */

void rtc_link_release(rtc_link *l)
{
    if (l) /* release: the mailbox writes before it are what the first send takes */
        atomic_store_explicit(&l->held, false, memory_order_release);
}

rtc_link_connect rtc_link_connect_check(const rtc_link *l, int64_t now_ns)
{
    if (!l || !l->required || LD(l->first_up_ns))
        return RTC_LINK_CONNECT_READY;
    int64_t start = LD(l->start_ns);
    if (start && l->connect_ns >= 0 && now_ns - start < l->connect_ns)
        return RTC_LINK_CONNECT_WAIT;
    return RTC_LINK_CONNECT_FAILED;
}

int64_t rtc_link_must_stop(const rtc_link *l, int64_t now_ns)
{
    if (!l || l->on_loss == RTC_LINK_CONTINUE)
        return 0;
    int st = LD(l->state);
    int64_t lost = 0, loss = LD(l->loss_ns), alive = LD(l->alive_ns);
    if (st == RTC_LINK_LOST)
        lost = LD(l->lost_ns) ? LD(l->lost_ns) : LD(l->since_ns);
    else if ((st == RTC_LINK_UP || st == RTC_LINK_LATE) && loss > 0 && alive &&
             now_ns - alive > loss)
        lost = alive + loss; /* the I/O thread has not judged it yet (busy, or stuck) */
    if (!lost)
        return 0;
    if (l->on_loss == RTC_LINK_STOP || now_ns - lost >= l->estimate_ns)
        return lost;
    return 0;
}
