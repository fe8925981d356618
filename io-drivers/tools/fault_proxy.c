/*
 * rtcosim-fault-proxy — a TCP or UDP forwarding proxy that injects network faults
 * (delay, jitter, loss, reordering, disconnects) in user space, for machines without
 * netem.
 *
 * One thread, one ppoll loop. Data read from either side is queued with a release time
 * (now + delay + uniform jitter) and written when due. TCP keeps each direction in order
 * (a release time never precedes the previous one: jitter stretches, never reorders a
 * byte stream); UDP datagrams are released in time order, so a datagram given extra delay
 * (--reorder) overtakes nobody but is overtaken. --disconnect-every drops every TCP
 * connection periodically, SIGUSR1 drops them now; SIGTERM/SIGINT stop the proxy.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

#define MAX_PAIRS 16
#define BUF 65536

static atomic_bool stop_flag, drop_flag; /* set by signal handlers (async-signal-safe) */

static void on_stop(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, true);
}

static void on_drop(int sig)
{
    (void)sig;
    atomic_store(&drop_flag, true);
}

typedef struct chunk {
    struct chunk *next;
    int64_t release_ns;
    size_t len, off;
    int to_client; /* UDP: direction */
    unsigned char data[];
} chunk;

typedef struct queue {
    chunk *head, *tail;
    int64_t last_release;
} queue;

typedef struct pair {
    int cfd, ufd;      /* client side, upstream side */
    queue c2u, u2c;
} pair;

typedef struct proxy {
    bool udp;
    struct sockaddr_in listen, target;
    double delay_ms, jitter_ms, loss, reorder, disconnect_s, duration_s;
    uint64_t rng;
    int lfd, ufd;                      /* UDP: upstream socket */
    struct sockaddr_in udp_client;     /* UDP: last client seen */
    bool have_client;
    pair pairs[MAX_PAIRS];
    int n_pairs;
    queue udpq;                        /* UDP: both directions, ordered by release */
    unsigned long long fwd, dropped, reordered, disconnects;
} proxy;

static const char USAGE[] =
    "usage: rtcosim-fault-proxy --target ADDR:PORT [options]\n"
    "Forward TCP (default) or UDP traffic and inject faults.\n"
    "  --tcp | --udp           protocol (default tcp)\n"
    "  --listen ADDR:PORT      listen address (default 127.0.0.1:0 = ephemeral, printed)\n"
    "  --target ADDR:PORT      where to forward (required)\n"
    "  --delay-ms MS           added one-way delay, each direction (default 0)\n"
    "  --jitter-ms MS          extra uniform random delay 0..MS (default 0)\n"
    "  --loss P                UDP: drop probability 0..1 (default 0)\n"
    "  --reorder P             UDP: probability of holding a datagram back by 2 x\n"
    "                          (delay + jitter) + 1 ms so later ones overtake it\n"
    "  --disconnect-every S    TCP: drop all connections every S seconds (default never)\n"
    "  --duration S            stop after S seconds (default: until SIGTERM/SIGINT)\n"
    "  --seed N                random seed\n"
    "Signals: SIGUSR1 drops every TCP connection now; SIGTERM/SIGINT stop.\n"
    "Prints \"rtcosim-fault-proxy: listening on ADDR:PORT\" once ready.\n";

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double urand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static int parse_addr(const char *text, struct sockaddr_in *sa)
{
    char host[256];
    snprintf(host, sizeof host, "%s", text);
    char *colon = strrchr(host, ':');
    if (!colon)
        return -1;
    *colon = '\0';
    struct addrinfo hints = {.ai_family = AF_INET}, *ai;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
        return -1;
    memcpy(sa, ai->ai_addr, sizeof *sa);
    freeaddrinfo(ai);
    return 0;
}

static int parse_args(proxy *p, int argc, char **argv)
{
    static const struct option opts[] = {
        {"tcp", 0, 0, 'T'},        {"udp", 0, 0, 'U'},         {"listen", 1, 0, 'l'},
        {"target", 1, 0, 't'},     {"delay-ms", 1, 0, 'd'},    {"jitter-ms", 1, 0, 'j'},
        {"loss", 1, 0, 'L'},       {"reorder", 1, 0, 'r'},     {"disconnect-every", 1, 0, 'D'},
        {"duration", 1, 0, 'u'},   {"seed", 1, 0, 's'},        {"help", 0, 0, 'h'},
        {0, 0, 0, 0}};
    bool have_target = false;
    int c;
    parse_addr("127.0.0.1:0", &p->listen);
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'T': p->udp = false; break;
        case 'U': p->udp = true; break;
        case 'l':
            if (parse_addr(optarg, &p->listen) != 0)
                goto bad;
            break;
        case 't':
            if (parse_addr(optarg, &p->target) != 0)
                goto bad;
            have_target = true;
            break;
        case 'd': p->delay_ms = atof(optarg); break;
        case 'j': p->jitter_ms = atof(optarg); break;
        case 'L': p->loss = atof(optarg); break;
        case 'r': p->reorder = atof(optarg); break;
        case 'D': p->disconnect_s = atof(optarg); break;
        case 'u': p->duration_s = atof(optarg); break;
        case 's': p->rng = strtoull(optarg, NULL, 0); break;
        case 'h': fputs(USAGE, stdout); return 1;
        default: fputs(USAGE, stderr); return 2;
        }
    }
    if (have_target && p->delay_ms >= 0 && p->jitter_ms >= 0 && p->loss >= 0 && p->loss <= 1 &&
        p->reorder >= 0 && p->reorder <= 1)
        return 0;
bad:
    fprintf(stderr, "rtcosim-fault-proxy: bad or missing option (see --help)\n");
    return 2;
}

/* ---- queues ---- */

static int64_t release_time(proxy *p)
{
    return now_ns() + (int64_t)((p->delay_ms + p->jitter_ms * urand(&p->rng)) * 1e6);
}

static chunk *chunk_new(const void *data, size_t len, int64_t release, int to_client)
{
    chunk *c = malloc(sizeof *c + len);
    if (!c)
        return NULL;
    *c = (chunk){.release_ns = release, .len = len, .to_client = to_client};
    memcpy(c->data, data, len);
    return c;
}

/* TCP: append in order; release never earlier than the previous chunk's. */
static void push_ordered(queue *q, chunk *c)
{
    if (c->release_ns < q->last_release)
        c->release_ns = q->last_release;
    q->last_release = c->release_ns;
    if (q->tail)
        q->tail->next = c;
    else
        q->head = c;
    q->tail = c;
}

/* UDP: insert sorted by release time (stable for equal times). */
static void push_sorted(queue *q, chunk *c)
{
    chunk **pp = &q->head;
    while (*pp && (*pp)->release_ns <= c->release_ns)
        pp = &(*pp)->next;
    c->next = *pp;
    *pp = c;
    if (!c->next)
        q->tail = c;
}

static void queue_clear(queue *q)
{
    while (q->head) {
        chunk *n = q->head->next;
        free(q->head);
        q->head = n;
    }
    *q = (queue){0};
}

static int64_t earliest(const queue *q, int64_t cur)
{
    return q->head && q->head->release_ns < cur ? q->head->release_ns : cur;
}

/* ---- TCP ---- */

static void drop_pair(proxy *p, int k)
{
    close(p->pairs[k].cfd);
    close(p->pairs[k].ufd);
    queue_clear(&p->pairs[k].c2u);
    queue_clear(&p->pairs[k].u2c);
    p->pairs[k] = p->pairs[--p->n_pairs];
}

static void accept_tcp(proxy *p)
{
    int cfd = accept(p->lfd, NULL, NULL);
    if (cfd < 0)
        return;
    int ufd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p->n_pairs == MAX_PAIRS || ufd < 0 ||
        connect(ufd, (struct sockaddr *)&p->target, sizeof p->target) != 0) {
        close(cfd); /* target down: the client sees the refusal as a reset */
        if (ufd >= 0)
            close(ufd);
        return;
    }
    int one = 1;
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    p->pairs[p->n_pairs++] = (pair){.cfd = cfd, .ufd = ufd};
}

/* Read what fd has into q; false on EOF/error. */
static bool read_into(proxy *p, int fd, queue *q)
{
    unsigned char buf[BUF];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0)
        return false;
    chunk *c = chunk_new(buf, (size_t)n, release_time(p), 0);
    if (!c)
        return false;
    push_ordered(q, c);
    return true;
}

/* Write every due chunk of q to fd; false on error. */
static bool flush_due(proxy *p, queue *q, int fd)
{
    int64_t now = now_ns();
    while (q->head && q->head->release_ns <= now) {
        chunk *c = q->head;
        ssize_t n = send(fd, c->data + c->off, c->len - c->off, MSG_NOSIGNAL);
        if (n < 0)
            return false;
        c->off += (size_t)n;
        if (c->off < c->len)
            return true; /* socket full: the rest later */
        q->head = c->next;
        if (!q->head)
            q->tail = NULL;
        free(c);
        p->fwd++;
    }
    return true;
}

static void step_tcp(proxy *p, int64_t wake)
{
    struct pollfd f[1 + 2 * MAX_PAIRS] = {{.fd = p->lfd, .events = POLLIN}};
    int n = p->n_pairs;
    for (int k = 0; k < n; k++) {
        f[1 + 2 * k] = (struct pollfd){.fd = p->pairs[k].cfd, .events = POLLIN};
        f[2 + 2 * k] = (struct pollfd){.fd = p->pairs[k].ufd, .events = POLLIN};
        wake = earliest(&p->pairs[k].c2u, wake);
        wake = earliest(&p->pairs[k].u2c, wake);
    }
    int64_t wait = wake - now_ns();
    struct timespec ts = {.tv_sec = 0, .tv_nsec = wait > 0 ? (long)wait : 0};
    int r = ppoll(f, (nfds_t)(1 + 2 * n), &ts, NULL);
    for (int k = n - 1; k >= 0; k--) {
        pair *pr = &p->pairs[k];
        bool ok = true;
        if (r > 0 && (f[1 + 2 * k].revents & (POLLIN | POLLHUP | POLLERR)))
            ok = read_into(p, pr->cfd, &pr->c2u);
        if (ok && r > 0 && (f[2 + 2 * k].revents & (POLLIN | POLLHUP | POLLERR)))
            ok = read_into(p, pr->ufd, &pr->u2c);
        if (ok)
            ok = flush_due(p, &pr->c2u, pr->ufd) && flush_due(p, &pr->u2c, pr->cfd);
        if (!ok)
            drop_pair(p, k);
    }
    if (r > 0 && (f[0].revents & POLLIN))
        accept_tcp(p);
}

/* ---- UDP ---- */

static void udp_read(proxy *p, int fd, int to_client)
{
    unsigned char buf[BUF];
    struct sockaddr_in from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
    if (n < 0)
        return;
    if (!to_client) {
        p->udp_client = from;
        p->have_client = true;
    }
    if (urand(&p->rng) < p->loss) {
        p->dropped++;
        return;
    }
    int64_t rel = release_time(p);
    if (urand(&p->rng) < p->reorder) {
        rel += (int64_t)((2 * (p->delay_ms + p->jitter_ms) + 1.0) * 1e6);
        p->reordered++;
    }
    chunk *c = chunk_new(buf, (size_t)n, rel, to_client);
    if (c)
        push_sorted(&p->udpq, c);
}

static void step_udp(proxy *p, int64_t wake)
{
    struct pollfd f[2] = {{.fd = p->lfd, .events = POLLIN}, {.fd = p->ufd, .events = POLLIN}};
    wake = earliest(&p->udpq, wake);
    int64_t wait = wake - now_ns();
    struct timespec ts = {.tv_sec = 0, .tv_nsec = wait > 0 ? (long)wait : 0};
    if (ppoll(f, 2, &ts, NULL) > 0) {
        if (f[0].revents & POLLIN)
            udp_read(p, p->lfd, 0);
        if (f[1].revents & POLLIN)
            udp_read(p, p->ufd, 1);
    }
    int64_t now = now_ns();
    while (p->udpq.head && p->udpq.head->release_ns <= now) {
        chunk *c = p->udpq.head;
        p->udpq.head = c->next;
        if (c->to_client && p->have_client)
            sendto(p->lfd, c->data, c->len, 0, (struct sockaddr *)&p->udp_client,
                   sizeof p->udp_client);
        else if (!c->to_client)
            send(p->ufd, c->data, c->len, 0);
        p->fwd++;
        free(c);
    }
    if (!p->udpq.head)
        p->udpq.tail = NULL;
}

/* ---- main ---- */

static int open_sockets(proxy *p)
{
    p->lfd = socket(AF_INET, (p->udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&p->listen, sizeof p->listen) != 0)
        return -1;
    if (!p->udp && listen(p->lfd, MAX_PAIRS) != 0)
        return -1;
    if (p->udp) {
        p->ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (p->ufd < 0 || connect(p->ufd, (struct sockaddr *)&p->target, sizeof p->target))
            return -1;
    }
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    getsockname(p->lfd, (struct sockaddr *)&sa, &sl);
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
    printf("rtcosim-fault-proxy: listening on %s:%d\n", ip, ntohs(sa.sin_port));
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    proxy p = {.rng = 42, .lfd = -1, .ufd = -1};
    int rc = parse_args(&p, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_drop;
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (open_sockets(&p) != 0) {
        fprintf(stderr, "rtcosim-fault-proxy: cannot open sockets: %s\n", strerror(errno));
        return 1;
    }
    int64_t t0 = now_ns(), every = (int64_t)(p.disconnect_s * 1e9);
    int64_t end = p.duration_s > 0 ? t0 + (int64_t)(p.duration_s * 1e9) : INT64_MAX;
    int64_t next_drop = every > 0 ? t0 + every : INT64_MAX;
    while (!atomic_load(&stop_flag) && now_ns() < end) {
        int64_t now = now_ns();
        if (atomic_exchange(&drop_flag, false) || now >= next_drop) {
            p.disconnects += p.n_pairs;
            while (p.n_pairs > 0)
                drop_pair(&p, p.n_pairs - 1);
            if (now >= next_drop)
                next_drop += every;
        }
        int64_t wake = now + 10000000; /* check flags at least every 10 ms */
        wake = next_drop < wake ? next_drop : wake;
        if (p.udp)
            step_udp(&p, wake);
        else
            step_tcp(&p, wake);
    }
    fprintf(stderr, "rtcosim-fault-proxy: stopped: %llu forwarded, %llu lost, %llu reordered, "
            "%llu disconnects\n", p.fwd, p.dropped, p.reordered, p.disconnects);
    while (p.n_pairs > 0)
        drop_pair(&p, p.n_pairs - 1);
    queue_clear(&p.udpq);
    close(p.lfd);
    if (p.ufd >= 0)
        close(p.ufd);
    return 0;
}
