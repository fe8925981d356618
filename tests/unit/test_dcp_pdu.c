/*
 * The DCP 1.0 codec (rtcosim/dcp.h): one golden byte string per PDU type, written by hand
 * from the spec's per-PDU tables (little-endian fields, offsets from byte 0), decoded and
 * compared field by field, and encoded back and compared byte for byte; then the refusals
 * (lengths, unknown type ids, oversize) and the names. The rules on top (state table,
 * checks, values) are test_dcp_rules.c.
 */
#include "cu_main.h"

#include "rtcosim/dcp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the golden table ---- */

typedef struct golden {
    const char *hex; /* the PDU as it travels, bytes in order */
    rtc_dcp_pdu pdu; /* what it means (payload: bytes at the end of hex) */
} golden;

#define UUID                                                                                  \
    {0xb5, 0x27, 0x94, 0x85, 0x1a, 0x2b, 0x4c, 0x3d, 0x8e, 0x9f, 0x0a, 0x1b, 0x2c, 0x3d, 0x4e, \
     0x5f}

/* 127.0.0.1 goes out as 01 00 00 7F (a little-endian uint32 of the numeric address). */
static const golden goldens[] = {
    {"01 0000 01 00 b5279485 1a2b 4c3d 8e9f 0a1b2c3d4e5f 01 01 00",
     {.type_id = RTC_DCP_STC_REGISTER, .seq = 0, .slave = 1, .state_id = RTC_DCP_STATE_ALIVE,
      .slave_uuid = UUID, .op_mode = RTC_DCP_OP_SRT, .major_version = 1, .minor_version = 0}},
    {"02 0d00 01 10",
     {.type_id = RTC_DCP_STC_DEREGISTER, .seq = 13, .slave = 1,
      .state_id = RTC_DCP_STATE_STOPPED}},
    {"03 0800 01 01",
     {.type_id = RTC_DCP_STC_PREPARE, .seq = 8, .slave = 1,
      .state_id = RTC_DCP_STATE_CONFIGURATION}},
    {"04 0900 01 03",
     {.type_id = RTC_DCP_STC_CONFIGURE, .seq = 9, .slave = 1,
      .state_id = RTC_DCP_STATE_PREPARED}},
    {"05 0201 01 05",
     {.type_id = RTC_DCP_STC_INITIALIZE, .seq = 0x0102, .slave = 1,
      .state_id = RTC_DCP_STATE_CONFIGURED}},
    {"06 0a00 01 05 00f1536500000000",
     {.type_id = RTC_DCP_STC_RUN, .seq = 10, .slave = 1, .state_id = RTC_DCP_STATE_CONFIGURED,
      .start_time = 1700000000}},
    {"07 3412 01 0b 05000000",
     {.type_id = RTC_DCP_STC_DO_STEP, .seq = 0x1234, .slave = 1,
      .state_id = RTC_DCP_STATE_RUNNING, .steps = 5}},
    {"08 0300 01 0d",
     {.type_id = RTC_DCP_STC_SEND_OUTPUTS, .seq = 3, .slave = 1,
      .state_id = RTC_DCP_STATE_COMPUTED}},
    {"09 0c00 02 0b",
     {.type_id = RTC_DCP_STC_STOP, .seq = 12, .slave = 2, .state_id = RTC_DCP_STATE_RUNNING}},
    {"0a 0e00 01 10",
     {.type_id = RTC_DCP_STC_RESET, .seq = 14, .slave = 1, .state_id = RTC_DCP_STATE_STOPPED}},
    {"20 0500 01 01000000 64000000",
     {.type_id = RTC_DCP_CFG_TIME_RES, .seq = 5, .slave = 1, .numerator = 1,
      .denominator = 100}},
    {"21 0400 01 01000000 0100",
     {.type_id = RTC_DCP_CFG_STEPS, .seq = 4, .slave = 1, .steps = 1, .id = 1}},
    {"22 0200 01 0100 0000 0200000000000000 09",
     {.type_id = RTC_DCP_CFG_INPUT, .seq = 2, .slave = 1, .id = 1, .pos = 0, .vr = 2,
      .source_data_type = RTC_DCP_FLOAT64}},
    {"23 0300 01 0100 0000 0100000000000000",
     {.type_id = RTC_DCP_CFG_OUTPUT, .seq = 3, .slave = 1, .id = 1, .pos = 0, .vr = 1}},
    {"24 0600 01", {.type_id = RTC_DCP_CFG_CLEAR, .seq = 6, .slave = 1}},
    {"25 0700 01 0100 00 911f 0100007f",
     {.type_id = RTC_DCP_CFG_TARGET_NETWORK_INFORMATION, .seq = 7, .slave = 1, .id = 1,
      .transport_protocol = RTC_DCP_UDP_IPV4, .port = 8081, .ip_address = 0x7F000001}},
    {"26 0600 01 0100 00 901f 0100007f",
     {.type_id = RTC_DCP_CFG_SOURCE_NETWORK_INFORMATION, .seq = 6, .slave = 1, .id = 1,
      .transport_protocol = RTC_DCP_UDP_IPV4, .port = 8080, .ip_address = 0x7F000001}},
    {"27 0900 01 0700000000000000 09 000000000000f83f",
     {.type_id = RTC_DCP_CFG_PARAMETER, .seq = 9, .slave = 1, .vr = 7,
      .source_data_type = RTC_DCP_FLOAT64, .payload_len = 8}},
    {"28 0a00 01 0200 0100 0807060504030201 06",
     {.type_id = RTC_DCP_CFG_TUNABLE_PARAMETER, .seq = 10, .slave = 1, .id = 2, .pos = 1,
      .vr = 0x0102030405060708, .source_data_type = RTC_DCP_INT32}},
    {"29 0b00 01 0200 00 2823 1401a8c0",
     {.type_id = RTC_DCP_CFG_PARAM_NETWORK_INFORMATION, .seq = 11, .slave = 1, .id = 2,
      .transport_protocol = RTC_DCP_UDP_IPV4, .port = 9000, .ip_address = 0xC0A80114}},
    {"2a 0c00 01 00 03 02",
     {.type_id = RTC_DCP_CFG_LOGGING, .seq = 12, .slave = 1, .log_category = 0,
      .log_level = 3, .log_mode = 2}},
    {"2b 0100 01 0100 00",
     {.type_id = RTC_DCP_CFG_SCOPE, .seq = 1, .slave = 1, .id = 1,
      .scope = RTC_DCP_SCOPE_ALL}},
    {"80 1400 01", {.type_id = RTC_DCP_INF_STATE, .seq = 20, .slave = 1}},
    {"81 1500 01", {.type_id = RTC_DCP_INF_ERROR, .seq = 21, .slave = 1}},
    {"82 1600 01 01 0a",
     {.type_id = RTC_DCP_INF_LOG, .seq = 22, .slave = 1, .log_category = 1,
      .log_max_num = 10}},
    {"b0 0800 01", {.type_id = RTC_DCP_RSP_ACK, .seq = 8, .slave = 1}},
    {"b1 0500 01 0400 1320",
     {.type_id = RTC_DCP_RSP_NACK, .seq = 5, .slave = 1, .exp_seq_id = 4,
      .error_code = RTC_DCP_E_INVALID_SEQUENCE_ID}},
    {"b2 1400 01 0b",
     {.type_id = RTC_DCP_RSP_STATE_ACK, .seq = 20, .slave = 1,
      .state_id = RTC_DCP_STATE_RUNNING}},
    {"b3 1500 01 0210",
     {.type_id = RTC_DCP_RSP_ERROR_ACK, .seq = 21, .slave = 1,
      .error_code = RTC_DCP_E_PROTOCOL_ERROR_HEARTBEAT_MISSED}},
    {"b4 1600 01 0500000000000000 03 07",
     {.type_id = RTC_DCP_RSP_LOG_ACK, .seq = 22, .slave = 1, .payload_len = 10}},
    {"e0 01 01",
     {.type_id = RTC_DCP_NTF_STATE_CHANGED, .slave = 1,
      .state_id = RTC_DCP_STATE_CONFIGURATION}},
    {"e1 01 00f1536500000000 02 aabb",
     {.type_id = RTC_DCP_NTF_LOG, .slave = 1, .time = 1700000000, .log_template_id = 2,
      .payload_len = 2}},
    /* from the DCPLib example run: data_id 1 carrying y = sin(10) as a float64 */
    {"f0 0001 0100 524ff3f59e68e1bf",
     {.type_id = RTC_DCP_DAT_INPUT_OUTPUT, .seq = 0x0100, .id = 1, .payload_len = 8}},
    {"f1 0200 0200 feffffff",
     {.type_id = RTC_DCP_DAT_PARAMETER, .seq = 2, .id = 2, .payload_len = 4}},
};
#define N_GOLDEN (sizeof goldens / sizeof goldens[0])

/* Bytes of a hex string with spaces; returns the count. */
static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = hex; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        unsigned b;
        CU_ASSERT_FATAL(n < cap && sscanf(p, "%2x", &b) == 1);
        out[n++] = (uint8_t)b;
        p += 2;
    }
    return n;
}

/* The golden PDU with its payload pointing at the last payload_len bytes of @p bytes. */
static rtc_dcp_pdu expected(const golden *g, const uint8_t *bytes, size_t len)
{
    rtc_dcp_pdu p;
    memset(&p, 0, sizeof p);
    p = g->pdu;
    p.payload = p.payload_len ? bytes + len - p.payload_len : NULL;
    return p;
}

static void same_pdu(const rtc_dcp_pdu *a, const rtc_dcp_pdu *b, const char *what)
{
    rtc_dcp_pdu x = *a, y = *b;
    bool payload_ok = x.payload_len == y.payload_len &&
                      (x.payload_len == 0 || memcmp(x.payload, y.payload, x.payload_len) == 0);
    x.payload = y.payload = NULL;
    bool ok = payload_ok && memcmp(&x, &y, sizeof x) == 0;
    if (!ok)
        fprintf(stderr, "  golden %s: decoded fields differ\n", what);
    CU_ASSERT(ok);
}

static void golden_bytes_decode_to_their_fields(void)
{
    for (size_t i = 0; i < N_GOLDEN; i++) {
        uint8_t buf[64];
        size_t len = unhex(goldens[i].hex, buf, sizeof buf);
        rtc_dcp_pdu want = expected(&goldens[i], buf, len), got;
        memset(&got, 0, sizeof got);
        CU_ASSERT_EQUAL(rtc_dcp_decode(buf, len, &got), RTC_DCP_E_NONE);
        same_pdu(&got, &want, rtc_dcp_type_name(buf[0]));
        bool ipv4_net = want.type_id >= 0x25 && want.type_id <= 0x29 && want.type_id != 0x27 &&
                        want.type_id != 0x28; /* network information: port and address */
        CU_ASSERT_EQUAL(len, ipv4_net ? 13 : rtc_dcp_fixed_len(buf[0]) + want.payload_len);
    }
}

static void golden_fields_encode_to_their_bytes(void)
{
    for (size_t i = 0; i < N_GOLDEN; i++) {
        uint8_t want[64], got[64];
        size_t len = unhex(goldens[i].hex, want, sizeof want);
        rtc_dcp_pdu p = expected(&goldens[i], want, len);
        memset(got, 0xEE, sizeof got);
        size_t n = rtc_dcp_encode(&p, got, sizeof got);
        CU_ASSERT_EQUAL(n, len);
        if (n != len || memcmp(got, want, len) != 0)
            fprintf(stderr, "  golden %s: encoded bytes differ\n", goldens[i].hex);
        CU_ASSERT(memcmp(got, want, len) == 0);
        CU_ASSERT_EQUAL(got[len], 0xEE); /* nothing past the PDU */
    }
}

static void every_type_has_a_golden_string(void)
{
    static const uint8_t types[] = {
#define RTC_DCP_X(n, v) v,
        RTC_DCP_TYPE_MAP(RTC_DCP_X)
#undef RTC_DCP_X
    };
    CU_ASSERT_EQUAL(sizeof types, RTC_DCP_N_TYPES);
    for (size_t t = 0; t < sizeof types; t++) {
        bool found = false;
        for (size_t i = 0; i < N_GOLDEN; i++)
            found |= goldens[i].pdu.type_id == types[t];
        if (!found)
            fprintf(stderr, "  no golden string for %s\n", rtc_dcp_type_name(types[t]));
        CU_ASSERT(found);
    }
}

static void dat_payload_reads_the_value_of_the_run(void)
{
    uint8_t buf[16];
    size_t len = unhex("f0 0001 0100 524ff3f59e68e1bf", buf, sizeof buf), off = 0;
    rtc_dcp_pdu p;
    double y = 0;
    CU_ASSERT_EQUAL(rtc_dcp_decode(buf, len, &p), RTC_DCP_E_NONE);
    CU_ASSERT(rtc_dcp_get_value(p.payload, p.payload_len, &off, RTC_DCP_FLOAT64, &y));
    CU_ASSERT_EQUAL(y, sin(10.0)); /* the same bits: the slave computed sin(10) */
    CU_ASSERT_EQUAL(off, 8);
}

/* ---- refusals ---- */

static void wrong_lengths_refused_header_kept(void)
{
    for (size_t i = 0; i < N_GOLDEN; i++) {
        uint8_t buf[80];
        size_t len = unhex(goldens[i].hex, buf, sizeof buf - 1);
        buf[len] = 0;
        rtc_dcp_pdu p;
        memset(&p, 0, sizeof p);
        bool var = rtc_dcp_has_payload(buf[0]);
        /* one byte short of the fixed part (or of the IPv4 layout) */
        size_t short_len = var ? rtc_dcp_fixed_len(buf[0]) - 1 : len - 1;
        CU_ASSERT_EQUAL(rtc_dcp_decode(buf, short_len, &p), RTC_DCP_E_INVALID_LENGTH);
        if (rtc_dcp_is_request(buf[0]) && short_len >= 4) {
            CU_ASSERT_EQUAL(p.seq, goldens[i].pdu.seq); /* a NACK can name the request */
            CU_ASSERT_EQUAL(p.slave, goldens[i].pdu.slave);
        }
        /* one byte long: fixed-size PDUs and IPv4 network information refuse it */
        rtc_dcp_error e = rtc_dcp_decode(buf, len + 1, &p);
        CU_ASSERT_EQUAL(e, var ? RTC_DCP_E_NONE : RTC_DCP_E_INVALID_LENGTH);
        if (var)
            CU_ASSERT_EQUAL(p.payload_len, goldens[i].pdu.payload_len + 1);
    }
}

static void unknown_empty_and_oversized_refused(void)
{
    static uint8_t big[RTC_DCP_UDP_MAX_PDU + 1];
    rtc_dcp_pdu p;
    unsigned known = 0;
    for (unsigned t = 0; t < 256; t++) {
        uint8_t buf[32] = {(uint8_t)t, 1, 0, 1, 0};
        rtc_dcp_error e = rtc_dcp_decode(buf, rtc_dcp_fixed_len((uint8_t)t) ?
                                              rtc_dcp_fixed_len((uint8_t)t) : 4, &p);
        if (rtc_dcp_family_of((uint8_t)t) == RTC_DCP_FAMILY_NONE) {
            CU_ASSERT_EQUAL(e, RTC_DCP_E_NOT_SUPPORTED_PDU);
            CU_ASSERT_STRING_EQUAL(rtc_dcp_type_name((uint8_t)t), "unknown");
            CU_ASSERT_EQUAL(rtc_dcp_encode(&(rtc_dcp_pdu){.type_id = (uint8_t)t}, buf, 32), 0);
        } else {
            known++;
        }
    }
    CU_ASSERT_EQUAL(known, RTC_DCP_N_TYPES);
    CU_ASSERT_EQUAL(rtc_dcp_decode(big, 0, &p), RTC_DCP_E_NOT_SUPPORTED_PDU);
    CU_ASSERT_EQUAL(rtc_dcp_decode(NULL, 4, &p), RTC_DCP_E_NOT_SUPPORTED_PDU);
    big[0] = RTC_DCP_DAT_INPUT_OUTPUT;
    CU_ASSERT_EQUAL(rtc_dcp_decode(big, sizeof big - 1, &p), RTC_DCP_E_NONE);
    CU_ASSERT_EQUAL(p.payload_len, RTC_DCP_UDP_MAX_PDU - 5);
    CU_ASSERT_EQUAL(rtc_dcp_decode(big, sizeof big, &p), RTC_DCP_E_NOT_SUPPORTED_PDU_SIZE);
}

static void encode_refuses_small_buffer_and_oversize(void)
{
    uint8_t buf[32], payload[8] = {0};
    memset(buf, 0xAA, sizeof buf);
    rtc_dcp_pdu p = {.type_id = RTC_DCP_STC_REGISTER, .slave = 1};
    CU_ASSERT_EQUAL(rtc_dcp_encode(&p, buf, 23), 0);
    for (size_t i = 0; i < sizeof buf; i++)
        CU_ASSERT_EQUAL(buf[i], 0xAA); /* nothing written */
    CU_ASSERT_EQUAL(rtc_dcp_encode(&p, buf, 24), 24);
    p = (rtc_dcp_pdu){.type_id = RTC_DCP_DAT_INPUT_OUTPUT, .payload_len = 8};
    CU_ASSERT_EQUAL(rtc_dcp_encode(&p, buf, sizeof buf), 0); /* length without bytes */
    p.payload = payload;
    CU_ASSERT_EQUAL(rtc_dcp_encode(&p, buf, sizeof buf), 13);
    p.payload_len = RTC_DCP_UDP_MAX_PDU; /* 5 + that: over the UDP limit */
    static uint8_t huge[RTC_DCP_UDP_MAX_PDU + 8];
    p.payload = huge;
    CU_ASSERT_EQUAL(rtc_dcp_encode(&p, huge, sizeof huge), 0);
    CU_ASSERT_EQUAL(rtc_dcp_encode(NULL, buf, sizeof buf), 0);
}

static void network_information_of_other_transports_kept_raw(void)
{
    uint8_t buf[16], raw[2] = {0x05, 0x06}, out[16];
    size_t len = unhex("26 0100 01 0100 02 0506", buf, sizeof buf);
    rtc_dcp_pdu p;
    CU_ASSERT_EQUAL(rtc_dcp_decode(buf, len, &p), RTC_DCP_E_NONE);
    CU_ASSERT_EQUAL(p.transport_protocol, RTC_DCP_CAN);
    CU_ASSERT_EQUAL(p.payload_len, 2);
    CU_ASSERT(p.payload && memcmp(p.payload, raw, 2) == 0);
    CU_ASSERT_EQUAL(rtc_dcp_encode(&p, out, sizeof out), len);
    CU_ASSERT(memcmp(out, buf, len) == 0);
    /* UDP_IPv4 network information is 13 bytes, no more, no less */
    len = unhex("25 0700 01 0100 00 911f 0100007f 00", buf, sizeof buf);
    CU_ASSERT_EQUAL(rtc_dcp_decode(buf, len, &p), RTC_DCP_E_INVALID_LENGTH);
    CU_ASSERT_EQUAL(rtc_dcp_decode(buf, len - 2, &p), RTC_DCP_E_INVALID_LENGTH);
    buf[6] = RTC_DCP_TCP_IPV4;
    CU_ASSERT_EQUAL(rtc_dcp_decode(buf, len - 1, &p), RTC_DCP_E_NONE);
}

/* ---- names ---- */

static void names_follow_the_spec(void)
{
    CU_ASSERT_STRING_EQUAL(rtc_dcp_type_name(0x25), "CFG_target_network_information");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_type_name(0xB3), "RSP_error_ack");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_state_name(0x12), "ERRORRESOLVED");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_state_name(0x13), "unknown");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_error_name(0x4004), "NOT_SUPPORTED_TRANSPORT_PROTOCOL");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_error_name(0x0804), "NOT_SUPPORTED_TRANSPORT_PROTOCOL");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_error_name(0x5123), "TRANSPORT_SPECIFIC");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_error_name(0x2013), "INVALID_SEQUENCE_ID");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_op_mode_name(RTC_DCP_OP_NRT), "NRT");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_data_type_name(RTC_DCP_FLOAT32), "float32");
    CU_ASSERT_STRING_EQUAL(rtc_dcp_transport_name(RTC_DCP_TCP_IPV4), "TCP_IPv4");
    CU_ASSERT_EQUAL(rtc_dcp_family_of(0x2B), RTC_DCP_FAMILY_CFG);
    CU_ASSERT_EQUAL(rtc_dcp_family_of(0x2C), RTC_DCP_FAMILY_NONE);
    CU_ASSERT(rtc_dcp_is_request(RTC_DCP_INF_LOG));
    CU_ASSERT(!rtc_dcp_is_request(RTC_DCP_DAT_PARAMETER));
}

void rtc_test_register(void)
{
    static const rtc_test_case golden_cases[] = {
        {"golden_bytes_decode_to_their_fields", golden_bytes_decode_to_their_fields},
        {"golden_fields_encode_to_their_bytes", golden_fields_encode_to_their_bytes},
        {"every_type_has_a_golden_string", every_type_has_a_golden_string},
        {"dat_payload_reads_the_value_of_the_run", dat_payload_reads_the_value_of_the_run},
        {NULL, NULL}};
    static const rtc_test_case refusal_cases[] = {
        {"wrong_lengths_refused_header_kept", wrong_lengths_refused_header_kept},
        {"unknown_empty_and_oversized_refused", unknown_empty_and_oversized_refused},
        {"encode_refuses_small_buffer_and_oversize", encode_refuses_small_buffer_and_oversize},
        {"network_information_of_other_transports_kept_raw",
         network_information_of_other_transports_kept_raw},
        {"names_follow_the_spec", names_follow_the_spec},
        {NULL, NULL}};
    rtc_test_add_suite("golden", NULL, NULL, golden_cases);
    rtc_test_add_suite("refusals", NULL, NULL, refusal_cases);
}
