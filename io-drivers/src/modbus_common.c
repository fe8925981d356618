/*
 * Modbus register map and value codec shared by the client and server drivers.
 *
 * The map is computed once at open (STYLE rule 21): per signal its table, address,
 * register count and codec; then the signals are sorted by (table, address) and grouped
 * into batches of contiguous addresses, so the client's poll cycle is a fixed list of
 * requests and the per-cycle work only converts and copies.
 *
 * Codec: a value of N registers is an N*16-bit integer (or IEEE-754 bit pattern). With
 * word_order=big the most significant word sits at the lowest address (Modbus' own rule
 * for a single register, extended: "ABCD"); little reverses the words ("CDAB"); byte_swap
 * swaps the two bytes inside each register ("BADC"/"DCBA").
 */
#include "modbus_priv.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const rtc__mb_table_names[] = {"coil", "discrete", "holding", "input", NULL};
const char *const rtc__mb_type_names[] = {"bool",   "int16",  "uint16", "int32",  "uint32",
                                     "float32", "int64", "uint64", "float64", NULL};
static const char *const word_orders[] = {"big", "little", NULL};
static const char *const hb_modes[] = {"toggle", "count", NULL};

uint16_t rtc__mb_type_regs(mb_dtype t)
{
    static const uint16_t regs[MB_NTYPES] = {1, 1, 1, 2, 2, 2, 4, 4, 4};
    return regs[t];
}

/* Default Modbus type for an engine type when the map gives none. */
static mb_dtype default_type(rtc_type t, mb_table table)
{
    if (table == MB_COIL || table == MB_DISCRETE || t == RTC_TYPE_BOOL)
        return MB_BOOL;
    switch (t) {
    case RTC_TYPE_INT8: case RTC_TYPE_INT16: return MB_INT16;
    case RTC_TYPE_UINT8: case RTC_TYPE_UINT16: return MB_UINT16;
    case RTC_TYPE_INT32: case RTC_TYPE_ENUM: return MB_INT32;
    case RTC_TYPE_UINT32: return MB_UINT32;
    case RTC_TYPE_INT64: return MB_INT64;
    case RTC_TYPE_UINT64: return MB_UINT64;
    default: return MB_FLOAT32;
    }
}

static int parse_codec(mb_sig *s, const rtc_io_signal *in, const rtc_drv_base *b)
{
    const rtc_kv *kv = in->settings;
    size_t n = in->n_settings;
    int wo = 0, type = (int)default_type(in->type, s->table);
    int rc = rtc_drv_get_choice(b, in->name, kv, n, "type", rtc__mb_type_names, type, &type);
    if (rc == RTC_OK)
        rc = rtc_drv_get_choice(b, in->name, kv, n, "word_order", word_orders, 0, &wo);
    if (rc == RTC_OK)
        rc = rtc_drv_get_bool(b, in->name, kv, n, "byte_swap", false, &s->byte_swap);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(b, in->name, kv, n, "scale", 1.0, -1e300, 1e300, &s->scale);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(b, in->name, kv, n, "offset", 0.0, -1e300, 1e300, &s->offset);
    if (rc == RTC_OK)
        rc = rtc_drv_get_opt_double(b, in->name, kv, n, "min", &s->has_min, &s->min);
    if (rc == RTC_OK)
        rc = rtc_drv_get_opt_double(b, in->name, kv, n, "max", &s->has_max, &s->max);
    if (rc != RTC_OK)
        return rc;
    if (s->scale == 0.0)
        return rtc_drv_bad(b, in->name, "setting scale=0: scale must be non-zero");
    if (s->has_min && s->has_max && s->min > s->max)
        return rtc_drv_bad(b, in->name, "min %g is above max %g", s->min, s->max);
    s->type = (mb_dtype)type;
    s->word_little = wo == 1;
    bool bits = s->table == MB_COIL || s->table == MB_DISCRETE;
    if (bits && s->type != MB_BOOL)
        return rtc_drv_bad(b, in->name, "table %s holds single bits: type must be bool, not %s",
                           rtc__mb_table_names[s->table], rtc__mb_type_names[s->type]);
    s->nregs = bits ? 1 : rtc__mb_type_regs(s->type);
    return RTC_OK;
}

static int parse_signal(mb_sig *s, const rtc_io_signal *in, const rtc_drv_base *b, bool server)
{
    long addr;
    int table = in->type == RTC_TYPE_BOOL ? MB_COIL : MB_HOLDING;
    int rc = rtc_drv_get_choice(b, in->name, in->settings, in->n_settings, "table",
                                rtc__mb_table_names, table, &table);
    if (rc != RTC_OK)
        return rc;
    if (!rtc_kv_get(in->settings, in->n_settings, "address"))
        return rtc_drv_bad(b, in->name, "setting address is required");
    rc = rtc_drv_get_int(b, in->name, in->settings, in->n_settings, "address", 0, 0, 65535,
                         &addr);
    if (rc != RTC_OK)
        return rc;
    s->table = (mb_table)table;
    s->addr = (uint16_t)addr;
    s->dir = in->dir;
    /* What the peer may write: the client writes only coils/holding; a PLC writing into
     * the server likewise. Read-only tables carry the other direction. */
    bool writable_table = s->table == MB_COIL || s->table == MB_HOLDING;
    bool peer_writes = server ? in->dir == RTC_IO_FROM_BENCH : in->dir == RTC_IO_TO_BENCH;
    if (peer_writes && !writable_table)
        return rtc_drv_bad(b, in->name, "table %s is read-only: a %s signal needs coil or holding",
                           rtc__mb_table_names[s->table],
                           in->dir == RTC_IO_TO_BENCH ? "to-bench" : "from-bench");
    rc = parse_codec(s, in, b);
    if (rc == RTC_OK && s->addr + s->nregs > 65536)
        return rtc_drv_bad(b, in->name, "address %u + %u registers exceeds 65535", s->addr,
                           s->nregs);
    return rc;
}

/* qsort_r (glibc, _GNU_SOURCE) so two drivers may open on different threads at once. */
static int cmp_order(const void *a, const void *b, void *arg)
{
    const mb_map *m = arg;
    const mb_sig *x = &m->sigs[*(const size_t *)a];
    const mb_sig *y = &m->sigs[*(const size_t *)b];
    if (x->table != y->table)
        return (int)x->table - (int)y->table;
    return (int)x->addr - (int)y->addr;
}

static int check_overlaps(mb_map *m, const rtc_drv_base *b)
{
    for (size_t k = 1; k < m->n; k++) {
        const mb_sig *p = &m->sigs[m->order[k - 1]], *s = &m->sigs[m->order[k]];
        if (p->table == s->table && s->addr < p->addr + p->nregs)
            return rtc_drv_bad(b, s->name, "%s %u overlaps signal '%s' (%s %u..%u)",
                               rtc__mb_table_names[s->table], s->addr, p->name,
                               rtc__mb_table_names[p->table], p->addr, p->addr + p->nregs - 1);
    }
    for (size_t k = 0; m->hb && k < m->n; k++) {
        const mb_sig *s = &m->sigs[k];
        if (s->table == m->hb_table && m->hb_addr >= s->addr && m->hb_addr < s->addr + s->nregs)
            return rtc_drv_bad(b, NULL, "heartbeat %s %u overlaps signal '%s'",
                               rtc__mb_table_names[m->hb_table], m->hb_addr, s->name);
    }
    return RTC_OK;
}

static uint16_t batch_limit(mb_table t, bool write)
{
    bool bits = t == MB_COIL || t == MB_DISCRETE;
    if (write)
        return bits ? 1968 : 123; /* MODBUS_MAX_WRITE_BITS / _REGISTERS */
    return bits ? 2000 : 125;     /* MODBUS_MAX_READ_BITS / _REGISTERS */
}

/* Group the sorted signals of one direction into batches. */
static int make_batches(mb_map *m, rtc_io_dir dir, bool write, int max_gap, mb_batch **out,
                        size_t *n_out)
{
    mb_batch *b = calloc(m->n ? m->n : 1, sizeof *b);
    if (!b)
        return RTC_ENOMEM;
    size_t nb = 0;
    for (size_t k = 0; k < m->n; k++) {
        const mb_sig *s = &m->sigs[m->order[k]];
        if (s->dir != dir)
            continue;
        mb_batch *cur = nb ? &b[nb - 1] : NULL;
        int end = cur ? cur->addr + cur->count : 0;
        bool joins = cur && cur->table == s->table && s->addr <= end + max_gap &&
                     s->addr + s->nregs - cur->addr <= batch_limit(s->table, write) &&
                     cur->first + cur->n == k; /* no signal of the other direction between */
        if (joins) {
            cur->count = (uint16_t)(s->addr + s->nregs - cur->addr);
            cur->n++;
        } else {
            b[nb++] = (mb_batch){.table = s->table, .addr = s->addr, .count = s->nregs,
                                 .first = k, .n = 1};
        }
    }
    *out = b;
    *n_out = nb;
    return RTC_OK;
}

static int parse_heartbeat(mb_map *m, const rtc_driver_config *cfg, const rtc_drv_base *b)
{
    const char *hb = rtc_kv_get(cfg->settings, cfg->n_settings, "heartbeat");
    int mode = 0;
    int rc = rtc_drv_get_choice(b, NULL, cfg->settings, cfg->n_settings, "heartbeat_mode",
                                hb_modes, 0, &mode);
    if (rc != RTC_OK || !hb)
        return rc;
    const char *colon = strchr(hb, ':');
    int64_t addr = 0;
    if (!colon || rtc_parse_i64(colon + 1, 0, 65535, RTC_PARSE_HEX, &addr) != RTC_OK)
        return rtc_drv_bad(b, NULL, "setting heartbeat=%s: expected coil:<address> or "
                           "holding:<address>", hb);
    if (strncmp(hb, "coil:", 5) == 0)
        m->hb_table = MB_COIL;
    else if (strncmp(hb, "holding:", 8) == 0)
        m->hb_table = MB_HOLDING;
    else
        return rtc_drv_bad(b, NULL, "setting heartbeat=%s: table must be coil or holding", hb);
    m->hb = true;
    m->hb_addr = (uint16_t)addr;
    m->hb_count = mode == 1;
    return RTC_OK;
}

static void compute_spans(mb_map *m)
{
    for (int t = 0; t < MB_NTABLES; t++) {
        m->lo[t] = 65536;
        m->hi[t] = 0;
    }
    for (size_t i = 0; i < m->n; i++) {
        const mb_sig *s = &m->sigs[i];
        if (s->addr < m->lo[s->table])
            m->lo[s->table] = s->addr;
        if (s->addr + s->nregs > m->hi[s->table])
            m->hi[s->table] = s->addr + s->nregs;
    }
    if (m->hb) {
        if (m->hb_addr < m->lo[m->hb_table])
            m->lo[m->hb_table] = m->hb_addr;
        if (m->hb_addr + 1 > m->hi[m->hb_table])
            m->hi[m->hb_table] = m->hb_addr + 1;
    }
    for (int t = 0; t < MB_NTABLES; t++)
        if (m->hi[t] == 0)
            m->lo[t] = 0;
}

int rtc__mb_map_build(mb_map *m, const rtc_driver_config *cfg, const rtc_drv_base *b,
                      bool server, int max_gap)
{
    memset(m, 0, sizeof *m);
    int rc = RTC_ENOMEM;
    m->n = cfg->n_signals;
    m->sigs = calloc(m->n ? m->n : 1, sizeof *m->sigs);
    m->order = calloc(m->n ? m->n : 1, sizeof *m->order);
    if (!m->sigs || !m->order)
        goto out;
    for (size_t i = 0; i < m->n; i++) {
        const rtc_io_signal *in = &cfg->signals[i]; /* name and mailbox: rtc_drv_open */
        if (!(m->sigs[i].name = strdup(in->name)))
            goto out;
        if ((rc = parse_signal(&m->sigs[i], in, b, server)) != RTC_OK)
            goto out;
        m->order[i] = i;
    }
    if ((rc = parse_heartbeat(m, cfg, b)) != RTC_OK)
        goto out;
    qsort_r(m->order, m->n, sizeof *m->order, cmp_order, m);
    if ((rc = check_overlaps(m, b)) != RTC_OK)
        goto out;
    compute_spans(m);
    rc = make_batches(m, RTC_IO_FROM_BENCH, false, max_gap, &m->reads, &m->n_reads);
    if (rc == RTC_OK)
        rc = make_batches(m, RTC_IO_TO_BENCH, true, 0, &m->writes, &m->n_writes);
out:
    if (rc != RTC_OK)
        rtc__mb_map_clear(m);
    return rc;
}

void rtc__mb_map_clear(mb_map *m)
{
    for (size_t i = 0; m->sigs && i < m->n; i++)
        free(m->sigs[i].name);
    free(m->sigs);
    free(m->order);
    free(m->reads);
    free(m->writes);
    memset(m, 0, sizeof *m);
}

/* ---- codec ---- */

/* Registers <-> big-endian 64-bit integer of nregs words, honouring word and byte order. */
static uint64_t regs_to_raw(const mb_sig *s, const uint16_t *regs)
{
    uint64_t raw = 0;
    for (unsigned k = 0; k < s->nregs; k++) {
        uint16_t w = regs[s->word_little ? s->nregs - 1 - k : k];
        if (s->byte_swap)
            w = (uint16_t)((w >> 8) | (w << 8));
        raw = (raw << 16) | w;
    }
    return raw;
}

static void raw_to_regs(const mb_sig *s, uint64_t raw, uint16_t *regs)
{
    for (unsigned k = 0; k < s->nregs; k++) {
        uint16_t w = (uint16_t)(raw >> (16 * (s->nregs - 1 - k)));
        if (s->byte_swap)
            w = (uint16_t)((w >> 8) | (w << 8));
        regs[s->word_little ? s->nregs - 1 - k : k] = w;
    }
}

static double clamp_minmax(const mb_sig *s, double v, bool *clamped)
{
    if (s->has_min && v < s->min) {
        *clamped = true;
        return s->min;
    }
    if (s->has_max && v > s->max) {
        *clamped = true;
        return s->max;
    }
    return v;
}

double rtc__mb_decode_regs(const mb_sig *s, const uint16_t *regs, bool *clamped)
{
    uint64_t raw = regs_to_raw(s, regs);
    double x;
    switch (s->type) {
    case MB_BOOL: x = raw != 0; break;
    case MB_INT16: x = (int16_t)raw; break;
    case MB_UINT16: x = (uint16_t)raw; break;
    case MB_INT32: x = (int32_t)raw; break;
    case MB_UINT32: x = (uint32_t)raw; break;
    case MB_INT64: x = (double)(int64_t)raw; break;
    case MB_UINT64: x = (double)raw; break;
    case MB_FLOAT32: {
        uint32_t u = (uint32_t)raw;
        float f;
        memcpy(&f, &u, sizeof f);
        x = f;
        break;
    }
    default: memcpy(&x, &raw, sizeof x); break; /* MB_FLOAT64 */
    }
    *clamped = false;
    return clamp_minmax(s, x * s->scale + s->offset, clamped);
}

/* Round and saturate to [lo, hi]; *clamped when saturated or NaN. */
static double saturate(double r, double lo, double hi, bool *clamped)
{
    if (isnan(r)) {
        *clamped = true;
        return 0.0;
    }
    r = nearbyint(r);
    if (r < lo) {
        *clamped = true;
        return lo;
    }
    if (r > hi) {
        *clamped = true;
        return hi;
    }
    return r;
}

bool rtc__mb_encode_regs(const mb_sig *s, double v, uint16_t *regs)
{
    bool clamped = false;
    double r = (clamp_minmax(s, v, &clamped) - s->offset) / s->scale;
    uint64_t raw;
    switch (s->type) {
    case MB_BOOL: raw = r != 0.0 && !isnan(r); break;
    case MB_INT16: raw = (uint16_t)(int16_t)saturate(r, -32768.0, 32767.0, &clamped); break;
    case MB_UINT16: raw = (uint16_t)saturate(r, 0.0, 65535.0, &clamped); break;
    case MB_INT32: raw = (uint32_t)(int32_t)saturate(r, -2147483648.0, 2147483647.0, &clamped);
        break;
    case MB_UINT32: raw = (uint32_t)saturate(r, 0.0, 4294967295.0, &clamped); break;
    /* 2^63 and 2^64 are the first doubles past the ranges: compare against them. */
    case MB_INT64: {
        double q = saturate(r, -9223372036854775808.0, 9223372036854774784.0, &clamped);
        raw = (uint64_t)(int64_t)q;
        break;
    }
    case MB_UINT64: raw = (uint64_t)saturate(r, 0.0, 18446744073709549568.0, &clamped); break;
    case MB_FLOAT32: {
        float f = (float)r;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        raw = u;
        break;
    }
    default: memcpy(&raw, &r, sizeof raw); break; /* MB_FLOAT64 */
    }
    raw_to_regs(s, raw, regs);
    return clamped;
}

double rtc__mb_decode_bit(const mb_sig *s, uint8_t bit, bool *clamped)
{
    *clamped = false;
    return clamp_minmax(s, (bit ? 1.0 : 0.0) * s->scale + s->offset, clamped);
}

uint8_t rtc__mb_encode_bit(const mb_sig *s, double v)
{
    bool clamped = false;
    double r = (clamp_minmax(s, v, &clamped) - s->offset) / s->scale;
    return r != 0.0 && !isnan(r);
}

uint16_t rtc__mb_heartbeat_next(mb_map *m)
{
    m->hb_value = m->hb_count ? (uint16_t)(m->hb_value + 1) : (uint16_t)!m->hb_value;
    return m->hb_value;
}

/* ---- request PDUs a server receives ---- */

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* Quantity limits of the Modbus Application Protocol V1.1b3 (also libmodbus' MODBUS_MAX_*). */
enum { MAX_READ_BITS = 2000, MAX_READ_REGS = 125, MAX_WRITE_BITS = 1968, MAX_WRITE_REGS = 123,
       MAX_RW_WRITE_REGS = 121 };

static bool qty_ok(int n, int max)
{
    return n >= 1 && n <= max;
}

/* FC 15/16: quantity, byte count and the implied length must agree. */
static mb_pdu_verdict check_multi_write(const uint8_t *p, int len, mb_req *r)
{
    bool coils = r->fc == 15;
    if (len < 6)
        return MB_PDU_ILLEGAL_VALUE;
    r->wt = coils ? MB_COIL : MB_HOLDING;
    r->waddr = be16(p + 1);
    r->wn = be16(p + 3);
    int bytes = coils ? (r->wn + 7) / 8 : 2 * r->wn;
    if (!qty_ok(r->wn, coils ? MAX_WRITE_BITS : MAX_WRITE_REGS) || p[5] != bytes ||
        len != 6 + bytes)
        return MB_PDU_ILLEGAL_VALUE;
    return MB_PDU_OK;
}

/* FC 23: the read half, the write half, its byte count and the implied length. */
static mb_pdu_verdict check_read_write(const uint8_t *p, int len, mb_req *r)
{
    if (len < 10)
        return MB_PDU_ILLEGAL_VALUE;
    r->rt = r->wt = MB_HOLDING;
    r->raddr = be16(p + 1);
    r->rn = be16(p + 3);
    r->waddr = be16(p + 5);
    r->wn = be16(p + 7);
    if (!qty_ok(r->rn, MAX_READ_REGS) || !qty_ok(r->wn, MAX_RW_WRITE_REGS) ||
        p[9] != 2 * r->wn || len != 10 + 2 * r->wn)
        return MB_PDU_ILLEGAL_VALUE;
    return MB_PDU_OK;
}

/* A flat switch over the function codes the server serves; each case checks the exact
 * length its layout implies, so libmodbus never reads past the frame. */
mb_pdu_verdict rtc__mb_pdu_check(const uint8_t *p, int len, mb_req *r)
{
    *r = (mb_req){.fc = len >= 1 ? p[0] : 0};
    if (r->fc == 0 || r->fc >= 0x80)
        return MB_PDU_NOT_REQUEST;
    switch (r->fc) {
    case 1: case 2: case 3: case 4: {
        static const mb_table tab[] = {MB_COIL, MB_COIL, MB_DISCRETE, MB_HOLDING, MB_INPUT};
        if (len != 5)
            return MB_PDU_ILLEGAL_VALUE;
        r->rt = tab[r->fc];
        r->raddr = be16(p + 1);
        r->rn = be16(p + 3);
        return qty_ok(r->rn, r->fc <= 2 ? MAX_READ_BITS : MAX_READ_REGS) ? MB_PDU_OK
                                                                         : MB_PDU_ILLEGAL_VALUE;
    }
    case 5: case 6:
        if (len != 5)
            return MB_PDU_ILLEGAL_VALUE;
        r->wt = r->fc == 5 ? MB_COIL : MB_HOLDING;
        r->waddr = be16(p + 1);
        r->wn = 1;
        /* a coil is switched by 0xFF00 (on) or 0x0000 (off), nothing else */
        if (r->fc == 5 && be16(p + 3) != 0xFF00 && be16(p + 3) != 0)
            return MB_PDU_ILLEGAL_VALUE;
        return MB_PDU_OK;
    case 15: case 16:
        return check_multi_write(p, len, r);
    case 22:
        if (len != 7)
            return MB_PDU_ILLEGAL_VALUE;
        r->wt = MB_HOLDING;
        r->waddr = be16(p + 1);
        r->wn = 1;
        return MB_PDU_OK;
    case 23:
        return check_read_write(p, len, r);
    default:
        return MB_PDU_ILLEGAL_FUNCTION;
    }
}
