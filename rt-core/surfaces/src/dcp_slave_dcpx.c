/*
 * dcp_slave_dcpx.c — the slave description (.dcpx, DCP 1.0 §5) of the slave rtcosim is
 * (dcp_slave_priv.h): what a DCP master, rtcosim's own (a system component of type
 * application/x-dcp-slave) or another tool's, needs to drive it. It says exactly what the
 * machine accepts: the op modes offered, one fixed time resolution (the tick), UDP_IPv4 on
 * the one bound port for control and data, log on notification only, no reset, no
 * parameters, every variable Float64.
 */
#include "dcp_slave_priv.h"

#include <inttypes.h>
#include <string.h>

/* @p s as XML attribute text. */
static void put_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

static void put_var(FILE *f, const rtc__dcp_var *v, bool input)
{
    fputs("    <Variable name=\"", f);
    put_text(f, v->name);
    fprintf(f, "\" valueReference=\"%" PRIu64 "\">\n      <%s><Float64", v->vr,
            input ? "Input" : "Output");
    if (input)
        fprintf(f, " start=\"%.17g\"", v->start);
    if (v->has_min)
        fprintf(f, " min=\"%.17g\"", v->min);
    if (v->has_max)
        fprintf(f, " max=\"%.17g\"", v->max);
    if (v->unit && *v->unit) {
        fputs(" unit=\"", f);
        put_text(f, v->unit);
        fputc('"', f);
    }
    fprintf(f, "/></%s>\n    </Variable>\n", input ? "Input" : "Output");
}

static void put_uuid(FILE *f, const uint8_t u[16])
{
    for (int i = 0; i < 16; i++)
        fprintf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
}

void rtc__dcp_write_dcpx(const rtc__dcp_config *cfg, const char *name, FILE *f)
{
    char host[16];
    uint32_t ip = cfg->ip;
    snprintf(host, sizeof host, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 255, ip >> 8 & 255,
             ip & 255);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<dcpSlaveDescription "
          "dcpMajorVersion=\"1\" dcpMinorVersion=\"0\" dcpSlaveName=\"", f);
    put_text(f, name);
    fputs("\"\n    uuid=\"", f);
    put_uuid(f, cfg->uuid);
    fputs("\" generationTool=\"rtcosim dcp-slave\">\n  <OpMode>\n", f);
    if (cfg->srt)
        fputs("    <SoftRealTime/>\n", f);
    if (cfg->nrt)
        fprintf(f, "    <NonRealTime defaultSteps=\"1\" fixedSteps=\"false\" minSteps=\"1\" "
                "maxSteps=\"%u\"/>\n", (unsigned)RTC__DCP_MAX_STEPS);
    fprintf(f, "  </OpMode>\n  <TimeRes>\n    <Resolution numerator=\"%u\" denominator=\"%u\" "
            "fixed=\"true\" recommended=\"true\"/>\n  </TimeRes>\n", cfg->res_num,
            cfg->res_den);
    if (cfg->heartbeat_ns > 0) /* in ms: exact for any whole number of ms */
        fprintf(f, "  <Heartbeat>\n    <MaximumPeriodicInterval numerator=\"%lld\" "
                "denominator=\"1000\"/>\n  </Heartbeat>\n",
                (long long)((cfg->heartbeat_ns + 999999) / 1000000));
    fprintf(f, "  <TransportProtocols>\n    <UDP_IPv4 maxPduSize=\"%zu\">\n      <Control "
            "host=\"%s\" port=\"%u\"/>\n      <DAT_input_output host=\"%s\">\n        "
            "<AvailablePort port=\"%u\"/>\n      </DAT_input_output>\n    </UDP_IPv4>\n  "
            "</TransportProtocols>\n", cfg->max_pdu, host, cfg->port, host, cfg->port);
    fprintf(f, "  <CapabilityFlags canAcceptConfigPdus=\"true\" canHandleReset=\"false\" "
            "canHandleVariableSteps=\"true\"\n      canMonitorHeartbeat=\"%s\" "
            "canProvideLogOnRequest=\"false\" canProvideLogOnNotification=\"true\"/>\n",
            cfg->heartbeat_ns > 0 ? "true" : "false");
    fputs("  <Variables>\n", f);
    for (size_t i = 0; i < cfg->n_in; i++)
        put_var(f, &cfg->in[i], true);
    for (size_t i = 0; i < cfg->n_out; i++)
        put_var(f, &cfg->out[i], false);
    fputs("  </Variables>\n  <Log>\n    <Categories>\n", f);
    for (int k = 1; k <= RTC__DCP_N_CATEGORIES; k++)
        fprintf(f, "      <Category id=\"%d\" name=\"%s\"/>\n", k, rtc__dcp_category_names[k]);
    fputs("    </Categories>\n    <Templates>\n", f);
    for (size_t i = 0; i < rtc__dcp_n_templates; i++) {
        const rtc__dcp_template *t = &rtc__dcp_templates[i];
        fprintf(f, "      <Template id=\"%u\" category=\"%u\" level=\"%u\" msg=\"", t->id,
                t->category, t->level);
        put_text(f, t->msg);
        fputs("\"/>\n", f);
    }
    fputs("    </Templates>\n  </Log>\n</dcpSlaveDescription>\n", f);
}
