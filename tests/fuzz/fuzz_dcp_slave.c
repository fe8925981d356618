/*
 * tests/fuzz/fuzz_dcp_slave.c — the DCP slave's protocol machine (rt-core/surfaces/src/
 * dcp_slave_priv.h) fed any sequence of events: datagrams from the master's address or
 * another one, the passing of time, the engine's published steps and the end of the run.
 *
 * Input: records, each one op byte and what it takes:
 *   op & 3 == 0  a datagram: u16 LE length (taken modulo what is left), its bytes; bit 2 of
 *                op: from another address than 127.0.0.1:5000
 *   op & 3 == 1  time passes: the next byte × 7 ms (the start time, the heartbeat)
 *   op & 3 == 2  the engine publishes the next step
 *   op & 3 == 3  the run ends (bit 2: by an error)
 *
 * Checked on every event: every datagram the machine sends decodes and is one a slave may
 * send (RSP, NTF, DAT), answers go to the master once one is registered, the state is a
 * DCP state, and the counters add up: each datagram received is acted on (a request, a
 * data PDU taken, a repeat answered) or counted in exactly one refusal counter.
 */
#include "fuzz_util.h"

#include "dcp_slave_priv.h"

#include "rtcosim/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASTER_IP 0x7F000001u
#define MASTER_PORT 5000

typedef struct engine {
    int64_t k;        /* the newest published step */
    int64_t pending;  /* NRT steps asked for */
    bool running;
    const rtc__dcp_core *c;
} engine;

static void e_send(void *user, const uint8_t *buf, size_t len, uint32_t ip, uint16_t port)
{
    engine *e = user;
    rtc_dcp_pdu p;
    if (rtc_dcp_decode(buf, len, &p) != RTC_DCP_E_NONE)
        rtc_fuzz_fail("the slave sent a datagram that does not decode", "");
    rtc_dcp_family f = rtc_dcp_family_of(p.type_id);
    if (f != RTC_DCP_FAMILY_RSP && f != RTC_DCP_FAMILY_NTF && f != RTC_DCP_FAMILY_DAT)
        rtc_fuzz_fail("the slave sent a PDU only a master sends", rtc_dcp_type_name(p.type_id));
    if (f != RTC_DCP_FAMILY_DAT && e->c->registered &&
        (ip != e->c->master_ip || port != e->c->master_port))
        rtc_fuzz_fail("an answer went elsewhere than to the registered master",
                      rtc_dcp_type_name(p.type_id));
}

static double e_set(void *user, size_t i, double value, int64_t origin)
{
    (void)user, (void)i, (void)origin;
    if (!isfinite(value))
        rtc_fuzz_fail("a non-finite input reached the engine", "");
    return value > 1e6 ? 1e6 : value; /* a clamp, so the NTF_log of it runs */
}

static void e_start(void *user, int64_t origin)
{
    (void)origin;
    ((engine *)user)->running = true;
}

static void e_step(void *user, uint32_t n, int64_t origin)
{
    (void)origin;
    if (n < 1 || n > RTC__DCP_MAX_STEPS)
        rtc_fuzz_fail("the engine was asked for steps beyond the bound", "");
    ((engine *)user)->pending += n;
}

static void e_stop(void *user, bool safe, int64_t origin)
{
    (void)safe, (void)origin;
    ((engine *)user)->running = false;
}

static bool e_outputs(void *user, double *out, int64_t *k)
{
    engine *e = user;
    out[0] = (double)e->k * 0.5;
    out[1] = -(double)e->k;
    *k = e->k;
    return true;
}

static const rtc__dcp_var ins[] = {{.name = "a", .vr = 1, .has_min = true, .min = -5,
                                    .has_max = true, .max = 5, .has_safe = true, .safe = 0},
                                   {.name = "b", .vr = 2}};
static const rtc__dcp_var outs[] = {{.name = "y", .vr = 3}, {.name = "z", .vr = 4}};

static void check_counters(const rtc__dcp_core *c)
{
#define G(f) atomic_load_explicit(&c->ct.f, memory_order_relaxed)
    uint64_t acted = G(requests) + G(dat_in) + G(repeats);
    uint64_t refused = G(wrong_sender) + G(malformed) + G(wrong_seq) + G(not_allowed) +
                       G(refused) + G(dropped) + G(ignored);
    if (acted + refused != G(received)) {
        char why[160];
        snprintf(why, sizeof why, "received %llu, acted on %llu, refused %llu",
                 (unsigned long long)G(received), (unsigned long long)acted,
                 (unsigned long long)refused);
        rtc_fuzz_fail("the counters do not add up", why);
    }
#undef G
    if (!rtc_dcp_state_name(c->state) || c->state >= RTC_DCP_N_STATES)
        rtc_fuzz_fail("the slave is in no DCP state", "");
}

static void datagram(rtc__dcp_core *c, const uint8_t **data, size_t *size, uint8_t op,
                     int64_t now, int64_t wall)
{
    size_t n = 0;
    if (*size >= 2) {
        n = (size_t)((*data)[0] | (*data)[1] << 8);
        *data += 2, *size -= 2;
    }
    n = *size ? n % (*size + 1) : 0;
    uint8_t *b = malloc(n ? n : 1); /* its own block: ASan sees a read past it */
    if (!b)
        abort();
    memcpy(b, *data, n);
    bool other = op & 4;
    rtc__dcp_core_receive(c, b, n, other ? 0x7F000002u : MASTER_IP,
                          other ? 6000 : MASTER_PORT, now, wall);
    free(b);
    *data += n, *size -= n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rtc__dcp_config cfg = {.in = ins, .out = outs, .n_in = 2, .n_out = 2,
                                  .srt = true, .nrt = true, .res_num = 1, .res_den = 100,
                                  .heartbeat_ns = 500000000, .ip = MASTER_IP, .port = 7000,
                                  .max_pdu = 1024};
    engine e = {.k = -1};
    rtc__dcp_engine eng = {.send = e_send, .set = e_set, .start = e_start, .step = e_step,
                           .stop = e_stop, .outputs = e_outputs, .user = &e};
    rtc__dcp_core c;
    if (rtc__dcp_core_init(&c, &cfg, &eng) != RTC_OK)
        abort();
    e.c = &c;
    int64_t now = 1000000000, wall = 1700000000LL * 1000000000LL;
    while (size > 0) {
        uint8_t op = data[0];
        data++, size--;
        switch (op & 3) {
        case 0: datagram(&c, &data, &size, op, now, wall); break;
        case 1: {
            int64_t dt = size ? (int64_t)data[0] * 7000000 : 7000000;
            data += size ? 1 : 0, size -= size ? 1 : 0;
            now += dt, wall += dt;
            (void)rtc__dcp_core_tick(&c, now, wall);
            break;
        }
        case 2:
            if (e.running || e.pending > 0) {
                e.k = e.k < 0 ? 1 : e.k + 1;
                e.pending -= e.pending > 0;
                rtc__dcp_core_stepped(&c, e.k, wall);
            }
            break;
        default:
            rtc__dcp_core_ended(&c, op & 4 ? RTC__DCP_END_ERROR : RTC__DCP_END_STOP, "end",
                                wall);
            break;
        }
        check_counters(&c);
    }
    if (getenv("RTC_FUZZ_TRACE")) /* what a seed reaches: for writing seeds */
        fprintf(stderr, "fuzz_dcp_slave: state %s, %llu request(s), %llu nack(s), %llu "
                "data in, %llu out, %llu step(s)\n", rtc_dcp_state_name(c.state),
                (unsigned long long)c.ct.requests, (unsigned long long)c.ct.nacks,
                (unsigned long long)c.ct.dat_in, (unsigned long long)c.ct.dat_out,
                (unsigned long long)c.ct.steps);
    rtc__dcp_core_clear(&c);
    return 0;
}
