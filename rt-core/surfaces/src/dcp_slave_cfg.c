/*
 * dcp_slave_cfg.c — the configuration a DCP master gives the slave (dcp_slave_priv.h): the
 * CFG requests in CONFIGURATION, and at STC_prepare the checks that it is complete, in
 * the spec's order (gaps in positions, network information, steps, scope, PDU size), and
 * the layout of each data id's payload.
 *
 * Everything is bounded by what rtc__dcp_core_init() sized: one slot per input (a source
 * per input: configuring it again moves it), RTC__DCP_MAX_IDS data ids, n_out x
 * RTC__DCP_MAX_IDS output slots, RTC__DCP_MAX_TARGETS targets per data id; a request
 * beyond them is refused, never a reason to allocate.
 */
#include "dcp_slave_priv.h"

#include <string.h>

void rtc__dcp_clear_config(rtc__dcp_core *c)
{
    memset(c->ids, 0, sizeof c->ids);
    memset(c->in_slot, 0, c->cfg->n_in * sizeof *c->in_slot);
    c->n_out_slot = 0;
    for (size_t i = 0; i <= RTC__DCP_N_CATEGORIES; i++)
        c->log_level[i] = -1;
}

/* The record of data id @p id, made when @p make (NULL: unknown, or no room). */
rtc__dcp_id *rtc__dcp_find_id(rtc__dcp_core *c, uint16_t id, bool make)
{
    rtc__dcp_id *free_one = NULL;
    for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++) {
        if (c->ids[i].used && c->ids[i].id == id)
            return &c->ids[i];
        if (!c->ids[i].used && !free_one)
            free_one = &c->ids[i];
    }
    if (!make || !free_one)
        return NULL;
    *free_one = (rtc__dcp_id){.used = true, .id = id};
    return free_one;
}

static long var_of(const rtc__dcp_var *v, size_t n, uint64_t vr)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].vr == vr)
            return (long)i;
    return -1;
}

static uint16_t cfg_input(rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    long v = var_of(c->cfg->in, c->cfg->n_in, p->vr);
    if (v < 0)
        return RTC_DCP_E_INVALID_VALUE_REFERENCE;
    if (!rtc_dcp_type_numeric(p->source_data_type))
        return RTC_DCP_E_INVALID_SOURCE_DATA_TYPE;
    if (!rtc__dcp_find_id(c, p->id, true))
        return RTC_DCP_E_PROTOCOL_ERROR_GENERIC; /* more data ids than the slave keeps */
    /* one source per input: configuring it again moves it */
    c->in_slot[v] = (rtc__dcp_in_slot){.set = true, .id = p->id, .pos = p->pos,
                                       .type = p->source_data_type};
    return RTC_DCP_E_NONE;
}

static uint16_t cfg_output(rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    long v = var_of(c->cfg->out, c->cfg->n_out, p->vr);
    if (v < 0)
        return RTC_DCP_E_INVALID_VALUE_REFERENCE;
    if (!rtc__dcp_find_id(c, p->id, true))
        return RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
    size_t i = 0;
    while (i < c->n_out_slot && (c->out_slot[i].id != p->id || c->out_slot[i].pos != p->pos))
        i++;
    if (i == c->out_cap)
        return RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
    c->out_slot[i] = (rtc__dcp_out_slot){.id = p->id, .pos = p->pos, .var = (size_t)v};
    if (i == c->n_out_slot)
        c->n_out_slot++;
    return RTC_DCP_E_NONE;
}

/* UDP_IPv4 only; a known other transport is unsupported, an unknown one invalid. */
static uint16_t check_transport(uint8_t t)
{
    if (t == RTC_DCP_UDP_IPV4)
        return RTC_DCP_E_NONE;
    return t <= RTC_DCP_TCP_IPV4 ? RTC_DCP_E_NOT_SUPPORTED_TRANSPORT_PROTOCOL
                                 : RTC_DCP_E_INVALID_TRANSPORT_PROTOCOL;
}

static uint16_t cfg_network(rtc__dcp_core *c, const rtc_dcp_pdu *p, bool source)
{
    uint16_t e = check_transport(p->transport_protocol);
    if (e != RTC_DCP_E_NONE)
        return e;
    if (source ? p->port != c->cfg->port ||
                     (p->ip_address && c->cfg->ip && p->ip_address != c->cfg->ip)
               : !p->port || !p->ip_address)
        return RTC_DCP_E_INVALID_NETWORK_INFORMATION; /* the slave listens on one port */
    rtc__dcp_id *d = rtc__dcp_find_id(c, p->id, true);
    if (!d)
        return RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
    if (source) {
        d->source = true;
        return RTC_DCP_E_NONE;
    }
    for (size_t i = 0; i < d->n_tgt; i++)
        if (d->tgt_ip[i] == p->ip_address && d->tgt_port[i] == p->port)
            return RTC_DCP_E_NONE;
    if (d->n_tgt == RTC__DCP_MAX_TARGETS)
        return RTC_DCP_E_INVALID_NETWORK_INFORMATION;
    d->tgt_ip[d->n_tgt] = p->ip_address;
    d->tgt_port[d->n_tgt++] = p->port;
    return RTC_DCP_E_NONE;
}

static uint16_t cfg_logging(rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    if (p->log_category > RTC__DCP_N_CATEGORIES)
        return RTC_DCP_E_INVALID_LOG_CATEGORY;
    if (p->log_level > 4)
        return RTC_DCP_E_INVALID_LOG_LEVEL;
    if (p->log_mode > 2)
        return RTC_DCP_E_INVALID_LOG_MODE;
    if (p->log_mode == 1)
        return RTC_DCP_E_NOT_SUPPORTED_LOG_ON_REQUEST;
    for (int k = 1; k <= RTC__DCP_N_CATEGORIES; k++)
        if (p->log_category == 0 || p->log_category == k)
            c->log_level[k] = p->log_mode == 2 ? (int8_t)p->log_level : -1;
    return RTC_DCP_E_NONE;
}

uint16_t rtc__dcp_on_cfg(rtc__dcp_core *c, const rtc_dcp_pdu *p)
{
    rtc__dcp_id *d;
    switch (p->type_id) {
    case RTC_DCP_CFG_TIME_RES: /* fixed: the tick (num/den s, compared exactly) */
        return p->denominator && (uint64_t)p->numerator * c->cfg->res_den ==
                                     (uint64_t)c->cfg->res_num * p->denominator
                   ? RTC_DCP_E_NONE : RTC_DCP_E_INVALID_TIME_RESOLUTION;
    case RTC_DCP_CFG_STEPS:
        if (c->op_mode == RTC_DCP_OP_NRT)
            return RTC_DCP_E_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE;
        if (p->steps < 1 || p->steps > RTC__DCP_MAX_STEPS)
            return RTC_DCP_E_INVALID_STEPS;
        if (!(d = rtc__dcp_find_id(c, p->id, true)))
            return RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
        d->steps = p->steps;
        return RTC_DCP_E_NONE;
    case RTC_DCP_CFG_SCOPE:
        if (p->scope > RTC_DCP_SCOPE_RUN)
            return RTC_DCP_E_INVALID_SCOPE;
        if (!(d = rtc__dcp_find_id(c, p->id, true)))
            return RTC_DCP_E_PROTOCOL_ERROR_GENERIC;
        d->scope_set = true;
        d->scope = p->scope;
        return RTC_DCP_E_NONE;
    case RTC_DCP_CFG_INPUT: return cfg_input(c, p);
    case RTC_DCP_CFG_OUTPUT: return cfg_output(c, p);
    case RTC_DCP_CFG_CLEAR: rtc__dcp_clear_config(c); return RTC_DCP_E_NONE;
    case RTC_DCP_CFG_TARGET_NETWORK_INFORMATION: return cfg_network(c, p, false);
    case RTC_DCP_CFG_SOURCE_NETWORK_INFORMATION: return cfg_network(c, p, true);
    case RTC_DCP_CFG_LOGGING: return cfg_logging(c, p);
    case RTC_DCP_CFG_PARAMETER:
    case RTC_DCP_CFG_TUNABLE_PARAMETER: return RTC_DCP_E_INVALID_VALUE_REFERENCE; /* none */
    default: return RTC_DCP_E_NOT_SUPPORTED_PDU; /* CFG_param_network_information */
    }
}

/* ---- STC_prepare: the configuration complete, in the spec's order of checks ---- */

/* Slot @p i of the inputs (@p out false) or outputs: its data id and position, when it
 * is configured. */
static bool slot_at(const rtc__dcp_core *c, bool out, size_t i, uint16_t *id, uint16_t *pos)
{
    if (!out && !c->in_slot[i].set)
        return false;
    *id = out ? c->out_slot[i].id : c->in_slot[i].id;
    *pos = out ? c->out_slot[i].pos : c->in_slot[i].pos;
    return true;
}

/* Positions of data id @p d: inputs (@p out false) or outputs, as a count and whether they
 * are 0 .. n-1 without gaps, each once (every one below the count and none twice). */
static bool positions(const rtc__dcp_core *c, const rtc__dcp_id *d, bool out, size_t *n)
{
    size_t total = out ? c->n_out_slot : c->cfg->n_in, count = 0;
    uint16_t id, pos, id2, pos2;
    for (size_t i = 0; i < total; i++)
        count += slot_at(c, out, i, &id, &pos) && id == d->id;
    *n = count;
    for (size_t i = 0; i < total; i++) {
        if (!slot_at(c, out, i, &id, &pos) || id != d->id)
            continue;
        if (pos >= count)
            return false;
        for (size_t j = i + 1; j < total; j++)
            if (slot_at(c, out, j, &id2, &pos2) && id2 == d->id && pos2 == pos)
                return false;
    }
    return true;
}

static uint16_t check_ids(rtc__dcp_core *c)
{
    static const uint16_t codes[] = {
        RTC_DCP_E_INCOMPLETE_CONFIG_GAP_INPUT_POS, RTC_DCP_E_INCOMPLETE_CONFIG_GAP_OUTPUT_POS,
        RTC_DCP_E_INCOMPLETE_CONFIG_NW_INFO_INPUT, RTC_DCP_E_INCOMPLETE_CONFIG_NW_INFO_OUTPUT,
        RTC_DCP_E_INCOMPLETE_CONFIG_STEPS, RTC_DCP_E_INCOMPLETE_CONFIG_SCOPE};
    bool bad[sizeof codes / sizeof codes[0]] = {false};
    for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++) {
        const rtc__dcp_id *d = &c->ids[i];
        size_t n_in = 0, n_out = 0;
        if (!d->used)
            continue;
        bad[0] |= !positions(c, d, false, &n_in);
        bad[1] |= !positions(c, d, true, &n_out);
        bad[2] |= n_in && !d->source;
        bad[3] |= n_out && !d->n_tgt;
        bad[4] |= n_out && c->op_mode != RTC_DCP_OP_NRT && !d->steps;
        bad[5] |= n_out && !d->scope_set;
    }
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
        if (bad[k])
            return codes[k];
    return RTC_DCP_E_NONE;
}

/* Slot indices of data id @p d in pos order into @p order from @p at; returns the count. */
static size_t order_slots(rtc__dcp_core *c, const rtc__dcp_id *d, bool out, size_t *order,
                          size_t at)
{
    size_t total = out ? c->n_out_slot : c->cfg->n_in, n = 0;
    uint16_t id, pos;
    for (size_t i = 0; i < total; i++) {
        if (slot_at(c, out, i, &id, &pos) && id == d->id) {
            order[at + pos] = i; /* positions are 0 .. n-1 (checked) */
            n++;
        }
    }
    return n;
}

/* After the checks: each data id's slots in pos order, its payload length and the PDU
 * sizes. Returns NOT_SUPPORTED_PDU_SIZE when a DAT_input_output would not fit. */
static uint16_t lay_out(rtc__dcp_core *c)
{
    size_t in_at = 0, out_at = 0;
    for (size_t i = 0; i < RTC__DCP_MAX_IDS; i++) {
        rtc__dcp_id *d = &c->ids[i];
        if (!d->used)
            continue;
        d->in_first = in_at;
        d->n_in_pos = order_slots(c, d, false, c->in_order, in_at);
        d->in_len = 0;
        for (size_t k = 0; k < d->n_in_pos; k++)
            d->in_len += rtc_dcp_type_size(c->in_slot[c->in_order[in_at + k]].type);
        in_at += d->n_in_pos;
        d->out_first = out_at;
        d->n_out_pos = order_slots(c, d, true, c->out_order, out_at);
        out_at += d->n_out_pos;
        if (5 + d->in_len > c->cfg->max_pdu || 5 + 8 * d->n_out_pos > c->cfg->max_pdu)
            return RTC_DCP_E_NOT_SUPPORTED_PDU_SIZE;
    }
    return RTC_DCP_E_NONE;
}

uint16_t rtc__dcp_prepare(rtc__dcp_core *c)
{
    uint16_t e = check_ids(c);
    return e != RTC_DCP_E_NONE ? e : lay_out(c);
}
