/*
 * dcp_master_script.c — the DCP master's setup script: the PDUs that take a slave from
 * ALIVE to RUNNING, in the order of the spec's life cycle (and of DCPLib's example
 * master): STC_register, CFG_scope / input / source network information for the inputs,
 * CFG_scope / output / steps / target network information for the outputs, CFG_time_res,
 * STC_prepare, STC_configure, [STC_initialize, STC_send_outputs], STC_run. Each step says
 * which state the slave must reach before the next one is sent (dcp_master_link.c walks
 * it).
 */
#include "rtcosim/status.h"

#include "dcp_master_priv.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static void add(dm *d, rtc_dcp_pdu p, uint8_t wait_for)
{
    d->script[d->n_script++] = (dm_step){.pdu = p, .wait_for = wait_for};
}

int rtc__dm_script(dm *d)
{
    d->script = calloc(d->n_in + d->n_out + 16, sizeof *d->script);
    if (!d->script)
        return RTC_ENOMEM;
    rtc_dcp_pdu reg = {.type_id = RTC_DCP_STC_REGISTER, .op_mode = d->op_mode,
                       .major_version = RTC_DCP_VERSION_MAJOR,
                       .minor_version = RTC_DCP_VERSION_MINOR};
    memcpy(reg.slave_uuid, d->dcpx->uuid, 16);
    add(d, reg, RTC_DCP_STATE_CONFIGURATION);
    if (d->n_in) {
        add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_SCOPE, .id = DM_DATA_IN}, WAIT_NONE);
        for (size_t i = 0; i < d->n_in; i++)
            add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_INPUT, .id = DM_DATA_IN,
                                 .pos = (uint16_t)i, .vr = d->in[i].var->vr,
                                 .source_data_type = d->in[i].var->type},
                WAIT_NONE);
        add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_SOURCE_NETWORK_INFORMATION, .id = DM_DATA_IN,
                             .transport_protocol = RTC_DCP_UDP_IPV4,
                             .port = ntohs(d->slave_dat.sin_port),
                             .ip_address = ntohl(d->slave_dat.sin_addr.s_addr)},
            WAIT_NONE);
    }
    if (d->n_out) {
        add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_SCOPE, .id = DM_DATA_OUT}, WAIT_NONE);
        for (size_t i = 0; i < d->n_out; i++)
            add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_OUTPUT, .id = DM_DATA_OUT,
                                 .pos = (uint16_t)i, .vr = d->out[i].var->vr},
                WAIT_NONE);
        if (d->op_mode != RTC_DCP_OP_NRT) /* NRT: the steps come with STC_do_step */
            add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_STEPS, .id = DM_DATA_OUT,
                                 .steps = d->steps},
                WAIT_NONE);
        /* port and address are the socket's: set when it is bound (rtc__dm_reset) */
        add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_TARGET_NETWORK_INFORMATION,
                             .id = DM_DATA_OUT, .transport_protocol = RTC_DCP_UDP_IPV4},
            WAIT_NONE);
    }
    add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_CFG_TIME_RES, .numerator = d->res_num,
                         .denominator = d->res_den},
        WAIT_NONE);
    add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_PREPARE}, RTC_DCP_STATE_PREPARED);
    add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_CONFIGURE}, RTC_DCP_STATE_CONFIGURED);
    if (d->initialize) {
        add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_INITIALIZE}, RTC_DCP_STATE_INITIALIZED);
        add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_SEND_OUTPUTS}, RTC_DCP_STATE_CONFIGURED);
    }
    add(d, (rtc_dcp_pdu){.type_id = RTC_DCP_STC_RUN}, WAIT_RUN);
    return RTC_OK;
}
