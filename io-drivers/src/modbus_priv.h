/*
 * Private to the Modbus drivers: the register map computed once at open (signal ->
 * table/address/registers/codec) and the batches of contiguous addresses that become one
 * request each, plus the value codec. No libmodbus type appears here, so the codec can be
 * tested and reused by the bench tools without a connection.
 */
#ifndef RTC_IO_MODBUS_PRIV_H
#define RTC_IO_MODBUS_PRIV_H

#include "rtcosim/driver_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { MB_COIL = 0, MB_DISCRETE, MB_HOLDING, MB_INPUT, MB_NTABLES } mb_table;

typedef enum {
    MB_BOOL = 0, MB_INT16, MB_UINT16, MB_INT32, MB_UINT32, MB_FLOAT32, MB_INT64, MB_UINT64,
    MB_FLOAT64, MB_NTYPES
} mb_dtype;

/* Signal as the Modbus drivers see it. */
typedef struct mb_sig {
    char *name;
    rtc_io_dir dir;
    mb_table table;
    uint16_t addr;
    uint16_t nregs; /* registers (or bits: 1) the value occupies */
    mb_dtype type;
    bool word_little, byte_swap;
    double scale, offset;
    bool has_min, has_max; /* the safe value is the base's (rtc_drv_signal) */
    double min, max;
    uint32_t last_seq;  /* TO_BENCH: mailbox seq last sent */
} mb_sig;

/* One request: table, first address, count, and the signals inside (indices into order). */
typedef struct mb_batch {
    mb_table table;
    uint16_t addr, count;
    size_t first, n;
} mb_batch;

typedef struct mb_map {
    mb_sig *sigs;
    size_t n;
    size_t *order; /* signal indices sorted by (table, address) */
    mb_batch *reads, *writes;
    size_t n_reads, n_writes;
    bool hb;               /* heartbeat configured */
    mb_table hb_table;     /* MB_COIL or MB_HOLDING */
    uint16_t hb_addr;
    bool hb_count;         /* count mode (else toggle) */
    uint16_t hb_value;
    int lo[MB_NTABLES], hi[MB_NTABLES]; /* occupied address span per table, hi exclusive */
} mb_map;

extern const char *const rtc__mb_table_names[];
extern const char *const rtc__mb_type_names[];

/*
 * Parse every signal's map settings and the heartbeat, check directions against tables
 * (server = true flips the rules, see driver.h), reject overlaps, sort and batch (reads
 * may bridge gaps of up to max_gap unmapped registers; writes never do).
 */
int rtc__mb_map_build(mb_map *m, const rtc_driver_config *cfg, const rtc_drv_base *b,
                      bool server, int max_gap);
void rtc__mb_map_clear(mb_map *m);

/* Engineering value of a register-table signal from its nregs raw registers. *clamped is
 * set when min/max applied. */
double rtc__mb_decode_regs(const mb_sig *s, const uint16_t *regs, bool *clamped);
/* Raw registers for an engineering value; returns true when the value was clamped (to
 * min/max or to the type's range) or was NaN. */
bool rtc__mb_encode_regs(const mb_sig *s, double v, uint16_t *regs);
/* Bit-table signals (coils, discrete inputs). */
double rtc__mb_decode_bit(const mb_sig *s, uint8_t bit, bool *clamped);
uint8_t rtc__mb_encode_bit(const mb_sig *s, double v);

/* Registers a data type occupies. */
uint16_t rtc__mb_type_regs(mb_dtype t);

/* Advance the heartbeat value (toggle 0/1 or count) and return it. */
uint16_t rtc__mb_heartbeat_next(mb_map *m);

/* ---- requests a server receives (checked before libmodbus sees them) ---- */

/* What a server does with a request PDU; the positive values are Modbus exception codes. */
typedef enum {
    MB_PDU_OK = 0,               /* well-formed and served: modbus_reply may see it */
    MB_PDU_ILLEGAL_FUNCTION = 1, /* a function code the server does not serve */
    MB_PDU_ILLEGAL_VALUE = 3,    /* quantity out of range, byte count or implied length wrong */
    MB_PDU_NOT_REQUEST = -1,     /* no function code, 0, or 128..255 (exception codes) */
} mb_pdu_verdict;

/* The address ranges a request reads and writes (rn, wn = 0: no such part). */
typedef struct mb_req {
    int fc;
    mb_table rt, wt;
    int raddr, rn, waddr, wn;
} mb_req;

/*
 * Check one request PDU (function code first, len bytes, no MBAP header or CRC) against
 * the Modbus Application Protocol: function codes 1-6, 15, 16, 22 and 23 are served; every
 * length must be exactly what the function code and its byte count imply. Fills *r with
 * the ranges (as far as decoded) for the caller's address checks (exception 02).
 */
mb_pdu_verdict rtc__mb_pdu_check(const uint8_t *pdu, int len, mb_req *r);

#endif
