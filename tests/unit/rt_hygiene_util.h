/*
 * The watchers of test_rt_hygiene.c (rt_hygiene_util.c): what the run-phase threads
 * allocated and slept, the seccomp tracer of the RT thread, a logger that tells on which
 * thread it was called.
 */
#ifndef RTC_TEST_RT_HYGIENE_UTIL_H
#define RTC_TEST_RT_HYGIENE_UTIL_H

#include "rtcosim/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Allocations (frees) on a run-phase thread, allocations anywhere, sleeps of the RT thread:
 * counted by this executable's malloc/free (or the sanitizers' hooks) and clock_nanosleep. */
extern _Atomic unsigned long rt_mallocs, rt_frees, any_mallocs, rt_sleeps;

/* On the main thread before any run (dlsym may allocate): resolve the real
 * clock_nanosleep and install the counters. Returns 0, or -1 when it is not found. */
int rt_watch_setup(void);

/* ---- the system-call tracer ---- */
#define MAX_TRAPS 64
/* Calls trapped on the RT thread, the first MAX_TRAPS of their numbers, and whether the
 * seccomp filter was installed. */
extern _Atomic unsigned n_traps;
extern _Atomic int traps[MAX_TRAPS];
extern _Atomic bool traced;
/* An exec hook: installs the filter at the first boundary; with a violation planted by
 * trace_reset(true), writes once on the RT thread at step 5. */
void trace_hook(void *user, int at, int64_t k);
void trace_reset(bool with_violation);
/* The run phase held no system call outside the allowed set (listed when it did). */
void assert_trace_clean(void);
/* Installs the SIGSYS handler; false (nothing traced) when not x86-64. */
bool trace_supported(void);

/* ---- a logger that tells on which thread it was called ---- */
typedef struct rlog {
    rtc_logger lg;
    pthread_mutex_t mu;
    _Atomic unsigned lines, on_rt, fmu_lines;
    char text[16384];
    size_t len;
} rlog;
void rlog_init(rlog *l);

#endif
