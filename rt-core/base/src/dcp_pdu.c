/*
 * dcp_pdu.c — the DCP 1.0 PDU codec (rtcosim/dcp.h): one table of every PDU with its
 * length and field offsets, walked by both rtc_dcp_decode() and rtc_dcp_encode(), so the
 * two directions cannot disagree and the table is the one place to check against the spec
 * (dcp_pdu.md beside it is the same table for readers, with the sources and their
 * disagreements). Names of ids and codes come from the X-macro maps of the header.
 *
 * Safety: decoding reads only [buf, buf + len) after checking len against the table,
 * writes only the caller's struct, keeps the variable part as a pointer into the datagram
 * and never allocates; a datagram of any length and content gets an answer.
 */
#include "rtcosim/dcp.h"

#include "dcp_priv.h"

#include <stddef.h>
#include <string.h>

/* One field after type_id: its offset and width on the wire, and the member it fills
 * (the member's width is the field's: 1, 2, 4 or 8 bytes little-endian; 16 raw bytes). */
typedef struct dcp_field {
    uint8_t off, size;
    uint16_t member;
} dcp_field;

enum {
    VAR = 1u << 0, /* a variable part follows the fixed fields: payload */
    NET = 1u << 1, /* network information: 13 bytes for UDP/TCP_IPv4, else raw after 7 */
};

#define DCP_MAX_FIELDS 7

/* One PDU type: its name, fixed length (the whole PDU unless VAR), flags and fields. */
typedef struct dcp_desc {
    uint8_t type;
    uint8_t len;
    uint8_t flags;
    uint8_t n;
    const char *name;
    dcp_field f[DCP_MAX_FIELDS];
} dcp_desc;

#define F(off, m) {off, sizeof(((rtc_dcp_pdu *)0)->m), offsetof(rtc_dcp_pdu, m)}
#define REQ F(1, seq), F(3, slave) /* pdu_seq_id, receiver */
#define RSP F(1, seq), F(3, slave) /* resp_seq_id, sender */
#define STC REQ, F(4, state_id)
#define D(t, name, len, flags, ...)                                                           \
    {RTC_DCP_##t, len, flags, sizeof((dcp_field[]){__VA_ARGS__}) / sizeof(dcp_field), name, \
     {__VA_ARGS__}}

/*
 * Every PDU of DCP 1.0 on UDP_IPv4 [spec 3.3.7 tables; DCPLib's pdu headers agree byte for
 * byte]. Offsets count from byte 0 (type_id, never listed). In the order of
 * RTC_DCP_TYPE_MAP, which the index below relies on.
 */
static const dcp_desc descs[RTC_DCP_N_TYPES] = {
    D(STC_REGISTER, "STC_register", 24, 0, STC, F(5, slave_uuid), F(21, op_mode),
      F(22, major_version), F(23, minor_version)),
    D(STC_DEREGISTER, "STC_deregister", 5, 0, STC),
    D(STC_PREPARE, "STC_prepare", 5, 0, STC),
    D(STC_CONFIGURE, "STC_configure", 5, 0, STC),
    D(STC_INITIALIZE, "STC_initialize", 5, 0, STC),
    D(STC_RUN, "STC_run", 13, 0, STC, F(5, start_time)),
    D(STC_DO_STEP, "STC_do_step", 9, 0, STC, F(5, steps)),
    D(STC_SEND_OUTPUTS, "STC_send_outputs", 5, 0, STC),
    D(STC_STOP, "STC_stop", 5, 0, STC),
    D(STC_RESET, "STC_reset", 5, 0, STC),
    D(CFG_TIME_RES, "CFG_time_res", 12, 0, REQ, F(4, numerator), F(8, denominator)),
    D(CFG_STEPS, "CFG_steps", 10, 0, REQ, F(4, steps), F(8, id)),
    D(CFG_INPUT, "CFG_input", 17, 0, REQ, F(4, id), F(6, pos), F(8, vr),
      F(16, source_data_type)),
    D(CFG_OUTPUT, "CFG_output", 16, 0, REQ, F(4, id), F(6, pos), F(8, vr)),
    D(CFG_CLEAR, "CFG_clear", 4, 0, REQ),
    D(CFG_TARGET_NETWORK_INFORMATION, "CFG_target_network_information", 7, NET, REQ, F(4, id),
      F(6, transport_protocol)),
    D(CFG_SOURCE_NETWORK_INFORMATION, "CFG_source_network_information", 7, NET, REQ, F(4, id),
      F(6, transport_protocol)),
    D(CFG_PARAMETER, "CFG_parameter", 13, VAR, REQ, F(4, vr), F(12, source_data_type)),
    D(CFG_TUNABLE_PARAMETER, "CFG_tunable_parameter", 17, 0, REQ, F(4, id), F(6, pos),
      F(8, vr), F(16, source_data_type)),
    D(CFG_PARAM_NETWORK_INFORMATION, "CFG_param_network_information", 7, NET, REQ, F(4, id),
      F(6, transport_protocol)),
    D(CFG_LOGGING, "CFG_logging", 7, 0, REQ, F(4, log_category), F(5, log_level),
      F(6, log_mode)),
    D(CFG_SCOPE, "CFG_scope", 7, 0, REQ, F(4, id), F(6, scope)),
    D(INF_STATE, "INF_state", 4, 0, REQ),
    D(INF_ERROR, "INF_error", 4, 0, REQ),
    D(INF_LOG, "INF_log", 6, 0, REQ, F(4, log_category), F(5, log_max_num)),
    D(RSP_ACK, "RSP_ack", 4, 0, RSP),
    D(RSP_NACK, "RSP_nack", 8, 0, RSP, F(4, exp_seq_id), F(6, error_code)),
    D(RSP_STATE_ACK, "RSP_state_ack", 5, 0, RSP, F(4, state_id)),
    D(RSP_ERROR_ACK, "RSP_error_ack", 6, 0, RSP, F(4, error_code)),
    D(RSP_LOG_ACK, "RSP_log_ack", 4, VAR, RSP),
    D(NTF_STATE_CHANGED, "NTF_state_changed", 3, 0, F(1, slave), F(2, state_id)),
    D(NTF_LOG, "NTF_log", 11, VAR, F(1, slave), F(2, time), F(10, log_template_id)),
    D(DAT_INPUT_OUTPUT, "DAT_input_output", 5, VAR, F(1, seq), F(3, id)),
    D(DAT_PARAMETER, "DAT_parameter", 5, VAR, F(1, seq), F(3, id)),
};

/* The fixed part of network information for UDP_IPv4 and TCP_IPv4: port and address. */
static const dcp_field net_ipv4[2] = {F(7, port), F(9, ip_address)};
#define NET_IPV4_LEN 13

/* type id -> index + 1 into descs (0: not a DCP 1.0 type). */
static const uint8_t index_of[256] = {
#define RTC_DCP_X(n, v) [v] = RTC_DCP_IDX_##n + 1,
    RTC_DCP_TYPE_MAP(RTC_DCP_X)
#undef RTC_DCP_X
};

int rtc__dcp_index(uint8_t type_id)
{
    return (int)index_of[type_id] - 1;
}

static const dcp_desc *desc_of(uint8_t type_id)
{
    return index_of[type_id] ? &descs[index_of[type_id] - 1] : NULL;
}

/* ---- fields ---- */

static uint64_t get_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static void put_le(uint8_t *p, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Member <-> wire, by the member's width (the table's F() makes them equal). */
static void field_read(const dcp_field *f, const uint8_t *buf, rtc_dcp_pdu *p)
{
    unsigned char *m = (unsigned char *)p + f->member;
    uint64_t v = get_le(buf + f->off, f->size);
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (f->size) {
    case 1: memcpy(m, &u8, 1); break;
    case 2: memcpy(m, &u16, 2); break;
    case 4: memcpy(m, &u32, 4); break;
    case 8: memcpy(m, &v, 8); break; /* int64 members: the same two's-complement bits */
    default: memcpy(m, buf + f->off, f->size); break; /* uuid: raw bytes */
    }
}

static void field_write(const dcp_field *f, const rtc_dcp_pdu *p, uint8_t *buf)
{
    const unsigned char *m = (const unsigned char *)p + f->member;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (f->size) {
    case 1: memcpy(&u8, m, 1); put_le(buf + f->off, 1, u8); break;
    case 2: memcpy(&u16, m, 2); put_le(buf + f->off, 2, u16); break;
    case 4: memcpy(&u32, m, 4); put_le(buf + f->off, 4, u32); break;
    case 8: memcpy(&u64, m, 8); put_le(buf + f->off, 8, u64); break;
    default: memcpy(buf + f->off, m, f->size); break;
    }
}

static bool net_is_ipv4(uint8_t transport)
{
    return transport == RTC_DCP_UDP_IPV4 || transport == RTC_DCP_TCP_IPV4;
}

/* ---- decode / encode ---- */

rtc_dcp_error rtc_dcp_decode(const uint8_t *buf, size_t len, rtc_dcp_pdu *out)
{
    if (!buf || len == 0)
        return RTC_DCP_E_NOT_SUPPORTED_PDU;
    out->type_id = buf[0];
    out->payload = NULL;
    out->payload_len = 0;
    const dcp_desc *d = desc_of(buf[0]);
    if (!d)
        return RTC_DCP_E_NOT_SUPPORTED_PDU;
    if (len > RTC_DCP_UDP_MAX_PDU)
        return RTC_DCP_E_NOT_SUPPORTED_PDU_SIZE;
    /* the header first (seq, receiver/sender), so a refusal can answer the request */
    for (size_t i = 0; i < d->n && d->f[i].off < 4; i++)
        if (len >= (size_t)d->f[i].off + d->f[i].size)
            field_read(&d->f[i], buf, out);
    if (len < d->len || (!(d->flags & (VAR | NET)) && len != d->len))
        return RTC_DCP_E_INVALID_LENGTH;
    for (size_t i = 0; i < d->n; i++)
        field_read(&d->f[i], buf, out);
    if (d->flags & NET) {
        if (net_is_ipv4(out->transport_protocol)) {
            if (len != NET_IPV4_LEN)
                return RTC_DCP_E_INVALID_LENGTH;
            field_read(&net_ipv4[0], buf, out);
            field_read(&net_ipv4[1], buf, out);
            return RTC_DCP_E_NONE;
        }
    } else if (!(d->flags & VAR)) {
        return RTC_DCP_E_NONE;
    }
    out->payload = buf + d->len;
    out->payload_len = len - d->len;
    return RTC_DCP_E_NONE;
}

size_t rtc_dcp_encode(const rtc_dcp_pdu *p, uint8_t *buf, size_t cap)
{
    const dcp_desc *d = p ? desc_of(p->type_id) : NULL;
    if (!d || !buf)
        return 0;
    bool ipv4 = (d->flags & NET) && net_is_ipv4(p->transport_protocol);
    bool var = ((d->flags & VAR) || (d->flags & NET)) && !ipv4;
    size_t tail = var ? p->payload_len : 0;
    size_t len = ipv4 ? NET_IPV4_LEN : d->len + tail;
    if ((tail && !p->payload) || len > cap || len > RTC_DCP_UDP_MAX_PDU)
        return 0;
    buf[0] = d->type;
    for (size_t i = 0; i < d->n; i++)
        field_write(&d->f[i], p, buf);
    if (ipv4) {
        field_write(&net_ipv4[0], p, buf);
        field_write(&net_ipv4[1], p, buf);
    } else if (tail) {
        memcpy(buf + d->len, p->payload, tail);
    }
    return len;
}

size_t rtc_dcp_fixed_len(uint8_t type_id)
{
    const dcp_desc *d = desc_of(type_id);
    return d ? d->len : 0;
}

bool rtc_dcp_has_payload(uint8_t type_id)
{
    const dcp_desc *d = desc_of(type_id);
    return d && (d->flags & VAR);
}

rtc_dcp_family rtc_dcp_family_of(uint8_t type_id)
{
    if (!desc_of(type_id))
        return RTC_DCP_FAMILY_NONE;
    if (type_id < 0x20)
        return RTC_DCP_FAMILY_STC;
    if (type_id < 0x80)
        return RTC_DCP_FAMILY_CFG;
    if (type_id < 0xB0)
        return RTC_DCP_FAMILY_INF;
    if (type_id < 0xE0)
        return RTC_DCP_FAMILY_RSP;
    return type_id < 0xF0 ? RTC_DCP_FAMILY_NTF : RTC_DCP_FAMILY_DAT;
}

bool rtc_dcp_is_request(uint8_t type_id)
{
    rtc_dcp_family f = rtc_dcp_family_of(type_id);
    return f == RTC_DCP_FAMILY_STC || f == RTC_DCP_FAMILY_CFG || f == RTC_DCP_FAMILY_INF;
}

/* ---- names ---- */

const char *rtc_dcp_type_name(uint8_t type_id)
{
    const dcp_desc *d = desc_of(type_id);
    return d ? d->name : "unknown";
}

const char *rtc_dcp_state_name(uint8_t state_id)
{
    switch (state_id) {
#define RTC_DCP_X(n, v)                                                                       \
    case v: return #n;
        RTC_DCP_STATE_MAP(RTC_DCP_X)
#undef RTC_DCP_X
    default: return "unknown";
    }
}

const char *rtc_dcp_error_name(uint16_t code)
{
    switch (code) {
#define RTC_DCP_X(n, v)                                                                       \
    case v: return #n;
        RTC_DCP_ERROR_MAP(RTC_DCP_X)
#undef RTC_DCP_X
    case 04004: /* DCPLib writes NOT_SUPPORTED_TRANSPORT_PROTOCOL in octal (= 0x0804) */
        return "NOT_SUPPORTED_TRANSPORT_PROTOCOL";
    default: return code >= 0x5001 && code <= 0x5FFF ? "TRANSPORT_SPECIFIC" : "unknown";
    }
}

const char *rtc_dcp_op_mode_name(uint8_t op_mode)
{
    static const char *const names[] = {"HRT", "SRT", "NRT"};
    return op_mode < 3 ? names[op_mode] : "unknown";
}

const char *rtc_dcp_data_type_name(uint8_t type)
{
    static const char *const names[] = {"uint8",  "uint16",  "uint32",  "uint64",
                                        "int8",   "int16",   "int32",   "int64",
                                        "float32", "float64", "string", "binary"};
    return type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

const char *rtc_dcp_transport_name(uint8_t transport)
{
    static const char *const names[] = {"UDP_IPv4", "Bluetooth", "CAN", "USB", "TCP_IPv4"};
    return transport < 5 ? names[transport] : "unknown";
}
