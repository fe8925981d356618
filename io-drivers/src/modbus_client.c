/*
 * Modbus client driver (TCP and RTU, libmodbus): the engine polls bench I/O modules.
 *
 * Threads (DESIGN.md "Threads and the three phases"): open() only parses and builds the
 * register map; every libmodbus call happens in the driver's I/O thread, except
 * write_safe_values() while that thread is not running (then the caller is the only user).
 * The RT loop sees nothing but the mailboxes.
 *
 * One cycle, every poll_ms on absolute CLOCK_MONOTONIC deadlines (missed ones skipped and
 * counted as overruns): one read request per batch of contiguous from-bench addresses,
 * one write request per batch of to-bench addresses whose mailbox changed (or every
 * cycle with write_mode=cycle), the heartbeat, then the staleness check.
 *
 * Failures are never fatal (STYLE rule 22, mb2hal): an exception response marks the
 * batch's signals ERROR and keeps the link. On TCP a timeout or a mismatched answer drops
 * the link and reconnects at the next cycle: the answer that timed out may still arrive
 * after any flush, and libmodbus would then pair every later answer with the wrong
 * request (a mismatched transaction id, for ever). On RTU a timeout waits one more
 * response timeout for a late answer, flushes the line, and keeps it for up to three
 * timeouts in a row. Anything else (reset, refused, broken pipe)
 * closes the link, flags every from-bench signal STALE (the last good value stays
 * readable), and reconnects after an exponential backoff with jitter. Safe values are
 * written over a fresh connection when the current one fails.
 */
#include "modbus_priv.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <errno.h>
#include <modbus.h>
#include <stdlib.h>
#include <string.h>

enum { LINK_OK = 0, LINK_EXCEPTION, LINK_TIMEOUT, LINK_PROTOCOL, LINK_DOWN };

/* The client's own counters (rtc_driver_stats.counters, kind "modbus_client"). */
enum { MBC_EXCEPTIONS, MBC_N_COUNTERS };
static const char *const mbc_counters[MBC_N_COUNTERS] = {"exceptions"};

typedef struct mbc {
    drv_stats st; /* first: rtc__drv_stats() reads it through the object pointer */
    drv_ctx c;
    char *component;
    mb_map map;
    /* settings */
    bool rtu;
    char *host, *device;
    long port, baud, data_bits, stop_bits, unit_id;
    char parity;
    int64_t poll_ns, timeout_ns, stale_ns, backoff_min_ns, backoff_max_ns;
    bool write_cycle;
    int safe_timeout_ms;
    /* I/O thread state */
    modbus_t *ctx;
    bool ever_connected, force_write, latched;
    int timeouts_in_row;
    int64_t backoff_ns;
    uint64_t rng;
    uint16_t regs[128];
    uint8_t bits[2000];
    drv_thread th;
} mbc;
static_assert(offsetof(mbc, st) == 0, "rtc__drv_stats needs the stats first");

static const char *const transports[] = {"tcp", "rtu", NULL};
static const char *const parities[] = {"N", "E", "O", NULL};
static const char *const write_modes[] = {"on_change", "cycle", NULL};

/* ---- settings ---- */

static int parse_line(mbc *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    int tr = 0, par = 0;
    int rc = rtc__drv_get_choice(&d->c, NULL, kv, n, "transport", transports, 0, &tr);
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(&d->c, NULL, kv, n, "port", 502, 0, 65535, &d->port);
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(&d->c, NULL, kv, n, "baud", 19200, 50, 4000000, &d->baud);
    if (rc == RTC_OK)
        rc = rtc__drv_get_choice(&d->c, NULL, kv, n, "parity", parities, 0, &par);
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(&d->c, NULL, kv, n, "data_bits", 8, 5, 8, &d->data_bits);
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(&d->c, NULL, kv, n, "stop_bits", 1, 1, 2, &d->stop_bits);
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(&d->c, NULL, kv, n, "unit_id", 1, 0, 255, &d->unit_id);
    if (rc != RTC_OK)
        return rc;
    d->rtu = tr == 1;
    d->parity = "NEO"[par];
    const char *host = rtc_kv_get(kv, n, "host"), *dev = rtc_kv_get(kv, n, "device");
    if (d->rtu && !dev)
        return rtc__drv_bad(&d->c, NULL, "transport rtu needs setting device (a tty path)");
    d->host = strdup(host ? host : "127.0.0.1");
    d->device = strdup(dev ? dev : "");
    return d->host && d->device ? RTC_OK : RTC_ENOMEM;
}

static int parse_timing(mbc *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    double poll, tmo, stale, bmin, bmax;
    long safe_to;
    int wm = 0;
    int rc = rtc__drv_get_double(&d->c, NULL, kv, n, "poll_ms", 10, 0.1, 60000, &poll);
    if (rc == RTC_OK)
        rc = rtc__drv_get_double(&d->c, NULL, kv, n, "timeout_ms", poll / 2, 0.1, 60000, &tmo);
    if (rc == RTC_OK)
        rc = rtc__drv_get_double(&d->c, NULL, kv, n, "stale_ms", 3 * poll, 0.1, 1e7, &stale);
    if (rc == RTC_OK)
        rc = rtc__drv_get_double(&d->c, NULL, kv, n, "reconnect_min_ms", 100, 1, 1e6, &bmin);
    if (rc == RTC_OK)
        rc = rtc__drv_get_double(&d->c, NULL, kv, n, "reconnect_max_ms", 5000, 1, 1e7, &bmax);
    if (rc == RTC_OK)
        rc = rtc__drv_get_choice(&d->c, NULL, kv, n, "write_mode", write_modes, 0, &wm);
    if (rc == RTC_OK)
        rc = rtc__drv_get_thread(&d->c, kv, n, &d->th);
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(&d->c, NULL, kv, n, "safe_timeout_ms", 500, 1, 600000, &safe_to);
    if (rc != RTC_OK)
        return rc;
    if (tmo >= poll)
        return rtc__drv_bad(&d->c, NULL, "setting timeout_ms=%g must be below poll_ms=%g", tmo,
                            poll);
    if (bmin > bmax)
        return rtc__drv_bad(&d->c, NULL, "reconnect_min_ms %g is above reconnect_max_ms %g", bmin,
                            bmax);
    d->poll_ns = (int64_t)(poll * 1e6);
    d->timeout_ns = (int64_t)(tmo * 1e6);
    d->stale_ns = (int64_t)(stale * 1e6);
    d->backoff_min_ns = (int64_t)(bmin * 1e6);
    d->backoff_max_ns = (int64_t)(bmax * 1e6);
    d->write_cycle = wm == 1;
    d->safe_timeout_ms = (int)safe_to;
    return RTC_OK;
}

static void mbc_close(void *self);

static int mbc_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    if (!cfg || !self)
        return RTC_EINVAL;
    mbc *d = calloc(1, sizeof *d);
    if (!d)
        return RTC_ENOMEM;
    d->component = strdup(cfg->component ? cfg->component : "?");
    d->c = (drv_ctx){.lg = lg, .driver = "modbus-client", .component = d->component};
    long gap;
    int rc = d->component ? rtc__drv_thread_init(&d->th) : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = rtc__drv_get_int(&d->c, NULL, cfg->settings, cfg->n_settings, "max_gap", 0, 0, 100,
                              &gap);
    if (rc == RTC_OK)
        rc = parse_line(d, cfg);
    if (rc == RTC_OK)
        rc = parse_timing(d, cfg);
    if (rc == RTC_OK)
        rc = rtc__mb_map_build(&d->map, cfg, &d->c, false, (int)gap);
    if (rc == RTC_OK)
        rc = rtc__drv_stats_init(&d->st, cfg->n_signals, "modbus_client", mbc_counters,
                                 MBC_N_COUNTERS);
    if (rc != RTC_OK) {
        mbc_close(d);
        return rc;
    }
    d->rng = (uint64_t)rtc_time_now_ns() ^ (uint64_t)(uintptr_t)d;
    *self = d;
    return RTC_OK;
}

/* ---- link ---- */

static int classify_errno(int e)
{
    if (e > MODBUS_ENOBASE && e <= EMBXGTAR)
        return LINK_EXCEPTION;
    if (e == ETIMEDOUT)
        return LINK_TIMEOUT;
    if (e >= EMBBADCRC && e <= EMBBADSLAVE)
        return LINK_PROTOCOL;
    return LINK_DOWN;
}

static void link_close(mbc *d)
{
    if (d->ctx) {
        modbus_close(d->ctx);
        modbus_free(d->ctx);
        d->ctx = NULL;
    }
    atomic_store_explicit(&d->st.connected, false, memory_order_relaxed);
}

static modbus_t *new_ctx(mbc *d)
{
    modbus_t *ctx = d->rtu ? modbus_new_rtu(d->device, (int)d->baud, d->parity,
                                            (int)d->data_bits, (int)d->stop_bits)
                           : modbus_new_tcp(d->host, (int)d->port);
    if (!ctx)
        return NULL;
    uint32_t us = (uint32_t)(d->timeout_ns / 1000);
    /* The response timeout bounds one request; it is below the poll period so a dead
     * peer costs at most one cycle (STYLE rule 22). The byte timeout bounds the gap inside
     * one frame. */
    modbus_set_response_timeout(ctx, us / 1000000, us % 1000000);
    modbus_set_byte_timeout(ctx, us / 1000000, us % 1000000);
    modbus_set_error_recovery(ctx, MODBUS_ERROR_RECOVERY_NONE);
    if (d->rtu || d->unit_id != 1)
        modbus_set_slave(ctx, (int)d->unit_id);
    return ctx;
}

static bool link_open(mbc *d)
{
    d->ctx = new_ctx(d);
    if (!d->ctx)
        return false;
    if (modbus_connect(d->ctx) == -1) {
        modbus_free(d->ctx);
        d->ctx = NULL;
        return false;
    }
    if (d->ever_connected)
        rtc__drv_count(&d->st.reconnects);
    d->ever_connected = true;
    rtc__drv_count(&d->st.connects);
    d->backoff_ns = 0;
    d->force_write = true;
    d->timeouts_in_row = 0;
    atomic_store_explicit(&d->st.connected, true, memory_order_relaxed);
    rtc_log(d->c.lg, RTC_LOG_INFO, "modbus-client '%s': connected to %s", d->component,
            d->rtu ? d->device : d->host);
    return true;
}

static void mark_all_stale(mbc *d)
{
    for (size_t i = 0; i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        if (s->dir == RTC_IO_FROM_BENCH && s->last_ok_ns != 0)
            rtc__drv_set_quality(&d->st, i, s->mb, RTC_QUALITY_STALE);
    }
}

/* Count a failed request by kind; returns true when the link must be dropped. */
static bool request_failed(mbc *d, int kind)
{
    switch (kind) {
    case LINK_EXCEPTION:
        rtc__drv_count(&d->st.named[MBC_EXCEPTIONS]);
        return false;
    case LINK_TIMEOUT:
        rtc__drv_count(&d->st.timeouts);
        if (!d->rtu)
            return true; /* the late answer would be taken for the next request's */
        /* RTU frames carry no transaction id: let a late answer arrive, then drop it */
        rtc__drv_sleep_interruptible(&d->th, d->timeout_ns);
        modbus_flush(d->ctx);
        return ++d->timeouts_in_row >= 3;
    case LINK_PROTOCOL:
        rtc__drv_count(&d->st.errors);
        if (!d->rtu)
            return true; /* out of step with the peer: resynchronise by reconnecting */
        modbus_flush(d->ctx);
        return false;
    default:
        rtc__drv_count(&d->st.errors);
        return true;
    }
}

/* ---- one cycle ---- */

static int do_read(mbc *d, const mb_batch *b)
{
    int rc;
    switch (b->table) {
    case MB_COIL: rc = modbus_read_bits(d->ctx, b->addr, b->count, d->bits); break;
    case MB_DISCRETE: rc = modbus_read_input_bits(d->ctx, b->addr, b->count, d->bits); break;
    case MB_HOLDING: rc = modbus_read_registers(d->ctx, b->addr, b->count, d->regs); break;
    default: rc = modbus_read_input_registers(d->ctx, b->addr, b->count, d->regs); break;
    }
    return rc == -1 ? classify_errno(errno) : LINK_OK;
}

/* Decode one read batch into the mailboxes. The value was true somewhere between request
 * and response; the midpoint is the estimate with the smallest worst-case error. */
static void publish_batch(mbc *d, const mb_batch *b, int64_t t0, int64_t t1)
{
    bool bits = b->table == MB_COIL || b->table == MB_DISCRETE;
    for (size_t k = b->first; k < b->first + b->n; k++) {
        size_t i = d->map.order[k];
        mb_sig *s = &d->map.sigs[i];
        bool clamped;
        unsigned off = s->addr - b->addr;
        double v = bits ? rtc__mb_decode_bit(s, d->bits[off], &clamped)
                        : rtc__mb_decode_regs(s, &d->regs[off], &clamped);
        if (clamped)
            rtc__drv_count(&d->st.health[i].clamped);
        rtc__drv_publish(&d->st, i, s->mb, v, t0 + (t1 - t0) / 2, t1);
        s->last_ok_ns = t1;
    }
}

static void mark_batch(mbc *d, const mb_batch *b, rtc_quality q)
{
    for (size_t k = b->first; k < b->first + b->n; k++) {
        size_t i = d->map.order[k];
        rtc__drv_count(&d->st.health[i].errors);
        rtc__drv_set_quality(&d->st, i, d->map.sigs[i].mb, q);
    }
}

/* Poll every read batch; false when the link went down. */
static bool cycle_reads(mbc *d)
{
    for (size_t k = 0; k < d->map.n_reads; k++) {
        const mb_batch *b = &d->map.reads[k];
        int64_t t0 = rtc_time_now_ns();
        int kind = do_read(d, b);
        int64_t t1 = rtc_time_now_ns();
        rtc__drv_count(&d->st.requests);
        if (kind == LINK_OK) {
            rtc__drv_latency(&d->st, t1 - t0);
            d->timeouts_in_row = 0;
            publish_batch(d, b, t0, t1);
            continue;
        }
        if (kind == LINK_EXCEPTION)
            mark_batch(d, b, RTC_QUALITY_ERROR);
        if (request_failed(d, kind))
            return false;
    }
    return true;
}

/* Encode the batch's values (mailbox or latched safe value); true when anything changed. */
static bool encode_batch(mbc *d, const mb_batch *b, uint32_t *seqs)
{
    bool bits = b->table == MB_COIL, dirty = d->force_write || d->write_cycle;
    for (size_t k = b->first; k < b->first + b->n; k++) {
        size_t i = d->map.order[k];
        mb_sig *s = &d->map.sigs[i];
        rtc_sample smp = {0};
        if (!rtc_mailbox_read(s->mb, &smp))
            smp.seq = s->last_seq; /* writer busy: keep what the bench has */
        double v = d->latched && s->has_safe ? s->safe : smp.value;
        seqs[k - b->first] = smp.seq;
        dirty |= smp.seq != s->last_seq && smp.seq != 0;
        unsigned off = s->addr - b->addr;
        if (bits)
            d->bits[off] = rtc__mb_encode_bit(s, v);
        else if (rtc__mb_encode_regs(s, v, &d->regs[off]))
            rtc__drv_count(&d->st.health[i].clamped);
    }
    return dirty;
}

static int do_write(mbc *d, mb_table t, uint16_t addr, uint16_t count)
{
    int rc = t == MB_COIL ? modbus_write_bits(d->ctx, addr, count, d->bits)
                          : modbus_write_registers(d->ctx, addr, count, d->regs);
    return rc == -1 ? classify_errno(errno) : LINK_OK;
}

static bool cycle_writes(mbc *d)
{
    uint32_t seqs[2000];
    for (size_t k = 0; k < d->map.n_writes; k++) {
        const mb_batch *b = &d->map.writes[k];
        if (!encode_batch(d, b, seqs))
            continue;
        int64_t t0 = rtc_time_now_ns();
        int kind = do_write(d, b->table, b->addr, b->count);
        rtc__drv_count(&d->st.requests);
        if (kind == LINK_OK) {
            rtc__drv_latency(&d->st, rtc_time_now_ns() - t0);
            for (size_t j = 0; j < b->n; j++) {
                size_t i = d->map.order[b->first + j];
                d->map.sigs[i].last_seq = seqs[j];
                rtc__drv_publish_sent(&d->st, i);
            }
            continue;
        }
        if (kind == LINK_EXCEPTION)
            mark_batch(d, b, RTC_QUALITY_ERROR);
        if (request_failed(d, kind))
            return false;
    }
    d->force_write = false;
    return true;
}

static bool cycle_heartbeat(mbc *d)
{
    if (!d->map.hb || d->latched)
        return true; /* a latched (safe) driver lets the bench's watchdog expire */
    uint16_t v = rtc__mb_heartbeat_next(&d->map);
    int rc = d->map.hb_table == MB_COIL ? modbus_write_bit(d->ctx, d->map.hb_addr, v & 1)
                                        : modbus_write_register(d->ctx, d->map.hb_addr, v);
    rtc__drv_count(&d->st.requests);
    return rc != -1 || !request_failed(d, classify_errno(errno));
}

static void check_stale(mbc *d, int64_t now)
{
    for (size_t i = 0; i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        if (s->dir == RTC_IO_FROM_BENCH && s->last_ok_ns && now - s->last_ok_ns > d->stale_ns)
            rtc__drv_set_quality(&d->st, i, s->mb, RTC_QUALITY_STALE);
    }
}

/* ---- safe values ---- */

/* Write every safe value, one request per signal (they need not be contiguous). */
static int write_safe_now(mbc *d)
{
    int result = RTC_OK;
    for (size_t i = 0; i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        if (s->dir != RTC_IO_TO_BENCH || !s->has_safe)
            continue;
        if (s->table == MB_COIL)
            d->bits[0] = rtc__mb_encode_bit(s, s->safe);
        else
            rtc__mb_encode_regs(s, s->safe, d->regs);
        rtc__drv_count(&d->st.requests);
        if (do_write(d, s->table, s->addr, s->nregs) != LINK_OK) {
            rtc__drv_count(&d->st.errors);
            result = RTC_EIO;
        }
    }
    d->latched = true;
    if (result == RTC_OK)
        rtc__drv_count(&d->st.safe_writes);
    return result;
}

/* Write the safe values over the current link, or over a fresh one when there is none or
 * the current one fails them (it may be out of step after a timeout). Leaves the link open
 * when it wrote them. */
static int write_safe_values(mbc *d)
{
    if (d->ctx && write_safe_now(d) == RTC_OK)
        return RTC_OK;
    link_close(d);
    if (!link_open(d)) {
        d->latched = true;
        rtc_log(d->c.lg, RTC_LOG_ERROR, "modbus-client '%s': safe values not written: %s "
                "unreachable", d->component, d->rtu ? d->device : d->host);
        return RTC_EIO;
    }
    int rc = write_safe_now(d);
    if (rc != RTC_OK)
        rtc_log(d->c.lg, RTC_LOG_ERROR, "modbus-client '%s': safe values not written: %s",
                d->component, modbus_strerror(errno));
    return rc;
}

/* Run in the I/O thread, or in the caller when the thread is not running. */
static int safe_job(void *arg)
{
    mbc *d = arg;
    bool own = d->ctx == NULL;
    int rc = write_safe_values(d);
    if (own)
        link_close(d);
    return rc;
}

/* ---- I/O thread ---- */

static void run_cycle(mbc *d)
{
    bool ok = cycle_reads(d);
    if (ok)
        ok = cycle_writes(d);
    if (ok)
        ok = cycle_heartbeat(d);
    if (!ok) {
        rtc_log(d->c.lg, RTC_LOG_WARNING, "modbus-client '%s': link lost (%s); reconnecting",
                d->component, modbus_strerror(errno));
        link_close(d);
        mark_all_stale(d);
    }
}

static void *mbc_thread(void *arg)
{
    mbc *d = arg;
    int64_t next = rtc_time_now_ns();
    while (!rtc__drv_should_stop(&d->th)) {
        rtc__drv_safe_serve(&d->th, safe_job, d);
        if (!d->ctx && !link_open(d)) {
            mark_all_stale(d);
            int64_t wait = rtc__drv_backoff_next(&d->backoff_ns, d->backoff_min_ns,
                                                 d->backoff_max_ns, &d->rng);
            rtc__drv_sleep_interruptible(&d->th, wait);
            next = rtc_time_now_ns();
            continue;
        }
        rtc__drv_count(&d->st.cycles);
        run_cycle(d);
        check_stale(d, rtc_time_now_ns());
        next += d->poll_ns;
        int64_t now = rtc_time_now_ns();
        if (now > next) { /* skip missed periods, like cyclictest */
            rtc__drv_count(&d->st.overruns);
            next = now + d->poll_ns - (now - next) % d->poll_ns;
        }
        rtc__drv_sleep_interruptible(&d->th, next - now);
    }
    if (d->map.has_safe)
        write_safe_values(d); /* logs when they could not be written */
    link_close(d);
    return NULL;
}

static int mbc_start(void *self)
{
    mbc *d = self;
    if (!d)
        return RTC_EINVAL;
    d->latched = false;
    d->force_write = true;
    return rtc__drv_thread_start(&d->th, &d->c, mbc_thread, d);
}

static int mbc_stop(void *self)
{
    if (!self)
        return RTC_EINVAL;
    rtc__drv_thread_stop(&((mbc *)self)->th);
    return RTC_OK;
}

static int mbc_write_safe_values(void *self, int timeout_ms)
{
    if (!self)
        return RTC_EINVAL;
    return rtc__drv_safe_request(&((mbc *)self)->th, timeout_ms, safe_job, self);
}

static void mbc_close(void *self)
{
    mbc *d = self;
    if (!d)
        return;
    rtc__drv_thread_stop(&d->th);
    link_close(d);
    rtc__drv_thread_clear(&d->th);
    rtc__drv_stats_clear(&d->st);
    rtc__mb_map_clear(&d->map);
    free(d->host);
    free(d->device);
    free(d->component);
    free(d);
}

const rtc_driver_ops rtc_modbus_client_ops = {
    .name = "modbus-client",
    .open = mbc_open,
    .start = mbc_start,
    .stop = mbc_stop,
    .write_safe_values = mbc_write_safe_values,
    .close = mbc_close,
    .stats = rtc__drv_stats,
};
