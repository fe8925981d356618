/*
 * tests/fuzz/fuzz_dcp.c — the DCP 1.0 PDU decoder (rtcosim/dcp.h) on any datagram, and
 * what both sides build on it: a PDU that decodes must encode back to the very same bytes
 * (the one table serves both directions); the slave's validity checks run in the states a
 * slave passes through and must answer with a verdict the spec allows; the master's check
 * runs on what decodes; a DAT payload is walked value by value with every type, which must
 * stay inside the datagram. libFuzzer hands the input in a heap block of exactly its size,
 * so ASan sees any read past the datagram.
 */
#include "fuzz_util.h"

#include "rtcosim/dcp.h"

#include <stdio.h>
#include <string.h>

static uint8_t out[RTC_DCP_UDP_MAX_PDU];

static void round_trip(const uint8_t *data, size_t size, const rtc_dcp_pdu *p)
{
    size_t n = rtc_dcp_encode(p, out, sizeof out);
    if (n != size || memcmp(out, data, size) != 0)
        rtc_fuzz_fail("a decoded PDU does not encode back to its bytes",
                      rtc_dcp_type_name(p->type_id));
}

static void slave_checks(const uint8_t *data, size_t size)
{
    static const rtc_dcp_slave_view views[] = {
        {.state = RTC_DCP_STATE_ALIVE},
        {.state = RTC_DCP_STATE_CONFIGURATION, .slave_id = 1, .last_seq = 0, .registered = true},
        {.state = RTC_DCP_STATE_RUNNING, .slave_id = 1, .last_seq = 7, .registered = true,
         .nrt = true, .can_log = true},
        {.state = RTC_DCP_STATE_ERRORRESOLVED, .slave_id = 1, .registered = true},
    };
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        rtc_dcp_pdu p;
        uint16_t err = 0xFFFF;
        rtc_dcp_verdict v = rtc_dcp_slave_check(&views[i], data, size, &p, &err);
        if (v == RTC_DCP_ACCEPT && (err != RTC_DCP_E_NONE ||
                                    !rtc_dcp_allowed(views[i].state, p.type_id)))
            rtc_fuzz_fail("a slave accepts what its state does not allow",
                          rtc_dcp_type_name(p.type_id));
        if (v == RTC_DCP_NACK && (err == RTC_DCP_E_NONE || !rtc_dcp_is_request(data[0])))
            rtc_fuzz_fail("a NACK without an error code, or to a PDU that is no request",
                          rtc_dcp_error_name(err));
        if (v == RTC_DCP_DROP && err == RTC_DCP_E_NONE)
            rtc_fuzz_fail("a drop without a reason", rtc_dcp_type_name(data[0]));
    }
}

/* Walk a payload as values of one type, then of mixed types, never past its end. */
static void walk_payload(const rtc_dcp_pdu *p)
{
    for (uint8_t t = 0; t <= RTC_DCP_BINARY + 1; t++) {
        size_t off = 0;
        double v;
        while (t <= RTC_DCP_FLOAT64 ? rtc_dcp_get_value(p->payload, p->payload_len, &off, t, &v)
                                    : rtc_dcp_skip_value(p->payload, p->payload_len, &off, t))
            if (off > p->payload_len)
                rtc_fuzz_fail("a value read past the payload", rtc_dcp_data_type_name(t));
    }
    size_t off = 0;
    for (size_t k = 0; off < p->payload_len && k < p->payload_len; k++)
        if (!rtc_dcp_skip_value(p->payload, p->payload_len, &off,
                                p->payload[k % p->payload_len] % 12))
            break;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtc_dcp_pdu p;
    memset(&p, 0, sizeof p);
    rtc_dcp_error e = rtc_dcp_decode(data, size, &p);
    if (e == RTC_DCP_E_NONE) {
        round_trip(data, size, &p);
        (void)rtc_dcp_master_check(&p, 1, 0);
        if (p.payload && (p.payload < data || p.payload + p.payload_len != data + size))
            rtc_fuzz_fail("the payload is not the datagram's tail", rtc_dcp_type_name(data[0]));
        if (p.payload)
            walk_payload(&p);
        char text[37];
        rtc_dcp_uuid_format(p.slave_uuid, text);
        uint8_t back[16];
        if (!rtc_dcp_uuid_parse(text, back) || memcmp(back, p.slave_uuid, 16) != 0)
            rtc_fuzz_fail("a uuid does not survive its text form", text);
    } else if (e != RTC_DCP_E_INVALID_LENGTH && e != RTC_DCP_E_NOT_SUPPORTED_PDU &&
               e != RTC_DCP_E_NOT_SUPPORTED_PDU_SIZE) {
        rtc_fuzz_fail("the decoder answers with an unexpected code", rtc_dcp_error_name(e));
    }
    slave_checks(data, size);
    return 0;
}
