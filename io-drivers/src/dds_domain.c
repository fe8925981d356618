/*
 * The process's DDS presence for a distributed run (dds_priv.h): domain, participant,
 * hello, and the data partition's publisher and subscriber, made once and shared by every
 * node bridge of the process (and the control plane of a real-time run).
 *
 * DESIGN (DESIGN.md T3; the measurements behind each choice are in the feasibility note on
 * Cyclone DDS 0.10.2): a single-host trial needs no configuration from the user, so the
 * engine generates one. On loopback Cyclone needs, without multicast, ParticipantIndex
 * "auto" and a peer (an explicit AllowMulticast=false with the default index never
 * discovers anyone); several nodes on one host need MaxAutoParticipantIndex above the
 * default 9; SPDPInterval 1 s lets a node started late be found within a second; one
 * receive thread (MultipleReceiveThreads=false) keeps the receive path on one thread with
 * a known name. Sessions are fenced three ways: the domain id, the Discovery Tag (the
 * session) and the partitions ("rtc/<session>" for hellos, "rtc/<session>/<run id>" for
 * data), so two test runs on one machine, or two sessions on one network, never see each
 * other's samples. With the nodes' addresses (the bridge's keys address and peers) the
 * same configuration names that interface and unicast peers instead; with CYCLONEDDS_URI
 * set (and no addresses) Cyclone reads the user's own.
 */
#include "dds_priv.h"

#include "rtcosim/status.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static rtc__dds_node *the_node; /* the process's one presence, under node_lock */

uint64_t rtc__dds_name_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

int64_t rtc__dds_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Append the <Peer> elements of the comma-separated @p list. */
static int put_peers(char *buf, size_t cap, int len, const char *list)
{
    for (const char *p = list; len >= 0 && p && *p;) {
        size_t n = strcspn(p, ", ");
        if (n)
            len += snprintf(buf + len, len < (int)cap ? cap - (size_t)len : 0,
                            "<Peer Address=\"%.*s\"/>", (int)n, p);
        p += n;
        p += strspn(p, ", ");
    }
    return len;
}

int rtc__dds_config(const rtc__dds_params *p, char *buf, size_t cap)
{
    bool lo = !p->address || !p->address[0];
    int len = snprintf(buf, cap,
        "<CycloneDDS><Domain id=\"any\"><General><Interfaces>"
        "<NetworkInterface %s=\"%s\"/></Interfaces><AllowMulticast>false</AllowMulticast>"
        "</General><Discovery><ParticipantIndex>auto</ParticipantIndex>"
        "<MaxAutoParticipantIndex>40</MaxAutoParticipantIndex><Peers>",
        lo ? "name" : "address", lo ? "lo" : p->address);
    len = put_peers(buf, cap, len, lo ? "127.0.0.1" : p->peers);
    if (len < 0 || (size_t)len >= cap)
        return -1;
    len += snprintf(buf + len, cap - (size_t)len,
        "</Peers><SPDPInterval>1s</SPDPInterval><Tag>rtc/%s</Tag></Discovery>"
        "<Internal><MultipleReceiveThreads>false</MultipleReceiveThreads></Internal>",
        p->session);
    /* real time: the receive thread runs the readers' listeners, which only wake the I/O
     * thread; under a busy machine's timesharing it waited for milliseconds */
    if (p->recv_priority > 0 && len > 0 && (size_t)len < cap)
        len += snprintf(buf + len, cap - (size_t)len, "<Threads><Thread name=\"recv\">"
                        "<Scheduling><Class>realtime</Class><Priority>%d</Priority>"
                        "</Scheduling></Thread></Threads>", p->recv_priority);
    if (len > 0 && (size_t)len < cap)
        len += snprintf(buf + len, cap - (size_t)len, "</Domain></CycloneDDS>");
    return (size_t)len < cap ? len : -1;
}

static bool same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

static bool same_params(const rtc__dds_params *a, const rtc__dds_params *b)
{
    return same(a->node, b->node) && same(a->session, b->session) && a->run_id == b->run_id &&
           a->domain == b->domain && same(a->address, b->address) && same(a->peers, b->peers);
}

static void free_node(rtc__dds_node *n)
{
    if (!n)
        return;
    if (n->pp > 0)
        dds_delete(n->pp);
    if (n->domain > 0)
        dds_delete(n->domain);
    free((char *)n->p.node);
    free((char *)n->p.system);
    free((char *)n->p.session);
    free((char *)n->p.address);
    free((char *)n->p.peers);
    free(n);
}

/* A publisher or subscriber in partition @p part. */
static dds_entity_t in_partition(dds_entity_t pp, const char *part, bool publisher)
{
    dds_qos_t *q = dds_create_qos();
    dds_qset_partition1(q, part);
    dds_entity_t e = publisher ? dds_create_publisher(pp, q, NULL)
                               : dds_create_subscriber(pp, q, NULL);
    dds_delete_qos(q);
    return e;
}

/* The hello topic's writer and reader: reliable, TRANSIENT_LOCAL, KEEP_LAST 1 per node. */
static int make_hello(rtc__dds_node *n)
{
    char part[96];
    snprintf(part, sizeof part, "rtc/%s", n->p.session);
    dds_entity_t pub = in_partition(n->pp, part, true), sub = in_partition(n->pp, part, false);
    n->hello_topic = dds_create_topic(n->pp, &rtc_node_Hello_desc, RTC_DDS_HELLO_TOPIC,
                                      NULL, NULL);
    dds_qos_t *q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
    dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
    if (pub > 0 && sub > 0 && n->hello_topic > 0) {
        n->hello_wr = dds_create_writer(pub, n->hello_topic, q, NULL);
        n->hello_rd = dds_create_reader(sub, n->hello_topic, q, NULL);
    }
    dds_delete_qos(q);
    if (pub <= 0 || sub <= 0 || n->hello_topic <= 0 || n->hello_wr <= 0 || n->hello_rd <= 0)
        return pub <= 0 ? pub : sub <= 0 ? sub : n->hello_topic <= 0 ? n->hello_topic
                                              : n->hello_wr <= 0 ? n->hello_wr : n->hello_rd;
    rtc_node_Hello h = {.node_key = rtc__dds_name_key(n->p.node), .run_id = n->p.run_id,
                            .nonce = n->nonce, .pid = getpid()};
    snprintf(h.node, sizeof h.node, "%s", n->p.node);
    snprintf(h.system, sizeof h.system, "%s", n->p.system ? n->p.system : "");
    return dds_write(n->hello_wr, &h);
}

/* May this process make a SCHED_FIFO thread of @p prio (root, or RLIMIT_RTPRIO)? */
static bool may_fifo(int prio)
{
    struct rlimit rl;
    return geteuid() == 0 || (getrlimit(RLIMIT_RTPRIO, &rl) == 0 &&
                              (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)prio));
}

/* Domain and participant: the generated configuration, or the user's CYCLONEDDS_URI. */
static int make_participant(rtc__dds_node *n, const rtc_logger *lg, const char *who)
{
    const char *uri = getenv("CYCLONEDDS_URI");
    if (n->p.recv_priority > 0 && !may_fifo(n->p.recv_priority))
        n->p.recv_priority = 0; /* as the engine's own threads: timesharing, warned */
    if (!(uri && uri[0] && (!n->p.address || !n->p.address[0]))) {
        char cfg[2048];
        if (rtc__dds_config(&n->p, cfg, sizeof cfg) < 0) {
            rtc_log(lg, RTC_LOG_ERROR, "%s: the DDS configuration does not fit %zu bytes "
                    "(too many peers)", who, sizeof cfg);
            return RTC_EINVAL;
        }
        n->domain = dds_create_domain((dds_domainid_t)n->p.domain, cfg);
        if (n->domain < 0) {
            rtc_log(lg, RTC_LOG_ERROR, "%s: cannot create DDS domain %d: %s (another part of "
                    "this process uses it already?)", who, n->p.domain,
                    dds_strretcode(n->domain));
            n->domain = 0;
            return RTC_EIO;
        }
    }
    n->pp = dds_create_participant((dds_domainid_t)n->p.domain, NULL, NULL);
    if (n->pp < 0) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: cannot join DDS domain %d: %s", who, n->p.domain,
                dds_strretcode(n->pp));
        n->pp = 0;
        return RTC_EIO;
    }
    return RTC_OK;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int make_node(const rtc__dds_params *p, const rtc_logger *lg, const char *who,
                     rtc__dds_node **out)
{
    rtc__dds_node *n = calloc(1, sizeof *n);
    if (!n)
        return RTC_ENOMEM;
    n->p = (rtc__dds_params){.node = dup_or_null(p->node), .system = dup_or_null(p->system),
                             .session = dup_or_null(p->session), .run_id = p->run_id,
                             .domain = p->domain, .address = dup_or_null(p->address),
                             .peers = dup_or_null(p->peers),
                             .recv_priority = p->recv_priority};
    if (getrandom(&n->nonce, sizeof n->nonce, 0) != sizeof n->nonce)
        n->nonce = (uint64_t)rtc__dds_realtime_ns() ^ ((uint64_t)getpid() << 32);
    snprintf(n->data_partition, sizeof n->data_partition, "rtc/%s/%016llx", p->session,
             (unsigned long long)p->run_id);
    int rc = n->p.node && n->p.session ? make_participant(n, lg, who) : RTC_ENOMEM;
    int drc = rc == RTC_OK ? make_hello(n) : 0;
    if (rc == RTC_OK && drc >= 0) {
        n->pub = in_partition(n->pp, n->data_partition, true);
        n->sub = in_partition(n->pp, n->data_partition, false);
        drc = n->pub < 0 ? n->pub : n->sub < 0 ? n->sub : 0;
    }
    if (rc == RTC_OK && drc < 0) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: DDS refused the node's entities: %s", who,
                dds_strretcode(drc));
        rc = RTC_EIO;
    }
    if (rc != RTC_OK) {
        free_node(n);
        return rc;
    }
    n->refs = 1;
    *out = n;
    return RTC_OK;
}

int rtc__dds_node_get(const rtc__dds_params *p, const rtc_logger *lg, const char *who,
                      rtc__dds_node **out)
{
    if (!p || !p->node || !p->session || !out)
        return RTC_EINVAL;
    if (strlen(p->node) >= rtc_node_NAME_CAP) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: node name '%s' longer than %d bytes", who, p->node,
                rtc_node_NAME_CAP - 1);
        return RTC_EINVAL;
    }
    pthread_mutex_lock(&node_lock);
    int rc = RTC_OK;
    if (the_node && !same_params(&the_node->p, p)) {
        rtc_log(lg, RTC_LOG_ERROR, "%s: this process is node %s of session %s already: one "
                "node, one session per process", who, the_node->p.node, the_node->p.session);
        rc = RTC_EINVAL;
    } else if (the_node) {
        the_node->refs++;
    } else {
        rc = make_node(p, lg, who, &the_node);
    }
    if (rc == RTC_OK)
        *out = the_node;
    pthread_mutex_unlock(&node_lock);
    return rc;
}

rtc__dds_node *rtc__dds_node_ref(void)
{
    pthread_mutex_lock(&node_lock);
    rtc__dds_node *n = the_node;
    if (n)
        n->refs++;
    pthread_mutex_unlock(&node_lock);
    return n;
}

void rtc__dds_node_put(rtc__dds_node *n)
{
    if (!n)
        return;
    pthread_mutex_lock(&node_lock);
    if (--n->refs == 0) {
        free_node(n);
        if (the_node == n)
            the_node = NULL;
    }
    pthread_mutex_unlock(&node_lock);
}

int rtc__dds_find_hello(rtc__dds_node *n, const char *peer, rtc_node_Hello *out)
{
    uint64_t key = rtc__dds_name_key(peer);
    enum { MAX_NODES = 64 };
    rtc_node_Hello *buf = calloc(MAX_NODES, sizeof *buf);
    void *ptr[MAX_NODES];
    dds_sample_info_t si[MAX_NODES];
    if (!buf)
        return RTC_ENOMEM;
    for (int i = 0; i < MAX_NODES; i++)
        ptr[i] = &buf[i];
    int found = 0;
    /* read (not take): every bridge of the process looks at the same hellos */
    dds_return_t got = dds_read(n->hello_rd, ptr, si, MAX_NODES, MAX_NODES);
    for (dds_return_t i = 0; i < got; i++) {
        if (si[i].valid_data && buf[i].node_key == key &&
            !strncmp(buf[i].node, peer, sizeof buf[i].node)) {
            *out = buf[i];
            found = 1;
        }
    }
    free(buf);
    return got < 0 ? (int)got : found;
}
