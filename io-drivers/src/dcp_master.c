/*
 * The DCP-master driver (application/x-dcp-slave): rtcosim as the master of one DCP 1.0
 * slave over UDP_IPv4 (keys in iodrivers.h, behaviour in configs/README.md).
 *
 * A copy of the skeleton driver's shape (drv_skeleton.c): the base first, open() reads the
 * keys, the slave description (.dcpx: the component's source) and maps each connector to
 * the slave variable of its name, sizes every buffer and builds nothing that needs the
 * network; the base's I/O thread runs the hooks, which hand the protocol to
 * dcp_master_link.c: begin binds the socket, cycle/wait drive the slave's life cycle
 * (register, configure, run) and the data exchange, safe sends the safe values as one
 * DAT_input_output, end stops and deregisters the slave.
 *
 * What the engine cannot do is refused here, before any datagram: a slave without
 * UDP_IPv4 (NOT_SUPPORTED_TRANSPORT_PROTOCOL), an op mode it does not offer
 * (INVALID_OP_MODE), a time resolution the communication step is no whole multiple of
 * (INVALID_TIME_RESOLUTION), steps its outputs do not allow (INVALID_STEPS), connectors
 * that are no variable of the slave, of the wrong causality, strings, binaries or arrays.
 * Each message names the .dcpx and its line.
 */
#include "rtcosim/driver_base.h"
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"
#include "rtcosim/udp.h"
#include "rtcosim/time.h"

#include "dcp_master_priv.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const dm_counters[DM_N_COUNTERS] = {
    [DM_WRONG_SENDER] = "wrong_sender", [DM_MALFORMED] = "malformed",
    [DM_UNEXPECTED] = "unexpected",     [DM_WRONG_SEQ] = "wrong_seq",
    [DM_NACKS] = "nacks",               [DM_SLAVE_ERRORS] = "slave_errors",
    [DM_RETRANSMITS] = "retransmits",   [DM_DAT_MISSED] = "dat_missed",
    [DM_LOGS] = "logs",                 [DM_STEPS] = "steps",
    [DM_LATE_STEPS] = "late_steps",     [DM_LIFE_CYCLES] = "life_cycles"};
static_assert(offsetof(dm, b) == 0, "the base must come first");

static const rtc_drv_desc dm_desc; /* below */

/* "dcp-master 'COMP'[ signal 'S']: FILE:LINE: message (DCP_ERROR)": a refusal that points
 * into the slave description. */
static int dcpx_bad(dm *d, const char *sig, unsigned line, rtc_dcp_error code,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int dcpx_bad(dm *d, const char *sig, unsigned line, rtc_dcp_error code,
                    const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (code != RTC_DCP_E_NONE)
        return rtc_drv_bad(&d->b, sig, "%s:%u: %s (%s)", d->dcpx->path, line, msg,
                           rtc_dcp_error_name(code));
    return rtc_drv_bad(&d->b, sig, "%s:%u: %s", d->dcpx->path, line, msg);
}

/* ---- transport and addresses ---- */

static int parse_ipv4(const char *host, struct in_addr *a)
{
    if (host && strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    return host && inet_pton(AF_INET, host, a) == 1 ? RTC_OK : RTC_EINVAL;
}

static int check_transport(dm *d)
{
    const rtc_dcpx *x = d->dcpx;
    if (x->udp)
        return RTC_OK;
    char have[64] = "";
    snprintf(have, sizeof have, "%s%s%s%s", x->tcp ? " TCP_IPv4" : "", x->can ? " CAN" : "",
             x->usb ? " USB2" : "", x->bluetooth ? " Bluetooth" : "");
    return dcpx_bad(d, NULL, x->transport_line, RTC_DCP_E_NOT_SUPPORTED_TRANSPORT_PROTOCOL,
                    "the slave offers%s; this engine speaks DCP over UDP_IPv4 only", have);
}

/* The slave's control and data endpoints (keys host/port/dat_port over the .dcpx), and the
 * local address the route to the slave leaves from (what the slave sends outputs to). */
static int addresses(dm *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    const char *host = rtc_kv_get(kv, n, "host");
    long port = 0, dport = 0, lport = 0;
    const rtc_dcpx *x = d->dcpx;
    host = host ? host : x->control_host;
    d->slave = d->slave_dat = d->local = (struct sockaddr_in){.sin_family = AF_INET};
    int rc = rtc_drv_get_int(&d->b, NULL, kv, n, "port", x->control_port, 0, 65535, &port);
    if (rc == RTC_OK && (!host || port == 0))
        return dcpx_bad(d, NULL, x->udp_line, RTC_DCP_E_NONE, "UDP_IPv4: no Control host "
                        "and port (give them, or the keys host and port)");
    if (rc == RTC_OK && parse_ipv4(host, &d->slave.sin_addr) != RTC_OK)
        return rtc_drv_bad(&d->b, NULL, "slave host %s: not an IPv4 address", host);
    long dflt = x->n_dat_ports ? x->dat_ports[0].from : port;
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "dat_port", dflt, 1, 65535, &dport);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "local_port", 0, 0, 65535, &lport);
    if (rc != RTC_OK)
        return rc;
    d->slave.sin_port = htons((uint16_t)port);
    rtc_drv_link_address(&d->b, "%s:%ld", host, port);
    d->slave_dat.sin_addr = d->slave.sin_addr;
    if (x->dat_host && !rtc_kv_get(kv, n, "host") &&
        parse_ipv4(x->dat_host, &d->slave_dat.sin_addr) != RTC_OK)
        return dcpx_bad(d, NULL, x->udp_line, RTC_DCP_E_INVALID_NETWORK_INFORMATION,
                        "DAT_input_output host %s: not an IPv4 address", x->dat_host);
    d->slave_dat.sin_port = htons((uint16_t)dport);
    d->local.sin_port = htons((uint16_t)lport);
    const char *bind_to = rtc_kv_get(kv, n, "bind");
    if (bind_to)
        return parse_ipv4(bind_to, &d->local.sin_addr) == RTC_OK
                   ? RTC_OK : rtc_drv_bad(&d->b, NULL, "setting bind=%s: not an IPv4 "
                                          "address", bind_to);
    /* the address the route to the slave leaves from: a connected UDP socket sends nothing */
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    socklen_t al = sizeof d->local;
    struct sockaddr_in probe = d->slave;
    if (s < 0 || connect(s, (struct sockaddr *)&probe, sizeof probe) != 0 ||
        getsockname(s, (struct sockaddr *)&d->local, &al) != 0) {
        int err = errno;
        if (s >= 0)
            close(s);
        return rtc_drv_error(&d->b, rtc_status_from_errno(err), "no route to the slave at "
                             "%s:%ld: %s", host, port, strerror(err));
    }
    close(s);
    d->local.sin_port = htons((uint16_t)lport);
    return RTC_OK;
}

/* ---- op mode and timing ---- */

static int op_mode(dm *d, const rtc_driver_config *cfg, bool lockstep)
{
    static const char *const modes[] = {"hrt", "srt", "nrt", NULL};
    const rtc_dcpx *x = d->dcpx;
    bool offered[3] = {x->hrt, x->srt, x->nrt};
    int dflt = lockstep && x->nrt ? RTC_DCP_OP_NRT
               : x->srt       ? RTC_DCP_OP_SRT
               : x->hrt       ? RTC_DCP_OP_HRT : RTC_DCP_OP_NRT, m = dflt;
    int rc = rtc_drv_get_choice(&d->b, NULL, cfg->settings, cfg->n_settings, "op_mode", modes,
                                dflt, &m);
    if (rc != RTC_OK)
        return rc;
    d->op_mode = (uint8_t)m;
    if (!offered[m])
        return dcpx_bad(d, NULL, x->op_mode_line, RTC_DCP_E_INVALID_OP_MODE,
                        "OpMode: the slave does not offer %s (op_mode=%s); it offers%s%s%s",
                        rtc_dcp_op_mode_name((uint8_t)m), modes[m], x->hrt ? " HRT" : "",
                        x->srt ? " SRT" : "", x->nrt ? " NRT" : "");
    if (lockstep && m != RTC_DCP_OP_NRT)
        return rtc_drv_bad(&d->b, NULL, "op mode %s in a fast run: a fast run steps its DCP "
                           "slaves in lock-step, which needs NRT (op_mode=\"nrt\"); run an "
                           "%s slave with --realtime", rtc_dcp_op_mode_name((uint8_t)m),
                           rtc_dcp_op_mode_name((uint8_t)m));
    return RTC_OK;
}

/* A fast run (key lockstep): the slave is stepped once per tick and the tick waits for its
 * outputs (the lock-step channel, rtcosim/lockstep.h; dcp_master_link.c serves it). The
 * initial outputs come from STC_initialize and STC_send_outputs; every wait of the stepping
 * thread is bounded by the link contract's connect time and the request's retries. */
static int open_lockstep(dm *d, const rtc_driver_config *cfg)
{
    if (!cfg->lockstep)
        return rtc_drv_bad(&d->b, NULL, "setting lockstep=true: the engine offers no "
                           "lock-step channel here");
    d->initialize = true;
    d->ls_vals = calloc(d->n_out + 1, sizeof *d->ls_vals);
    if (!d->ls_vals)
        return RTC_ENOMEM;
    int64_t wait = d->b.link.connect_ns + d->setup_timeout_ns +
                   (int64_t)(d->retries + 1) * d->timeout_ns;
    int rc = rtc_lockstep_enable(cfg->lockstep, NULL, wait);
    if (rc == RTC_OK)
        d->ls = cfg->lockstep;
    return rc;
}

/* Steps of @p r making @p step_ns (*@p num its numerator), or 0 when the step is no whole
 * multiple of it: one Resolution has its numerator; a range takes the largest numerator
 * that divides the step (the fewest steps). */
static uint32_t steps_of(const rtc_dcpx_res *r, int64_t step_ns, uint32_t *num)
{
    unsigned __int128 q = (unsigned __int128)step_ns * r->denominator;
    if (q % 1000000000u || r->numerator == 0)
        return 0;
    unsigned __int128 total = q / 1000000000u; /* the step in units of 1/denominator s */
    uint64_t s = 0;
    if (!r->range) {
        s = total % r->numerator ? 0 : (uint64_t)(total / r->numerator);
        *num = r->numerator;
    } else {
        for (uint64_t k = 1; !s && k <= total && k <= 1000000; k++)
            if (total % k == 0 && total / k >= r->numerator && total / k <= r->numerator_to) {
                s = k;
                *num = (uint32_t)(total / k);
            }
    }
    return s <= UINT32_MAX ? (uint32_t)s : 0;
}

/* The resolution and steps of the communication step: the fixed or recommended
 * resolutions first, then the others, whichever the step is a whole multiple of. */
static int resolution(dm *d)
{
    const rtc_dcpx *x = d->dcpx;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < x->n_res; i++) {
            const rtc_dcpx_res *r = &x->res[i];
            uint32_t num = 0, s;
            if ((pass == 0) != (!r->range && (r->fixed || r->recommended)))
                continue;
            if ((s = steps_of(r, d->b.period_ns, &num)) != 0) {
                d->res_num = num;
                d->res_den = r->denominator;
                d->steps = s;
                return RTC_OK;
            }
        }
    }
    char step[32];
    rtc_time_format_s(d->b.period_ns, step, sizeof step);
    return dcpx_bad(d, NULL, x->time_res_line, RTC_DCP_E_INVALID_TIME_RESOLUTION,
                    "TimeRes: the communication step %s s (step_ms) is no whole multiple of "
                    "a time resolution the slave offers", step);
}

/* Without step_ms: the slave's own step when its resolution is fixed (its outputs'
 * defaultSteps, or NonRealTime's in NRT). */
static void default_step(dm *d, const rtc_driver_config *cfg)
{
    const rtc_dcpx *x = d->dcpx;
    if (rtc_kv_get(cfg->settings, cfg->n_settings, "step_ms") || x->n_res != 1 ||
        !x->res[0].fixed || x->res[0].range)
        return;
    uint64_t steps = d->op_mode == RTC_DCP_OP_NRT ? x->nrt_default_steps : 1;
    for (size_t i = 0; d->op_mode != RTC_DCP_OP_NRT && i < d->n_out; i++)
        if (d->out[i].var->default_steps > steps)
            steps = d->out[i].var->default_steps;
    unsigned __int128 ns = (unsigned __int128)steps * x->res[0].numerator * 1000000000u;
    if (ns % x->res[0].denominator == 0 && ns / x->res[0].denominator <= INT64_MAX &&
        ns / x->res[0].denominator >= 10000) /* not below 10 us */
        d->b.period_ns = (int64_t)(ns / x->res[0].denominator);
}

/* The steps each output (SRT/HRT) or NonRealTime (NRT) allows. */
static int check_steps(dm *d)
{
    const rtc_dcpx *x = d->dcpx;
    if (d->op_mode == RTC_DCP_OP_NRT) {
        bool ok = x->nrt_fixed_steps ? d->steps == x->nrt_default_steps
                                     : (!x->nrt_min_steps || d->steps >= x->nrt_min_steps) &&
                                           (!x->nrt_max_steps || d->steps <= x->nrt_max_steps);
        return ok ? RTC_OK
                  : dcpx_bad(d, NULL, x->op_mode_line, RTC_DCP_E_INVALID_STEPS,
                             "NonRealTime: %u steps of %u/%u s per communication step are not "
                             "allowed (defaultSteps %u%s)", d->steps, d->res_num, d->res_den,
                             x->nrt_default_steps, x->nrt_fixed_steps ? ", fixed" : "");
    }
    for (size_t i = 0; i < d->n_out; i++) {
        const rtc_dcpx_var *v = d->out[i].var;
        bool ok = v->fixed_steps ? d->steps == v->default_steps
                                 : (!v->min_steps || d->steps >= v->min_steps) &&
                                       (!v->max_steps || d->steps <= v->max_steps);
        if (!ok)
            return dcpx_bad(d, v->name, v->line, RTC_DCP_E_INVALID_STEPS,
                            "Output '%s' allows %s%u steps, the communication step needs %u "
                            "of %u/%u s (step_ms)", v->name, v->fixed_steps ? "only " : "up to ",
                            v->fixed_steps ? v->default_steps : v->max_steps, d->steps,
                            d->res_num, d->res_den);
    }
    return RTC_OK;
}

/* ---- signals ---- */

static int map_signal(dm *d, const rtc_io_signal *s, size_t i)
{
    const rtc_dcpx_var *v = rtc_dcpx_find(d->dcpx, s->name);
    bool to = s->dir == RTC_IO_TO_BENCH;
    if (!v)
        return rtc_drv_bad(&d->b, s->name, "%s has no variable '%s' (connectors are named "
                           "as the slave's variables)", d->dcpx->path, s->name);
    if (v->causality != (to ? RTC_DCPX_INPUT : RTC_DCPX_OUTPUT))
        return dcpx_bad(d, s->name, v->line, RTC_DCP_E_NONE, "'%s' is %s %s of the slave: its "
                        "connector must be kind=\"%s\"", v->name,
                        v->causality == RTC_DCPX_INPUT ? "an" : "a",
                        rtc_dcpx_causality_name(v->causality),
                        v->causality == RTC_DCPX_INPUT    ? "input"
                        : v->causality == RTC_DCPX_OUTPUT ? "output" : "parameter (unsupported)");
    if (!rtc_dcp_type_numeric(v->type))
        return dcpx_bad(d, s->name, v->line, RTC_DCP_E_INVALID_SOURCE_DATA_TYPE, "'%s' is a "
                        "%s; engine signals carry numbers (uint8 .. float64)", v->name,
                        rtc_dcp_data_type_name(v->type));
    if (v->n_elems != 1)
        return dcpx_bad(d, s->name, v->line, RTC_DCP_E_NONE, "'%s' has Dimensions; arrays "
                        "are not supported as signals", v->name);
    dm_sig *a = to ? &d->in[d->n_in++] : &d->out[d->n_out++];
    *a = (dm_sig){.var = v, .port = i};
    *(to ? &d->in_len : &d->out_len) += rtc_dcp_type_size(v->type);
    return RTC_OK;
}

static int map_signals(dm *d, const rtc_driver_config *cfg)
{
    d->in = calloc(cfg->n_signals + 1, sizeof *d->in);
    d->out = calloc(cfg->n_signals + 1, sizeof *d->out);
    if (!d->in || !d->out)
        return RTC_ENOMEM;
    int rc = RTC_OK;
    for (size_t i = 0; rc == RTC_OK && i < cfg->n_signals; i++)
        rc = map_signal(d, &cfg->signals[i], i);
    size_t max = d->dcpx->udp_max_pdu;
    if (rc == RTC_OK && (d->in_len + 5 > max || d->out_len + 5 > max))
        rc = dcpx_bad(d, NULL, d->dcpx->udp_line, RTC_DCP_E_NOT_SUPPORTED_PDU_SIZE,
                      "UDP_IPv4: a DAT_input_output of %zu bytes exceeds maxPduSize %zu",
                      (d->in_len > d->out_len ? d->in_len : d->out_len) + 5, max);
    return rc;
}

/* ---- open ---- */

static int read_keys(dm *d, const rtc_driver_config *cfg)
{
    const rtc_kv *kv = cfg->settings;
    size_t n = cfg->n_settings;
    long id = 1, tmo = 100, retries = 3, setup = 5000, delay = 0;
    int rc = rtc_drv_get_int(&d->b, NULL, kv, n, "slave_id", 1, 1, 255, &id);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "timeout_ms", 100, 1, 60000, &tmo);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "retries", 3, 0, 100, &retries);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "setup_timeout_ms", 5000, 1, 600000, &setup);
    if (rc == RTC_OK)
        rc = rtc_drv_get_int(&d->b, NULL, kv, n, "start_delay_s", 0, 0, 3600, &delay);
    if (rc == RTC_OK)
        rc = rtc_drv_get_bool(&d->b, NULL, kv, n, "initialize", false, &d->initialize);
    d->slave_id = (uint8_t)id;
    d->timeout_ns = tmo * 1000000LL;
    d->retries = (unsigned)retries;
    d->setup_timeout_ns = setup * 1000000LL;
    d->start_delay_s = (unsigned)delay;
    return rc;
}

static int describe(dm *d)
{
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &d->slave.sin_addr, ip, sizeof ip);
    size_t len = strlen(d->dcpx->slave_name) + sizeof ip + 32;
    d->name = malloc(len);
    if (!d->name)
        return RTC_ENOMEM;
    snprintf(d->name, len, "slave '%s' at %s:%u", d->dcpx->slave_name, ip,
             ntohs(d->slave.sin_port));
    d->tx_cap = 5 + d->in_len;
    d->tx = malloc(d->tx_cap);
    d->lines = (rtc_ratelimit){.window_ns = 1000000000, .burst = 5};
    return d->tx ? rtc__dm_script(d) : RTC_ENOMEM;
}

static int dm_open(const rtc_driver_config *cfg, const rtc_logger *lg, void **self)
{
    rtc_drv_base *b;
    int rc = cfg && self ? rtc_drv_open(&dm_desc, sizeof(dm), cfg, lg, &b) : RTC_EINVAL;
    if (rc != RTC_OK)
        return rc;
    dm *d = (dm *)b;
    d->fd = -1;
    if (!cfg->source)
        rc = rtc_drv_bad(b, NULL, "no slave description: give the component "
                         "source=\"resources/NAME.dcpx\"");
    else if ((rc = rtc_dcpx_read(cfg->source, lg, &d->dcpx)) != RTC_OK && rc != RTC_ENOMEM)
        rc = rtc_drv_error(b, rc == RTC_EPARSE ? RTC_EINVAL : rc, "cannot use the slave "
                           "description %s", cfg->source);
    if (rc == RTC_OK)
        rc = check_transport(d);
    if (rc == RTC_OK)
        rc = addresses(d, cfg);
    if (rc == RTC_OK)
        rc = read_keys(d, cfg);
    bool lockstep = false;
    if (rc == RTC_OK)
        rc = rtc_drv_get_bool(b, NULL, cfg->settings, cfg->n_settings, "lockstep", false,
                              &lockstep);
    if (rc == RTC_OK)
        rc = op_mode(d, cfg, lockstep);
    if (rc == RTC_OK)
        rc = map_signals(d, cfg);
    if (rc == RTC_OK && lockstep)
        rc = open_lockstep(d, cfg);
    if (rc == RTC_OK) {
        default_step(d, cfg);
        rc = resolution(d);
    }
    if (rc == RTC_OK)
        rc = check_steps(d);
    if (rc == RTC_OK)
        rc = describe(d);
    if (rc != RTC_OK) {
        rtc_drv_close(b);
        return rc;
    }
    b->stop_safe = RTC_DRV_STOP_SAFE_UNLESS_LATCHED; /* the slave sees safe values last */
    *self = d;
    return RTC_OK;
}

/* ---- describe (rtcosim info / check) ---- */

/* Append to buf at *len (cap in all), truncating; keeps it NUL-terminated. */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    if (*len + 1 >= cap)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len = n < 0 ? *len : *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

static void put_var(const dm *d, const rtc_dcpx_var *v, char *buf, size_t cap, size_t *len)
{
    bool used = false;
    for (size_t k = 0; k < d->n_in; k++)
        used |= d->in[k].var == v;
    for (size_t k = 0; k < d->n_out; k++)
        used |= d->out[k].var == v;
    put(buf, cap, len, "\n  %s %s %s vr %llu", v->name, rtc_dcpx_causality_name(v->causality),
        rtc_dcp_data_type_name(v->type), (unsigned long long)v->vr);
    if (v->has_start && rtc_dcp_type_numeric(v->type))
        put(buf, cap, len, " start %.17g", v->start);
    if (v->unit)
        put(buf, cap, len, " [%s]", v->unit);
    put(buf, cap, len, "%s", used ? " (connected)" : "");
}

static size_t dm_describe(void *self, char *buf, size_t cap)
{
    const dm *d = self;
    const rtc_dcpx *x = d->dcpx;
    char ip[INET_ADDRSTRLEN], dip[INET_ADDRSTRLEN], step[32];
    size_t len = 0;
    inet_ntop(AF_INET, &d->slave.sin_addr, ip, sizeof ip);
    inet_ntop(AF_INET, &d->slave_dat.sin_addr, dip, sizeof dip);
    rtc_time_format_s(d->b.period_ns, step, sizeof step);
    put(buf, cap, &len, "DCP slave '%s' (DCP %u.%u, uuid %s) from %s\n", x->slave_name,
        x->major, x->minor, x->uuid_text, x->path);
    put(buf, cap, &len, "op modes%s%s%s, runs %s; time resolution", x->hrt ? " HRT" : "",
        x->srt ? " SRT" : "", x->nrt ? " NRT" : "", rtc_dcp_op_mode_name(d->op_mode));
    for (size_t i = 0; i < x->n_res; i++) {
        const rtc_dcpx_res *r = &x->res[i];
        if (r->range)
            put(buf, cap, &len, "%s %u..%u/%u s", i ? "," : "", r->numerator, r->numerator_to,
                r->denominator);
        else
            put(buf, cap, &len, "%s %u/%u s%s", i ? "," : "", r->numerator, r->denominator,
                r->fixed ? " (fixed)" : r->recommended ? " (recommended)" : "");
    }
    put(buf, cap, &len, "; communication step %u x %u/%u s = %s s\n", d->steps, d->res_num,
        d->res_den, step);
    put(buf, cap, &len, "UDP_IPv4: control %s:%u, data %s:%u, max PDU %u bytes; heartbeat ",
        ip, ntohs(d->slave.sin_port), dip, ntohs(d->slave_dat.sin_port), x->udp_max_pdu);
    if (x->heartbeat)
        put(buf, cap, &len, "%u/%u s", x->hb_numerator, x->hb_denominator);
    else
        put(buf, cap, &len, "none");
    put(buf, cap, &len, "\nvariables (%zu):", x->n_vars);
    for (size_t i = 0; i < x->n_vars; i++)
        put_var(d, &x->vars[i], buf, cap, &len);
    return len;
}

/* ---- the base's hooks ---- */

static int dm_begin(rtc_drv_base *b)
{
    dm *d = (dm *)b;
    uint16_t port = ntohs(d->local.sin_port);
    int rc = rtc_udp_bind(ntohl(d->local.sin_addr.s_addr), &port, true, &d->fd);
    if (rc != RTC_OK) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &d->local.sin_addr, ip, sizeof ip);
        return rtc_drv_error(b, rc, "cannot bind %s:%u: %s", ip, ntohs(d->local.sin_port),
                             rtc_strerror(rc));
    }
    d->local.sin_port = htons(port); /* the slave sends its outputs here */
    atomic_store_explicit(&b->st.port, port, memory_order_relaxed);
    rtc_drv_link_error(b, "the DCP slave is not running yet"); /* (the reason while it waits) */
    d->ls_begin_ns = rtc_time_now_ns();
    rtc__dm_reset(d, d->ls_begin_ns);
    return RTC_OK;
}

static bool dm_cycle(rtc_drv_base *b, int64_t now)
{
    rtc__dm_cycle((dm *)b, now);
    return true; /* the protocol keeps its own retry time (phase DOWN) */
}

static void dm_wait(rtc_drv_base *b, int64_t until)
{
    dm *d = (dm *)b;
    if (d->ls)
        rtc__dm_lockstep_wait(d, until);
    else
        rtc__dm_receive(d, until);
}

static int dm_safe(rtc_drv_base *b)
{
    dm *d = (dm *)b;
    if (d->fd >= 0 && d->phase == DM_RUN)
        rtc__dm_send_inputs(d, NULL); /* latched: the safe values */
    return RTC_OK;
}

static void dm_end(rtc_drv_base *b)
{
    dm *d = (dm *)b;
    if (d->fd < 0)
        return;
    rtc__dm_shutdown(d);
    close(d->fd);
    d->fd = -1;
}

static void dm_clear(rtc_drv_base *b)
{
    dm *d = (dm *)b;
    rtc_dcpx_free(d->dcpx);
    free(d->name);
    free(d->in);
    free(d->out);
    free(d->script);
    free(d->tx);
    free(d->ls_vals);
}

static const rtc_drv_desc dm_desc = {
    .name = "dcp-master", .kind = "dcp_master", .counters = dm_counters,
    .n_counters = DM_N_COUNTERS, .period_key = "step_ms", .period_default = 10,
    .period_min = 0.01, .period_max = 60000, .stale_periods = 3, .reconnects = true,
    /* the contract: required; up once the slave runs (register .. STC_run take a few round
     * trips, a start time in whole seconds up to two more); lost when the driver says so
     * (no answer, an Error state, RSP_nack, silence asked about with INF_state) */
    .connect_ms = 10000, .begin = dm_begin,
    .cycle = dm_cycle, .wait = dm_wait, .safe = dm_safe, .end = dm_end, .clear = dm_clear};

const rtc_driver_ops rtc_dcp_master_ops = {
    .name = "dcp-master", .open = dm_open, .start = rtc_drv_start, .stop = rtc_drv_stop,
    .write_safe_values = rtc_drv_write_safe_values, .close = rtc_drv_close,
    .stats = rtc_drv_stats, .describe = dm_describe, .link = rtc_drv_link};
