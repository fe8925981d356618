/*
 * rtcosim-bench-sim — a standalone Modbus TCP/RTU server that behaves like a physical
 * bench: a DC motor driven by a voltage register, integrated at its own rate, with
 * encoder noise and a transport delay on what it reports.
 *
 * One thread: ppoll on the listen socket and clients (or the tty) with a timeout up to the
 * next integration tick; ticks due are integrated (at most 100 at once, then the schedule
 * is reset and the skip counted), then requests are served from the register map. The map
 * is written only here, so no lock. SIGTERM/SIGINT set an atomic flag the loop checks.
 *
 * Motor (armature circuit + rotor):  L di/dt = V - R i - Ke w,  J dw/dt = Kt i - b w,
 * dtheta/dt = w; semi-implicit Euler at --rate (electrical time constant L/R = 5 ms, so
 * 1 kHz is well inside the stable range).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <modbus.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 16
#define MAX_DELAY_TICKS 100000

static atomic_bool stop_flag; /* set by the signal handler: lock-free atomics are
                                 async-signal-safe */

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, true);
}

typedef struct motor {
    double R, L, Ke, Kt, J, b;
    double i, w, theta;
} motor;

typedef struct sim {
    /* options */
    const char *bind, *rtu_dev, *log_path;
    int port, baud, unit_id;
    double rate_hz, noise, delay_ms, duration_s;
    bool int16_map;
    uint64_t rng;
    /* state */
    motor m;
    double t_s, volts;
    uint16_t ticks;
    double *hist_w, *hist_th, *hist_i; /* transport delay ring */
    size_t delay_ticks, head;
    modbus_t *ctx;
    modbus_mapping_t *map;
    FILE *log; /* --log: the true state at every tick */
    int lfd, clients[MAX_CLIENTS], n_clients;
    unsigned long long requests, skipped;
} sim;

static const char USAGE[] =
    "usage: rtcosim-bench-sim [options]\n"
    "A Modbus server that behaves like a DC-motor test bench.\n"
    "  --port N          TCP port (default 1502; 0 = ephemeral, printed at start)\n"
    "  --bind ADDR       listen address (default 127.0.0.1)\n"
    "  --rtu DEVICE      serve Modbus RTU on a tty instead of TCP\n"
    "  --baud N          RTU baud rate (default 115200), 8N1\n"
    "  --unit-id N       RTU unit id (default 1; TCP answers any)\n"
    "  --rate HZ         integration rate (default 1000)\n"
    "  --noise STD       encoder noise, standard deviation in rad (default 0)\n"
    "  --delay-ms MS     transport delay of every reported value (default 0)\n"
    "  --register-map M  float32 (default) or int16, see below\n"
    "  --duration S      stop after S seconds (default: run until SIGTERM/SIGINT)\n"
    "  --seed N          noise seed\n"
    "  --log FILE        write the true state at every integration tick, undelayed and\n"
    "                    without noise, as CSV: monotonic_s,speed,position,current,voltage\n"
    "                    (monotonic_s: the tick's CLOCK_MONOTONIC time in seconds, the clock\n"
    "                    of timing.json's t0_monotonic_ns: 'rtcosim plot' draws it as the\n"
    "                    true value when a session folder holds it as truth.csv)\n"
    "Register map, float32 layout (0-based PDU addresses, 32-bit values big-endian word\n"
    "order: most significant word first, as rtcosim's word_order=big):\n"
    "  coil 0           enable (1 at start; 0 forces 0 V)\n"
    "  holding 0-1      voltage command [V] float32, clamped to +-24 V\n"
    "  input 0-1        speed [rad/s] float32 (delayed)\n"
    "  input 2-3        position [rad] float32 (delayed, with encoder noise)\n"
    "  input 4-5        current [A] float32 (delayed)\n"
    "  input 6-7        bench time [s] float32\n"
    "  input 8          tick counter uint16 (wraps)\n"
    "int16 layout: holding 0 voltage [mV] int16; input 0 speed [0.01 rad/s] int16;\n"
    "  input 1 position [0.01 rad] int16 (wraps); input 2 current [mA] int16;\n"
    "  input 3 tick counter uint16; coil 0 enable.\n"
    "Prints \"rtcosim-bench-sim: listening on ADDR:PORT\" once serving.\n";

static int parse_args(sim *s, int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", 1, 0, 'p'},   {"bind", 1, 0, 'B'},     {"rtu", 1, 0, 'r'},
        {"baud", 1, 0, 'b'},   {"unit-id", 1, 0, 'u'},  {"rate", 1, 0, 'R'},
        {"noise", 1, 0, 'n'},  {"delay-ms", 1, 0, 'd'}, {"register-map", 1, 0, 'm'},
        {"duration", 1, 0, 't'}, {"seed", 1, 0, 's'},   {"help", 0, 0, 'h'},
        {"log", 1, 0, 'l'},
        {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': s->port = atoi(optarg); break;
        case 'B': s->bind = optarg; break;
        case 'r': s->rtu_dev = optarg; break;
        case 'b': s->baud = atoi(optarg); break;
        case 'u': s->unit_id = atoi(optarg); break;
        case 'R': s->rate_hz = atof(optarg); break;
        case 'n': s->noise = atof(optarg); break;
        case 'd': s->delay_ms = atof(optarg); break;
        case 't': s->duration_s = atof(optarg); break;
        case 's': s->rng = strtoull(optarg, NULL, 0); break;
        case 'l': s->log_path = optarg; break;
        case 'm':
            if (strcmp(optarg, "int16") && strcmp(optarg, "float32")) {
                fprintf(stderr, "rtcosim-bench-sim: --register-map must be float32 or int16\n");
                return 2;
            }
            s->int16_map = strcmp(optarg, "int16") == 0;
            break;
        case 'h': fputs(USAGE, stdout); return 1;
        default: fputs(USAGE, stderr); return 2;
        }
    }
    if (s->rate_hz < 1 || s->rate_hz > 100000 || s->port < 0 || s->port > 65535 ||
        s->delay_ms < 0 || s->noise < 0) {
        fprintf(stderr, "rtcosim-bench-sim: option out of range (see --help)\n");
        return 2;
    }
    s->delay_ticks = (size_t)llround(s->delay_ms * s->rate_hz / 1000.0);
    if (s->delay_ticks > MAX_DELAY_TICKS) {
        fprintf(stderr, "rtcosim-bench-sim: --delay-ms too long for --rate\n");
        return 2;
    }
    return 0;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double gauss(uint64_t *st)
{
    /* xorshift64* + Box-Muller: reproducible with --seed, no global state */
    double u[2];
    for (int k = 0; k < 2; k++) {
        uint64_t x = *st ? *st : 88172645463325252ull;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *st = x;
        u[k] = ((double)((x * 0x2545f4914f6cdd1dull) >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2.0 * log(u[0])) * cos(2.0 * M_PI * u[1]);
}

static void put_f32(uint16_t *regs, double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    regs[0] = (uint16_t)(u >> 16);
    regs[1] = (uint16_t)u;
}

static double get_f32(const uint16_t *regs)
{
    uint32_t u = (uint32_t)regs[0] << 16 | regs[1];
    float f;
    memcpy(&f, &u, sizeof f);
    return isfinite(f) ? f : 0.0;
}

static int16_t sat16(double v)
{
    return (int16_t)fmax(-32768.0, fmin(32767.0, nearbyint(v)));
}

/* One integration tick, then publish the (delayed) outputs into the input registers. */
static void tick(sim *s)
{
    double dt = 1.0 / s->rate_hz;
    double v = s->int16_map ? (int16_t)s->map->tab_registers[0] / 1000.0
                            : get_f32(s->map->tab_registers);
    v = s->map->tab_bits[0] ? fmax(-24.0, fmin(24.0, v)) : 0.0;
    s->volts = v;
    motor *m = &s->m;
    m->i += dt * (v - m->R * m->i - m->Ke * m->w) / m->L;
    m->w += dt * (m->Kt * m->i - m->b * m->w) / m->J;
    m->theta += dt * m->w;
    s->t_s += dt;
    s->ticks++;
    size_t n = s->delay_ticks + 1;
    s->head = (s->head + 1) % n;
    s->hist_w[s->head] = m->w;
    s->hist_th[s->head] = m->theta;
    s->hist_i[s->head] = m->i;
    size_t old = (s->head + 1) % n; /* the sample delay_ticks ticks ago */
    double th = s->hist_th[old] + (s->noise > 0 ? s->noise * gauss(&s->rng) : 0.0);
    uint16_t *ir = s->map->tab_input_registers;
    if (s->int16_map) {
        ir[0] = (uint16_t)sat16(s->hist_w[old] * 100.0);
        ir[1] = (uint16_t)(int16_t)(int64_t)llround(th * 100.0); /* wraps like an encoder */
        ir[2] = (uint16_t)sat16(s->hist_i[old] * 1000.0);
        ir[3] = s->ticks;
    } else {
        put_f32(ir + 0, s->hist_w[old]);
        put_f32(ir + 2, th);
        put_f32(ir + 4, s->hist_i[old]);
        put_f32(ir + 6, s->t_s);
        ir[8] = s->ticks;
    }
}

static int open_server(sim *s)
{
    s->ctx = s->rtu_dev ? modbus_new_rtu(s->rtu_dev, s->baud, 'N', 8, 1)
                        : modbus_new_tcp(s->bind, s->port);
    s->map = modbus_mapping_new(8, 0, 8, 16);
    if (!s->ctx || !s->map)
        return -1;
    s->map->tab_bits[0] = 1;
    modbus_set_byte_timeout(s->ctx, 0, 100000);
    if (s->rtu_dev) {
        modbus_set_slave(s->ctx, s->unit_id);
        if (modbus_connect(s->ctx) == -1)
            return -1;
        s->lfd = modbus_get_socket(s->ctx);
        printf("rtcosim-bench-sim: listening on %s\n", s->rtu_dev);
    } else {
        s->lfd = modbus_tcp_listen(s->ctx, MAX_CLIENTS);
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        if (s->lfd < 0 || getsockname(s->lfd, (struct sockaddr *)&sa, &sl) != 0)
            return -1;
        printf("rtcosim-bench-sim: listening on %s:%d\n", s->bind, ntohs(sa.sin_port));
    }
    fflush(stdout);
    return 0;
}

static void serve(sim *s, int k, int fd)
{
    uint8_t q[MODBUS_TCP_MAX_ADU_LENGTH];
    modbus_set_socket(s->ctx, fd);
    int rc = modbus_receive(s->ctx, q);
    if (rc > 0) {
        modbus_reply(s->ctx, q, rc, s->map);
        s->requests++;
    } else if (rc == -1 && !s->rtu_dev) {
        close(fd);
        s->clients[k] = s->clients[--s->n_clients];
    } else if (rc == -1) {
        modbus_flush(s->ctx);
    }
}

static void poll_io(sim *s, int64_t until)
{
    struct pollfd p[MAX_CLIENTS + 1] = {{.fd = s->lfd, .events = POLLIN}};
    for (int k = 0; k < s->n_clients; k++)
        p[k + 1] = (struct pollfd){.fd = s->clients[k], .events = POLLIN};
    int64_t wait = until - now_ns();
    struct timespec ts = {.tv_sec = 0, .tv_nsec = wait > 0 ? (long)wait : 0};
    if (ppoll(p, (nfds_t)s->n_clients + 1, &ts, NULL) <= 0)
        return;
    for (int k = s->n_clients - 1; k >= 0; k--)
        if (p[k + 1].revents)
            serve(s, k, p[k + 1].fd);
    if (!(p[0].revents & POLLIN))
        return;
    if (s->rtu_dev) {
        serve(s, -1, s->lfd);
        return;
    }
    int fd = accept(s->lfd, NULL, NULL);
    if (fd >= 0 && s->n_clients < MAX_CLIENTS)
        s->clients[s->n_clients++] = fd;
    else if (fd >= 0)
        close(fd);
}

static void run(sim *s)
{
    int64_t period = (int64_t)(1e9 / s->rate_hz), t0 = now_ns(), next = t0 + period;
    int64_t end = s->duration_s > 0 ? t0 + (int64_t)(s->duration_s * 1e9) : INT64_MAX;
    while (!atomic_load(&stop_flag) && now_ns() < end) {
        int n = 0;
        while (now_ns() >= next && n++ < 100) {
            tick(s);
            if (s->log) /* the state at the tick's scheduled time */
                fprintf(s->log, "%.9f,%.9g,%.9g,%.9g,%.9g\n", (double)next / 1e9, s->m.w,
                        s->m.theta, s->m.i, s->volts);
            next += period;
        }
        if (n > 100) { /* far behind (stopped in a debugger?): resynchronise */
            s->skipped++;
            next = now_ns() + period;
        }
        poll_io(s, next);
    }
}

int main(int argc, char **argv)
{
    sim s = {.bind = "127.0.0.1", .port = 1502, .baud = 115200, .unit_id = 1,
             .rate_hz = 1000, .rng = 12345, .lfd = -1,
             .m = {.R = 2.0, .L = 0.01, .Ke = 0.05, .Kt = 0.05, .J = 1e-4, .b = 1e-5}};
    int rc = parse_args(&s, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    size_t n = s.delay_ticks + 1;
    s.hist_w = calloc(n, sizeof(double));
    s.hist_th = calloc(n, sizeof(double));
    s.hist_i = calloc(n, sizeof(double));
    if (s.log_path && !(s.log = fopen(s.log_path, "w"))) {
        fprintf(stderr, "rtcosim-bench-sim: --log %s: %s\n", s.log_path, strerror(errno));
        return 1;
    }
    if (s.log)
        fputs("monotonic_s,speed,position,current,voltage\n", s.log);
    if (!s.hist_w || !s.hist_th || !s.hist_i || open_server(&s) != 0) {
        fprintf(stderr, "rtcosim-bench-sim: cannot serve on %s:%d: %s\n",
                s.rtu_dev ? s.rtu_dev : s.bind, s.port, modbus_strerror(errno));
        return 1;
    }
    run(&s);
    /* What the bench was last commanded: the demo's test checks that rtcosim's safe values
     * (voltage 0, drive disabled) arrived before the bench was stopped. */
    double v_last = s.int16_map ? (int16_t)s.map->tab_registers[0] / 1000.0
                                : get_f32(s.map->tab_registers);
    fprintf(stderr, "rtcosim-bench-sim: stopped after %.3f s bench time, %llu requests, "
            "%llu resyncs; last command: voltage %.3f V, enable %d\n", s.t_s, s.requests,
            s.skipped, v_last, s.map->tab_bits[0] ? 1 : 0);
    while (s.n_clients > 0)
        close(s.clients[--s.n_clients]);
    if (!s.rtu_dev) {
        close(s.lfd);
        modbus_set_socket(s.ctx, -1);
    }
    modbus_close(s.ctx);
    modbus_free(s.ctx);
    modbus_mapping_free(s.map);
    int status = 0;
    if (s.log && fclose(s.log) != 0) {
        fprintf(stderr, "rtcosim-bench-sim: --log %s: %s\n", s.log_path, strerror(errno));
        status = 1;
    }
    free(s.hist_w);
    free(s.hist_th);
    free(s.hist_i);
    return status;
}
