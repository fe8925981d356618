/*
 * The partition of a distributed run as `rtcosim info` and `rtcosim check` show it: the
 * nodes with their components, and every connection that crosses nodes with its
 * estimator and delay (which act on the sending node's side in a lock-step run) and the
 * value a lock-step tick reads (rtcosim/placement.h).
 */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/placement.h"
#include "rtcosim/time.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void rtc_cli_print_partition(const rtc_partition *p)
{
    printf("Nodes (%zu, run id %016" PRIx64 "):\n", rtc_partition_node_count(p),
           rtc_partition_run_id(p));
    for (size_t n = 0; n < rtc_partition_node_count(p); n++) {
        const char *node = rtc_partition_node(p, n);
        printf("  %-12s", node);
        for (size_t i = 0; i < rtc_partition_component_count(p); i++)
            if (!strcmp(rtc_partition_component_node(p, i), node))
                printf(" %s", rtc_partition_component(p, i));
        printf("\n");
    }
    size_t nx = rtc_partition_crossing_count(p);
    printf("Connections between nodes (%zu; topic rtcosim/values/FROM/TO, value index):\n", nx);
    for (size_t i = 0; i < nx; i++) {
        const rtc_crossing *x = rtc_partition_crossing(p, i);
        char d[32] = "none";
        if (x->delay_ns)
            rtc_time_format_s(x->delay_ns, d, sizeof d);
        printf("  %s -> %s  %s->%s [%u]  estimator %s%s%s  delay %s%s  lock-step: %s\n",
               x->src, x->dst, x->from_node, x->to_node, x->index,
               x->estimator ? x->estimator : "none", x->params ? " " : "",
               x->params ? x->params : "", d, x->delay_ns ? " s" : "",
               x->ahead ? "this tick's value (the source steps first)"
                        : "the value at the tick's start");
    }
}

int rtc_cli_show_partition(const char *path, const rtc_system_options *so,
                           const rtc_placement_opts *po)
{
    rtc_placement_opts whole = *po;
    whole.node = NULL;
    whole.lockstep = true;
    rtc_partition *p = NULL;
    int rc = rtc_partition_new(path, so, &whole, &rtc_cli_log, &p);
    if (rc == 0 && rtc_partition_node_count(p))
        rtc_cli_print_partition(p);
    rtc_partition_free(p);
    return rc;
}
