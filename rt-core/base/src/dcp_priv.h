/*
 * dcp_priv.h — what the two files of the DCP codec share (dcp_pdu.c: the PDU table;
 * dcp_rules.c: the state table and the checks built on it).
 */
#ifndef RTC_DCP_PRIV_H
#define RTC_DCP_PRIV_H

#include <stdint.h>

#include "rtcosim/dcp.h"

/** Positions in RTC_DCP_TYPE_MAP: RTC_DCP_IDX_STC_REGISTER = 0, ... */
enum {
#define RTC_DCP_X(n, v) RTC_DCP_IDX_##n,
    RTC_DCP_TYPE_MAP(RTC_DCP_X)
#undef RTC_DCP_X
};

/** Position of @p type_id in RTC_DCP_TYPE_MAP (0 .. RTC_DCP_N_TYPES - 1), or -1 when it is
 *  not a DCP 1.0 type. */
int rtc__dcp_index(uint8_t type_id);

#endif
