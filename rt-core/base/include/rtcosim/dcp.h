/*
 * rtcosim/dcp.h — the DCP 1.0 codec: every PDU of the Distributed Co-Simulation Protocol
 * (Modelica Association, DCP 1.0.0, 2019-03-04) as it travels over UDP_IPv4, the ids and
 * error codes, the slave state table and the sequence-id and receiver/sender rules.
 *
 * Why in base: both sides of DCP use it — the DCP-master driver in io-drivers (rtcosim
 * masters DCP slaves) and the DCP slave surface in rt-core/surfaces (rtcosim is a DCP
 * slave). A plug-in in io-drivers stands on base only and a surface sees nothing of
 * io-drivers, so base is the one room both can include. The codec is plain byte work: no
 * socket, no allocation, no libc beyond memcpy, so it costs base nothing.
 *
 * Wire rules [spec 3.1.11, 3.3, 4.2.1]: every multi-byte field is little-endian,
 * two's-complement integers, IEEE floats; on UDP one datagram holds exactly one PDU, with
 * no length prefix. rtc_dcp_decode() reads a datagram into an rtc_dcp_pdu whose variable
 * part (payload) points into the caller's datagram: decoding never allocates, never reads
 * outside [buf, buf + len), and refuses a length the PDU type does not have.
 * rtc_dcp_encode() writes one PDU into the caller's buffer. The byte layout of every PDU,
 * with its field offsets, is the table in dcp_pdu.c (which is the codec: both directions
 * walk it) and, for readers, rt-core/base/src/dcp_pdu.md.
 *
 * Ids and codes are the spec's numbers (uint8 / uint16 on the wire); the enums below give
 * them names. Where the spec's tables disagree with each other the choice is the one the
 * reference implementation (DCPLib) also makes, and dcp_pdu.md says so.
 */
#ifndef RTCOSIM_DCP_H
#define RTCOSIM_DCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

/** DCP version this codec speaks (STC_register major/minor, .dcpx dcpMajorVersion). */
#define RTC_DCP_VERSION_MAJOR 1
#define RTC_DCP_VERSION_MINOR 0

/** Largest UDP_IPv4 PDU (the .dcpx maxPduSize default: 65535 - 8 UDP - 20 IPv4). */
#define RTC_DCP_UDP_MAX_PDU 65507

/** Slave id 0 is the master [spec 3.3.3.2]; slaves are 1..255. */
#define RTC_DCP_MASTER_ID 0

/* X(name, id): the PDU type ids [spec 3.3.7; STC 0x01-0x1F, CFG 0x20-0x7F, INF 0x80-0xAF,
 * RSP 0xB0-0xDF, NTF 0xE0-0xEF, DAT 0xF0-0xFF]. */
#define RTC_DCP_TYPE_MAP(X)                                                                   \
    X(STC_REGISTER, 0x01)                                                                     \
    X(STC_DEREGISTER, 0x02)                                                                   \
    X(STC_PREPARE, 0x03)                                                                      \
    X(STC_CONFIGURE, 0x04)                                                                    \
    X(STC_INITIALIZE, 0x05)                                                                   \
    X(STC_RUN, 0x06)                                                                          \
    X(STC_DO_STEP, 0x07)                                                                      \
    X(STC_SEND_OUTPUTS, 0x08)                                                                 \
    X(STC_STOP, 0x09)                                                                         \
    X(STC_RESET, 0x0A)                                                                        \
    X(CFG_TIME_RES, 0x20)                                                                     \
    X(CFG_STEPS, 0x21)                                                                        \
    X(CFG_INPUT, 0x22)                                                                        \
    X(CFG_OUTPUT, 0x23)                                                                       \
    X(CFG_CLEAR, 0x24)                                                                        \
    X(CFG_TARGET_NETWORK_INFORMATION, 0x25)                                                   \
    X(CFG_SOURCE_NETWORK_INFORMATION, 0x26)                                                   \
    X(CFG_PARAMETER, 0x27)                                                                    \
    X(CFG_TUNABLE_PARAMETER, 0x28)                                                            \
    X(CFG_PARAM_NETWORK_INFORMATION, 0x29)                                                    \
    X(CFG_LOGGING, 0x2A)                                                                      \
    X(CFG_SCOPE, 0x2B)                                                                        \
    X(INF_STATE, 0x80)                                                                        \
    X(INF_ERROR, 0x81)                                                                        \
    X(INF_LOG, 0x82)                                                                          \
    X(RSP_ACK, 0xB0)                                                                          \
    X(RSP_NACK, 0xB1)                                                                         \
    X(RSP_STATE_ACK, 0xB2)                                                                    \
    X(RSP_ERROR_ACK, 0xB3)                                                                    \
    X(RSP_LOG_ACK, 0xB4)                                                                      \
    X(NTF_STATE_CHANGED, 0xE0)                                                                \
    X(NTF_LOG, 0xE1)                                                                          \
    X(DAT_INPUT_OUTPUT, 0xF0)                                                                 \
    X(DAT_PARAMETER, 0xF1)

/** PDU type ids (type_id, byte 0 of every PDU). */
typedef enum rtc_dcp_type {
#define RTC_DCP_X(n, v) RTC_DCP_##n = v,
    RTC_DCP_TYPE_MAP(RTC_DCP_X)
#undef RTC_DCP_X
} rtc_dcp_type;

/** Number of PDU types of DCP 1.0. */
#define RTC_DCP_N_TYPES 34

/** Families of PDUs, by type-id range. */
typedef enum rtc_dcp_family {
    RTC_DCP_FAMILY_NONE = 0, /**< not a DCP 1.0 type id */
    RTC_DCP_FAMILY_STC,      /**< state changes, master -> slave, acknowledged */
    RTC_DCP_FAMILY_CFG,      /**< configuration, master -> slave, acknowledged */
    RTC_DCP_FAMILY_INF,      /**< information requests, master -> slave, acknowledged */
    RTC_DCP_FAMILY_RSP,      /**< responses, slave -> master */
    RTC_DCP_FAMILY_NTF,      /**< notifications, slave -> master, unacknowledged */
    RTC_DCP_FAMILY_DAT,      /**< data, slave -> slave (or master), unacknowledged */
} rtc_dcp_family;

/* X(name, id): slave states [spec 3.2.4]. */
#define RTC_DCP_STATE_MAP(X)                                                                  \
    X(ALIVE, 0x00)                                                                            \
    X(CONFIGURATION, 0x01)                                                                    \
    X(PREPARING, 0x02)                                                                        \
    X(PREPARED, 0x03)                                                                         \
    X(CONFIGURING, 0x04)                                                                      \
    X(CONFIGURED, 0x05)                                                                       \
    X(INITIALIZING, 0x06)                                                                     \
    X(INITIALIZED, 0x07)                                                                      \
    X(SENDING_I, 0x08)                                                                        \
    X(SYNCHRONIZING, 0x09)                                                                    \
    X(SYNCHRONIZED, 0x0A)                                                                     \
    X(RUNNING, 0x0B)                                                                          \
    X(COMPUTING, 0x0C)                                                                        \
    X(COMPUTED, 0x0D)                                                                         \
    X(SENDING_D, 0x0E)                                                                        \
    X(STOPPING, 0x0F)                                                                         \
    X(STOPPED, 0x10)                                                                          \
    X(ERRORHANDLING, 0x11)                                                                    \
    X(ERRORRESOLVED, 0x12)

/** Slave states (state_id). */
typedef enum rtc_dcp_state {
#define RTC_DCP_X(n, v) RTC_DCP_STATE_##n = v,
    RTC_DCP_STATE_MAP(RTC_DCP_X)
#undef RTC_DCP_X
} rtc_dcp_state;

/** Number of slave states (ids 0 .. RTC_DCP_N_STATES - 1). */
#define RTC_DCP_N_STATES 19

/* X(name, code): error codes [spec Table 104], uint16 on the wire. */
#define RTC_DCP_ERROR_MAP(X)                                                                  \
    X(NONE, 0x0000)                                                                           \
    X(PROTOCOL_ERROR_GENERIC, 0x1001)                                                         \
    X(PROTOCOL_ERROR_HEARTBEAT_MISSED, 0x1002)                                                \
    X(PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE, 0x1003)                                   \
    X(PROTOCOL_ERROR_PROPERTY_VIOLATED, 0x1004)                                               \
    X(PROTOCOL_ERROR_STATE_TRANSITION_IN_PROGRESS, 0x1005)                                    \
    X(INVALID_LENGTH, 0x2001)                                                                 \
    X(INVALID_LOG_CATEGORY, 0x2002)                                                           \
    X(INVALID_LOG_LEVEL, 0x2003)                                                              \
    X(INVALID_LOG_MODE, 0x2004)                                                               \
    X(INVALID_MAJOR_VERSION, 0x2005)                                                          \
    X(INVALID_MINOR_VERSION, 0x2006)                                                          \
    X(INVALID_NETWORK_INFORMATION, 0x2007)                                                    \
    X(INVALID_OP_MODE, 0x2008)                                                                \
    X(INVALID_PAYLOAD, 0x2009)                                                                \
    X(INVALID_SCOPE, 0x200A)                                                                  \
    X(INVALID_SOURCE_DATA_TYPE, 0x200B)                                                       \
    X(INVALID_START_TIME, 0x200C)                                                             \
    X(INVALID_STATE_ID, 0x200D)                                                               \
    X(INVALID_STEPS, 0x200E)                                                                  \
    X(INVALID_TIME_RESOLUTION, 0x200F)                                                        \
    X(INVALID_TRANSPORT_PROTOCOL, 0x2010)                                                     \
    X(INVALID_UUID, 0x2011)                                                                   \
    X(INVALID_VALUE_REFERENCE, 0x2012)                                                        \
    X(INVALID_SEQUENCE_ID, 0x2013)                                                            \
    X(INCOMPLETE_CONFIG_GAP_INPUT_POS, 0x3001)                                                \
    X(INCOMPLETE_CONFIG_GAP_OUTPUT_POS, 0x3002)                                               \
    X(INCOMPLETE_CONFIG_GAP_TUNABLE_POS, 0x3003)                                              \
    X(INCOMPLETE_CONFIG_NW_INFO_INPUT, 0x3004)                                                \
    X(INCOMPLETE_CONFIG_NW_INFO_OUTPUT, 0x3005)                                               \
    X(INCOMPLETE_CONFIG_NW_INFO_TUNABLE, 0x3006)                                              \
    X(INCOMPLETE_CONFIG_SCOPE, 0x3007)                                                        \
    X(INCOMPLETE_CONFIG_STEPS, 0x3008)                                                        \
    X(INCOMPLETE_CONFIG_TIME_RESOLUTION, 0x3009)                                              \
    X(INCOMPLETE_CONFIGURATION, 0x300A)                                                       \
    X(NOT_SUPPORTED_LOG_ON_NOTIFICATION, 0x4001)                                              \
    X(NOT_SUPPORTED_LOG_ON_REQUEST, 0x4002)                                                   \
    X(NOT_SUPPORTED_VARIABLE_STEPS, 0x4003)                                                   \
    X(NOT_SUPPORTED_TRANSPORT_PROTOCOL, 0x4004)                                               \
    X(NOT_SUPPORTED_PDU, 0x4005)                                                              \
    X(NOT_SUPPORTED_PDU_SIZE, 0x4006)

/** DCP error codes (RSP_nack, RSP_error_ack). */
typedef enum rtc_dcp_error {
#define RTC_DCP_X(n, v) RTC_DCP_E_##n = v,
    RTC_DCP_ERROR_MAP(RTC_DCP_X)
#undef RTC_DCP_X
} rtc_dcp_error;

/** Operating modes (STC_register op_mode) [spec 3.1.15]. */
typedef enum rtc_dcp_op_mode {
    RTC_DCP_OP_HRT = 0, /**< hard real time: every deadline met, else ERROR */
    RTC_DCP_OP_SRT = 1, /**< soft real time: simulation time follows absolute time */
    RTC_DCP_OP_NRT = 2, /**< non real time: stepped by STC_do_step */
} rtc_dcp_op_mode;

/** Data types of variables and payload fields (source_data_type) [spec 3.1.10]. */
typedef enum rtc_dcp_data_type {
    RTC_DCP_UINT8 = 0,
    RTC_DCP_UINT16 = 1,
    RTC_DCP_UINT32 = 2,
    RTC_DCP_UINT64 = 3,
    RTC_DCP_INT8 = 4,
    RTC_DCP_INT16 = 5,
    RTC_DCP_INT32 = 6,
    RTC_DCP_INT64 = 7,
    RTC_DCP_FLOAT32 = 8,
    RTC_DCP_FLOAT64 = 9,
    RTC_DCP_STRING = 10, /**< uint32 length + UTF-8 bytes, unterminated */
    RTC_DCP_BINARY = 11, /**< uint32 length + bytes */
} rtc_dcp_data_type;

/** Transport protocols (transport_protocol) [spec 3.1.22]. */
typedef enum rtc_dcp_transport {
    RTC_DCP_UDP_IPV4 = 0,
    RTC_DCP_BLUETOOTH = 1, /**< rfcomm */
    RTC_DCP_CAN = 2,
    RTC_DCP_USB = 3, /**< USB 2.0 */
    RTC_DCP_TCP_IPV4 = 4,
} rtc_dcp_transport;

/** Scopes of a data_id (CFG_scope) [spec 3.3.7]. */
typedef enum rtc_dcp_scope {
    RTC_DCP_SCOPE_ALL = 0,  /**< Initialization, Run and NonRealTime */
    RTC_DCP_SCOPE_INIT = 1, /**< Initialization only */
    RTC_DCP_SCOPE_RUN = 2,  /**< Run and NonRealTime */
} rtc_dcp_scope;

/**
 * One PDU, decoded or to encode. Which fields a PDU type has is the table of dcp_pdu.c /
 * dcp_pdu.md; the others are left as they were by rtc_dcp_decode() (zero them first when
 * comparing) and ignored by rtc_dcp_encode(). Names follow the spec's field names, except
 * where one member serves several PDUs (seq, slave, vr, id), as noted.
 */
typedef struct rtc_dcp_pdu {
    uint8_t type_id;          /**< rtc_dcp_type */
    uint16_t seq;             /**< pdu_seq_id (requests, DAT) or resp_seq_id (RSP) */
    uint8_t slave;            /**< receiver (requests) or sender (RSP, NTF); no DAT field */
    uint8_t state_id;         /**< STC_*: the state the master believes the slave is in;
                                   RSP_state_ack, NTF_state_changed: the slave's state */
    uint8_t slave_uuid[16];   /**< STC_register: the .dcpx uuid, 16 raw bytes (RFC 4122
                                   order, as the text form reads) */
    uint8_t op_mode;          /**< STC_register: rtc_dcp_op_mode */
    uint8_t major_version;    /**< STC_register */
    uint8_t minor_version;    /**< STC_register */
    int64_t start_time;       /**< STC_run: absolute start, seconds since the Unix epoch
                                   (0: now; ignored in NRT) */
    uint32_t steps;           /**< STC_do_step, CFG_steps: steps of the time resolution */
    uint32_t numerator;       /**< CFG_time_res */
    uint32_t denominator;     /**< CFG_time_res */
    uint16_t id;              /**< data_id (CFG_steps, CFG_input, CFG_output, CFG_scope,
                                   CFG_target/source_network_information, DAT_input_output)
                                   or param_id (CFG_tunable_parameter,
                                   CFG_param_network_information, DAT_parameter) */
    uint16_t pos;             /**< CFG_input, CFG_output, CFG_tunable_parameter */
    uint64_t vr;              /**< target_vr (CFG_input), source_vr (CFG_output),
                                   parameter_vr (CFG_parameter, CFG_tunable_parameter) */
    uint8_t source_data_type; /**< rtc_dcp_data_type: CFG_input, CFG_parameter,
                                   CFG_tunable_parameter */
    uint8_t transport_protocol; /**< rtc_dcp_transport: CFG_*_network_information */
    uint16_t port;            /**< CFG_*_network_information (UDP_IPv4, TCP_IPv4) */
    uint32_t ip_address;      /**< CFG_*_network_information (UDP_IPv4, TCP_IPv4): the
                                   numeric address, 127.0.0.1 = 0x7F000001 (sent as the
                                   little-endian uint32 01 00 00 7F) */
    uint8_t scope;            /**< CFG_scope: rtc_dcp_scope */
    uint8_t log_category;     /**< CFG_logging, INF_log */
    uint8_t log_level;        /**< CFG_logging */
    uint8_t log_mode;         /**< CFG_logging */
    uint8_t log_max_num;      /**< INF_log */
    uint8_t log_template_id;  /**< NTF_log */
    int64_t time;             /**< NTF_log: time of the entry */
    uint16_t exp_seq_id;      /**< RSP_nack: the sequence id the slave expected */
    uint16_t error_code;      /**< rtc_dcp_error: RSP_nack, RSP_error_ack */
    const uint8_t *payload;   /**< the variable part: DAT_* payload, CFG_parameter value,
                                   NTF_log arguments, RSP_log_ack entries, network
                                   information of a transport other than UDP/TCP_IPv4.
                                   Decode: points into the datagram (borrowed) */
    size_t payload_len;       /**< bytes at payload */
} rtc_dcp_pdu;

/* ---- the codec ---- */

/**
 * Decode the datagram @p buf of @p len bytes into @p out (one PDU, UDP_IPv4 layout).
 * The header fields are filled whenever the datagram is long enough to hold them, even when
 * the decode then fails, so a slave can answer RSP_nack with the right resp_seq_id: type_id
 * from 1 byte, seq and slave from 4 bytes (requests), so check type_id before using them.
 * Returns RTC_DCP_E_NONE; RTC_DCP_E_NOT_SUPPORTED_PDU (empty, or a type id DCP 1.0 does not
 * define: a receiver drops it); RTC_DCP_E_NOT_SUPPORTED_PDU_SIZE (over RTC_DCP_UDP_MAX_PDU);
 * RTC_DCP_E_INVALID_LENGTH (not this type's length: a fixed-size PDU of any other length,
 * a variable one shorter than its fixed part, network information of UDP/TCP_IPv4 other
 * than 13 bytes). @p out->payload points into @p buf (nothing is copied or allocated).
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE rtc_dcp_error rtc_dcp_decode(const uint8_t *buf, size_t len, rtc_dcp_pdu *out);

/**
 * Encode @p p (its type_id selects the layout) into @p buf of @p cap bytes.
 * Returns the PDU's length in bytes (> 0); 0 when type_id is not a DCP 1.0 type, @p cap is
 * too small, the PDU would exceed RTC_DCP_UDP_MAX_PDU, or a payload is given without its
 * bytes. Nothing is written past the returned length. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE size_t rtc_dcp_encode(const rtc_dcp_pdu *p, uint8_t *buf, size_t cap);

/**
 * Length of the fixed part of PDU type @p type_id (the whole PDU unless it has a variable
 * part), or 0 for an unknown type. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE size_t rtc_dcp_fixed_len(uint8_t type_id);

/** True when PDU type @p type_id has a variable part (payload). RT-safe: yes. */
RTC_RT_SAFE bool rtc_dcp_has_payload(uint8_t type_id);

/** The family of @p type_id (RTC_DCP_FAMILY_NONE: not a DCP 1.0 type). RT-safe: yes. */
RTC_RT_SAFE rtc_dcp_family rtc_dcp_family_of(uint8_t type_id);

/** True for request PDUs (STC, CFG, INF: they carry pdu_seq_id and receiver and are
 *  answered by an RSP). RT-safe: yes. */
RTC_RT_SAFE bool rtc_dcp_is_request(uint8_t type_id);

/* ---- names (static strings; unknown values give "unknown") ---- */

/** "STC_register", "DAT_input_output", ... (the spec's spelling). RT-safe: yes. */
RTC_RT_SAFE const char *rtc_dcp_type_name(uint8_t type_id);
/** "ALIVE", "CONFIGURATION", ... RT-safe: yes. */
RTC_RT_SAFE const char *rtc_dcp_state_name(uint8_t state_id);
/** "INVALID_LENGTH", ... ("NONE" for 0; "TRANSPORT_SPECIFIC" for 0x5001-0x5FFF).
 *  RT-safe: yes. */
RTC_RT_SAFE const char *rtc_dcp_error_name(uint16_t code);
/** "HRT", "SRT", "NRT". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_dcp_op_mode_name(uint8_t op_mode);
/** "uint8" ... "float64", "string", "binary" (the .dcpx element names in lower case).
 *  RT-safe: yes. */
RTC_RT_SAFE const char *rtc_dcp_data_type_name(uint8_t type);
/** "UDP_IPv4", "Bluetooth", "CAN", "USB", "TCP_IPv4". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_dcp_transport_name(uint8_t transport);

/* ---- the state machine: what a slave may receive, where a request takes it ---- */

/**
 * True when a slave in state @p state may receive a PDU of type @p type_id [spec Table 63],
 * with the transitions of spec 3.2.5 that the table omits and DCPLib accepts: STC_do_step in
 * SYNCHRONIZING and SYNCHRONIZED, STC_run in SYNCHRONIZED (DCPLib's master sends it there).
 * Data PDUs are listed where the spec lists them, even where a slave ignores their values
 * (STOPPING, STOPPED, the Error states). RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE bool rtc_dcp_allowed(uint8_t state, uint8_t type_id);

/**
 * The state an accepted STC request moves a slave in @p state to, at once (before any slave
 * signal): STC_register ALIVE -> CONFIGURATION, STC_prepare -> PREPARING, STC_configure ->
 * CONFIGURING, STC_initialize -> INITIALIZING, STC_send_outputs -> SENDING_I or SENDING_D,
 * STC_run CONFIGURED -> SYNCHRONIZING and SYNCHRONIZED -> RUNNING, STC_do_step -> COMPUTING,
 * STC_stop -> STOPPING, STC_reset -> CONFIGURATION, STC_deregister -> ALIVE.
 * Returns that state, or -1 when @p type_id is not an STC PDU or not allowed in @p state.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE int rtc_dcp_stc_target(uint8_t state, uint8_t type_id);

/** The superstates of spec 3.2.3, as a bit set of @p state. */
enum {
    RTC_DCP_SUPER_NORMAL = 1u << 0,       /**< Normal operation (all but ALIVE, Error) */
    RTC_DCP_SUPER_INITIALIZATION = 1u << 1, /**< CONFIGURED .. SENDING_I */
    RTC_DCP_SUPER_RUN = 1u << 2,          /**< SYNCHRONIZING .. RUNNING */
    RTC_DCP_SUPER_NONREALTIME = 1u << 3,  /**< COMPUTING .. SENDING_D */
    RTC_DCP_SUPER_STOPPABLE = 1u << 4,    /**< PREPARING .. SENDING_D (STC_stop allowed) */
    RTC_DCP_SUPER_ERROR = 1u << 5,        /**< ERRORHANDLING, ERRORRESOLVED */
};
/** The superstates @p state belongs to (0 for an unknown state). RT-safe: yes. */
RTC_RT_SAFE unsigned rtc_dcp_superstates(uint8_t state);

/* ---- sequence ids, receiver and sender [spec 3.4.1, 3.4.7] ---- */

/** The sequence id after @p seq (uint16, wrapping). RT-safe: yes. */
RTC_RT_SAFE uint16_t rtc_dcp_seq_next(uint16_t seq);

/**
 * PDUs lost between the last accepted data sequence id @p last and the received @p seq:
 * 0 when seq follows last, n when n were skipped; -1 when seq is not newer (a repeat or a
 * late, reordered PDU: at most 2^15 behind). RT-safe: yes.
 */
RTC_RT_SAFE int32_t rtc_dcp_seq_gap(uint16_t last, uint16_t seq);

/** What a slave does with a received datagram (rtc_dcp_slave_check). */
typedef enum rtc_dcp_verdict {
    RTC_DCP_ACCEPT = 0, /**< act on it (a request: ack and transition / answer) */
    RTC_DCP_DROP,       /**< ignore it silently (count it) */
    RTC_DCP_NACK,       /**< answer RSP_nack with the error code and exp_seq_id */
} rtc_dcp_verdict;

/** A slave's view for judging requests. */
typedef struct rtc_dcp_slave_view {
    uint8_t state;      /**< current state */
    uint8_t slave_id;   /**< its id (0 while ALIVE: any receiver > 0 registers it) */
    uint16_t last_seq;  /**< the last accepted request's pdu_seq_id */
    bool registered;    /**< last_seq is valid (false in ALIVE) */
    bool nrt;           /**< registered with op_mode NRT (STC_do_step is NRT only) */
    bool can_log;       /**< the slave provides logs (CFG_logging and INF_log, else
                             NOT_SUPPORTED_PDU) */
} rtc_dcp_slave_view;

/**
 * The validity checks a slave makes on a datagram from its master, in the spec's order
 * [spec 3.4.7]: type id (unknown: drop), receiver (not this slave, or 0: drop; in ALIVE any
 * id > 0), sequence id (every request to a registered slave, INF_state included as DCPLib
 * counts it, must be last_seq + 1: INVALID_SEQUENCE_ID; in ALIVE none is checked),
 * support (STC_do_step outside NRT, CFG_logging and INF_log without logs:
 * NOT_SUPPORTED_PDU), length (INVALID_LENGTH), state
 * (PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE), and for STC PDUs the state_id
 * (INVALID_STATE_ID). Responses and notifications a slave receives are dropped; data PDUs
 * are dropped on any failure. On ACCEPT @p pdu holds the decoded PDU. On NACK *err is the
 * code, and @p pdu->seq is the resp_seq_id to answer with. On DROP *err says why (for the
 * slave's counters). RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE rtc_dcp_verdict rtc_dcp_slave_check(const rtc_dcp_slave_view *v,
                                                const uint8_t *buf, size_t len,
                                                rtc_dcp_pdu *pdu, uint16_t *err);

/**
 * Whether the master should take the decoded response or notification @p p as coming from
 * slave @p slave_id: RSP_* and NTF_* must carry sender == slave_id, and an RSP must answer
 * the outstanding request @p req_seq (resp_seq_id). DAT PDUs carry no sender (the caller
 * checks the datagram's source address and the data id). Returns RTC_DCP_E_NONE,
 * RTC_DCP_E_INVALID_SEQUENCE_ID (an answer to another request, e.g. a late one), or
 * RTC_DCP_E_PROTOCOL_ERROR_GENERIC (wrong sender, or a PDU a master never receives).
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE rtc_dcp_error rtc_dcp_master_check(const rtc_dcp_pdu *p, uint8_t slave_id,
                                               uint16_t req_seq);

/* ---- payload values (DAT_input_output, DAT_parameter, CFG_parameter) ---- */

/** Bytes of a value of @p type on the wire (string and binary: 4, their length field;
 *  0 for an unknown type). RT-safe: yes. */
RTC_RT_SAFE size_t rtc_dcp_type_size(uint8_t type);

/** True for the numeric types (uint8 .. float64), which an engine signal (a double) can
 *  carry. RT-safe: yes. */
RTC_RT_SAFE bool rtc_dcp_type_numeric(uint8_t type);

/**
 * Append @p v as a value of numeric @p type at @p buf + *@p off (cap bytes in all), moving
 * *off on: integers rounded to nearest and clamped to the type's range (NaN as 0), float32
 * rounded. Returns true, or false (nothing written) when it does not fit or @p type is not
 * numeric. *@p clamped (may be NULL) is set when the value was clamped or NaN.
 * RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE bool rtc_dcp_put_value(uint8_t *buf, size_t cap, size_t *off, uint8_t type,
                                   double v, bool *clamped);

/**
 * Read a value of numeric @p type at @p buf + *@p off (len bytes in all) as a double, moving
 * *off on (uint64/int64 beyond 2^53 lose precision). Returns true, or false when it does not
 * fit or @p type is not numeric. RT-safe: yes. Thread: any.
 */
RTC_RT_SAFE bool rtc_dcp_get_value(const uint8_t *buf, size_t len, size_t *off, uint8_t type,
                                   double *v);

/**
 * Skip a value of any @p type (string/binary: the uint32 length and its bytes) at @p buf +
 * *@p off. Returns true, or false when the value runs past @p len. RT-safe: yes.
 */
RTC_RT_SAFE bool rtc_dcp_skip_value(const uint8_t *buf, size_t len, size_t *off, uint8_t type);

/* ---- text forms ---- */

/**
 * Parse an RFC 4122 uuid text ("b5279485-..."; 32 hex digits in groups 8-4-4-4-12, either
 * case) into 16 bytes. Returns true, or false when malformed. RT-safe: yes.
 */
RTC_RT_SAFE bool rtc_dcp_uuid_parse(const char *text, uint8_t out[16]);

/** Write the 36-character text form of @p uuid (lower case) and a NUL into @p out.
 *  RT-safe: yes. */
RTC_RT_SAFE void rtc_dcp_uuid_format(const uint8_t uuid[16], char out[37]);

#endif
