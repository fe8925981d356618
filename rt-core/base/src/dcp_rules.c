/*
 * dcp_rules.c — the rules of DCP 1.0 on top of the PDU table (rtcosim/dcp.h): which PDU
 * a slave may receive in which state, where an STC request takes it, the superstates, the
 * sequence-id arithmetic, the validity checks of a received request in the spec's order,
 * the master's check of a response, and the payload value encodings.
 *
 * The state table is the spec's Table 63 with the transitions of spec 3.2.5 it leaves out
 * (STC_do_step from SYNCHRONIZING and SYNCHRONIZED, STC_run from SYNCHRONIZED), which
 * DCPLib accepts and its example master uses; dcp_pdu.md lists the differences.
 */
#include "rtcosim/dcp.h"

#include <math.h>
#include <string.h>

#include "dcp_priv.h"

#define B(n) (UINT64_C(1) << RTC_DCP_IDX_##n)
#define INF_SL (B(INF_STATE) | B(INF_LOG))
#define DAT (B(DAT_INPUT_OUTPUT) | B(DAT_PARAMETER))
#define CFG_ALL                                                                               \
    (B(CFG_TIME_RES) | B(CFG_STEPS) | B(CFG_INPUT) | B(CFG_OUTPUT) | B(CFG_CLEAR) |           \
     B(CFG_TARGET_NETWORK_INFORMATION) | B(CFG_SOURCE_NETWORK_INFORMATION) |                  \
     B(CFG_PARAMETER) | B(CFG_TUNABLE_PARAMETER) | B(CFG_PARAM_NETWORK_INFORMATION) |         \
     B(CFG_LOGGING) | B(CFG_SCOPE))

/* What a slave in each state may receive, one bit per PDU type (by its index). */
static const uint64_t allowed[RTC_DCP_N_STATES] = {
    [RTC_DCP_STATE_ALIVE] = B(STC_REGISTER) | B(INF_STATE),
    [RTC_DCP_STATE_CONFIGURATION] = B(STC_DEREGISTER) | B(STC_PREPARE) | INF_SL | CFG_ALL,
    [RTC_DCP_STATE_PREPARING] = B(STC_STOP) | INF_SL,
    [RTC_DCP_STATE_PREPARED] = B(STC_CONFIGURE) | B(STC_STOP) | INF_SL,
    [RTC_DCP_STATE_CONFIGURING] = B(STC_STOP) | INF_SL,
    [RTC_DCP_STATE_CONFIGURED] = B(STC_INITIALIZE) | B(STC_RUN) | B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_INITIALIZING] = B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_INITIALIZED] = B(STC_SEND_OUTPUTS) | B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_SENDING_I] = B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_SYNCHRONIZING] = B(STC_DO_STEP) | B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_SYNCHRONIZED] = B(STC_RUN) | B(STC_DO_STEP) | B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_RUNNING] = B(STC_DO_STEP) | B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_COMPUTING] = B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_COMPUTED] = B(STC_SEND_OUTPUTS) | B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_SENDING_D] = B(STC_STOP) | INF_SL | DAT,
    [RTC_DCP_STATE_STOPPING] = INF_SL | DAT,
    [RTC_DCP_STATE_STOPPED] = B(STC_DEREGISTER) | B(STC_RESET) | INF_SL | DAT,
    [RTC_DCP_STATE_ERRORHANDLING] = B(INF_STATE) | B(INF_ERROR) | B(INF_LOG) | DAT,
    [RTC_DCP_STATE_ERRORRESOLVED] =
        B(STC_DEREGISTER) | B(STC_RESET) | B(INF_STATE) | B(INF_ERROR) | B(INF_LOG) | DAT,
};

bool rtc_dcp_allowed(uint8_t state, uint8_t type_id)
{
    int i = rtc__dcp_index(type_id);
    return state < RTC_DCP_N_STATES && i >= 0 && (allowed[state] >> i & 1);
}

int rtc_dcp_stc_target(uint8_t state, uint8_t type_id)
{
    if (rtc_dcp_family_of(type_id) != RTC_DCP_FAMILY_STC || !rtc_dcp_allowed(state, type_id))
        return -1;
    switch (type_id) {
    case RTC_DCP_STC_REGISTER: return RTC_DCP_STATE_CONFIGURATION;
    case RTC_DCP_STC_DEREGISTER: return RTC_DCP_STATE_ALIVE;
    case RTC_DCP_STC_PREPARE: return RTC_DCP_STATE_PREPARING;
    case RTC_DCP_STC_CONFIGURE: return RTC_DCP_STATE_CONFIGURING;
    case RTC_DCP_STC_INITIALIZE: return RTC_DCP_STATE_INITIALIZING;
    case RTC_DCP_STC_RUN:
        return state == RTC_DCP_STATE_CONFIGURED ? RTC_DCP_STATE_SYNCHRONIZING
                                                 : RTC_DCP_STATE_RUNNING;
    case RTC_DCP_STC_DO_STEP: return RTC_DCP_STATE_COMPUTING;
    case RTC_DCP_STC_SEND_OUTPUTS:
        return state == RTC_DCP_STATE_INITIALIZED ? RTC_DCP_STATE_SENDING_I
                                                  : RTC_DCP_STATE_SENDING_D;
    case RTC_DCP_STC_STOP: return RTC_DCP_STATE_STOPPING;
    default: return RTC_DCP_STATE_CONFIGURATION; /* STC_reset */
    }
}

unsigned rtc_dcp_superstates(uint8_t s)
{
    if (s >= RTC_DCP_N_STATES)
        return 0;
    if (s >= RTC_DCP_STATE_ERRORHANDLING)
        return RTC_DCP_SUPER_ERROR;
    if (s == RTC_DCP_STATE_ALIVE)
        return 0;
    unsigned m = RTC_DCP_SUPER_NORMAL;
    if (s >= RTC_DCP_STATE_PREPARING && s <= RTC_DCP_STATE_SENDING_D)
        m |= RTC_DCP_SUPER_STOPPABLE;
    if (s >= RTC_DCP_STATE_CONFIGURED && s <= RTC_DCP_STATE_SENDING_I)
        m |= RTC_DCP_SUPER_INITIALIZATION;
    else if (s >= RTC_DCP_STATE_SYNCHRONIZING && s <= RTC_DCP_STATE_RUNNING)
        m |= RTC_DCP_SUPER_RUN;
    else if (s >= RTC_DCP_STATE_COMPUTING && s <= RTC_DCP_STATE_SENDING_D)
        m |= RTC_DCP_SUPER_NONREALTIME;
    return m;
}

/* ---- sequence ids and the checks of either side ---- */

uint16_t rtc_dcp_seq_next(uint16_t seq)
{
    return (uint16_t)(seq + 1u);
}

int32_t rtc_dcp_seq_gap(uint16_t last, uint16_t seq)
{
    uint16_t d = (uint16_t)(seq - last);
    return d == 0 || d > 0x8000 ? -1 : (int32_t)d - 1;
}

/* The checks of a request after its type, in the spec's order. */
static rtc_dcp_verdict check_request(const rtc_dcp_slave_view *v, rtc_dcp_error dec,
                                     const rtc_dcp_pdu *p, uint16_t *err)
{
    uint8_t t = p->type_id;
    bool alive = v->state == RTC_DCP_STATE_ALIVE;
    if (p->slave == RTC_DCP_MASTER_ID || (!alive && p->slave != v->slave_id)) {
        *err = RTC_DCP_E_PROTOCOL_ERROR_GENERIC; /* not for this slave: silence */
        return RTC_DCP_DROP;
    }
    if (!alive && v->registered && p->seq != rtc_dcp_seq_next(v->last_seq))
        *err = RTC_DCP_E_INVALID_SEQUENCE_ID;
    else if ((t == RTC_DCP_STC_DO_STEP && !v->nrt) ||
             ((t == RTC_DCP_CFG_LOGGING || t == RTC_DCP_INF_LOG) && !v->can_log))
        *err = RTC_DCP_E_NOT_SUPPORTED_PDU;
    else if (dec != RTC_DCP_E_NONE)
        *err = dec; /* INVALID_LENGTH, NOT_SUPPORTED_PDU_SIZE */
    else if (!rtc_dcp_allowed(v->state, t))
        *err = RTC_DCP_E_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE;
    else if (rtc_dcp_family_of(t) == RTC_DCP_FAMILY_STC && p->state_id != v->state)
        *err = RTC_DCP_E_INVALID_STATE_ID;
    else
        return RTC_DCP_ACCEPT;
    return RTC_DCP_NACK;
}

rtc_dcp_verdict rtc_dcp_slave_check(const rtc_dcp_slave_view *v, const uint8_t *buf,
                                    size_t len, rtc_dcp_pdu *pdu, uint16_t *err)
{
    memset(pdu, 0, sizeof *pdu);
    *err = RTC_DCP_E_NONE;
    rtc_dcp_error dec = rtc_dcp_decode(buf, len, pdu);
    rtc_dcp_family fam = len ? rtc_dcp_family_of(buf[0]) : RTC_DCP_FAMILY_NONE;
    if (fam == RTC_DCP_FAMILY_DAT) {
        if (dec == RTC_DCP_E_NONE && !rtc_dcp_allowed(v->state, pdu->type_id))
            dec = RTC_DCP_E_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE;
        *err = dec;
        return dec == RTC_DCP_E_NONE ? RTC_DCP_ACCEPT : RTC_DCP_DROP;
    }
    if (fam == RTC_DCP_FAMILY_NONE || fam == RTC_DCP_FAMILY_RSP ||
        fam == RTC_DCP_FAMILY_NTF) {
        *err = RTC_DCP_E_NOT_SUPPORTED_PDU; /* unknown, or what only a master receives */
        return RTC_DCP_DROP;
    }
    if (len < 4) {
        *err = RTC_DCP_E_INVALID_LENGTH; /* no receiver to check: not answerable */
        return RTC_DCP_DROP;
    }
    return check_request(v, dec, pdu, err);
}

rtc_dcp_error rtc_dcp_master_check(const rtc_dcp_pdu *p, uint8_t slave_id, uint16_t req_seq)
{
    switch (rtc_dcp_family_of(p->type_id)) {
    case RTC_DCP_FAMILY_RSP:
        if (p->slave != slave_id)
            return RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
        return p->seq == req_seq ? RTC_DCP_E_NONE : RTC_DCP_E_INVALID_SEQUENCE_ID;
    case RTC_DCP_FAMILY_NTF:
        return p->slave == slave_id ? RTC_DCP_E_NONE : RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
    case RTC_DCP_FAMILY_DAT: return RTC_DCP_E_NONE;
    default: return RTC_DCP_E_PROTOCOL_ERROR_GENERIC; /* requests go to slaves */
    }
}

/* ---- payload values ---- */

size_t rtc_dcp_type_size(uint8_t type)
{
    static const uint8_t size[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 4, 4};
    return type < sizeof size ? size[type] : 0;
}

bool rtc_dcp_type_numeric(uint8_t type)
{
    return type <= RTC_DCP_FLOAT64;
}

static void put_le(uint8_t *p, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* @p v rounded and clamped to the integer type of @p bytes bytes, as its bit pattern. */
static uint64_t to_int(double v, size_t bytes, bool is_signed, bool *clamped)
{
    double r = nearbyint(v);
    if (isnan(r)) {
        *clamped = true;
        return 0;
    }
    if (is_signed) {
        double lo = -ldexp(1, (int)(8 * bytes - 1)), hi = -lo; /* hi: one past the max */
        int64_t i;
        if (r < lo || r >= hi) {
            *clamped = true;
            i = r < lo ? (int64_t)lo : bytes == 8 ? INT64_MAX : (int64_t)hi - 1;
        } else {
            i = (int64_t)r;
        }
        return (uint64_t)i;
    }
    double hi = ldexp(1, (int)(8 * bytes));
    if (r < 0 || r >= hi) {
        *clamped = true;
        return r < 0 ? 0 : bytes == 8 ? UINT64_MAX : (uint64_t)hi - 1;
    }
    return (uint64_t)r;
}

bool rtc_dcp_put_value(uint8_t *buf, size_t cap, size_t *off, uint8_t type, double v,
                       bool *clamped)
{
    size_t n = rtc_dcp_type_size(type);
    bool c = false;
    if (!rtc_dcp_type_numeric(type) || *off > cap || cap - *off < n)
        return false;
    uint64_t bits;
    if (type == RTC_DCP_FLOAT64) {
        memcpy(&bits, &v, 8);
    } else if (type == RTC_DCP_FLOAT32) {
        float f = (float)v;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        bits = b32;
    } else {
        bits = to_int(v, n, type >= RTC_DCP_INT8, &c);
    }
    put_le(buf + *off, n, bits);
    *off += n;
    if (clamped)
        *clamped = c;
    return true;
}

bool rtc_dcp_get_value(const uint8_t *buf, size_t len, size_t *off, uint8_t type, double *v)
{
    size_t n = rtc_dcp_type_size(type);
    if (!rtc_dcp_type_numeric(type) || *off > len || len - *off < n)
        return false;
    uint64_t bits = get_le(buf + *off, n);
    if (type == RTC_DCP_FLOAT64) {
        memcpy(v, &bits, 8);
    } else if (type == RTC_DCP_FLOAT32) {
        uint32_t b32 = (uint32_t)bits;
        float f;
        memcpy(&f, &b32, 4);
        *v = f;
    } else if (type >= RTC_DCP_INT8) { /* sign-extend from n bytes */
        uint64_t m = UINT64_C(1) << (8 * n - 1);
        *v = (double)(int64_t)(n == 8 ? bits : (bits ^ m) - m);
    } else {
        *v = (double)bits;
    }
    *off += n;
    return true;
}

bool rtc_dcp_skip_value(const uint8_t *buf, size_t len, size_t *off, uint8_t type)
{
    size_t n = rtc_dcp_type_size(type);
    if (n == 0 || *off > len || len - *off < n)
        return false;
    if (type == RTC_DCP_STRING || type == RTC_DCP_BINARY) {
        uint64_t body = get_le(buf + *off, 4);
        if (len - *off - n < body)
            return false;
        n += (size_t)body;
    }
    *off += n;
    return true;
}

/* ---- uuid text ---- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

bool rtc_dcp_uuid_parse(const char *text, uint8_t out[16])
{
    uint8_t u[16];
    size_t k = 0;
    for (size_t i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (!text || !text[i] || dash != (text[i] == '-'))
            return false;
        if (dash)
            continue;
        int h = hex_digit(text[i]), l = hex_digit(text[i + 1]);
        if (h < 0 || l < 0)
            return false;
        u[k++] = (uint8_t)(h << 4 | l);
        i++;
    }
    if (text[36])
        return false;
    memcpy(out, u, 16);
    return true;
}

void rtc_dcp_uuid_format(const uint8_t uuid[16], char out[37])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t k = 0; k < 16; k++) {
        if (k == 4 || k == 6 || k == 8 || k == 10)
            out[o++] = '-';
        out[o++] = hex[uuid[k] >> 4];
        out[o++] = hex[uuid[k] & 15];
    }
    out[o] = '\0';
}
