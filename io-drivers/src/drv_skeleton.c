/*
 * The skeleton driver, the smallest complete one: UDP sample frames
 * (application/x-rtcosim-udp-frame; keys and frame format in iodrivers.h). Every period a
 * frame of the to-bench values goes to the peer; each frame received sets the from-bench
 * values. Two engines, or an engine and a script, make the simplest bridge.
 *
 * The template of a new driver: copy it and keep its shape. The base (rtcosim/
 * driver_base.h) comes first; open() calls rtc_drv_open() (common keys, the link
 * contract, signals, counters), reads its own keys and sizes every buffer; the hooks run
 * in the base's I/O thread (begin opens the endpoint, cycle does a period's work, wait
 * takes input until the next, safe, end) and touch only what open() prepared; the ops
 * table points at the base (link included). The link contract: the desc says its
 * defaults (here: required, connect_ms 2000, judged by silence), the hooks say when the
 * link is made (rtc_drv_link_up: the first frame) or gone (rtc_drv_link_down) and mark
 * every fresh exchange (rtc_drv_alive), and nothing goes out while rtc_drv_held() (here
 * an empty "RTCH" frame instead, so the peer sees this end before its run starts).
 * Then add the type and ops to iodrivers.h/.c, the keys to iodrivers.h, the file to
 * CMakeLists.txt, and tests/unit/test_io_<name>.c with a real peer.
 */
#include "rtcosim/driver_base.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/udp.h"
#include "rtcosim/time.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { SK_MALFORMED }; /* the driver's own counters, by index */
static const char *const sk_counters[] = {"malformed"};

typedef struct sk {
    rtc_drv_base b; /* first: the base's ops take the object as their base */
    struct sockaddr_in local, peer; /* peer port 0: receive only */
    int fd, tx_fd;  /* receiving socket (I/O thread, -1: closed); sending socket */
    uint8_t *buf;   /* one frame, sized at open */
    size_t buf_cap;
} sk;
static_assert(offsetof(sk, b) == 0, "the base must come first");

static const rtc_drv_desc sk_desc; /* below: what the base needs to know */

static int sk_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    rtc_drv_base *b;
    int rc = cfg && self ? rtc_drv_open(&sk_desc, sizeof(sk), cfg, lg, &b) : RTC_EINVAL;
    if (rc != RTC_OK)
        return rc;
    sk *d = (sk *)b;
    const char *host = rtc_kv_get(cfg->settings, cfg->n_settings, "peer_host");
    long port = 0, peer = 0;
    d->fd = -1;
    d->tx_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int err = errno; /* of socket(): the calls below may change errno */
    d->local = d->peer = (struct sockaddr_in){.sin_family = AF_INET};
    d->local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = rtc_drv_get_int(b, NULL, cfg->settings, cfg->n_settings, "port", 0, 0, 65535, &port);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(b, NULL, cfg->settings, cfg->n_settings, "peer_port", 0, 0, 65535,
                             &peer);
    if (rc == RTC_OK && inet_pton(AF_INET, host ? host : "127.0.0.1", &d->peer.sin_addr) != 1)
        rc = rtc_drv_bad(b, NULL, "setting peer_host=%s: not an IPv4 address", host);
    rtc_drv_link_address(b, "%s:%ld", host ? host : "127.0.0.1", peer);
    d->local.sin_port = htons((uint16_t)port);
    d->peer.sin_port = htons((uint16_t)peer);
    d->buf_cap = 4 + 8 * b->n_sig + 1; /* a frame either way, +1 to see a longer one */
    if (rc == RTC_OK && d->tx_fd < 0)
        rc = rtc_drv_error(b, rtc_status_from_errno(err), "cannot open a UDP socket: %s",
                           strerror(err));
    if (rc == RTC_OK && !(d->buf = malloc(d->buf_cap)))
        rc = RTC_ENOMEM;
    if (rc != RTC_OK) {
        rtc_drv_close(b);
        return rc;
    }
    b->stop_safe = RTC_DRV_STOP_SAFE_UNLESS_LATCHED; /* the peer sees safe values last */
    *self = d;
    return RTC_OK;
}

/* Send one frame of the to-bench values (the safe ones while latched), or an empty one
 * ("RTCH": here, no values) when @p empty. */
static void send_frame(sk *d, bool empty)
{
    uint64_t u;
    size_t len = 4;
    memcpy(d->buf, empty ? "RTCH" : "RTCF", 4);
    for (size_t i = 0; !empty && i < d->b.n_sig; i++) {
        rtc_sample s;
        if (d->b.sig[i].dir != RTC_IO_TO_BENCH)
            continue;
        if (!rtc_mailbox_read(d->b.sig[i].mb, &s))
            return; /* the writer held it through every try: this period sends nothing */
        double v = d->b.latched && d->b.sig[i].has_safe ? d->b.sig[i].safe : s.value;
        memcpy(&u, &v, 8);
        for (int k = 0; k < 8; k++)
            d->buf[len++] = (uint8_t)(u >> (56 - 8 * k));
        rtc_drv_sent(&d->b, i);
    }
    rtc_drv_count(&d->b.st.requests);
    if (sendto(d->tx_fd, d->buf, len, 0, (struct sockaddr *)&d->peer, sizeof d->peer) < 0)
        rtc_drv_count(&d->b.st.errors);
}

/* Check one received frame of len bytes, publish its values; the link is up. An empty
 * frame (a peer before its run) makes the link but carries nothing. */
static void take_frame(sk *d, size_t len, int64_t arrival)
{
    bool empty = len == 4 && memcmp(d->buf, "RTCH", 4) == 0;
    if (!empty && (len != 4 + 8 * d->b.n_from_bench || memcmp(d->buf, "RTCF", 4) != 0)) {
        rtc_drv_count(&d->b.st.named[SK_MALFORMED]);
        return;
    }
    for (size_t i = 0, off = 4; !empty && i < d->b.n_sig; i++) {
        uint64_t u = 0;
        double v;
        if (d->b.sig[i].dir != RTC_IO_FROM_BENCH)
            continue;
        for (int k = 0; k < 8; k++)
            u = u << 8 | d->buf[off++];
        memcpy(&v, &u, 8);
        rtc_drv_publish(&d->b, i, v, arrival, arrival);
    }
    rtc_drv_alive(&d->b, arrival);
    rtc_drv_count(&d->b.st.requests); /* after the values: a reader sees them with it */
    if (!d->b.link.conn) { /* frames come: the link is made (the base judges silence) */
        rtc_drv_count(&d->b.st.connects);
        rtc_drv_link_up(&d->b);
    }
}

static int sk_begin(rtc_drv_base *b)
{
    sk *d = (sk *)b;
    uint16_t port = ntohs(d->local.sin_port);
    int rc = rtc_udp_bind(ntohl(d->local.sin_addr.s_addr), &port, true, &d->fd);
    if (rc != RTC_OK)
        return rtc_drv_error(b, rc, "cannot bind 127.0.0.1:%u: %s", ntohs(d->local.sin_port),
                             rtc_strerror(rc));
    atomic_store_explicit(&b->st.port, port, memory_order_relaxed);
    if (!d->peer.sin_port) /* receive only: the link is where frames come to */
        rtc_drv_link_address(b, "127.0.0.1:%u", port);
    rtc_drv_link_error(b, "no frame received"); /* (the reason while it waits) */
    return RTC_OK;
}

static bool sk_cycle(rtc_drv_base *b, int64_t now)
{
    /* held (before the run's first tick): an empty frame says "here" to a peer that waits
     * for frames to call its link up, and carries no value */
    if (((sk *)b)->peer.sin_port)
        send_frame((sk *)b, rtc_drv_held(b) && !b->latched);
    rtc_drv_check_stale(b, now); /* stale values; the base judges the link by silence */
    return true;
}

static void sk_wait(rtc_drv_base *b, int64_t until)
{
    sk *d = (sk *)b;
    struct pollfd p = {.fd = d->fd, .events = POLLIN};
    if (rtc_drv_poll(&p, 1, until) <= 0)
        return;
    ssize_t n; /* what came, up to 64 frames: the loop must see stop and safe requests */
    for (int k = 0; k < 64 && (n = recv(d->fd, d->buf, d->buf_cap, 0)) >= 0; k++)
        take_frame(d, (size_t)n, rtc_time_now_ns());
}

static int sk_safe(rtc_drv_base *b)
{
    if (((sk *)b)->peer.sin_port) /* (receive only: nothing to send, latched all the same) */
        send_frame((sk *)b, false);
    return RTC_OK;
}

static void sk_end(rtc_drv_base *b)
{
    sk *d = (sk *)b;
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
}

static void sk_clear(rtc_drv_base *b)
{
    sk *d = (sk *)b;
    if (d->tx_fd >= 0)
        close(d->tx_fd);
    free(d->buf);
}

static const rtc_drv_desc sk_desc = {
    .name = "udp-frame", .kind = "udp_frame", .counters = sk_counters, .n_counters = 1,
    .period_key = "period_ms", .period_default = 10, .period_min = 0.1, .period_max = 60000,
    .stale_periods = 3, .connect_ms = 2000, .judge_silence = true, .begin = sk_begin,
    .cycle = sk_cycle, .wait = sk_wait, .safe = sk_safe, .end = sk_end, .clear = sk_clear};

const rtc_driver_ops rtc_udp_frame_ops = {
    .name = "udp-frame", .open = sk_open, .start = rtc_drv_start, .stop = rtc_drv_stop,
    .write_safe_values = rtc_drv_write_safe_values, .close = rtc_drv_close,
    .stats = rtc_drv_stats, .link = rtc_drv_link};
