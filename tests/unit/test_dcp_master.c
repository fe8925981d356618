/*
 * The DCP-master driver (io-drivers/src/dcp_master*.c) against a DCP slave over real UDP
 * on 127.0.0.1 (dcp_peer.c: the spec's state machine in a thread of this process): the
 * whole life cycle in SRT (as DCPLib's slaves walk it, with the second STC_run) and NRT,
 * values both ways through the mailboxes, safe values sent before stop and deregister;
 * what the engine cannot do refused at open with the .dcpx line and the DCP error code;
 * broken slaves — a NACK, silence, an Error state, junk and strangers' datagrams, a slave
 * left running by an earlier master — each handled, counted and said in one line.
 */
#include "cu_main.h"
#include "dcp_peer.h"
#include "io_cfg.h"
#include "io_util.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_MS 5000
#define DCPX RTC_TEST_DATA_DIR "/dcpx/"

IO_CFG_FIXTURE

static dcp_peer PEER_STORE, *PEER = &PEER_STORE;
static io_drv DRV;

/* Every case starts with a fresh peer, log and driver. */
static void fresh(void)
{
    memset(PEER, 0, sizeof *PEER);
    io_log_reset(&LOG);
    DRV = (io_drv){.ops = &rtc_dcp_master_ops};
}

/* A component on @p dcpx driving the peer (its port), with connectors a (to the slave,
 * safe -1) and y (from it), and the extra key/value pairs given (NULL-terminated). */
static void config(const char *dcpx, ...)
{
    va_list ap;
    io_cfg_init(CFG, "plant");
    CFG->cfg.source = dcpx;
    io_cfg_set_int(CFG, "port", PEER->port);
    io_cfg_set_int(CFG, "dat_port", PEER->port);
    io_cfg_set(CFG, "timeout_ms", "100");
    io_cfg_set(CFG, "reconnect_min_ms", "50");
    va_start(ap, dcpx);
    for (const char *k; (k = va_arg(ap, const char *));)
        io_cfg_set(CFG, k, va_arg(ap, const char *));
    va_end(ap);
    io_cfg_sig(CFG, "a", RTC_IO_TO_BENCH, RTC_TYPE_FLOAT64, "safe", "-1", NULL);
    io_cfg_sig(CFG, "y", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
}

static void start(void)
{
    CU_ASSERT_EQUAL_FATAL(DRV.ops->open(&CFG->cfg, &LOG.lg, &DRV.self), RTC_OK);
    CU_ASSERT_EQUAL_FATAL(DRV.ops->start(DRV.self), RTC_OK);
}

static void finish(void)
{
    DRV.ops->close(DRV.self);
    dcp_peer_stop(PEER);
    io_cfg_free(CFG);
}

typedef struct y_wait {
    double min;
} y_wait;

/* y from the slave is at least min (its model: y = 2 a + 1 + steps). */
static bool y_at_least(void *arg)
{
    rtc_sample s = io_cfg_get(CFG, 1);
    return s.seq && s.quality == RTC_QUALITY_FRESH && s.value >= ((y_wait *)arg)->min;
}

static bool peer_a_is(void *arg)
{
    return atomic_load(&PEER->last_a) == *(double *)arg;
}

static bool peer_running(void *arg)
{
    (void)arg;
    return atomic_load(&PEER->state) == RTC_DCP_STATE_RUNNING;
}

static bool peer_alive_again(void *arg)
{
    (void)arg;
    return atomic_load(&PEER->state) == RTC_DCP_STATE_ALIVE;
}

static void srt_life_cycle_as_dcplib_walks_it(void)
{
    fresh();
    PEER->sync_needs_run = true;
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait_link(&DRV, RTC_LINK_UP, WAIT_MS));
    io_cfg_put(CFG, 0, 3.0);
    double a = 3.0;
    CU_ASSERT(io_wait(peer_a_is, &a, WAIT_MS));
    CU_ASSERT(io_wait(y_at_least, &(y_wait){7.0}, WAIT_MS)); /* 2*3 + 1 + steps */
    CU_ASSERT(io_wait(peer_running, NULL, WAIT_MS)); /* the second STC_run */
    static const uint8_t order[] = {
        RTC_DCP_INF_STATE, RTC_DCP_STC_REGISTER, RTC_DCP_CFG_SCOPE, RTC_DCP_CFG_INPUT,
        RTC_DCP_CFG_SOURCE_NETWORK_INFORMATION, RTC_DCP_CFG_SCOPE, RTC_DCP_CFG_OUTPUT,
        RTC_DCP_CFG_STEPS, RTC_DCP_CFG_TARGET_NETWORK_INFORMATION, RTC_DCP_CFG_TIME_RES,
        RTC_DCP_STC_PREPARE, RTC_DCP_STC_CONFIGURE, RTC_DCP_STC_RUN, RTC_DCP_STC_RUN};
    CU_ASSERT_FATAL(atomic_load(&PEER->n_log) >= (int)sizeof order);
    CU_ASSERT(memcmp(PEER->log, order, sizeof order) == 0);
    rtc_driver_stats st = io_drv_stats(&DRV, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "life_cycles"), 1);
    CU_ASSERT_EQUAL(io_counter(&st, "nacks"), 0);
    CU_ASSERT_EQUAL(io_counter(&st, "wrong_sender"), 0);
    CU_ASSERT(st.port > 0);
    /* stop: safe value first, then STC_stop and STC_deregister */
    CU_ASSERT_EQUAL(DRV.ops->stop(DRV.self), RTC_OK);
    CU_ASSERT_EQUAL(atomic_load(&PEER->last_a), -1.0);
    CU_ASSERT(io_wait(peer_alive_again, NULL, WAIT_MS));
    CU_ASSERT(dcp_peer_saw(PEER, RTC_DCP_STC_STOP));
    CU_ASSERT_EQUAL(atomic_load(&PEER->deregisters), 1);
    CU_ASSERT(io_log_has(&LOG, "slave 'dcpslave' at 127.0.0.1:"));
    finish();
}

static bool steps_at_least(void *arg)
{
    return io_drv_counter(&DRV, "steps") >= *(uint64_t *)arg;
}

static void nrt_steps_on_do_step_and_send_outputs(void)
{
    fresh();
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "nrt_a_y.dcpx", "op_mode", "nrt", "step_ms", "10", NULL);
    start();
    io_cfg_put(CFG, 0, 5.0);
    uint64_t n = 5;
    CU_ASSERT(io_wait(steps_at_least, &n, WAIT_MS));
    CU_ASSERT(io_wait(y_at_least, &(y_wait){12.0}, WAIT_MS)); /* 2*5 + 1 + steps */
    CU_ASSERT(dcp_peer_saw(PEER, RTC_DCP_STC_DO_STEP));
    CU_ASSERT(dcp_peer_saw(PEER, RTC_DCP_STC_SEND_OUTPUTS));
    CU_ASSERT(!dcp_peer_saw(PEER, RTC_DCP_CFG_STEPS)); /* NRT: steps come with do_step */
    CU_ASSERT_EQUAL(PEER->op_mode, RTC_DCP_OP_NRT);
    CU_ASSERT(atomic_load(&PEER->steps) >= 5);
    DRV.ops->stop(DRV.self);
    CU_ASSERT(io_wait(peer_alive_again, NULL, WAIT_MS));
    finish();
}

/* ---- refused at open ---- */

static void refused(const char *who_msg)
{
    io_expect_refused(&rtc_dcp_master_ops, &CFG->cfg, &LOG, "dcp-master 'plant'", who_msg);
    io_cfg_free(CFG);
}

static void what_the_engine_cannot_do_refused_at_open(void)
{
    fresh();
    PEER->port = 9; /* nothing is sent: open refuses before */
    config(DCPX "srt_a_y.dcpx", "op_mode", "nrt", NULL);
    refused("srt_a_y.dcpx:4: OpMode: the slave does not offer NRT (op_mode=nrt); it offers "
            "SRT (INVALID_OP_MODE)");
    config(DCPX "tcp_only.dcpx", NULL);
    refused("tcp_only.dcpx:10: the slave offers TCP_IPv4; this engine speaks DCP over "
            "UDP_IPv4 only (NOT_SUPPORTED_TRANSPORT_PROTOCOL)");
    config(DCPX "srt_a_y.dcpx", "step_ms", "15", NULL);
    refused("srt_a_y.dcpx:7: TimeRes: the communication step 0.015 s (step_ms) is no whole "
            "multiple of a time resolution the slave offers (INVALID_TIME_RESOLUTION)");
    config(DCPX "srt_a_y.dcpx", "step_ms", "20", NULL);
    refused("srt_a_y.dcpx:25: Output 'y' allows only 1 steps, the communication step needs 2 "
            "of 1/100 s (step_ms) (INVALID_STEPS)");
    config(DCPX "srt_a_y.dcpx", NULL);
    io_cfg_sig(CFG, "z", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    refused("signal 'z': " RTC_TEST_DATA_DIR "/dcpx/srt_a_y.dcpx has no variable 'z'");
    io_cfg_init(CFG, "plant");
    CFG->cfg.source = DCPX "srt_a_y.dcpx";
    io_cfg_sig(CFG, "a", RTC_IO_FROM_BENCH, RTC_TYPE_FLOAT64, NULL);
    refused("signal 'a': " RTC_TEST_DATA_DIR "/dcpx/srt_a_y.dcpx:20: 'a' is an Input of the "
            "slave: its connector must be kind=\"input\"");
    io_cfg_init(CFG, "plant");
    refused("no slave description: give the component source=\"resources/NAME.dcpx\"");
}

/* ---- broken slaves ---- */

static bool logged(void *arg)
{
    return io_log_has(&LOG, (const char *)arg);
}

static void nack_named_with_slave_and_pdu(void)
{
    fresh();
    atomic_store(&PEER->nack_type, RTC_DCP_CFG_INPUT);
    atomic_store(&PEER->nack_code, RTC_DCP_E_INVALID_SOURCE_DATA_TYPE);
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait(logged, "slave 'dcpslave' at 127.0.0.1:", WAIT_MS));
    CU_ASSERT(io_wait(logged, "answered CFG_input with RSP_nack INVALID_SOURCE_DATA_TYPE "
                                    "(0x200B)", WAIT_MS));
    CU_ASSERT(io_wait_counter(&DRV, "nacks", 2, WAIT_MS)); /* tried again after a backoff */
    rtc_driver_stats st = io_drv_stats(&DRV, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "life_cycles"), 0);
    CU_ASSERT_NOT_EQUAL(st.link, RTC_LINK_UP);
    DRV.ops->stop(DRV.self);
    CU_ASSERT(io_wait(peer_alive_again, NULL, WAIT_MS)); /* left as it was found */
    finish();
}

static void silent_slave_bounded_and_said(void)
{
    fresh();
    atomic_store(&PEER->mute, true);
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", "retries", "2", NULL);
    start();
    CU_ASSERT(io_wait(logged, "no answer to INF_state (sequence id 0) after 3 tries of "
                                    "100 ms", WAIT_MS));
    rtc_driver_stats st = io_drv_stats(&DRV, NULL, 0);
    CU_ASSERT(st.timeouts >= 3);
    CU_ASSERT_EQUAL(io_counter(&st, "retransmits"), 2);
    int64_t t0 = rtc_time_now_ns();
    DRV.ops->stop(DRV.self); /* never registered: nothing to stop, no wait */
    CU_ASSERT(rtc_time_now_ns() - t0 < 1000000000);
    finish();
}

static bool relinked(void *arg)
{
    (void)arg;
    return io_drv_counter(&DRV, "life_cycles") >= 2;
}

static void error_state_takes_the_link_down_and_recovers(void)
{
    fresh();
    atomic_store(&PEER->error_after, 20);
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait(logged, "went from RUNNING to ERRORHANDLING (NTF_state_changed)",
                      WAIT_MS));
    CU_ASSERT(io_wait(logged, "reports PROTOCOL_ERROR_GENERIC (RSP_error_ack, in "
                                    "ERRORRESOLVED)", WAIT_MS));
    atomic_store(&PEER->error_after, 0);
    CU_ASSERT(io_wait(relinked, NULL, WAIT_MS)); /* deregistered, registered, running again */
    CU_ASSERT(atomic_load(&PEER->registers) >= 2);
    CU_ASSERT(io_drv_counter(&DRV, "slave_errors") >= 1);
    CU_ASSERT(io_wait_link(&DRV, RTC_LINK_UP, WAIT_MS));
    finish();
}

static void slave_stopping_by_itself_is_walked_again(void)
{
    fresh();
    atomic_store(&PEER->stop_after, 10);
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait(logged, "left the run for STOPPING (NTF_state_changed)", WAIT_MS));
    CU_ASSERT(io_wait(relinked, NULL, WAIT_MS)); /* deregistered from STOPPED, registered */
    CU_ASSERT(atomic_load(&PEER->deregisters) >= 1);
    CU_ASSERT(io_wait_link(&DRV, RTC_LINK_UP, WAIT_MS));
    finish();
}

static void slave_logs_shown_with_their_template(void)
{
    fresh();
    PEER->log_each = true;
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "log_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait(logged, "slave 'talker' at 127.0.0.1:", WAIT_MS));
    CU_ASSERT(io_wait(logged, "says (NTF_log, template 7): step 2 of y done", WAIT_MS));
    CU_ASSERT(io_wait_counter(&DRV, "logs", 10, WAIT_MS));
    finish();
}

static int runs_seen(void)
{
    int n = 0;
    for (int i = 0; i < atomic_load(&PEER->n_log); i++)
        n += PEER->log[i] == RTC_DCP_STC_RUN;
    return n;
}

/* STC_run's start time is whole seconds; a slave that refuses 0 ("now") is given the
 * next whole second but one, and runs from then. */
static void start_time_now_refused_then_whole_seconds(void)
{
    fresh();
    PEER->refuse_now = true;
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    /* no retransmission on a loaded machine: a late answer must not start a second walk */
    config(DCPX "srt_a_y.dcpx", "timeout_ms", "1000", NULL);
    start();
    CU_ASSERT(io_wait(y_at_least, &(y_wait){1.0}, WAIT_MS));
    if (runs_seen() != 1 || atomic_load(&PEER->nacks) != 1)
        printf("\n    runs %d, nacks %d, life cycles %llu; log:\n%s", runs_seen(),
               atomic_load(&PEER->nacks),
               (unsigned long long)io_drv_counter(&DRV, "life_cycles"), LOG.text);
    CU_ASSERT_EQUAL(runs_seen(), 1); /* the accepted one; the refused one is not logged */
    CU_ASSERT_EQUAL(atomic_load(&PEER->nacks), 1);
    CU_ASSERT_EQUAL(io_drv_counter(&DRV, "life_cycles"), 1);
    CU_ASSERT(!io_log_has(&LOG, "RSP_nack"));
    finish();
}

static void junk_and_strangers_counted_link_holds(void)
{
    fresh();
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait_link(&DRV, RTC_LINK_UP, WAIT_MS));
    atomic_store(&PEER->evil, true);
    CU_ASSERT(io_wait_counter(&DRV, "malformed", 30, WAIT_MS)); /* short, huge, unknown */
    CU_ASSERT(io_wait_counter(&DRV, "wrong_sender", 10, WAIT_MS)); /* from 127.0.0.2 */
    CU_ASSERT(io_wait_counter(&DRV, "wrong_seq", 10, WAIT_MS));    /* an answer to nothing */
    CU_ASSERT(io_wait_counter(&DRV, "unexpected", 20, WAIT_MS));   /* others' NTF, requests */
    int before = atomic_load(&PEER->outputs);
    io_cfg_put(CFG, 0, 4.0);
    CU_ASSERT(io_wait(y_at_least, &(y_wait){9.0 + before}, WAIT_MS)); /* values still flow */
    rtc_driver_stats st = io_drv_stats(&DRV, NULL, 0);
    CU_ASSERT_EQUAL(st.link, RTC_LINK_UP);
    CU_ASSERT_EQUAL(io_counter(&st, "life_cycles"), 1);
    CU_ASSERT_EQUAL(io_counter(&st, "nacks"), 0);
    finish();
}

static void slave_left_running_is_stopped_and_registered(void)
{
    fresh();
    PEER->start_registered = true;
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait_link(&DRV, RTC_LINK_UP, WAIT_MS));
    CU_ASSERT(dcp_peer_saw(PEER, RTC_DCP_STC_STOP));
    CU_ASSERT(dcp_peer_saw(PEER, RTC_DCP_STC_DEREGISTER));
    CU_ASSERT_EQUAL(atomic_load(&PEER->registers), 1);
    CU_ASSERT(io_drv_counter(&DRV, "nacks") >= 1); /* its sequence ids were another's */
    finish();
}

static void slave_gone_silent_in_run_goes_down(void)
{
    fresh();
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait(y_at_least, &(y_wait){1.0}, WAIT_MS));
    atomic_store(&PEER->mute, true);
    CU_ASSERT(io_wait(logged, "no answer to INF_state", WAIT_MS));
    CU_ASSERT(io_wait_link(&DRV, RTC_LINK_LOST, WAIT_MS)); /* judged after the loop's turn */
    rtc_sample y = io_cfg_get(CFG, 1);
    CU_ASSERT_EQUAL(y.quality, RTC_QUALITY_STALE);
    int64_t t0 = rtc_time_now_ns();
    DRV.ops->stop(DRV.self); /* stop and deregister unanswered: bounded */
    CU_ASSERT(rtc_time_now_ns() - t0 < 3000000000LL);
    CU_ASSERT(io_log_has(&LOG, "not stopped and deregistered"));
    finish();
}

/* Every NTF_state_changed lost: the master learns states from INF_state alone, and its
 * STC_stop names a state the slave has left (SYNCHRONIZING; it steps in SYNCHRONIZED): the
 * INVALID_STATE_ID makes it ask and send again. */
static void slave_without_notifications_still_stopped(void)
{
    fresh();
    PEER->sync_needs_run = true;
    PEER->no_ntf = true;
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "srt_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait(y_at_least, &(y_wait){1.0}, WAIT_MS));
    CU_ASSERT_EQUAL(DRV.ops->stop(DRV.self), RTC_OK);
    CU_ASSERT(io_wait(peer_alive_again, NULL, WAIT_MS)); /* it acks, then moves */
    CU_ASSERT_EQUAL(atomic_load(&PEER->deregisters), 1);
    CU_ASSERT(atomic_load(&PEER->nacks) >= 1); /* the stale state id */
    CU_ASSERT(!io_log_has(&LOG, "not stopped and deregistered"));
    finish();
}

static bool heartbeats(void *arg)
{
    return atomic_load(&PEER->inf_states) >= *(int *)arg;
}

static void heartbeat_kept_within_the_slaves_limit(void)
{
    fresh();
    PEER->hb_limit_ns = 1000000000; /* MaximumPeriodicInterval 1 s, as its .dcpx says: the
                                       master's INF_state every 0.5 s leaves half a second
                                       for a loaded machine's scheduling */
    CU_ASSERT_EQUAL_FATAL(dcp_peer_start(PEER), 0);
    config(DCPX "hb_a_y.dcpx", NULL);
    start();
    CU_ASSERT(io_wait_link(&DRV, RTC_LINK_UP, WAIT_MS));
    int n = atomic_load(&PEER->inf_states) + 4; /* two seconds more of the run */
    CU_ASSERT(io_wait(heartbeats, &n, WAIT_MS));
    CU_ASSERT_EQUAL(atomic_load(&PEER->state), RTC_DCP_STATE_RUNNING);
    rtc_driver_stats st = io_drv_stats(&DRV, NULL, 0);
    CU_ASSERT_EQUAL(io_counter(&st, "slave_errors"), 0);
    CU_ASSERT_EQUAL(io_counter(&st, "life_cycles"), 1);
    finish();
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"srt_life_cycle_as_dcplib_walks_it", srt_life_cycle_as_dcplib_walks_it},
        {"nrt_steps_on_do_step_and_send_outputs", nrt_steps_on_do_step_and_send_outputs},
        {"what_the_engine_cannot_do_refused_at_open",
         what_the_engine_cannot_do_refused_at_open},
        {"nack_named_with_slave_and_pdu", nack_named_with_slave_and_pdu},
        {"silent_slave_bounded_and_said", silent_slave_bounded_and_said},
        {"error_state_takes_the_link_down_and_recovers",
         error_state_takes_the_link_down_and_recovers},
        {"slave_stopping_by_itself_is_walked_again", slave_stopping_by_itself_is_walked_again},
        {"slave_logs_shown_with_their_template", slave_logs_shown_with_their_template},
        {"start_time_now_refused_then_whole_seconds",
         start_time_now_refused_then_whole_seconds},
        {"junk_and_strangers_counted_link_holds", junk_and_strangers_counted_link_holds},
        {"slave_left_running_is_stopped_and_registered",
         slave_left_running_is_stopped_and_registered},
        {"slave_gone_silent_in_run_goes_down", slave_gone_silent_in_run_goes_down},
        {"heartbeat_kept_within_the_slaves_limit", heartbeat_kept_within_the_slaves_limit},
        {"slave_without_notifications_still_stopped", slave_without_notifications_still_stopped},
        {NULL, NULL}};
    rtc_test_add_suite("dcp_master", suite_init, suite_clean, cases);
}
