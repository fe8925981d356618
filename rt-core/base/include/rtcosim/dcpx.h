/*
 * rtcosim/dcpx.h — a DCP slave description (.dcpx, DCP 1.0 §5) read into plain structs.
 *
 * Why in base: the DCP-master driver (io-drivers) reads the .dcpx of the slave it drives,
 * `rtcosim info` / `check` (app) show it, and the DCP slave surface may check what it
 * writes; base is the room all of them reach, and it holds the XML helpers.
 *
 * What is read: the root attributes (version, name, uuid), OpMode (HardRealTime,
 * SoftRealTime, NonRealTime with its step attributes), TimeRes (Resolution and
 * ResolutionRange), Heartbeat, TransportProtocols (UDP_IPv4 with Control and the DAT ports
 * in full; TCP_IPv4, CAN, USB2 and Bluetooth as present or not), CapabilityFlags, Variables
 * (name, valueReference, causality, type with start/min/max/unit, Output steps, Dimensions,
 * maxConsecMissedPdus) and the Log templates. UnitDefinitions, TypeDefinitions and
 * VendorAnnotations are accepted and not interpreted (a declaredType is kept by name).
 *
 * What is refused (one line "FILE:LINE: <Element> <attribute>: reason" each; every problem
 * of the file is reported before the read fails): malformed XML, a root that is not
 * dcpSlaveDescription, a DCP version other than 1.0, a missing or malformed required
 * attribute, an OpMode with no mode, a fixed Resolution beside another resolution, a zero
 * numerator or denominator, a port range whose from exceeds its to, a Variable without
 * exactly one of Input/Output/Parameter/StructuralParameter or without a type, an Input
 * without start, a duplicate name or valueReference, a start value outside its type. What
 * the engine cannot do with a valid description (another transport, an op mode a run does
 * not offer, string variables as signals) is the user's judgement: the driver refuses it.
 */
#ifndef RTCOSIM_DCPX_H
#define RTCOSIM_DCPX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/rtsafe.h"

/** What a variable is to the slave. */
typedef enum rtc_dcpx_causality {
    RTC_DCPX_INPUT = 0,
    RTC_DCPX_OUTPUT,
    RTC_DCPX_PARAMETER,
    RTC_DCPX_STRUCTURAL_PARAMETER,
} rtc_dcpx_causality;

/** One Variable. Numbers are kept as doubles (a uint64/int64 start beyond 2^53 rounds). */
typedef struct rtc_dcpx_var {
    char *name;
    uint64_t vr;               /**< valueReference */
    uint8_t causality;         /**< rtc_dcpx_causality */
    uint8_t type;              /**< rtc_dcp_data_type (rtcosim/dcp.h) */
    char *variability;         /**< as written, NULL: the default (continuous) */
    char *declared_type;       /**< declaredType, NULL when absent */
    char *unit;                /**< float types: unit, NULL when absent */
    bool has_start, has_min, has_max;
    double start;              /**< the first start value (numeric types) */
    double min, max;
    size_t n_elems;            /**< values of the variable: the product of its constant
                                    Dimensions (1 without; 0 when one is a linkedVR) */
    uint32_t default_steps;    /**< Output: defaultSteps [1] */
    bool fixed_steps;          /**< Output: fixedSteps [true] */
    uint32_t min_steps, max_steps; /**< Output, when not fixed (0: absent) */
    bool initialization;       /**< Output: initialization [false] */
    uint32_t max_consec_missed; /**< maxConsecMissedPdus (0: absent) */
    unsigned line;             /**< line of the Variable element */
} rtc_dcpx_var;

/** One entry of TimeRes: a Resolution, or a ResolutionRange (range true). */
typedef struct rtc_dcpx_res {
    bool range;
    uint32_t numerator;        /**< Resolution: numerator [1]; range: numeratorFrom */
    uint32_t numerator_to;     /**< range: numeratorTo */
    uint32_t denominator;      /**< [1000] */
    bool fixed;                /**< Resolution: fixed [true] */
    bool recommended;          /**< Resolution: recommended [false] */
} rtc_dcpx_res;

/** A port or a range of ports a slave offers for data (AvailablePort / ...Range). */
typedef struct rtc_dcpx_ports {
    uint16_t from, to;         /**< from == to for one AvailablePort */
} rtc_dcpx_ports;

/** A Log Template. */
typedef struct rtc_dcpx_template {
    uint8_t id, category, level;
    char *msg;
} rtc_dcpx_template;

/** A slave description. Every string and array is owned by it (rtc_dcpx_free). */
typedef struct rtc_dcpx {
    char *path;                /**< the file read */
    unsigned major, minor;     /**< dcpMajorVersion, dcpMinorVersion (1, 0) */
    char *slave_name;          /**< dcpSlaveName */
    char *uuid_text;           /**< uuid as written */
    uint8_t uuid[16];
    char *description, *generation_tool; /**< NULL when absent */
    /* OpMode */
    bool hrt, srt, nrt;
    uint32_t nrt_default_steps; /**< NonRealTime defaultSteps [1] */
    bool nrt_fixed_steps;       /**< NonRealTime fixedSteps [true] */
    uint32_t nrt_min_steps, nrt_max_steps; /**< 0: absent */
    unsigned op_mode_line;
    /* TimeRes */
    rtc_dcpx_res *res;
    size_t n_res;
    unsigned time_res_line;
    /* Heartbeat */
    bool heartbeat;
    uint32_t hb_numerator, hb_denominator; /**< MaximumPeriodicInterval [1/1] */
    /* TransportProtocols */
    bool udp;                  /**< UDP_IPv4 present */
    uint32_t udp_max_pdu;      /**< maxPduSize [65507] */
    char *control_host;        /**< Control host, NULL when absent */
    uint16_t control_port;     /**< Control port, 0 when absent */
    char *dat_host;            /**< DAT_input_output host, NULL when absent */
    rtc_dcpx_ports *dat_ports; /**< DAT_input_output ports */
    size_t n_dat_ports;
    char *param_host;          /**< DAT_parameter host, NULL when absent */
    rtc_dcpx_ports *param_ports;
    size_t n_param_ports;
    bool tcp, can, usb, bluetooth; /**< the other transports, present or not */
    unsigned transport_line, udp_line;
    /* CapabilityFlags */
    bool can_accept_config_pdus, can_handle_reset, can_handle_variable_steps,
        can_monitor_heartbeat, can_provide_log_on_request, can_provide_log_on_notification;
    /* Variables */
    rtc_dcpx_var *vars;
    size_t n_vars;
    /* Log */
    rtc_dcpx_template *templates;
    size_t n_templates;
} rtc_dcpx;

/**
 * Read the slave description @p path. Problems are logged through @p lg (may be NULL) as
 * the file comment says, all of them before the read fails.
 * Returns RTC_OK and *@p out (free with rtc_dcpx_free); -errno when the file cannot be
 * opened (e.g. -ENOENT), RTC_EIO (not a regular file), RTC_EPARSE (malformed or refused:
 * logged), RTC_ENOMEM. RT-safe: no. Thread: any.
 */
int rtc_dcpx_read(const char *path, const rtc_logger *lg, rtc_dcpx **out);

/** Free a description; NULL is a no-op. RT-safe: no. */
void rtc_dcpx_free(rtc_dcpx *d);

/** The variable named @p name, or NULL. RT-safe: no (linear search). */
const rtc_dcpx_var *rtc_dcpx_find(const rtc_dcpx *d, const char *name);

/** The Log template with id @p id, or NULL. RT-safe: no. */
const rtc_dcpx_template *rtc_dcpx_template_find(const rtc_dcpx *d, uint8_t id);

/** "Input", "Output", "Parameter", "StructuralParameter". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_dcpx_causality_name(int causality);

#endif
