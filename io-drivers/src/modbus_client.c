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
 * Connecting (the link contract, DESIGN.md T2): after the TCP connect (or opening the
 * line) the client measures the round trip with PROBES reads of its first batch (a write
 * batch's registers are read back: nothing is written), each allowed PROBE_NS; the
 * slowest one derives the request timeout and the loss time unless timeout_ms / loss_ms
 * set them (rtc_drv_link_measured), and only then is the link up. Until the engine
 * releases it at the run's first tick (rtc_driver_config.hold) the client reads but
 * writes nothing, heartbeat included.
 *
 * Failures are never fatal (STYLE rule 22, mb2hal): an exception response marks the
 * batch's signals ERROR and keeps the link. On TCP a timeout waits for the late answer
 * (up to the loss time, plus T under on_loss=estimate:T) and takes it, so the next
 * request is paired with its own answer (libmodbus would otherwise take the late one for
 * it: a mismatched transaction id); a late answer to a read is published as a late sample
 * (dated as any other), so a busy peer costs latency, not data or the connection. Only an
 * answer that never comes, or a mismatched one, drops the link. On RTU a timeout waits one more response timeout for a
 * late answer, flushes the line, and keeps it for up to three timeouts in a row. Anything
 * else (reset, refused, broken pipe) closes the link, flags every from-bench signal STALE
 * (the last good value stays readable), and reconnects after an exponential backoff with
 * jitter. Safe values are written over a fresh connection when the current one fails.
 *
 * The I/O thread, its loop and deadlines, the safe-value hand-off, the backoff, the link
 * state and the counters are the driver base's (rtcosim/driver_base.h); this file holds
 * the hooks: cycle (connect when needed, poll), safe, end.
 */
#include "modbus_priv.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <assert.h>
#include <errno.h>
#include <modbus.h>
#include <stdlib.h>
#include <string.h>

enum { LINK_OK = 0, LINK_EXCEPTION, LINK_TIMEOUT, LINK_PROTOCOL, LINK_DOWN };

#define PROBES RTC_MODBUS_CLIENT_PROBES /* round-trip probes on each new connection */
#define PROBE_NS INT64_C(1000000000)  /* each may take this long (or the period) */

/* The client's own counters (rtc_driver_stats.counters, kind "modbus_client"). */
enum { MBC_EXCEPTIONS, MBC_N_COUNTERS };
static const char *const mbc_counters[MBC_N_COUNTERS] = {"exceptions"};

typedef struct mbc {
    rtc_drv_base b; /* first: the base's ops take the object as their base */
    mb_map map;
    /* settings */
    bool rtu;
    char *host, *device;
    long port, baud, data_bits, stop_bits, unit_id;
    char parity;
    bool write_cycle;
    /* I/O thread state */
    modbus_t *ctx;
    bool force_write;
    int timeouts_in_row;
    const char *why; /* static text: why the last request failed */
    uint16_t regs[128];
    uint8_t bits[2000];
} mbc;
static_assert(offsetof(mbc, b) == 0, "the base must come first");

static const char *const transports[] = {"tcp", "rtu", NULL};
static const char *const parities[] = {"N", "E", "O", NULL};
static const char *const write_modes[] = {"on_change", "cycle", NULL};

/* ---- settings ---- */

static int parse_line(mbc *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    int tr = 0, par = 0;
    int rc = rtc_drv_get_choice(&d->b, NULL, kv, n, "transport", transports, 0, &tr);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "port", 502, 0, 65535, &d->port);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "baud", 19200, 50, 4000000, &d->baud);
    if (rc == RTC_OK)
        rc = rtc_drv_get_choice(&d->b, NULL, kv, n, "parity", parities, 0, &par);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "data_bits", 8, 5, 8, &d->data_bits);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "stop_bits", 1, 1, 2, &d->stop_bits);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "unit_id", 1, 0, 255, &d->unit_id);
    if (rc != RTC_OK)
        return rc;
    d->rtu = tr == 1;
    d->parity = "NEO"[par];
    const char *host = rtc_kv_get(kv, n, "host"), *dev = rtc_kv_get(kv, n, "device");
    if (d->rtu && !dev)
        return rtc_drv_bad(&d->b, NULL, "transport rtu needs setting device (a tty path)");
    d->host = strdup(host ? host : "127.0.0.1");
    d->device = strdup(dev ? dev : "");
    return d->host && d->device ? RTC_OK : RTC_ENOMEM;
}

/* The write mode; the period, timeout_ms, stale_ms, the link contract, backoff, priority
 * and cpu are the base's keys. */
static int parse_timing(mbc *d, const rtc_driver_config *cfg)
{
    int wm = 0;
    int rc = rtc_drv_get_choice(&d->b, NULL, cfg->settings, cfg->n_settings, "write_mode",
                                write_modes, 0, &wm);
    d->write_cycle = wm == 1;
    return rc;
}

static const rtc_drv_desc mbc_desc; /* below: what the base needs to know */

static int mbc_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    if (!cfg || !self)
        return RTC_EINVAL;
    rtc_drv_base *b;
    int rc = rtc_drv_open(&mbc_desc, sizeof(mbc), cfg, lg, &b);
    if (rc != RTC_OK)
        return rc;
    mbc *d = (mbc *)b;
    long gap;
    rc = rtc_drv_get_int(b, NULL, cfg->settings, cfg->n_settings, "max_gap", 0, 0, 100, &gap);
    if (rc == RTC_OK)
        rc = parse_line(d, cfg);
    if (rc == RTC_OK)
        rc = parse_timing(d, cfg);
    if (rc == RTC_OK)
        rc = rtc__mb_map_build(&d->map, cfg, b, false, (int)gap);
    if (rc != RTC_OK) {
        rtc_drv_close(b);
        return rc;
    }
    if (d->rtu)
        rtc_drv_link_address(b, "%s", d->device);
    else
        rtc_drv_link_address(b, "%s:%ld", d->host, d->port);
    /* stop() writes the safe values again even when latched: a connection re-made since
     * the latch gets them once more */
    b->stop_safe = b->n_safe ? RTC_DRV_STOP_SAFE_ALWAYS : RTC_DRV_STOP_SAFE_NONE;
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

/* The static text of a failed libmodbus call's errno (its own codes, or the system's). */
static const char *mb_why(int e)
{
    return e > MODBUS_ENOBASE ? modbus_strerror(e) : rtc_drv_strerror(e);
}

/* Drop the connection; @p why (static text) is the link's reason when it was up. */
static void link_close(mbc *d, const char *why)
{
    if (d->ctx) {
        modbus_close(d->ctx);
        modbus_free(d->ctx);
        d->ctx = NULL;
    }
    rtc_drv_link_down(&d->b, why);
}

/* libmodbus's response and byte timeout: one request's bound. */
static void set_timeout(modbus_t *ctx, int64_t ns)
{
    uint32_t us = (uint32_t)(ns / 1000);
    modbus_set_response_timeout(ctx, us / 1000000, us % 1000000);
    modbus_set_byte_timeout(ctx, us / 1000000, us % 1000000);
}

/* A probe, or a connect, may take this long: the round trip is not known yet (and a probe
 * that failed on a busy moment would cost a whole reconnect). */
static int64_t probe_ns(mbc *d)
{
    return d->b.period_ns > PROBE_NS ? d->b.period_ns : PROBE_NS;
}

static modbus_t *new_ctx(mbc *d)
{
    modbus_t *ctx = d->rtu ? modbus_new_rtu(d->device, (int)d->baud, d->parity,
                                            (int)d->data_bits, (int)d->stop_bits)
                           : modbus_new_tcp(d->host, (int)d->port);
    if (!ctx)
        return NULL;
    /* Connect and probe with a generous bound; then the timeout in force (below the poll
     * period, STYLE rule 22) bounds one request, and the byte timeout the gap inside a
     * frame. */
    set_timeout(ctx, probe_ns(d));
    modbus_set_error_recovery(ctx, MODBUS_ERROR_RECOVERY_NONE);
    if (d->rtu || d->unit_id != 1)
        modbus_set_slave(ctx, (int)d->unit_id);
    return ctx;
}

/* A connection (the context in d->ctx) or false, the reason kept as the link's error. */
static bool connect_ctx(mbc *d)
{
    d->ctx = new_ctx(d);
    if (!d->ctx) {
        rtc_drv_link_error(&d->b, rtc_drv_strerror(errno));
        return false;
    }
    if (modbus_connect(d->ctx) == -1) {
        rtc_drv_link_error(&d->b, rtc_drv_strerror(errno));
        modbus_free(d->ctx);
        d->ctx = NULL;
        return false;
    }
    return true;
}

static int do_read(mbc *d, const mb_batch *b);
static void publish_batch(mbc *d, const mb_batch *b, int64_t t0, int64_t t1);

/* The round trip of a fresh connection: PROBES reads of the first batch (a read batch,
 * or the registers of a write batch read back), the slowest kept; -1 when one got no
 * answer, 0 when there is nothing to read. An exception is an answer too. */
static int64_t probe(mbc *d)
{
    const mb_batch *b = d->map.n_reads ? &d->map.reads[0]
                        : d->map.n_writes ? &d->map.writes[0] : NULL;
    int64_t worst = 0;
    for (int k = 0; b && k < PROBES; k++) {
        int64_t t0 = rtc_time_now_ns();
        int kind = do_read(d, b);
        int64_t t1 = rtc_time_now_ns();
        rtc_drv_count(&d->b.st.requests);
        if (kind != LINK_OK && kind != LINK_EXCEPTION) {
            rtc_drv_count(kind == LINK_TIMEOUT ? &d->b.st.timeouts : &d->b.st.errors);
            rtc_drv_link_error(&d->b, kind == LINK_TIMEOUT ? "no answer while connecting"
                                                           : mb_why(errno));
            return -1;
        }
        rtc_drv_latency(&d->b, t1 - t0);
        worst = t1 - t0 > worst ? t1 - t0 : worst;
        if (kind == LINK_OK && d->map.n_reads)
            publish_batch(d, b, t0, t1); /* a read batch: its values are fresh samples */
    }
    return worst;
}

/* Connect, measure, and the link is up with its timeouts derived (rtc_drv_link_measured). */
static bool link_open(mbc *d)
{
    if (!connect_ctx(d))
        return false;
    int64_t rtt = probe(d);
    if (rtt < 0) {
        link_close(d, NULL);
        return false;
    }
    if (rtt > 0)
        rtc_drv_link_measured(&d->b, rtt);
    set_timeout(d->ctx, rtc_drv_timeout_ns(&d->b));
    rtc_drv_count(&d->b.st.connects);
    rtc_drv_link_up(&d->b);
    d->force_write = true;
    d->timeouts_in_row = 0;
    return true;
}

/* TCP, after a response timeout: the late answer into @p rsp (its length), or -1 when it
 * does not come. Taking it keeps the next request paired with its own answer. It is waited
 * for as long as the link may be lost before its policy stops the run (the loss time, plus
 * T under estimate:T): a reply that is merely late never costs the connection. */
static int late_answer(mbc *d, uint8_t *rsp)
{
    const rtc_link *l = &d->b.link;
    int64_t tmo = rtc_drv_timeout_ns(&d->b);
    int64_t wait = atomic_load_explicit(&l->loss_ns, memory_order_relaxed) - tmo +
                   (l->on_loss == RTC_LINK_ESTIMATE ? l->estimate_ns : 0);
    set_timeout(d->ctx, wait > tmo ? wait : tmo);
    int n = modbus_receive_confirmation(d->ctx, rsp);
    set_timeout(d->ctx, tmo);
    return n > 0 ? n : -1;
}

/* A late answer (@p rsp, @p n bytes) to the read of batch @p b: its values into d->regs or
 * d->bits, as libmodbus would have decoded them. false when it is no such answer (an
 * exception, or the function code or length do not match the request). */
static bool take_late_read(mbc *d, const mb_batch *b, const uint8_t *rsp, int n)
{
    static const uint8_t fcs[MB_NTABLES] = {[MB_COIL] = 1, [MB_DISCRETE] = 2,
                                            [MB_HOLDING] = 3, [MB_INPUT] = 4};
    bool bits = b->table == MB_COIL || b->table == MB_DISCRETE;
    int bytes = bits ? (b->count + 7) / 8 : 2 * b->count;
    int hl = modbus_get_header_length(d->ctx);
    const uint8_t *p = rsp + hl;
    if (n != hl + 2 + bytes || p[0] != fcs[b->table] || p[1] != bytes)
        return false;
    for (int i = 0; i < b->count; i++) {
        if (bits)
            d->bits[i] = (uint8_t)((p[2 + i / 8] >> (i % 8)) & 1);
        else
            d->regs[i] = (uint16_t)(p[2 + 2 * i] << 8 | p[3 + 2 * i]);
    }
    return true;
}

/* Count a failed request by kind; returns true when the link must be dropped. */
static bool request_failed(mbc *d, int kind)
{
    switch (kind) {
    case LINK_EXCEPTION:
        rtc_drv_count(&d->b.st.named[MBC_EXCEPTIONS]);
        return false;
    case LINK_TIMEOUT:
        rtc_drv_count(&d->b.st.timeouts);
        if (!d->rtu) { /* the late answer would be taken for the next request's */
            uint8_t rsp[MODBUS_TCP_MAX_ADU_LENGTH];
            d->why = "no answer, not even late";
            return late_answer(d, rsp) < 0;
        }
        /* RTU frames carry no transaction id: let a late answer arrive, then drop it */
        rtc_drv_sleep(&d->b, rtc_drv_timeout_ns(&d->b));
        modbus_flush(d->ctx);
        d->why = "three timeouts in a row";
        return ++d->timeouts_in_row >= 3;
    case LINK_PROTOCOL:
        rtc_drv_count(&d->b.st.errors);
        d->why = mb_why(errno);
        if (!d->rtu)
            return true; /* out of step with the peer: resynchronise by reconnecting */
        modbus_flush(d->ctx);
        return false;
    default:
        rtc_drv_count(&d->b.st.errors);
        d->why = mb_why(errno);
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
            rtc_drv_count(&d->b.sig[i].clamped);
        rtc_drv_publish(&d->b, i, v, t0 + (t1 - t0) / 2, t1);
    }
}

static void mark_batch(mbc *d, const mb_batch *b, rtc_quality q)
{
    for (size_t k = b->first; k < b->first + b->n; k++) {
        size_t i = d->map.order[k];
        rtc_drv_count(&d->b.sig[i].errors);
        rtc_drv_set_quality(&d->b, i, q);
    }
}

/* TCP: read batch @p b (sent at @p t0) timed out; its late answer, when it comes, is a
 * late sample like any other. Returns LINK_OK (published), LINK_PROTOCOL (an answer, but
 * not one to use: the stream is in step all the same) or LINK_DOWN (none came). */
static int read_late(mbc *d, const mb_batch *b, int64_t t0)
{
    uint8_t rsp[MODBUS_TCP_MAX_ADU_LENGTH];
    rtc_drv_count(&d->b.st.timeouts);
    int n = late_answer(d, rsp);
    if (n < 0) {
        d->why = "no answer, not even late";
        return LINK_DOWN;
    }
    if (!take_late_read(d, b, rsp, n))
        return LINK_PROTOCOL;
    int64_t t1 = rtc_time_now_ns();
    rtc_drv_latency(&d->b, t1 - t0);
    publish_batch(d, b, t0, t1);
    return LINK_OK;
}

/* Poll every read batch; false when the link went down. */
static bool cycle_reads(mbc *d)
{
    for (size_t k = 0; k < d->map.n_reads; k++) {
        const mb_batch *b = &d->map.reads[k];
        int64_t t0 = rtc_time_now_ns();
        int kind = do_read(d, b);
        int64_t t1 = rtc_time_now_ns();
        rtc_drv_count(&d->b.st.requests);
        if (kind == LINK_TIMEOUT && !d->rtu) { /* counted; a late answer is a late sample */
            kind = read_late(d, b, t0);
            if (kind == LINK_DOWN)
                return false;
            if (kind == LINK_PROTOCOL)
                mark_batch(d, b, RTC_QUALITY_ERROR);
            continue;
        }
        if (kind == LINK_OK) {
            rtc_drv_latency(&d->b, t1 - t0);
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
        if (!rtc_mailbox_read(d->b.sig[i].mb, &smp))
            smp.seq = s->last_seq; /* writer busy: keep what the bench has */
        const rtc_drv_signal *bs = &d->b.sig[i];
        double v = d->b.latched && bs->has_safe ? bs->safe : smp.value;
        seqs[k - b->first] = smp.seq;
        dirty |= smp.seq != s->last_seq && smp.seq != 0;
        unsigned off = s->addr - b->addr;
        if (bits)
            d->bits[off] = rtc__mb_encode_bit(s, v);
        else if (rtc__mb_encode_regs(s, v, &d->regs[off]))
            rtc_drv_count(&d->b.sig[i].clamped);
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
        rtc_drv_count(&d->b.st.requests);
        if (kind == LINK_OK) {
            int64_t t1 = rtc_time_now_ns();
            rtc_drv_latency(&d->b, t1 - t0);
            rtc_drv_alive(&d->b, t1);
            for (size_t j = 0; j < b->n; j++) {
                size_t i = d->map.order[b->first + j];
                d->map.sigs[i].last_seq = seqs[j];
                rtc_drv_sent(&d->b, i);
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
    if (!d->map.hb || d->b.latched || rtc_drv_held(&d->b))
        return true; /* a latched (safe) driver lets the bench's watchdog expire */
    uint16_t v = rtc__mb_heartbeat_next(&d->map);
    int rc = d->map.hb_table == MB_COIL ? modbus_write_bit(d->ctx, d->map.hb_addr, v & 1)
                                        : modbus_write_register(d->ctx, d->map.hb_addr, v);
    rtc_drv_count(&d->b.st.requests);
    return rc != -1 || !request_failed(d, classify_errno(errno));
}

/* ---- safe values ---- */

/* Write every safe value, one request per signal (they need not be contiguous). */
static int write_safe_now(mbc *d)
{
    int result = RTC_OK;
    for (size_t i = 0; i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        double safe = d->b.sig[i].safe;
        if (s->dir != RTC_IO_TO_BENCH || !d->b.sig[i].has_safe)
            continue;
        if (s->table == MB_COIL)
            d->bits[0] = rtc__mb_encode_bit(s, safe);
        else
            rtc__mb_encode_regs(s, safe, d->regs);
        rtc_drv_count(&d->b.st.requests);
        if (do_write(d, s->table, s->addr, s->nregs) != LINK_OK) {
            rtc_drv_count(&d->b.st.errors);
            result = RTC_EIO;
        }
    }
    return result;
}

/* The safe hook: write the safe values over the current link, or over a fresh one when
 * there is none or the current one fails them (it may be out of step after a timeout). A
 * link it opened for this alone (the thread not running) is closed again. */
static int mbc_safe(rtc_drv_base *b)
{
    mbc *d = (mbc *)b;
    bool own = d->ctx == NULL;
    int rc = RTC_OK;
    if (!d->ctx || write_safe_now(d) != RTC_OK) {
        link_close(d, d->ctx ? mb_why(errno) : NULL);
        if (!connect_ctx(d)) {
            const char *why = atomic_load_explicit(&b->link.error, memory_order_relaxed);
            return rtc_drv_error(b, RTC_EIO, "safe values not written: %s unreachable (%s)",
                                 b->link.address, why ? why : "no connection");
        }
        set_timeout(d->ctx, rtc_drv_timeout_ns(b));
        if ((rc = write_safe_now(d)) != RTC_OK)
            rtc_drv_error(b, rc, "safe values not written: %s", modbus_strerror(errno));
        if (!own) /* the cycle measures and brings up a link of its own */
            link_close(d, NULL);
    }
    if (own)
        link_close(d, NULL);
    return rc;
}

/* ---- I/O thread ---- */

/* One poll cycle; false only when there is no link and it cannot be made now. */
static bool mbc_cycle(rtc_drv_base *b, int64_t now)
{
    (void)now;
    mbc *d = (mbc *)b;
    if (!d->ctx && !link_open(d)) {
        rtc_drv_stale_all(b);
        return false; /* the base retries after a backoff */
    }
    bool ok = cycle_reads(d);
    if (ok && !rtc_drv_held(b)) /* nothing goes to the bench before the run's first tick */
        ok = cycle_writes(d);
    if (ok)
        ok = cycle_heartbeat(d);
    if (!ok) { /* the base logs the loss and its reason */
        link_close(d, d->why);
        rtc_drv_stale_all(b);
    }
    rtc_drv_check_stale(b, rtc_time_now_ns());
    return true;
}

static void mbc_end(rtc_drv_base *b)
{
    link_close((mbc *)b, NULL);
}

static void mbc_clear(rtc_drv_base *b)
{
    mbc *d = (mbc *)b;
    link_close(d, NULL);
    rtc__mb_map_clear(&d->map);
    free(d->host);
    free(d->device);
}

static const rtc_drv_desc mbc_desc = {
    .name = "modbus-client",
    .kind = "modbus_client",
    .counters = mbc_counters,
    .n_counters = MBC_N_COUNTERS,
    .period_key = "poll_ms",
    .period_default = 10,
    .period_min = 0.1,
    .period_max = 60000,
    .stale_periods = 3,
    .reconnects = true,
    .connect_ms = 2000,
    .judge_silence = true,
    .requests = true,
    .cycle = mbc_cycle,
    .safe = mbc_safe,
    .end = mbc_end,
    .clear = mbc_clear,
};

const rtc_driver_ops rtc_modbus_client_ops = {
    .name = "modbus-client",
    .open = mbc_open,
    .start = rtc_drv_start,
    .stop = rtc_drv_stop,
    .write_safe_values = rtc_drv_write_safe_values,
    .close = rtc_drv_close,
    .stats = rtc_drv_stats,
    .link = rtc_drv_link,
};
