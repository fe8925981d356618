/*
 * Building rtc_driver_config values in tests: component settings, signals with their own
 * settings and a fresh mailbox each. Everything is freed by io_cfg_free(). Also the Modbus
 * codec cases both Modbus driver tests use, and a wait for samples in the mailboxes.
 */
#ifndef RTC_TEST_IO_CFG_H
#define RTC_TEST_IO_CFG_H

#include "rtcosim/driver.h"

#include <stdbool.h>
#include <stdint.h>

#define IO_CFG_MAX_SIGS 64
#define IO_CFG_MAX_KV 16

typedef struct io_cfg {
    rtc_kv comp[IO_CFG_MAX_KV];
    rtc_io_signal sig[IO_CFG_MAX_SIGS];
    rtc_kv skv[IO_CFG_MAX_SIGS][IO_CFG_MAX_KV];
    rtc_driver_config cfg;
} io_cfg;

void io_cfg_init(io_cfg *c, const char *component);
/* Add a component setting (copied). */
void io_cfg_set(io_cfg *c, const char *key, const char *value);
/* Add a component setting with an integer value (a port, say). */
void io_cfg_set_int(io_cfg *c, const char *key, long value);
/* Add a signal with NULL-terminated key, value pairs; returns its index. */
size_t io_cfg_sig(io_cfg *c, const char *name, rtc_io_dir dir, rtc_type type, ...);
void io_cfg_free(io_cfg *c);
/* Write a fresh sample (now) into signal i's mailbox. */
void io_cfg_put(io_cfg *c, size_t i, double v);
/* Read signal i's mailbox. */
rtc_sample io_cfg_get(io_cfg *c, size_t i);

/*
 * The fixture of a driver test file, written once here: `LOG` (an io_log), `CFG` (one
 * io_cfg, on the heap: too large for the stack), and suite_init() / suite_clean() for
 * rtc_test_add_suite(); suite_init() also ignores SIGPIPE (a peer that closes while the
 * driver writes must not end the test). Expands to file-scope definitions: use once per
 * test file, after io_util.h, <signal.h> and <stdlib.h>.
 */
#define IO_CFG_FIXTURE                                                                        \
    static io_log LOG;                                                                        \
    static io_cfg *CFG;                                                                       \
    static int suite_init(void)                                                               \
    {                                                                                         \
        io_log_init(&LOG);                                                                    \
        CFG = calloc(1, sizeof *CFG);                                                         \
        signal(SIGPIPE, SIG_IGN);                                                             \
        return CFG ? 0 : 1;                                                                   \
    }                                                                                         \
    static int suite_clean(void)                                                              \
    {                                                                                         \
        free(CFG);                                                                            \
        return 0;                                                                             \
    }

/* ---- the Modbus codec cases: type, word order, byte swap, value, registers, scale, offset
 * (register contents written out by hand: IEEE-754 and two's complement bit patterns),
 * shared by the Modbus driver tests ---- */
typedef struct codec_case {
    const char *type, *order;
    const char *swap;
    double value;
    uint16_t regs[4];
    const char *scale, *offset;
} codec_case;
#define N_CASES 23
extern const codec_case CASES[N_CASES];
/* The number of registers case c occupies (1, 2 or 4). */
int case_regs(const codec_case *c);
/* Add one holding-register signal per case at base + 10 k. */
void add_case_signals(io_cfg *c, const char *prefix, rtc_io_dir dir, int base);

/* For io_wait(): every signal first .. first + n - 1 of c holds a sample. */
typedef struct io_cfg_seq_wait {
    io_cfg *c;
    size_t first, n;
} io_cfg_seq_wait;
bool io_cfg_all_written(void *arg);

#endif
