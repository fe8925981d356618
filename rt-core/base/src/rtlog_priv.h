/* Inside the real-time log: the text channel (rtlog_text.c) used by rtlog.c. */
#ifndef RTCOSIM_RTLOG_PRIV_H
#define RTCOSIM_RTLOG_PRIV_H

#include "rtcosim/rtc_config.h"
#include "rtcosim/rtlog.h"

#include <stdarg.h>
#include <stdatomic.h>

typedef struct rtc__rtlog_text rtc__rtlog_text;

int rtc__rtlog_text_new(size_t depth, rtc__rtlog_text **out);
void rtc__rtlog_text_free(rtc__rtlog_text *q);
/* Any producer thread; RT-safe. */
bool rtc__rtlog_text_push(rtc__rtlog_text *q, const rtc_logger *lg, int level,
                          const char *const *prefix, const char *fmt, va_list ap);
/* The consumer: format and hand every queued message to its logger. */
size_t rtc__rtlog_text_drain(rtc__rtlog_text *q);
uint64_t rtc__rtlog_text_dropped(const rtc__rtlog_text *q);

#endif
