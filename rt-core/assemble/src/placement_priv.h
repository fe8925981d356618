/*
 * Internals of rtcosim/placement.h: the resolved partition (placement.c) that the node's
 * system is built from (placement_node.c).
 */
#ifndef RTC_PLACEMENT_PRIV_H
#define RTC_PLACEMENT_PRIV_H

#include "rtcosim/placement.h"
#include "rtcosim/ssp.h"

/* What a crossing connection's bridge signal is: the destination's type and unit, so the
 * sender's link into the bridge is the original connection with its one conversion. */
typedef struct cross_sig {
    size_t conn;       /* index in ssp->connections */
    size_t from, to;   /* node indices */
    char *name;        /* the signal: the destination "component.connector" */
    rtc_type type;
    char *unit;        /* or NULL */
    char *enumeration; /* or NULL */
} cross_sig;

struct rtc_partition {
    rtc_ssp *ssp;            /* the whole description */
    size_t *node_of;         /* per component: node index */
    char **nodes;
    size_t n_nodes;
    rtc_crossing *cross;     /* public view of sig[] */
    cross_sig *sig;
    size_t n_cross;
    char **columns;          /* the one-process run's recording selection, in order */
    size_t *column_node;     /* the node each comes from */
    size_t n_columns;
    uint64_t run_id;
    int64_t tick_ns;
    size_t n_units;          /* of the whole system */
    long self;               /* index of po->node, -1: none */
    rtc_placement_opts po;   /* strings copied below */
    char *session;
    unsigned errors;
    const rtc_logger *lg;
    char list[256];          /* node_list()'s text */
};

/* placement_node.c: the SSP hook that keeps node p->self's part and adds its bridges */
int rtc__placement_ssp_hook(void *user, rtc_ssp *ssp);
/* The bridge component's name for node @p peer ("bridge@<peer>"). */
void rtc__placement_bridge_name(const char *peer, char *buf, size_t cap);

#endif
