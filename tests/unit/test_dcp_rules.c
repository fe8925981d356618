/*
 * The rules of DCP 1.0 on top of the codec (rtcosim/dcp.h): the slave state table (spec
 * Table 63 and the transitions of spec 3.2.5), whole NRT and SRT life cycles walked with
 * rtc_dcp_stc_target, the superstates, the validity checks of a received request in the
 * spec's reporting order, the master's check of answers, sequence-id arithmetic, payload
 * values and uuid text.
 */
#include "cu_main.h"

#include "rtcosim/dcp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- state table ---- */

static void alive_takes_register_and_inf_state_only(void)
{
    for (unsigned t = 0; t < 256; t++) {
        bool want = t == RTC_DCP_STC_REGISTER || t == RTC_DCP_INF_STATE;
        CU_ASSERT_EQUAL(rtc_dcp_allowed(RTC_DCP_STATE_ALIVE, (uint8_t)t), want);
    }
    CU_ASSERT(!rtc_dcp_allowed(RTC_DCP_N_STATES, RTC_DCP_INF_STATE)); /* no such state */
}

static void stop_allowed_in_the_thirteen_stoppable_states(void)
{
    unsigned n = 0;
    for (uint8_t s = 0; s < RTC_DCP_N_STATES; s++) {
        bool stoppable = rtc_dcp_superstates(s) & RTC_DCP_SUPER_STOPPABLE;
        CU_ASSERT_EQUAL(rtc_dcp_allowed(s, RTC_DCP_STC_STOP), stoppable);
        n += stoppable;
        if (stoppable)
            CU_ASSERT_EQUAL(rtc_dcp_stc_target(s, RTC_DCP_STC_STOP), RTC_DCP_STATE_STOPPING);
    }
    CU_ASSERT_EQUAL(n, 13);
}

static void cfg_only_in_configuration_inf_error_only_in_error(void)
{
    for (uint8_t s = 0; s < RTC_DCP_N_STATES; s++) {
        for (unsigned t = 0x20; t <= 0x2B; t++)
            CU_ASSERT_EQUAL(rtc_dcp_allowed(s, (uint8_t)t), s == RTC_DCP_STATE_CONFIGURATION);
        CU_ASSERT_EQUAL(rtc_dcp_allowed(s, RTC_DCP_INF_ERROR),
                        (rtc_dcp_superstates(s) & RTC_DCP_SUPER_ERROR) != 0);
        CU_ASSERT(rtc_dcp_allowed(s, RTC_DCP_INF_STATE)); /* any state answers INF_state */
        for (unsigned t = 0xB0; t < 0xF0; t++) /* nothing a master receives */
            CU_ASSERT(!rtc_dcp_allowed(s, (uint8_t)t));
    }
    CU_ASSERT(rtc_dcp_allowed(RTC_DCP_STATE_ERRORRESOLVED, RTC_DCP_STC_RESET));
    CU_ASSERT(rtc_dcp_allowed(RTC_DCP_STATE_STOPPED, RTC_DCP_DAT_INPUT_OUTPUT));
    CU_ASSERT(!rtc_dcp_allowed(RTC_DCP_STATE_PREPARED, RTC_DCP_DAT_INPUT_OUTPUT));
}

/* Walk @p script (STC type, then the slave signal's state or 0) from ALIVE; each STC must be
 * allowed where it is sent and lead where the spec says. */
static uint8_t walk(const uint8_t (*script)[3], size_t n)
{
    uint8_t s = RTC_DCP_STATE_ALIVE;
    for (size_t i = 0; i < n; i++) {
        int to = rtc_dcp_stc_target(s, script[i][0]);
        if (to != script[i][1])
            fprintf(stderr, "  %s in %s: got %d, want %s\n", rtc_dcp_type_name(script[i][0]),
                    rtc_dcp_state_name(s), to, rtc_dcp_state_name(script[i][1]));
        CU_ASSERT_EQUAL_FATAL(to, script[i][1]);
        s = script[i][2] ? script[i][2] : (uint8_t)to; /* the SIG_ the slave raises */
    }
    return s;
}

static void nrt_life_cycle_walks_to_alive(void)
{
    static const uint8_t script[][3] = {
        {RTC_DCP_STC_REGISTER, RTC_DCP_STATE_CONFIGURATION, 0},
        {RTC_DCP_STC_PREPARE, RTC_DCP_STATE_PREPARING, RTC_DCP_STATE_PREPARED},
        {RTC_DCP_STC_CONFIGURE, RTC_DCP_STATE_CONFIGURING, RTC_DCP_STATE_CONFIGURED},
        {RTC_DCP_STC_INITIALIZE, RTC_DCP_STATE_INITIALIZING, RTC_DCP_STATE_INITIALIZED},
        {RTC_DCP_STC_SEND_OUTPUTS, RTC_DCP_STATE_SENDING_I, RTC_DCP_STATE_CONFIGURED},
        {RTC_DCP_STC_RUN, RTC_DCP_STATE_SYNCHRONIZING, 0},
        {RTC_DCP_STC_DO_STEP, RTC_DCP_STATE_COMPUTING, RTC_DCP_STATE_COMPUTED},
        {RTC_DCP_STC_SEND_OUTPUTS, RTC_DCP_STATE_SENDING_D, RTC_DCP_STATE_SYNCHRONIZING},
        {RTC_DCP_STC_DO_STEP, RTC_DCP_STATE_COMPUTING, RTC_DCP_STATE_COMPUTED},
        {RTC_DCP_STC_STOP, RTC_DCP_STATE_STOPPING, RTC_DCP_STATE_STOPPED},
        {RTC_DCP_STC_RESET, RTC_DCP_STATE_CONFIGURATION, 0},
        {RTC_DCP_STC_DEREGISTER, RTC_DCP_STATE_ALIVE, 0},
    };
    CU_ASSERT_EQUAL(walk(script, sizeof script / sizeof script[0]), RTC_DCP_STATE_ALIVE);
}

static void srt_life_cycle_as_dcplib_master_walks_it(void)
{
    static const uint8_t script[][3] = {
        {RTC_DCP_STC_REGISTER, RTC_DCP_STATE_CONFIGURATION, 0},
        {RTC_DCP_STC_PREPARE, RTC_DCP_STATE_PREPARING, RTC_DCP_STATE_PREPARED},
        {RTC_DCP_STC_CONFIGURE, RTC_DCP_STATE_CONFIGURING, RTC_DCP_STATE_CONFIGURED},
        {RTC_DCP_STC_RUN, RTC_DCP_STATE_SYNCHRONIZING, RTC_DCP_STATE_SYNCHRONIZED},
        {RTC_DCP_STC_RUN, RTC_DCP_STATE_RUNNING, 0}, /* DCPLib's second STC_run */
        {RTC_DCP_STC_STOP, RTC_DCP_STATE_STOPPING, RTC_DCP_STATE_STOPPED},
        {RTC_DCP_STC_DEREGISTER, RTC_DCP_STATE_ALIVE, 0},
    };
    CU_ASSERT_EQUAL(walk(script, sizeof script / sizeof script[0]), RTC_DCP_STATE_ALIVE);
    /* what no state allows, no state reaches */
    CU_ASSERT_EQUAL(rtc_dcp_stc_target(RTC_DCP_STATE_RUNNING, RTC_DCP_STC_RUN), -1);
    CU_ASSERT_EQUAL(rtc_dcp_stc_target(RTC_DCP_STATE_CONFIGURATION, RTC_DCP_STC_RUN), -1);
    CU_ASSERT_EQUAL(rtc_dcp_stc_target(RTC_DCP_STATE_CONFIGURATION, RTC_DCP_INF_STATE), -1);
    CU_ASSERT_EQUAL(rtc_dcp_stc_target(RTC_DCP_STATE_ERRORHANDLING, RTC_DCP_STC_RESET), -1);
}

static void superstates_as_the_spec_groups_them(void)
{
    CU_ASSERT_EQUAL(rtc_dcp_superstates(RTC_DCP_STATE_ALIVE), 0);
    CU_ASSERT_EQUAL(rtc_dcp_superstates(RTC_DCP_STATE_CONFIGURATION), RTC_DCP_SUPER_NORMAL);
    CU_ASSERT_EQUAL(rtc_dcp_superstates(RTC_DCP_STATE_SENDING_I),
                    RTC_DCP_SUPER_NORMAL | RTC_DCP_SUPER_STOPPABLE |
                        RTC_DCP_SUPER_INITIALIZATION);
    CU_ASSERT_EQUAL(rtc_dcp_superstates(RTC_DCP_STATE_SYNCHRONIZED),
                    RTC_DCP_SUPER_NORMAL | RTC_DCP_SUPER_STOPPABLE | RTC_DCP_SUPER_RUN);
    CU_ASSERT_EQUAL(rtc_dcp_superstates(RTC_DCP_STATE_SENDING_D),
                    RTC_DCP_SUPER_NORMAL | RTC_DCP_SUPER_STOPPABLE |
                        RTC_DCP_SUPER_NONREALTIME);
    CU_ASSERT_EQUAL(rtc_dcp_superstates(RTC_DCP_STATE_STOPPED), RTC_DCP_SUPER_NORMAL);
    CU_ASSERT_EQUAL(rtc_dcp_superstates(RTC_DCP_STATE_ERRORRESOLVED), RTC_DCP_SUPER_ERROR);
    CU_ASSERT_EQUAL(rtc_dcp_superstates(0x40), 0);
}

/* ---- the slave's checks, in the spec's order ---- */

static size_t enc(rtc_dcp_pdu p, uint8_t *buf)
{
    size_t n = rtc_dcp_encode(&p, buf, 64);
    CU_ASSERT_FATAL(n > 0);
    return n;
}

static const rtc_dcp_slave_view running = {
    .state = RTC_DCP_STATE_RUNNING, .slave_id = 3, .last_seq = 41, .registered = true,
    .nrt = true};

static void request_for_another_slave_or_master_dropped(void)
{
    uint8_t buf[64];
    rtc_dcp_pdu p;
    uint16_t err;
    size_t n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_INF_STATE, .seq = 42, .slave = 4}, buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_DROP);
    buf[3] = 0;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_DROP);
    buf[3] = 3;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_ACCEPT);
    /* what only a master receives, and junk, are dropped too */
    n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_RSP_ACK, .seq = 42, .slave = 3}, buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_DROP);
    buf[0] = 0x7F;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_DROP);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_NOT_SUPPORTED_PDU);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, 0, &p, &err), RTC_DCP_DROP);
    buf[0] = RTC_DCP_STC_STOP;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, 3, &p, &err), RTC_DCP_DROP);
}

static void sequence_checked_before_length_state_and_state_id(void)
{
    uint8_t buf[64];
    rtc_dcp_pdu p;
    uint16_t err;
    /* STC_configure in RUNNING, wrong state id, one byte long and out of sequence */
    size_t n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_STC_CONFIGURE, .seq = 50, .slave = 3,
                                 .state_id = RTC_DCP_STATE_PREPARED},
                   buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n + 1, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_INVALID_SEQUENCE_ID);
    CU_ASSERT_EQUAL(p.seq, 50); /* the resp_seq_id of the NACK */
    buf[1] = 42;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n + 1, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_INVALID_LENGTH);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE);
    buf[0] = RTC_DCP_STC_STOP;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_INVALID_STATE_ID);
    buf[4] = RTC_DCP_STATE_RUNNING;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_ACCEPT);
    CU_ASSERT_EQUAL(p.type_id, RTC_DCP_STC_STOP);
    /* the counter wraps at 2^16 */
    rtc_dcp_slave_view v = running;
    v.last_seq = 0xFFFF;
    buf[1] = buf[2] = 0;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&v, buf, n, &p, &err), RTC_DCP_ACCEPT);
}

static void unsupported_pdus_nacked_as_not_supported(void)
{
    uint8_t buf[64];
    rtc_dcp_pdu p;
    uint16_t err;
    rtc_dcp_slave_view srt = running;
    srt.nrt = false;
    size_t n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_STC_DO_STEP, .seq = 42, .slave = 3,
                                 .state_id = RTC_DCP_STATE_RUNNING, .steps = 1},
                   buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&srt, buf, n, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_NOT_SUPPORTED_PDU);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_ACCEPT);
    CU_ASSERT_EQUAL(p.steps, 1);
    n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_INF_LOG, .seq = 42, .slave = 3}, buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_NOT_SUPPORTED_PDU);
}

static void alive_registers_with_any_sequence_and_id(void)
{
    uint8_t buf[64];
    rtc_dcp_pdu p;
    uint16_t err;
    rtc_dcp_slave_view alive = {.state = RTC_DCP_STATE_ALIVE};
    size_t n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_STC_REGISTER, .seq = 777, .slave = 9,
                                 .state_id = RTC_DCP_STATE_ALIVE, .op_mode = RTC_DCP_OP_NRT,
                                 .major_version = 1},
                   buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&alive, buf, n, &p, &err), RTC_DCP_ACCEPT);
    CU_ASSERT_EQUAL(p.slave, 9);
    CU_ASSERT_EQUAL(p.seq, 777);
    buf[3] = 0; /* id 0 is the master's */
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&alive, buf, n, &p, &err), RTC_DCP_DROP);
    buf[3] = 9;
    buf[4] = RTC_DCP_STATE_CONFIGURATION; /* the master thinks it is registered */
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&alive, buf, n, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_INVALID_STATE_ID);
    n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_CFG_CLEAR, .seq = 1, .slave = 9}, buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&alive, buf, n, &p, &err), RTC_DCP_NACK);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE);
}

static void data_dropped_when_malformed_or_not_allowed(void)
{
    uint8_t buf[64], v[8] = {0};
    rtc_dcp_pdu p;
    uint16_t err;
    size_t n = enc((rtc_dcp_pdu){.type_id = RTC_DCP_DAT_INPUT_OUTPUT, .seq = 7, .id = 1,
                                 .payload = v, .payload_len = 8},
                   buf);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, n, &p, &err), RTC_DCP_ACCEPT);
    CU_ASSERT_EQUAL(p.payload_len, 8);
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&running, buf, 4, &p, &err), RTC_DCP_DROP);
    CU_ASSERT_EQUAL(err, RTC_DCP_E_INVALID_LENGTH);
    rtc_dcp_slave_view prepared = running;
    prepared.state = RTC_DCP_STATE_PREPARED;
    CU_ASSERT_EQUAL(rtc_dcp_slave_check(&prepared, buf, n, &p, &err), RTC_DCP_DROP);
}

static void master_takes_answers_of_its_slave_to_its_request(void)
{
    rtc_dcp_pdu ack = {.type_id = RTC_DCP_RSP_ACK, .seq = 10, .slave = 2};
    CU_ASSERT_EQUAL(rtc_dcp_master_check(&ack, 2, 10), RTC_DCP_E_NONE);
    CU_ASSERT_EQUAL(rtc_dcp_master_check(&ack, 2, 11), RTC_DCP_E_INVALID_SEQUENCE_ID);
    CU_ASSERT_EQUAL(rtc_dcp_master_check(&ack, 1, 10), RTC_DCP_E_PROTOCOL_ERROR_GENERIC);
    rtc_dcp_pdu ntf = {.type_id = RTC_DCP_NTF_STATE_CHANGED, .slave = 2};
    CU_ASSERT_EQUAL(rtc_dcp_master_check(&ntf, 2, 99), RTC_DCP_E_NONE);
    CU_ASSERT_EQUAL(rtc_dcp_master_check(&ntf, 3, 99), RTC_DCP_E_PROTOCOL_ERROR_GENERIC);
    rtc_dcp_pdu req = {.type_id = RTC_DCP_STC_STOP, .seq = 10, .slave = 2};
    CU_ASSERT_EQUAL(rtc_dcp_master_check(&req, 2, 10), RTC_DCP_E_PROTOCOL_ERROR_GENERIC);
}

/* ---- sequence ids, values, uuid ---- */

static void sequence_gap_counts_losses_and_spots_repeats(void)
{
    CU_ASSERT_EQUAL(rtc_dcp_seq_next(0xFFFF), 0);
    CU_ASSERT_EQUAL(rtc_dcp_seq_gap(5, 6), 0);
    CU_ASSERT_EQUAL(rtc_dcp_seq_gap(5, 9), 3);
    CU_ASSERT_EQUAL(rtc_dcp_seq_gap(0xFFFE, 1), 2); /* across the wrap */
    CU_ASSERT_EQUAL(rtc_dcp_seq_gap(5, 5), -1);     /* a repeat */
    CU_ASSERT_EQUAL(rtc_dcp_seq_gap(5, 4), -1);     /* a late one */
    CU_ASSERT_EQUAL(rtc_dcp_seq_gap(0, 0x8000), 0x7FFF);
    CU_ASSERT_EQUAL(rtc_dcp_seq_gap(0, 0x8001), -1);
}

static void numeric_values_round_clamp_and_read_back(void)
{
    static const struct {
        uint8_t type;
        double in, out;
        bool clamped;
        const char *hex;
    } cases[] = {
        {RTC_DCP_UINT8, 300, 255, true, "ff"},
        {RTC_DCP_UINT8, -1, 0, true, "00"},
        {RTC_DCP_UINT16, 1234.5, 1234, false, "d204"}, /* to nearest even */
        {RTC_DCP_UINT32, 4294967295.0, 4294967295.0, false, "ffffffff"},
        {RTC_DCP_UINT64, 1e30, 18446744073709551615.0, true, "ffffffffffffffff"},
        {RTC_DCP_INT8, -128.4, -128, false, "80"},
        {RTC_DCP_INT8, 200, 127, true, "7f"},
        {RTC_DCP_INT16, -2, -2, false, "feff"},
        {RTC_DCP_INT32, -1e12, -2147483648.0, true, "00000080"},
        {RTC_DCP_INT64, -3, -3, false, "fdffffffffffffff"},
        {RTC_DCP_FLOAT32, 0.5, 0.5, false, "0000003f"},
        {RTC_DCP_FLOAT64, -2.25, -2.25, false, "00000000000002c0"},
        {RTC_DCP_INT32, NAN, 0, true, "00000000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[8], want[8];
        size_t off = 0, n = strlen(cases[i].hex) / 2;
        bool clamped = !cases[i].clamped;
        for (size_t k = 0; k < n; k++)
            CU_ASSERT(sscanf(cases[i].hex + 2 * k, "%2hhx", &want[k]) == 1);
        CU_ASSERT(rtc_dcp_put_value(buf, sizeof buf, &off, cases[i].type, cases[i].in,
                                    &clamped));
        CU_ASSERT_EQUAL(off, n);
        CU_ASSERT_EQUAL(clamped, cases[i].clamped);
        CU_ASSERT(memcmp(buf, want, n) == 0);
        double v = 42;
        off = 0;
        CU_ASSERT(rtc_dcp_get_value(buf, n, &off, cases[i].type, &v));
        CU_ASSERT_EQUAL(v, cases[i].out);
    }
}

static void values_that_do_not_fit_refused_untouched(void)
{
    uint8_t buf[8] = {0};
    size_t off = 5;
    double v = 7;
    CU_ASSERT(!rtc_dcp_put_value(buf, sizeof buf, &off, RTC_DCP_FLOAT32, 1, NULL));
    CU_ASSERT(!rtc_dcp_put_value(buf, sizeof buf, &off, RTC_DCP_STRING, 1, NULL));
    CU_ASSERT(!rtc_dcp_get_value(buf, sizeof buf, &off, RTC_DCP_INT64, &v));
    off = 9;
    CU_ASSERT(!rtc_dcp_get_value(buf, sizeof buf, &off, RTC_DCP_UINT8, &v));
    CU_ASSERT_EQUAL(off, 9);
    CU_ASSERT_EQUAL(v, 7);
    /* strings and binaries are skipped by their length, which must fit */
    uint8_t s[] = {3, 0, 0, 0, 'a', 'b', 'c', 0xFF, 0xFF, 0xFF, 0xFF};
    off = 0;
    CU_ASSERT(rtc_dcp_skip_value(s, 7, &off, RTC_DCP_STRING));
    CU_ASSERT_EQUAL(off, 7);
    CU_ASSERT(!rtc_dcp_skip_value(s, 6, &(size_t){0}, RTC_DCP_STRING));
    CU_ASSERT(!rtc_dcp_skip_value(s, sizeof s, &(size_t){7}, RTC_DCP_BINARY)); /* 4 GiB */
    CU_ASSERT(!rtc_dcp_skip_value(s, sizeof s, &(size_t){0}, 12));
}

static void uuid_text_round_trips_and_malformed_refused(void)
{
    uint8_t u[16], keep[16];
    char text[37];
    CU_ASSERT(rtc_dcp_uuid_parse("B5279485-1a2b-4c3d-8e9f-0a1b2c3d4e5f", u));
    CU_ASSERT_EQUAL(u[0], 0xB5);
    CU_ASSERT_EQUAL(u[15], 0x5F);
    rtc_dcp_uuid_format(u, text);
    CU_ASSERT_STRING_EQUAL(text, "b5279485-1a2b-4c3d-8e9f-0a1b2c3d4e5f");
    memcpy(keep, u, 16);
    static const char *const bad[] = {"", "b5279485-1a2b-4c3d-8e9f-0a1b2c3d4e5",
                                      "b5279485-1a2b-4c3d-8e9f-0a1b2c3d4e5f0",
                                      "b52794851-a2b-4c3d-8e9f-0a1b2c3d4e5f",
                                      "b5279485-1a2b-4c3d-8e9f-0a1b2c3d4e5g", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT(!rtc_dcp_uuid_parse(bad[i], u));
    CU_ASSERT(memcmp(u, keep, 16) == 0);
}

void rtc_test_register(void)
{
    static const rtc_test_case table[] = {
        {"alive_takes_register_and_inf_state_only", alive_takes_register_and_inf_state_only},
        {"stop_allowed_in_the_thirteen_stoppable_states",
         stop_allowed_in_the_thirteen_stoppable_states},
        {"cfg_only_in_configuration_inf_error_only_in_error",
         cfg_only_in_configuration_inf_error_only_in_error},
        {"nrt_life_cycle_walks_to_alive", nrt_life_cycle_walks_to_alive},
        {"srt_life_cycle_as_dcplib_master_walks_it", srt_life_cycle_as_dcplib_master_walks_it},
        {"superstates_as_the_spec_groups_them", superstates_as_the_spec_groups_them},
        {NULL, NULL}};
    static const rtc_test_case checks[] = {
        {"request_for_another_slave_or_master_dropped",
         request_for_another_slave_or_master_dropped},
        {"sequence_checked_before_length_state_and_state_id",
         sequence_checked_before_length_state_and_state_id},
        {"unsupported_pdus_nacked_as_not_supported", unsupported_pdus_nacked_as_not_supported},
        {"alive_registers_with_any_sequence_and_id", alive_registers_with_any_sequence_and_id},
        {"data_dropped_when_malformed_or_not_allowed",
         data_dropped_when_malformed_or_not_allowed},
        {"master_takes_answers_of_its_slave_to_its_request",
         master_takes_answers_of_its_slave_to_its_request},
        {NULL, NULL}};
    static const rtc_test_case values[] = {
        {"sequence_gap_counts_losses_and_spots_repeats",
         sequence_gap_counts_losses_and_spots_repeats},
        {"numeric_values_round_clamp_and_read_back", numeric_values_round_clamp_and_read_back},
        {"values_that_do_not_fit_refused_untouched", values_that_do_not_fit_refused_untouched},
        {"uuid_text_round_trips_and_malformed_refused",
         uuid_text_round_trips_and_malformed_refused},
        {NULL, NULL}};
    rtc_test_add_suite("state_table", NULL, NULL, table);
    rtc_test_add_suite("checks", NULL, NULL, checks);
    rtc_test_add_suite("values", NULL, NULL, values);
}
