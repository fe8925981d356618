/*
 * bench_dcp — the DCP master's costs (scripts/bench-dcp; a table, not a test). The master
 * is the real driver (rtc_dcp_master_ops) on its I/O thread; the slave is the test slave
 * (tests/unit/dcp_peer.c) in a thread of this process, over UDP on 127.0.0.1, so what is
 * measured is the protocol and both ends' stacks, not a model.
 *
 * usage: bench_dcp [SECONDS]   (default 5 per part)
 *   nrt: the driver steps an NRT slave back to back (step_ms 0.01: a new STC_do_step as
 *        soon as the last step's outputs came): steps per second, wall time per step
 *        (DAT_input_output + STC_do_step + COMPUTED + STC_send_outputs + the outputs), and
 *        the request round trips (p50/p99 of the driver's latency histogram);
 *   srt: an SRT slave stepping at 1 kHz on its own clock, the driver at 1 kHz; the slave
 *        echoes its input (y = a); this program writes a new a into the driver's mailbox
 *        every millisecond and times until the same value comes back as y: the link
 *        latency engine -> slave -> engine (send phase, the slave's step phase, UDP).
 */
#include "dcp_peer.h"

#include "rtcosim/driver.h"
#include "rtcosim/hist.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/mailbox.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char dcpx[] =
    "<?xml version=\"1.0\"?>\n<dcpSlaveDescription dcpMajorVersion=\"1\" dcpMinorVersion=\"0\" "
    "dcpSlaveName=\"bench\" uuid=\"b5279485-1a2b-4c3d-8e9f-0a1b2c3d4e5f\">\n"
    "<OpMode><SoftRealTime/><NonRealTime/></OpMode>\n"
    "<TimeRes><Resolution numerator=\"1\" denominator=\"100000\" fixed=\"false\"/></TimeRes>\n"
    "<TransportProtocols><UDP_IPv4><Control host=\"127.0.0.1\" port=\"9\"/></UDP_IPv4>"
    "</TransportProtocols>\n<CapabilityFlags/>\n<Variables>\n"
    "<Variable name=\"a\" valueReference=\"2\"><Input><Float64 start=\"0\"/></Input></Variable>\n"
    "<Variable name=\"y\" valueReference=\"1\"><Output fixedSteps=\"false\" minSteps=\"1\" "
    "maxSteps=\"100000\"><Float64/></Output></Variable>\n</Variables>\n</dcpSlaveDescription>\n";

typedef struct bench {
    dcp_peer peer;
    rtc_mailbox *mb[2];
    rtc_io_signal sig[2];
    rtc_kv kv[8];
    char port[16];
    rtc_driver_config cfg;
    void *drv;
} bench;

static rtc_logger lg;

static int open_driver(bench *b, const char *path, const char *op_mode, const char *step_ms)
{
    snprintf(b->port, sizeof b->port, "%d", b->peer.port);
    rtc_kv kv[] = {{"port", b->port}, {"dat_port", b->port}, {"op_mode", op_mode},
                   {"step_ms", step_ms}, {"priority", "0"}, {"timeout_ms", "200"}};
    memcpy(b->kv, kv, sizeof kv);
    for (int i = 0; i < 2; i++)
        if (rtc_mailbox_new(&b->mb[i]) != RTC_OK)
            return RTC_ENOMEM;
    b->sig[0] = (rtc_io_signal){.name = "a", .type = RTC_TYPE_FLOAT64, .dir = RTC_IO_TO_BENCH,
                                .mailbox = b->mb[0]};
    b->sig[1] = (rtc_io_signal){.name = "y", .type = RTC_TYPE_FLOAT64,
                                .dir = RTC_IO_FROM_BENCH, .mailbox = b->mb[1]};
    b->cfg = (rtc_driver_config){.component = "bench", .settings = b->kv, .n_settings = 6,
                                 .signals = b->sig, .n_signals = 2, .source = path};
    int rc = rtc_dcp_master_ops.open(&b->cfg, &lg, &b->drv);
    return rc == RTC_OK ? rtc_dcp_master_ops.start(b->drv) : rc;
}

static void close_driver(bench *b)
{
    rtc_dcp_master_ops.close(b->drv);
    rtc_mailbox_free(b->mb[0]);
    rtc_mailbox_free(b->mb[1]);
    dcp_peer_stop(&b->peer);
}

static uint64_t counter(bench *b, const char *name, rtc_driver_stats *st)
{
    uint64_t v = 0;
    rtc_dcp_master_ops.stats(b->drv, st);
    rtc_driver_stats_counter(st, name, &v);
    return v;
}

/* Wait until the slave runs (its first output came), up to 5 s. */
static bool running(bench *b)
{
    rtc_sample s;
    for (int i = 0; i < 5000; i++) {
        if (rtc_mailbox_read(b->mb[1], &s) && s.seq)
            return true;
        usleep(1000);
    }
    return false;
}

static int part_nrt(const char *path, double seconds)
{
    static bench b;
    if (dcp_peer_start(&b.peer) || open_driver(&b, path, "nrt", "0.01") || !running(&b))
        return 1;
    rtc_driver_stats st = {0};
    uint64_t s0 = counter(&b, "steps", &st);
    int64_t t0 = rtc_time_now_ns();
    usleep((useconds_t)(seconds * 1e6));
    uint64_t s1 = counter(&b, "steps", &st);
    int64_t t1 = rtc_time_now_ns();
    double per = (double)(t1 - t0) / (double)(s1 - s0);
    printf("%-48s %10.0f %10.1f %10.1f %10.1f\n", "nrt: one step (do_step .. outputs), master",
           (double)(s1 - s0) / ((double)(t1 - t0) / 1e9), per / 1e3,
           (double)st.latency.p50 / 1e3, (double)st.latency.p99 / 1e3);
    close_driver(&b);
    return 0;
}

static int part_srt(const char *path, double seconds)
{
    static bench b;
    b.peer.echo = true;
    if (dcp_peer_start(&b.peer) || open_driver(&b, path, "srt", "1") || !running(&b))
        return 1;
    rtc_hist *h = NULL;
    if (rtc_hist_new(100000000, &h) != RTC_OK)
        return 1;
    long n = (long)(seconds * 1000), lost = 0;
    int64_t next = rtc_time_now_ns();
    for (long k = 1; k <= n; k++) {
        rtc_sample in = {.value = (double)k, .quality = RTC_QUALITY_FRESH}, out;
        next += 1000000;
        rtc_time_sleep_until_ns(next);
        int64_t sent = rtc_time_now_ns();
        in.sample_ns = in.arrival_ns = sent;
        rtc_mailbox_write(b.mb[0], &in);
        bool back = false; /* spin until y == k comes back (at most 20 ms) */
        while (!back && rtc_time_now_ns() - sent < 20000000)
            back = rtc_mailbox_read(b.mb[1], &out) && out.value >= (double)k;
        if (back)
            rtc_hist_add(h, out.arrival_ns - sent > 0 ? out.arrival_ns - sent : 0);
        else
            lost++;
        next = rtc_time_now_ns();
    }
    rtc_hist_summary s;
    rtc_hist_summarize(h, &s);
    printf("%-48s %10ld %10.1f %10.1f %10.1f  (%ld of %ld not back in 20 ms)\n",
           "srt 1 kHz: input -> slave -> output, link latency", n - lost, (double)s.p50 / 1e3,
           (double)s.p99 / 1e3, (double)s.max / 1e3, lost, n);
    rtc_hist_free(h);
    close_driver(&b);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    lg = rtc_logger_stderr(RTC_LOG_WARNING);
    char dir[] = "/tmp/bench-dcp-XXXXXX", path[64];
    if (seconds <= 0 || !mkdtemp(dir))
        return 2;
    snprintf(path, sizeof path, "%s/bench.dcpx", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(dcpx, f) < 0 || fclose(f) != 0)
        return 1;
    printf("%-48s %10s %10s %10s %10s\n", "part", "steps/s|n", "us/step|p50", "rtt p50|p99",
           "p99|max us");
    int rc = part_nrt(path, seconds) || part_srt(path, seconds);
    unlink(path);
    rmdir(dir);
    return rc;
}
