/*
 * Between the two files of the driver base (rtcosim/driver_base.h): driver_base.c (keys,
 * the I/O thread, safe values, counters, stats) and driver_link.c (the link contract).
 */
#ifndef RTC_DRIVER_PRIV_H
#define RTC_DRIVER_PRIV_H

#include "rtcosim/driver_base.h"

#include <stdarg.h>

/* "<name> '<component>': <message>" at @p level (rtc_drv_error's form, any level). */
void rtc__drv_vlog(const rtc_drv_base *b, int level, const char *fmt, va_list ap);

/* open: the contract's keys (required, connect_ms, on_loss, loss_ms, timeout_ms) into
 * b->link; errors through rtc_drv_bad. After the common keys (the period). */
int rtc__drv_contract_open(rtc_drv_base *b, const rtc_kv *kv, size_t n);
/* start(), before the thread: a fresh account of the link, CONNECTING. */
void rtc__drv_link_start(rtc_drv_base *b);
/* The I/O thread, after every turn: judge the link, count, log the change. */
void rtc__drv_link_judge(rtc_drv_base *b, int64_t now_ns);
/* stop(), after the join: close the account (an outage under way counts whole), IDLE. */
void rtc__drv_link_stop(rtc_drv_base *b);
/* Not running (safe values written by the caller): IDLE. */
void rtc__drv_link_idle(rtc_drv_base *b);
/* The contract and its account into @p c (stats). */
void rtc__drv_link_info(const rtc_drv_base *b, rtc_link_info *c);

#endif
