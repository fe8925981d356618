/*
 * Modbus server driver (TCP and RTU, libmodbus): a PLC or SCADA under test polls the
 * simulated plant. To-bench signals (engine outputs) are copied into the register map
 * every update_ms; from-bench signals are holding registers/coils the peer writes, and
 * every write becomes a timestamped sample in the signal's mailbox.
 *
 * Threads: all libmodbus work, including listen/accept, happens in the I/O thread;
 * start() waits on a semaphore until the thread has bound its socket, so the port is
 * known (stats.port) when start() returns. The register map (modbus_mapping_t) is owned
 * by the I/O thread alone: no lock.
 *
 * One loop: ppoll on the listen socket and every client (TCP) or the tty (RTU) with a
 * timeout up to the next update; each readable client gets modbus_receive + modbus_reply.
 * Writes are checked against the map first: a write that touches any address not exposed
 * as a from-bench signal is refused with ILLEGAL DATA ADDRESS and counted as rejected, so
 * a PLC cannot overwrite an engine output between updates.
 */
#include "modbus_priv.h"

#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <modbus.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MBS_MAX_CLIENTS 64

typedef struct mbs {
    drv_ctx c;
    char *component;
    mb_map map;
    bool rtu;
    char *bind, *device;
    long port, baud, data_bits, stop_bits, unit_id, max_clients;
    char parity;
    int64_t update_ns, stale_ns;
    /* I/O thread state */
    modbus_t *ctx;
    modbus_mapping_t *mapping;
    uint8_t *writable[MB_NTABLES]; /* per address of the mapping: 1 = peer may write */
    int listen_fd;
    int clients[MBS_MAX_CLIENTS];
    int n_clients;
    bool latched;
    uint8_t query[MODBUS_TCP_MAX_ADU_LENGTH];
    sem_t ready;
    atomic_int start_rc;
    drv_thread th;
    drv_stats st;
} mbs;

static const char *const transports[] = {"tcp", "rtu", NULL};
static const char *const parities[] = {"N", "E", "O", NULL};

static int parse_settings(mbs *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    int tr = 0, par = 0;
    long prio;
    double upd, stale;
    int rc = drv_get_choice(&d->c, NULL, kv, n, "transport", transports, 0, &tr);
    if (rc == RTC_OK)
        rc = drv_get_int(&d->c, NULL, kv, n, "port", 502, 0, 65535, &d->port);
    if (rc == RTC_OK)
        rc = drv_get_int(&d->c, NULL, kv, n, "baud", 19200, 50, 4000000, &d->baud);
    if (rc == RTC_OK)
        rc = drv_get_choice(&d->c, NULL, kv, n, "parity", parities, 0, &par);
    if (rc == RTC_OK)
        rc = drv_get_int(&d->c, NULL, kv, n, "data_bits", 8, 5, 8, &d->data_bits);
    if (rc == RTC_OK)
        rc = drv_get_int(&d->c, NULL, kv, n, "stop_bits", 1, 1, 2, &d->stop_bits);
    if (rc == RTC_OK)
        rc = drv_get_int(&d->c, NULL, kv, n, "unit_id", 1, 1, 247, &d->unit_id);
    if (rc == RTC_OK)
        rc = drv_get_int(&d->c, NULL, kv, n, "max_clients", 8, 1, MBS_MAX_CLIENTS,
                         &d->max_clients);
    if (rc == RTC_OK)
        rc = drv_get_double(&d->c, NULL, kv, n, "update_ms", 1, 0.05, 60000, &upd);
    if (rc == RTC_OK)
        rc = drv_get_double(&d->c, NULL, kv, n, "stale_ms", 0, 0, 1e7, &stale);
    if (rc == RTC_OK)
        rc = drv_get_int(&d->c, NULL, kv, n, "priority", 20, 0, 99, &prio);
    if (rc != RTC_OK)
        return rc;
    d->rtu = tr == 1;
    d->parity = "NEO"[par];
    d->update_ns = (int64_t)(upd * 1e6);
    d->stale_ns = (int64_t)(stale * 1e6);
    d->th.priority = (int)prio;
    const char *bind = rtc_kv_get(kv, n, "bind"), *dev = rtc_kv_get(kv, n, "device");
    if (d->rtu && !dev)
        return drv_bad(&d->c, NULL, "transport rtu needs setting device (a tty path)");
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

static void mbs_close(void *self);

static int mbs_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    if (!cfg || !self)
        return RTC_EINVAL;
    mbs *d = calloc(1, sizeof *d);
    if (!d)
        return RTC_ENOMEM;
    d->listen_fd = -1;
    d->component = strdup(cfg->component ? cfg->component : "?");
    d->c = (drv_ctx){.lg = lg, .driver = "modbus-server", .component = d->component};
    int rc = d->component ? drv_thread_init(&d->th, 0) : RTC_ENOMEM;
    if (rc == RTC_OK)
        rc = sem_init(&d->ready, 0, 0) == 0 ? RTC_OK : RTC_ESYS;
    if (rc == RTC_OK)
        rc = parse_settings(d, cfg);
    if (rc == RTC_OK)
        rc = mb_map_build(&d->map, cfg, &d->c, true, 0);
    if (rc == RTC_OK)
        rc = drv_stats_init(&d->st, cfg->n_signals);
    if (rc == RTC_OK)
        rc = build_mapping(d);
    if (rc != RTC_OK) {
        mbs_close(d);
        return rc;
    }
    *self = d;
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
        table_bits(d, s->table)[off] = mb_encode_bit(s, v);
    else if (mb_encode_regs(s, v, table_regs(d, s->table) + off))
        drv_count(&d->st.health[i].clamped);
}

/* Copy every to-bench mailbox (or latched safe value) into the map; heartbeat. */
static void update_outputs(mbs *d)
{
    for (size_t i = 0; i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        if (s->dir != RTC_IO_TO_BENCH)
            continue;
        rtc_sample smp;
        if (d->latched && s->has_safe) {
            put_value(d, i, s->safe);
        } else if (rtc_mailbox_read(s->mb, &smp) && smp.seq != s->last_seq) {
            put_value(d, i, smp.value);
            s->last_seq = smp.seq;
            drv_publish_sent(&d->st, i);
        }
    }
    if (d->map.hb && !d->latched) {
        uint16_t v = mb_heartbeat_next(&d->map);
        unsigned off = d->map.hb_addr - (unsigned)d->map.lo[d->map.hb_table];
        if (d->map.hb_table == MB_COIL)
            d->mapping->tab_bits[off] = (uint8_t)(v & 1);
        else
            d->mapping->tab_registers[off] = v;
    }
    int64_t now = rtc_driver_now_ns();
    for (size_t i = 0; d->stale_ns && i < d->map.n; i++) {
        mb_sig *s = &d->map.sigs[i];
        if (s->dir == RTC_IO_FROM_BENCH && s->last_ok_ns && now - s->last_ok_ns > d->stale_ns)
            drv_set_quality(&d->st, i, s->mb, RTC_QUALITY_STALE);
    }
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
        double v = t == MB_COIL ? mb_decode_bit(s, d->mapping->tab_bits[off], &clamped)
                                : mb_decode_regs(s, d->mapping->tab_registers + off, &clamped);
        if (clamped)
            drv_count(&d->st.health[i].clamped);
        /* The peer's value was true when its request arrived. */
        drv_publish(&d->st, i, s->mb, v, arrival, arrival);
        s->last_ok_ns = arrival;
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

typedef struct mb_req {
    int fc;
    mb_table rt, wt; /* read / write table */
    int raddr, rn, waddr, wn;
} mb_req;

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* Decode the function code and the address ranges of a request (PDU after the header). */
static mb_req parse_req(const uint8_t *p, int len)
{
    mb_req r = {.fc = len >= 5 ? p[0] : -1};
    switch (r.fc) {
    case 1: case 2: case 3: case 4: {
        static const mb_table tab[] = {MB_COIL, MB_COIL, MB_DISCRETE, MB_HOLDING, MB_INPUT};
        r.rt = tab[r.fc];
        r.raddr = be16(p + 1);
        r.rn = be16(p + 3);
        break;
    }
    case 5: case 6:
        r.wt = r.fc == 5 ? MB_COIL : MB_HOLDING;
        r.waddr = be16(p + 1);
        r.wn = 1;
        break;
    case 15: case 16:
        r.wt = r.fc == 15 ? MB_COIL : MB_HOLDING;
        r.waddr = be16(p + 1);
        r.wn = be16(p + 3);
        break;
    case 23:
        if (len < 9)
            break;
        r.rt = r.wt = MB_HOLDING;
        r.raddr = be16(p + 1);
        r.rn = be16(p + 3);
        r.waddr = be16(p + 5);
        r.wn = be16(p + 7);
        break;
    default:
        break;
    }
    return r;
}

/* Answer one received request; returns false when the peer's socket failed. */
static bool handle_request(mbs *d, int len, int64_t t0)
{
    int hl = modbus_get_header_length(d->ctx);
    mb_req r = parse_req(d->query + hl, len - hl);
    drv_count(&d->st.requests);
    int rc;
    if (r.wn > 0 && !may_write(d, r.wt, r.waddr, r.wn)) {
        /* exposed but read-only (an engine output) or outside the map */
        if (in_map(d, r.wt, r.waddr, r.wn))
            drv_count(&d->st.rejected);
        drv_count(&d->st.exceptions);
        rc = modbus_reply_exception(d->ctx, d->query, MODBUS_EXCEPTION_ILLEGAL_DATA_ADDRESS);
    } else {
        if (r.rn > 0 && !in_map(d, r.rt, r.raddr, r.rn))
            drv_count(&d->st.exceptions); /* libmodbus answers ILLEGAL DATA ADDRESS */
        rc = modbus_reply(d->ctx, d->query, len, d->mapping);
        if (rc != -1 && r.wn > 0)
            publish_written(d, r.wt, r.waddr, r.wn, t0);
    }
    if (rc == -1) {
        drv_count(&d->st.errors);
        return false;
    }
    drv_latency(&d->st, rtc_driver_now_ns() - t0);
    return true;
}

/* ---- connections ---- */

static void drop_client(mbs *d, int k)
{
    close(d->clients[k]);
    d->clients[k] = d->clients[--d->n_clients];
    atomic_store_explicit(&d->st.connected, d->n_clients > 0, memory_order_relaxed);
}

static void accept_client(mbs *d)
{
    int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    if (d->n_clients >= d->max_clients) {
        close(fd); /* over the limit: refuse rather than starve the others */
        drv_count(&d->st.rejected);
        return;
    }
    d->clients[d->n_clients++] = fd;
    drv_count(&d->st.connects);
    atomic_store_explicit(&d->st.connected, true, memory_order_relaxed);
}

static void serve_fd(mbs *d, int k, int fd)
{
    modbus_set_socket(d->ctx, fd);
    int64_t t0 = rtc_driver_now_ns();
    int len = modbus_receive(d->ctx, d->query);
    if (len > 0 && handle_request(d, len, t0))
        return;
    if (len == 0)
        return; /* RTU: addressed to another unit */
    if (d->rtu) {
        /* a garbled frame on a serial line: count it and resynchronise */
        drv_count(&d->st.errors);
        modbus_flush(d->ctx);
        return;
    }
    drop_client(d, k); /* peer closed or broke its socket */
}

static int open_endpoint(mbs *d)
{
    d->ctx = d->rtu ? modbus_new_rtu(d->device, (int)d->baud, d->parity, (int)d->data_bits,
                                     (int)d->stop_bits)
                    : modbus_new_tcp(d->bind, (int)d->port);
    if (!d->ctx)
        return RTC_ENOMEM;
    modbus_set_byte_timeout(d->ctx, 0, 100000); /* a stalled peer costs at most 100 ms */
    if (d->rtu) {
        modbus_set_slave(d->ctx, (int)d->unit_id);
        if (modbus_connect(d->ctx) == -1)
            return RTC_EIO;
        d->listen_fd = modbus_get_socket(d->ctx);
        atomic_store_explicit(&d->st.connected, true, memory_order_relaxed);
        return RTC_OK;
    }
    d->listen_fd = modbus_tcp_listen(d->ctx, (int)d->max_clients);
    if (d->listen_fd < 0)
        return RTC_EIO;
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    if (getsockname(d->listen_fd, (struct sockaddr *)&sa, &sl) == 0)
        atomic_store_explicit(&d->st.port, ntohs(sa.sin_port), memory_order_relaxed);
    return RTC_OK;
}

static void close_endpoint(mbs *d)
{
    while (d->n_clients > 0)
        drop_client(d, d->n_clients - 1);
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
    atomic_store_explicit(&d->st.connected, false, memory_order_relaxed);
}

/* ---- safe values ---- */

static int safe_job(void *arg)
{
    mbs *d = arg;
    d->latched = true;
    for (size_t i = 0; i < d->map.n; i++)
        if (d->map.sigs[i].dir == RTC_IO_TO_BENCH && d->map.sigs[i].has_safe)
            put_value(d, i, d->map.sigs[i].safe);
    drv_count(&d->st.safe_writes);
    return RTC_OK;
}

/* ---- I/O thread ---- */

static void poll_once(mbs *d, int64_t until)
{
    struct pollfd pfd[MBS_MAX_CLIENTS + 1];
    int n = 0;
    pfd[n++] = (struct pollfd){.fd = d->listen_fd, .events = POLLIN};
    for (int k = 0; k < d->n_clients; k++)
        pfd[n++] = (struct pollfd){.fd = d->clients[k], .events = POLLIN};
    int64_t wait = until - rtc_driver_now_ns();
    if (wait < 0)
        wait = 0;
    if (wait > 10000000)
        wait = 10000000; /* wake at least every 10 ms to see stop/safe requests */
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)wait};
    if (ppoll(pfd, (nfds_t)n, &ts, NULL) <= 0)
        return;
    if (d->rtu) {
        if (pfd[0].revents & POLLIN)
            serve_fd(d, -1, d->listen_fd);
        return;
    }
    /* Serve clients from the last so drop_client's swap-with-last keeps indices valid. */
    for (int k = n - 2; k >= 0; k--)
        if (pfd[k + 1].revents & (POLLIN | POLLHUP | POLLERR))
            serve_fd(d, k, pfd[k + 1].fd);
    if (pfd[0].revents & POLLIN)
        accept_client(d);
}

static void *mbs_thread(void *arg)
{
    mbs *d = arg;
    int rc = open_endpoint(d);
    if (rc != RTC_OK)
        rtc_log(d->c.lg, RTC_LOG_ERROR, "modbus-server '%s': cannot open %s:%ld: %s",
                d->component, d->rtu ? d->device : d->bind, d->rtu ? d->baud : d->port,
                modbus_strerror(errno));
    atomic_store_explicit(&d->start_rc, rc, memory_order_release);
    sem_post(&d->ready);
    int64_t next = rtc_driver_now_ns();
    while (rc == RTC_OK && !drv_should_stop(&d->th)) {
        drv_safe_serve(&d->th, safe_job, d);
        int64_t now = rtc_driver_now_ns();
        if (now >= next) {
            drv_count(&d->st.cycles);
            update_outputs(d);
            next += d->update_ns;
            if (now > next) {
                drv_count(&d->st.overruns);
                next = now + d->update_ns;
            }
        }
        poll_once(d, next);
    }
    close_endpoint(d);
    return NULL;
}

static int mbs_start(void *self)
{
    mbs *d = self;
    if (!d)
        return RTC_EINVAL;
    d->latched = false;
    for (size_t i = 0; i < d->map.n; i++)
        d->map.sigs[i].last_seq = 0; /* republish every output into the fresh map */
    int rc = drv_thread_start(&d->th, &d->c, mbs_thread, d);
    if (rc != RTC_OK)
        return rc;
    while (sem_wait(&d->ready) != 0 && errno == EINTR) {
    }
    rc = atomic_load_explicit(&d->start_rc, memory_order_acquire);
    if (rc != RTC_OK)
        drv_thread_stop(&d->th);
    return rc;
}

static int mbs_stop(void *self)
{
    if (!self)
        return RTC_EINVAL;
    drv_thread_stop(&((mbs *)self)->th);
    return RTC_OK;
}

static int mbs_write_safe_values(void *self, int timeout_ms)
{
    if (!self)
        return RTC_EINVAL;
    return drv_safe_request(&((mbs *)self)->th, timeout_ms, safe_job, self);
}

static void mbs_close(void *self)
{
    mbs *d = self;
    if (!d)
        return;
    drv_thread_stop(&d->th);
    drv_thread_clear(&d->th);
    sem_destroy(&d->ready);
    if (d->mapping)
        modbus_mapping_free(d->mapping);
    for (int t = 0; t < MB_NTABLES; t++)
        free(d->writable[t]);
    drv_stats_clear(&d->st);
    mb_map_clear(&d->map);
    free(d->bind);
    free(d->device);
    free(d->component);
    free(d);
}

static int mbs_stats(void *self, rtc_driver_stats *out)
{
    if (!self || !out)
        return RTC_EINVAL;
    drv_snapshot(&((mbs *)self)->st, out);
    return RTC_OK;
}

const rtc_driver_ops rtc_modbus_server_ops = {
    .name = "modbus-server",
    .open = mbs_open,
    .start = mbs_start,
    .stop = mbs_stop,
    .write_safe_values = mbs_write_safe_values,
    .close = mbs_close,
    .stats = mbs_stats,
};
