/*
 * fmi3_wrap.h — what the parts of the generic FMI 3.0 wrapper share: fmi3_wrap.c (instances,
 * modes, state, events, fmi3DoStep), fmi3_wrap_values.c (typed access), fmi3_wrap_me.c
 * (Model Exchange) and fmi3_wrap_clocks.c (Scheduled Execution clocks).
 */
#ifndef RTC_TM_FMI3_WRAP_H
#define RTC_TM_FMI3_WRAP_H

#define RTC_FMI3_EXPORT __attribute__((visibility("default")))
#include "rtc_fmi3.h"
#include "wrap_core.h"

#define GET_INST(c)                                                                                \
    rtc_tm_inst *in = (rtc_tm_inst *)(c);                                                          \
    if (!in)                                                                                       \
    return fmi3Error

/* No clocks, no event mode, no derivatives, no per-element dependencies: all refused. */
#define NO_CLOCKS "no Clock variables"
#define NO_EVENTS "hasEventMode=false"

#endif
