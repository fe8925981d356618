/*
 * A DDS program written against the documented interface of a distributed rtcosim run
 * only (README "Distributed runs": the IDL io-drivers/idl/rtcosim_node.idl, the topic
 * names, the partitions and the loopback configuration): it links Cyclone DDS and the
 * types idlc made from the IDL, not rtcosim. It listens to what node FROM sends node TO
 * in session SESSION and prints one line per sample:
 *
 *     KIND ROUND SIM_TIME_NS COUNT V0 V1 ...      (values as %.17g)
 *
 * after a first line "ready". It ends after COUNT tick samples, at the sender's end mark,
 * or after TIMEOUT_S seconds; exit status 0 when it received a tick sample, 1 otherwise,
 * 2 on a usage or DDS error. The Cyclone configuration comes from CYCLONEDDS_URI (the
 * README gives the one the engine uses on loopback, with the session's Discovery Tag).
 *
 * With --inject it is the stranger instead: it writes COUNT samples of another run (run id
 * 1, one a millisecond, from its own process) on the same topic, which the node must count
 * as unexpected and ignore; SESSION is then SESSION/RUN_ID, the run's partition.
 *
 * usage: node_subscriber [--inject] DOMAIN SESSION FROM TO COUNT TIMEOUT_S
 */
#include "rtcosim_node.h"

#include <dds/dds.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, dds_return_t rc)
{
    fprintf(stderr, "node_subscriber: %s: %s\n", what, dds_strretcode(rc));
    return 2;
}

/* Write @p count samples of run id 1 on topic @p tp, one a millisecond, once a reader
 * matched (within @p until). */
static int inject(dds_entity_t pp, dds_entity_t tp, const char *part, long count,
                  dds_time_t until)
{
    dds_qos_t *q = dds_create_qos();
    dds_qset_partition1(q, part);
    dds_entity_t pub = dds_create_publisher(pp, q, NULL);
    dds_delete_qos(q);
    q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
    dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_SECS(1)); /* the readers ask 1 s */
    dds_entity_t wr = pub > 0 ? dds_create_writer(pub, tp, q, NULL) : -1;
    dds_delete_qos(q);
    if (wr < 0)
        return fail("writer", wr);
    dds_publication_matched_status_t m = {0};
    while (dds_time() < until && (dds_get_publication_matched_status(wr, &m) != 0 ||
                                  m.current_count == 0))
        dds_sleepfor(DDS_MSECS(1));
    printf("ready\n");
    fflush(stdout);
    rtc_node_Sample s;
    memset(&s, 0, sizeof s);
    s.run_id = 1;
    s.kind = rtc_node_KIND_TICK;
    s.count = 1;
    for (long i = 0; i < count && dds_time() < until; i++) {
        s.round = (uint32_t)i;
        dds_write(wr, &s);
        dds_sleepfor(DDS_MSECS(1));
    }
    return 0;
}

/* Print every sample of topic @p tp in partition @p part until @p want tick samples, the
 * sender's end mark or @p until; 0 when a tick sample came, 1 when none, 2 on DDS errors. */
static int listen_to(dds_entity_t pp, dds_entity_t tp, const char *part, long want,
                     dds_time_t until)
{
    dds_qos_t *q = dds_create_qos();
    dds_qset_partition1(q, part);
    dds_entity_t sub = dds_create_subscriber(pp, q, NULL);
    dds_delete_qos(q);
    q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
    dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
    dds_entity_t rd = sub > 0 ? dds_create_reader(sub, tp, q, NULL) : -1;
    dds_delete_qos(q);
    if (rd < 0)
        return fail("reader", sub < 0 ? sub : rd);
    dds_entity_t ws = dds_create_waitset(pp);
    dds_entity_t cond = dds_create_readcondition(rd, DDS_ANY_STATE);
    dds_waitset_attach(ws, cond, 0);
    printf("ready\n");
    fflush(stdout);
    long ticks = 0;
    int ended = 0;
    while (ticks < want && !ended && dds_time() < until) {
        dds_waitset_wait_until(ws, NULL, 0, until);
        void *buf[16] = {NULL};
        dds_sample_info_t si[16];
        dds_return_t n = dds_take(rd, buf, si, 16, 16);
        for (dds_return_t i = 0; i < n; i++) {
            const rtc_node_Sample *s = buf[i];
            if (!si[i].valid_data)
                continue;
            printf("%u %u %lld %u", (unsigned)s->kind, (unsigned)s->round,
                   (long long)s->sim_time_ns, (unsigned)s->count);
            for (unsigned k = 0; k < s->count && k < rtc_node_VALUES_CAP; k++)
                printf(" %.17g", s->values[k]);
            printf("\n");
            ticks += s->kind == rtc_node_KIND_TICK;
            ended |= s->kind == rtc_node_KIND_END;
        }
        if (n > 0)
            dds_return_loan(rd, buf, n);
    }
    fflush(stdout);
    return ticks > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    bool injector = argc > 1 && !strcmp(argv[1], "--inject");
    argv += injector;
    argc -= injector;
    if (argc != 7) {
        fprintf(stderr, "usage: node_subscriber [--inject] DOMAIN SESSION FROM TO COUNT "
                "TIMEOUT_S\n");
        return 2;
    }
    dds_domainid_t domain = (dds_domainid_t)atoi(argv[1]);
    long want = atol(argv[5]);
    dds_time_t until = dds_time() + (dds_duration_t)(atof(argv[6]) * 1e9);
    char topic[256], part[256];
    snprintf(topic, sizeof topic, "rtcosim/values/%s/%s", argv[3], argv[4]);
    /* SESSION: any run id of the session (a reader's partition may be a pattern); a
     * writer's must be the run's own, SESSION/RUN_ID */
    snprintf(part, sizeof part, strchr(argv[2], '/') ? "rtc/%s" : "rtc/%s/*", argv[2]);

    dds_entity_t pp = dds_create_participant(domain, NULL, NULL);
    if (pp < 0)
        return fail("participant", pp);
    dds_entity_t tp = dds_create_topic(pp, &rtc_node_Sample_desc, topic, NULL, NULL);
    int rc = tp < 0     ? fail("topic", tp)
             : injector ? inject(pp, tp, part, want, until)
                        : listen_to(pp, tp, part, want, until);
    dds_delete(pp);
    return rc;
}
