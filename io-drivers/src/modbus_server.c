/*
 * Modbus server driver (TCP and RTU, libmodbus): a PLC or SCADA under test polls the
 * simulated plant. To-bench signals (engine outputs) are copied into the register map
 * every update_ms; from-bench signals are holding registers/coils the peer writes, and
 * every write becomes a timestamped sample in the signal's mailbox.
 *
 * Threads: all libmodbus work, including listen/accept, happens in the I/O thread, which
 * is the driver base's (rtcosim/driver_base.h): its begin hook binds the socket before
 * start() returns, so the port is known (stats.port) then. The register map
 * (modbus_mapping_t) is owned by the I/O thread alone: no lock.
 *
 * The base's loop calls the cycle hook every update_ms (outputs into the map) and the
 * wait hook in between: ppoll on the listen socket and every client (TCP) or the tty
 * (RTU) with a timeout up to the next update or connection deadline. TCP clients never block each
 * other: each connection has its own receive buffer, the loop takes what a readable
 * socket holds (non-blocking recv) and frames requests itself from the MBAP header (its
 * length field says how many bytes follow), so a peer that sends half a frame and stops
 * costs only its own connection. A frame not complete within frame_timeout_ms, or a
 * connection without a byte for idle_timeout_ms, is closed. (RTU is one line with one
 * master: libmodbus frames it, bounded by the byte timeout.)
 *
 * Admission: a new client is never locked out by clients that are merely connected or
 * polling. Every connect is accepted (the backlog drained each turn, so a connect storm
 * cannot fill it and make a PLC's SYN wait for a retransmission); when slots are short
 * one connection yields, chosen in this order: a connection that has not completed a
 * request yet or holds a partial frame (oldest first: a PLC sends its request at once,
 * slowloris and never-speaking sockets wait), then the one served least recently. An
 * address holding max_clients_per_peer connections makes room among its own, so a crowd
 * from one host cannot push out a PLC elsewhere; at max_clients the least recently served
 * connection of the most crowded address yields. A connection accepted in the current turn
 * of the loop never yields (it has not had a chance to speak), and while one is open no
 * served client yields: such a connect is refused (a storm of connects within one turn
 * replaces its own, never a PLC).
 *
 * Least privilege: libmodbus sees only requests checked by rtc__mb_pdu_check (served function
 * codes, exact lengths: it trusts byte counts) whose every written address is exposed as
 * a from-bench signal, whatever the function code (5, 6, 15, 16, 22, 23); others get
 * exception 01, 03 or 02 and are counted, so a PLC cannot overwrite an engine output.
 */
#include "modbus_priv.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/rtc_config.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <modbus.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MBS_MAX_CLIENTS RTC_MODBUS_MAX_CLIENTS
#define MBS_DEFAULT_CLIENTS (MBS_MAX_CLIENTS < 32 ? MBS_MAX_CLIENTS : 32)
#define MBS_ACCEPT_BATCH 64 /* connects taken per turn of the loop (the rest: next turn) */
#define MBAP_LEN 7 /* transaction id, protocol id, length, unit id */

/* One TCP client: the request being received and when its bytes came. */
typedef struct mbs_conn {
    int fd;
    int n;             /* bytes of the frame under way */
    uint32_t addr;     /* the peer's IPv4 address, host order */
    bool spoke;        /* a request of it was answered */
    uint64_t turn;     /* the loop's turn that accepted it */
    int64_t first_ns;  /* arrival of its first byte (n > 0) */
    int64_t last_ns;   /* accept or the last byte received */
    int64_t active_ns; /* accept or the last request answered */
    uint8_t rx[MODBUS_TCP_MAX_ADU_LENGTH];
} mbs_conn;

/* The server's own counters (rtc_driver_stats.counters, kind "modbus_server"):
 *   exceptions       exception responses sent
 *   write_refused    write requests refused with exception 02 (any target not mapped as
 *                    a from-bench signal), whatever the function code
 *   fc_unsupported   requests with a function code not served (exception 01)
 *   bad_requests     malformed requests: length, byte count or quantity wrong (exception
 *                    03), or a broken MBAP header (connection closed)
 *   frame_timeouts   connections closed: a request not complete in frame_timeout_ms
 *   idle_closed      connections closed after idle_timeout_ms without a byte
 *   evicted          connections closed to admit a new one (see Admission above)
 *   evicted_peer     of these, closed because the new one's address held
 *                    max_clients_per_peer connections while slots were free
 *   clients_refused  connects refused: the connections that could yield were accepted in
 *                    the same turn (a connect storm)
 *   clients          TCP connections open now
 *   clients_max      most TCP connections open at once */
enum {
    MBS_EXCEPTIONS, MBS_WRITE_REFUSED, MBS_FC_UNSUPPORTED, MBS_BAD_REQUESTS, MBS_FRAME_TIMEOUTS,
    MBS_IDLE_CLOSED, MBS_EVICTED, MBS_EVICTED_PEER, MBS_CLIENTS_REFUSED, MBS_CLIENTS,
    MBS_CLIENTS_MAX, MBS_N_COUNTERS
};
static const char *const mbs_counters[MBS_N_COUNTERS] = {
    "exceptions",  "write_refused", "fc_unsupported", "bad_requests",    "frame_timeouts",
    "idle_closed", "evicted",       "evicted_peer",   "clients_refused", "clients",
    "clients_max"};
#define MC(name) (&d->b.st.named[MBS_##name])

typedef struct mbs {
    rtc_drv_base b; /* first: the base's ops take the object as their base */
    mb_map map;
    bool rtu;
    char *bind, *device;
    long port, baud, data_bits, stop_bits, unit_id, max_clients, max_per_peer;
    char parity;
    int64_t frame_ns, idle_ns;
    /* I/O thread state */
    modbus_t *ctx;
    modbus_mapping_t *mapping;
    uint8_t *writable[MB_NTABLES]; /* per address of the mapping: 1 = peer may write */
    int listen_fd;
    mbs_conn conns[MBS_MAX_CLIENTS];
    int n_conns;
    uint64_t turn; /* turns of the TCP loop (serve_tcp) */
    uint8_t query[MODBUS_RTU_MAX_ADU_LENGTH];
} mbs;
static_assert(offsetof(mbs, b) == 0, "the base must come first");

static const char *const transports[] = {"tcp", "rtu", NULL};
static const char *const parities[] = {"N", "E", "O", NULL};

/* The line, the listener's limits; update_ms, stale_ms, priority and cpu are the base's. */
static int parse_settings(mbs *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    int tr = 0, par = 0;
    double frame, idle;
    int rc = rtc_drv_get_choice(&d->b, NULL, kv, n, "transport", transports, 0, &tr);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "port", 502, 0, 65535, &d->port);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "baud", 19200, 50, 4000000, &d->baud);
    if (rc == RTC_OK)
        rc = rtc_drv_get_choice(&d->b, NULL, kv, n, "parity", parities, 0, &par);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "data_bits", 8, 5, 8, &d->data_bits);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "stop_bits", 1, 1, 2, &d->stop_bits);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "unit_id", 1, 1, 247, &d->unit_id);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "max_clients", MBS_DEFAULT_CLIENTS, 1,
                             MBS_MAX_CLIENTS, &d->max_clients);
    /* 16 of the default 32: one host's crowd leaves half the slots to the others */
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "max_clients_per_peer",
                             d->max_clients < 16 ? d->max_clients : 16, 1, d->max_clients,
                             &d->max_per_peer);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(&d->b, NULL, kv, n, "frame_timeout_ms", 500, 1, 60000, &frame);
    if (rc == RTC_OK)
        rc = rtc_drv_get_double(&d->b, NULL, kv, n, "idle_timeout_ms", 60000, 0, 1e8, &idle);
    if (rc != RTC_OK)
        return rc;
    d->rtu = tr == 1;
    d->parity = "NEO"[par];
    d->frame_ns = (int64_t)(frame * 1e6);
    d->idle_ns = (int64_t)(idle * 1e6);
    const char *bind = rtc_kv_get(kv, n, "bind"), *dev = rtc_kv_get(kv, n, "device");
    if (d->rtu && !dev)
        return rtc_drv_bad(&d->b, NULL, "transport rtu needs setting device (a tty path)");
    d->bind = strdup(bind ? bind : "127.0.0.1");
    d->device = strdup(dev ? dev : "");
    return d->bind && d->device ? RTC_OK : RTC_ENOMEM;
}

/* Allocate the register map over each table's occupied span and mark writable cells. */
static int build_mapping(mbs *d)
{
    const mb_map *m = &d->map;
    int nb[MB_NTABLES];
    for (int t = 0; t < MB_NTABLES; t++) {
        nb[t] = m->hi[t] - m->lo[t];
        d->writable[t] = calloc(nb[t] ? (size_t)nb[t] : 1, 1);
        if (!d->writable[t])
            return RTC_ENOMEM;
    }
    d->mapping = modbus_mapping_new_start_address(
        (unsigned)m->lo[MB_COIL], (unsigned)nb[MB_COIL], (unsigned)m->lo[MB_DISCRETE],
        (unsigned)nb[MB_DISCRETE], (unsigned)m->lo[MB_HOLDING], (unsigned)nb[MB_HOLDING],
        (unsigned)m->lo[MB_INPUT], (unsigned)nb[MB_INPUT]);
    if (!d->mapping)
        return RTC_ENOMEM;
    for (size_t i = 0; i < m->n; i++) {
        const mb_sig *s = &m->sigs[i];
        if (s->dir == RTC_IO_FROM_BENCH)
            memset(d->writable[s->table] + (s->addr - m->lo[s->table]), 1, s->nregs);
    }
    return RTC_OK;
}

static const rtc_drv_desc mbs_desc; /* below: what the base needs to know */

static int mbs_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    if (!cfg || !self)
        return RTC_EINVAL;
    rtc_drv_base *b;
    int rc = rtc_drv_open(&mbs_desc, sizeof(mbs), cfg, lg, &b);
    if (rc != RTC_OK)
        return rc;
    mbs *d = (mbs *)b;
    d->listen_fd = -1;
    rc = parse_settings(d, cfg);
    if (rc == RTC_OK)
        rc = rtc__mb_map_build(&d->map, cfg, b, true, 0);
    if (rc == RTC_OK)
        rc = build_mapping(d);
    if (rc != RTC_OK) {
        rtc_drv_close(b);
        return rc;
    }
    *self = d; /* stop_safe NONE: the register map ends with the endpoint */
    return RTC_OK;
}

/* ---- register map <-> mailboxes ---- */

static uint16_t *table_regs(mbs *d, mb_table t)
{
    return t == MB_HOLDING ? d->mapping->tab_registers : d->mapping->tab_input_registers;
}

static uint8_t *table_bits(mbs *d, mb_table t)
{
    return t == MB_COIL ? d->mapping->tab_bits : d->mapping->tab_input_bits;
}

static void put_value(mbs *d, size_t i, double v)
{
    mb_sig *s = &d->map.sigs[i];
    unsigned off = s->addr - (unsigned)d->map.lo[s->table];
    if (s->table == MB_COIL || s->table == MB_DISCRETE)
        table_bits(d, s->table)[off] = rtc__mb_encode_bit(s, v);
    else if (rtc__mb_encode_regs(s, v, table_regs(d, s->table) + off))
        rtc_drv_count(&d->b.sig[i].clamped);
}

/* Copy every to-bench mailbox (or latched safe value) into the map; heartbeat. Nothing
 * while the engine holds the outputs (before the run's first tick). */
static void update_outputs(mbs *d)
{
    for (size_t i = 0; !rtc_drv_held(&d->b) && i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        if (s->dir != RTC_IO_TO_BENCH)
            continue;
        rtc_sample smp;
        if (d->b.latched && d->b.sig[i].has_safe) {
            put_value(d, i, d->b.sig[i].safe);
        } else if (rtc_mailbox_read(d->b.sig[i].mb, &smp) && smp.seq != s->last_seq) {
            put_value(d, i, smp.value);
            s->last_seq = smp.seq;
            rtc_drv_sent(&d->b, i);
        }
    }
    if (d->map.hb && !d->b.latched && !rtc_drv_held(&d->b)) {
        uint16_t v = rtc__mb_heartbeat_next(&d->map);
        unsigned off = d->map.hb_addr - (unsigned)d->map.lo[d->map.hb_table];
        if (d->map.hb_table == MB_COIL)
            d->mapping->tab_bits[off] = (uint8_t)(v & 1);
        else
            d->mapping->tab_registers[off] = v;
    }
    rtc_drv_check_stale(&d->b, rtc_time_now_ns());
}

/* After a write request: publish every from-bench signal the range touched. */
static void publish_written(mbs *d, mb_table t, int addr, int n, int64_t arrival)
{
    for (size_t i = 0; i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        if (s->dir != RTC_IO_FROM_BENCH || s->table != t || s->addr >= addr + n ||
            s->addr + s->nregs <= addr)
            continue;
        unsigned off = s->addr - (unsigned)d->map.lo[t];
        bool clamped;
        double v = t == MB_COIL ? rtc__mb_decode_bit(s, d->mapping->tab_bits[off], &clamped)
                                : rtc__mb_decode_regs(s, d->mapping->tab_registers + off, &clamped);
        if (clamped)
            rtc_drv_count(&d->b.sig[i].clamped);
        /* The peer's value was true when its request arrived. */
        rtc_drv_publish(&d->b, i, v, arrival, arrival);
    }
}

/* ---- requests ---- */

static bool in_map(const mbs *d, mb_table t, int addr, int n)
{
    return n > 0 && d->map.hi[t] > 0 && addr >= d->map.lo[t] && addr + n <= d->map.hi[t];
}

static bool may_write(const mbs *d, mb_table t, int addr, int n)
{
    if (!in_map(d, t, addr, n))
        return false;
    for (int k = 0; k < n; k++)
        if (!d->writable[t][addr - d->map.lo[t] + k])
            return false;
    return true;
}

static int refuse(mbs *d, const uint8_t *adu, int code, _Atomic uint64_t *why)
{
    rtc_drv_count(why);
    rtc_drv_count(MC(EXCEPTIONS));
    return modbus_reply_exception(d->ctx, adu, (unsigned)code);
}

/*
 * Answer one complete request (the ADU of len bytes, CRC included on RTU) on the socket
 * set in d->ctx; arrival is when its last byte came. Returns false when the connection
 * is no longer usable (not a request, or the reply could not be sent).
 */
static bool answer(mbs *d, const uint8_t *adu, int len, int64_t arrival)
{
    int hl = modbus_get_header_length(d->ctx);
    mb_req r;
    mb_pdu_verdict v = rtc__mb_pdu_check(adu + hl, len - hl - (d->rtu ? 2 : 0), &r);
    rtc_drv_count(&d->b.st.requests);
    if (v == MB_PDU_NOT_REQUEST) {
        rtc_drv_count(MC(BAD_REQUESTS)); /* an exception can only echo a function code */
        return false;
    }
    int rc;
    if (v != MB_PDU_OK) {
        rc = refuse(d, adu, v, v == MB_PDU_ILLEGAL_FUNCTION ? MC(FC_UNSUPPORTED)
                                                             : MC(BAD_REQUESTS));
    } else if (r.wn > 0 && !may_write(d, r.wt, r.waddr, r.wn)) {
        /* exposed but read-only (an engine output) or outside the map */
        if (in_map(d, r.wt, r.waddr, r.wn))
            rtc_drv_count(&d->b.st.rejected);
        rc = refuse(d, adu, MODBUS_EXCEPTION_ILLEGAL_DATA_ADDRESS, MC(WRITE_REFUSED));
    } else {
        bool read_ok = r.rn == 0 || in_map(d, r.rt, r.raddr, r.rn);
        if (!read_ok)
            rtc_drv_count(MC(EXCEPTIONS)); /* libmodbus answers ILLEGAL DATA ADDRESS */
        rc = modbus_reply(d->ctx, adu, len, d->mapping);
        if (rc != -1 && r.wn > 0 && read_ok) /* (FC 23 writes nothing when it refuses) */
            publish_written(d, r.wt, r.waddr, r.wn, arrival);
    }
    if (rc == -1) {
        rtc_drv_count(&d->b.st.errors);
        return false;
    }
    rtc_drv_latency(&d->b, rtc_time_now_ns() - arrival);
    rtc_drv_alive(&d->b, arrival); /* a request served: the peer is there (loss_ms) */
    return true;
}

/* ---- TCP connections ---- */

static void set_clients(mbs *d, int n)
{
    d->n_conns = n;
    atomic_store_explicit(MC(CLIENTS), (uint64_t)n, memory_order_relaxed);
    rtc_drv_raise(MC(CLIENTS_MAX), (uint64_t)n);
    if (n > 0) /* up while a peer is connected (the link contract: rtcosim/driver_base.h) */
        rtc_drv_link_up(&d->b);
    else
        rtc_drv_link_down(&d->b, "no client connected");
}

/* Close connection c, counting why (NULL: the peer left); compact() removes it. */
static void conn_close(mbs_conn *c, _Atomic uint64_t *why)
{
    if (why)
        rtc_drv_count(why);
    close(c->fd);
    c->fd = -1;
}

static void compact(mbs *d)
{
    int n = 0;
    for (int k = 0; k < d->n_conns; k++)
        if (d->conns[k].fd >= 0)
            d->conns[n++] = d->conns[k];
    set_clients(d, n);
}

/* Total length of the frame whose MBAP header starts rx, or -1 when the header is
 * broken (protocol id not 0; length below unit id + function code or above one ADU). */
static int mbap_frame_len(const uint8_t *rx)
{
    int proto = rx[2] << 8 | rx[3], len = rx[4] << 8 | rx[5];
    if (proto != 0 || len < 2 || 6 + len > MODBUS_TCP_MAX_ADU_LENGTH)
        return -1;
    return 6 + len;
}

/* Take what the peer sent (never blocks) and answer every complete frame in order.
 * Returns false when the connection must be closed. */
static bool conn_read(mbs *d, mbs_conn *c, int64_t now)
{
    ssize_t got = recv(c->fd, c->rx + c->n, sizeof c->rx - (size_t)c->n, 0);
    if (got <= 0)
        return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    if (c->n == 0)
        c->first_ns = now;
    c->n += (int)got;
    c->last_ns = now;
    while (c->n >= MBAP_LEN) {
        int len = mbap_frame_len(c->rx);
        if (len < 0) {
            /* no way to find the next frame in the stream: drop this peer only */
            rtc_drv_count(MC(BAD_REQUESTS));
            return false;
        }
        if (c->n < len)
            break;
        modbus_set_socket(d->ctx, c->fd);
        if (!answer(d, c->rx, len, now))
            return false;
        c->spoke = true;
        c->active_ns = now;
        c->n -= len;
        memmove(c->rx, c->rx + len, (size_t)c->n);
        c->first_ns = now; /* the rest came with this read */
    }
    return true;
}

/* Close connections past their frame or idle deadline; returns the earliest deadline
 * left (or until when none is earlier). */
static int64_t expire_conns(mbs *d, int64_t now, int64_t until)
{
    for (int k = 0; k < d->n_conns; k++) {
        mbs_conn *c = &d->conns[k];
        int64_t due = c->n > 0 ? c->first_ns + d->frame_ns
                               : d->idle_ns > 0 ? c->last_ns + d->idle_ns : INT64_MAX;
        if (now >= due)
            conn_close(c, c->n > 0 ? MC(FRAME_TIMEOUTS) : MC(IDLE_CLOSED));
        else if (due < until)
            until = due;
    }
    compact(d);
    return until;
}

/* Not proven yet: it has not completed a request, or it holds a partial frame. */
static bool unproven(const mbs_conn *c)
{
    return !c->spoke || c->n > 0;
}

/* Whether c yields before v (NULL: none chosen yet) when a slot is needed: unproven
 * before served; among unproven the one waiting longest (its partial frame's first byte,
 * else its accept), among served the one served least recently. */
static bool yields_before(const mbs_conn *c, const mbs_conn *v)
{
    if (!v || unproven(c) != unproven(v))
        return !v || unproven(c);
    return (c->n > 0 ? c->first_ns : c->active_ns) < (v->n > 0 ? v->first_ns : v->active_ns);
}

/* The connection to close for a new one, among those of address addr (any address when
 * !only); NULL when there is none. One accepted in this turn has not been read yet: it
 * never yields, and while there is one a served client does not yield either (a connect
 * storm is refused, it does not push out the PLCs). */
static mbs_conn *victim(mbs *d, bool only, uint32_t addr)
{
    mbs_conn *v = NULL;
    bool fresh = false;
    for (int k = 0; k < d->n_conns; k++) {
        mbs_conn *c = &d->conns[k];
        if (only && c->addr != addr)
            continue;
        if (c->turn == d->turn)
            fresh = true;
        else if (yields_before(c, v))
            v = c;
    }
    return v && fresh && !unproven(v) ? NULL : v;
}

static int peer_count(const mbs *d, uint32_t addr)
{
    int n = 0;
    for (int k = 0; k < d->n_conns; k++)
        n += d->conns[k].addr == addr;
    return n;
}

/* The address holding the most connections (the first found of a tie). */
static uint32_t most_crowded(const mbs *d)
{
    uint32_t best = 0;
    int most = 0;
    for (int k = 0; k < d->n_conns; k++) {
        int n = peer_count(d, d->conns[k].addr);
        if (n > most) {
            most = n;
            best = d->conns[k].addr;
        }
    }
    return best;
}

/* Where the new connection from addr goes: a free slot, or the slot of the connection
 * that yields (closed here), or NULL (refused). */
static mbs_conn *make_room(mbs *d, uint32_t addr)
{
    bool full = d->n_conns >= d->max_clients;
    if (peer_count(d, addr) >= d->max_per_peer) {
        mbs_conn *v = victim(d, true, addr);
        if (v && !full)
            rtc_drv_count(MC(EVICTED_PEER));
        if (v)
            conn_close(v, MC(EVICTED));
        return v;
    }
    if (!full)
        return &d->conns[d->n_conns];
    mbs_conn *v = victim(d, false, 0);
    if (v && !unproven(v)) /* only served clients: the most crowded address gives one up */
        v = victim(d, true, most_crowded(d));
    if (v)
        conn_close(v, MC(EVICTED));
    return v;
}

/* Take every pending connect (up to a batch per turn), each into a slot. */
static void accept_clients(mbs *d, int64_t now)
{
    for (int i = 0; i < MBS_ACCEPT_BATCH; i++) {
        struct sockaddr_in sa = {0};
        socklen_t sl = sizeof sa;
        int fd = accept4(d->listen_fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        uint32_t addr = sa.sin_family == AF_INET ? ntohl(sa.sin_addr.s_addr) : 0;
        mbs_conn *c = make_room(d, addr);
        if (!c) {
            close(fd);
            rtc_drv_count(MC(CLIENTS_REFUSED));
            continue;
        }
        bool added = c == &d->conns[d->n_conns];
        *c = (mbs_conn){.fd = fd, .addr = addr, .turn = d->turn, .last_ns = now,
                        .active_ns = now};
        rtc_drv_count(&d->b.st.connects);
        set_clients(d, d->n_conns + added);
    }
}

/* ---- endpoint ---- */

static int open_endpoint(mbs *d)
{
    d->ctx = d->rtu ? modbus_new_rtu(d->device, (int)d->baud, d->parity, (int)d->data_bits,
                                     (int)d->stop_bits)
                    : modbus_new_tcp(d->bind, (int)d->port);
    if (!d->ctx)
        return RTC_ENOMEM;
    /* RTU: a stalled frame holds the line at most 100 ms (TCP frames itself, see above) */
    modbus_set_byte_timeout(d->ctx, 0, 100000);
    if (d->rtu) {
        modbus_set_slave(d->ctx, (int)d->unit_id);
        if (modbus_connect(d->ctx) == -1)
            return rtc_status_from_errno(errno);
        d->listen_fd = modbus_get_socket(d->ctx);
        rtc_drv_link_address(&d->b, "%s", d->device);
        rtc_drv_link_up(&d->b); /* one line, one master: up while it is open */
        return RTC_OK;
    }
    /* a deep backlog, drained every turn: a connect storm does not drop a PLC's SYN */
    d->listen_fd = modbus_tcp_listen(d->ctx, SOMAXCONN);
    if (d->listen_fd < 0)
        return rtc_status_from_errno(errno);
    /* a client gone between poll and accept must not block the loop in accept */
    if (fcntl(d->listen_fd, F_SETFL, fcntl(d->listen_fd, F_GETFL) | O_NONBLOCK) == -1)
        return rtc_status_from_errno(errno);
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    if (getsockname(d->listen_fd, (struct sockaddr *)&sa, &sl) == 0)
        atomic_store_explicit(&d->b.st.port, ntohs(sa.sin_port), memory_order_relaxed);
    rtc_drv_link_address(&d->b, "%s:%d", d->bind, ntohs(sa.sin_port));
    rtc_log(d->b.lg, RTC_LOG_INFO, "modbus-server '%s': listening on %s", d->b.component,
            d->b.link.address);
    rtc_drv_link_error(&d->b, "no client connected"); /* (the reason while it waits) */
    return RTC_OK;
}

static void close_endpoint(mbs *d)
{
    for (int k = 0; k < d->n_conns; k++)
        conn_close(&d->conns[k], NULL);
    set_clients(d, 0);
    if (d->ctx) {
        if (!d->rtu) {
            /* ctx->s last pointed at a client socket that is already closed */
            modbus_set_socket(d->ctx, -1);
            if (d->listen_fd >= 0)
                close(d->listen_fd);
        }
        modbus_close(d->ctx);
        modbus_free(d->ctx);
        d->ctx = NULL;
    }
    d->listen_fd = -1;
    rtc_drv_link_down(&d->b, NULL);
}

/* ---- safe values ---- */

/* The safe hook: put the safe values into the map (b->latched keeps them there). */
static int mbs_safe(rtc_drv_base *b)
{
    mbs *d = (mbs *)b;
    for (size_t i = 0; i < d->map.n; i++)
        if (d->b.sig[i].dir == RTC_IO_TO_BENCH && d->b.sig[i].has_safe)
            put_value(d, i, d->b.sig[i].safe);
    return RTC_OK;
}

/* ---- I/O thread ---- */

/* RTU: one frame from the line (libmodbus frames it), then the common answer path. */
static void serve_rtu(mbs *d, int64_t until)
{
    struct pollfd pfd = {.fd = d->listen_fd, .events = POLLIN};
    if (rtc_drv_poll(&pfd, 1, until) <= 0 || !(pfd.revents & POLLIN))
        return;
    int len = modbus_receive(d->ctx, d->query);
    if (len == 0)
        return; /* addressed to another unit */
    if (len < 0)
        rtc_drv_count(&d->b.st.errors); /* a garbled frame on a serial line */
    else if (answer(d, d->query, len, rtc_time_now_ns()))
        return;
    modbus_flush(d->ctx); /* (answer counted why it failed) resynchronise on the line */
}

/* TCP: expire, wait, read every readable client once (fair: one recv each), accept. */
static void serve_tcp(mbs *d, int64_t until)
{
    struct pollfd pfd[MBS_MAX_CLIENTS + 1];
    d->turn++;
    until = expire_conns(d, rtc_time_now_ns(), until);
    int n = 0;
    pfd[n++] = (struct pollfd){.fd = d->listen_fd, .events = POLLIN};
    for (int k = 0; k < d->n_conns; k++)
        pfd[n++] = (struct pollfd){.fd = d->conns[k].fd, .events = POLLIN};
    if (rtc_drv_poll(pfd, (size_t)n, until) <= 0)
        return;
    int64_t now = rtc_time_now_ns();
    for (int k = 0; k < n - 1; k++)
        if ((pfd[k + 1].revents & (POLLIN | POLLHUP | POLLERR)) &&
            !conn_read(d, &d->conns[k], now))
            conn_close(&d->conns[k], NULL);
    compact(d);
    if (pfd[0].revents & POLLIN)
        accept_clients(d, now);
}

/* The begin hook: bind (TCP) or open the line (RTU); start() returns the result. */
static int mbs_begin(rtc_drv_base *b)
{
    mbs *d = (mbs *)b;
    for (size_t i = 0; i < d->map.n; i++)
        d->map.sigs[i].last_seq = 0; /* republish every output into the fresh map */
    int rc = open_endpoint(d);
    if (rc != RTC_OK)
        rtc_drv_error(b, rc, "cannot open %s:%ld: %s", d->rtu ? d->device : d->bind,
                      d->rtu ? d->baud : d->port, modbus_strerror(errno));
    return rc;
}

/* The cycle hook, every update_ms: outputs into the map, heartbeat, staleness. */
static bool mbs_cycle(rtc_drv_base *b, int64_t now)
{
    (void)now;
    update_outputs((mbs *)b);
    return true;
}

/* The wait hook: serve requests until the next update. */
static void mbs_wait(rtc_drv_base *b, int64_t until)
{
    mbs *d = (mbs *)b;
    if (d->rtu)
        serve_rtu(d, until);
    else
        serve_tcp(d, until);
}

static void mbs_end(rtc_drv_base *b)
{
    close_endpoint((mbs *)b);
}

static void mbs_clear(rtc_drv_base *b)
{
    mbs *d = (mbs *)b;
    if (d->mapping)
        modbus_mapping_free(d->mapping);
    for (int t = 0; t < MB_NTABLES; t++)
        free(d->writable[t]);
    rtc__mb_map_clear(&d->map);
    free(d->bind);
    free(d->device);
}

static const rtc_drv_desc mbs_desc = {
    .name = "modbus-server",
    .kind = "modbus_server",
    .counters = mbs_counters,
    .n_counters = MBS_N_COUNTERS,
    .period_key = "update_ms",
    .period_default = 1,
    .period_min = 0.05,
    .period_max = 60000,
    .stale_periods = 0,
    .connect_ms = 10000, /* a PLC may take a while to come up and connect */
    .begin = mbs_begin,
    .cycle = mbs_cycle,
    .wait = mbs_wait,
    .safe = mbs_safe,
    .end = mbs_end,
    .clear = mbs_clear,
};

const rtc_driver_ops rtc_modbus_server_ops = {
    .name = "modbus-server",
    .open = mbs_open,
    .start = rtc_drv_start,
    .stop = rtc_drv_stop,
    .write_safe_values = rtc_drv_write_safe_values,
    .close = rtc_drv_close,
    .stats = rtc_drv_stats,
    .link = rtc_drv_link,
};
