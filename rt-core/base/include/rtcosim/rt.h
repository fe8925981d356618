/*
 * rtcosim/rt.h — process and thread set-up for real-time runs (the arm phase).
 *
 * rtc_rt_prepare_process() is the one place that raises RLIMIT_MEMLOCK, locks memory
 * (mlockall(MCL_CURRENT | MCL_FUTURE)), stops glibc from trimming the heap or serving
 * large blocks by mmap (so freed memory stays mapped and locked), prefaults a heap
 * reserve, and holds /dev/cpu_dma_latency at 0 (no deep C-states) until
 * rtc_rt_release_process(). It also reports what the kernel offers: PREEMPT_RT,
 * isolcpus, nohz_full — for the run's timing summary.
 *
 * rtc_rt_thread_start() creates a thread whose pthread attributes already hold SCHED_FIFO,
 * the priority, PTHREAD_EXPLICIT_SCHED, the CPU affinity and the stack size, so the
 * thread never runs a single instruction with the wrong policy. When the kernel refuses
 * SCHED_FIFO (EPERM: no CAP_SYS_NICE / RLIMIT_RTPRIO), the engine warns once per process
 * and creates the thread with SCHED_OTHER, everything else unchanged. Before the thread's
 * function runs, the thread is bound to its rtlog (rtcosim/rtlog.h) and half of its stack
 * is prefaulted. Jacobi workers and substitute units are created here too, with the
 * attributes the system was given (rtc_system_set_threads()), and so are the library's
 * other threads: the drivers' I/O threads at their configured priority, and with priority
 * 0 (SCHED_OTHER) the recorder, monitor, watchdog, session writer and control surface,
 * which do no tick's work. One creator, one set of rules.
 */
#ifndef RTCOSIM_RT_H
#define RTCOSIM_RT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/log.h"
#include "rtcosim/rtsafe.h"

/** What the kernel and the process set-up provide (for timing.json). */
typedef struct rtc_rt_info {
    bool preempt_rt;          /**< /sys/kernel/realtime = 1, or "PREEMPT_RT" in uname -v */
    char kernel_release[65];  /**< uname -r */
    char kernel_version[65];  /**< uname -v */
    char isolated_cpus[64];   /**< /sys/devices/system/cpu/isolated ("" if none) */
    char nohz_full[64];       /**< /sys/devices/system/cpu/nohz_full ("" if none) */
    bool memory_locked;       /**< mlockall succeeded */
    bool dma_latency_held;    /**< /dev/cpu_dma_latency is open with 0 written */
    bool sanitizer;           /**< built with ASan/TSan: memory locking skipped */
} rtc_rt_info;

/** Fill the kernel part of @p info (PREEMPT_RT, isolcpus, nohz_full, uname).
 *  RT-safe: no. */
void rtc_rt_detect(rtc_rt_info *info);

/**
 * Prepare the process for real time (see the file comment). Idempotent: a second call
 * only holds /dev/cpu_dma_latency again (after rtc_rt_release_process) and refreshes
 * @p info. @p heap_reserve bytes are malloc'ed, touched page by page and freed (they stay
 * in the locked heap). A failure to lock memory or to hold the DMA latency is one loud
 * warning, or an error when @p hard is true.
 * Under ASan/TSan memory is not locked (their shadow maps cannot be locked); a warning says so.
 *
 * Returns RTC_OK (possibly with warnings); -errno of the first step that failed when
 * @p hard.
 * RT-safe: no. Thread: the main thread, before the RT threads start.
 */
int rtc_rt_prepare_process(size_t heap_reserve, bool hard, const rtc_logger *lg,
                           rtc_rt_info *info);

/** Close /dev/cpu_dma_latency (the kernel drops the latency request). Memory stays
 *  locked. Safe to call when not prepared. RT-safe: no. */
void rtc_rt_release_process(void);

/**
 * Touch @p bytes (at most what the stack has left) of the calling thread's stack below the
 * current frame, so later calls
 * do not fault pages in. Call at the start of an RT thread.
 * RT-safe: yes (arm phase of the thread). Thread: the thread whose stack it is.
 */
RTC_RT_SAFE void rtc_rt_prefault_stack(size_t bytes);

typedef struct rtc_rt_thread rtc_rt_thread;
struct rtc_rtlog;

/** Attributes of a new thread. */
typedef struct rtc_rt_thread_opts {
    int priority;        /**< SCHED_FIFO priority 1..99; 0: SCHED_OTHER */
    int cpu;             /**< CPU to pin to; -1: any */
    bool avoid_cpu;      /**< true: run on every CPU but @c cpu instead (a helper kept off
                              the RT thread's core; any CPU when it is the only one) */
    size_t stack_bytes;  /**< 0: 1 MiB */
    const char *name;    /**< thread name (≤ 15 chars shown), may be NULL */
    struct rtc_rtlog *log; /**< rtc_log() on the thread goes through this rtlog (never
                                formatted there); NULL: direct */
} rtc_rt_thread_opts;

/**
 * Create a thread running fn(arg) with the attributes of @p o (see the file comment).
 * Returns RTC_OK; RTC_EINVAL (priority/cpu out of range); -errno (creation failed, e.g.
 * -EAGAIN: logged with the reason). RT-safe: no.
 */
int rtc_rt_thread_start(const rtc_rt_thread_opts *o, void *(*fn)(void *), void *arg,
                        const rtc_logger *lg, rtc_rt_thread **out);

/** Join the thread and free the handle; NULL is a no-op. RT-safe: no. */
void rtc_rt_thread_join(rtc_rt_thread *t);

/** The policy the thread got: "SCHED_FIFO" or "SCHED_OTHER". RT-safe: yes. */
RTC_RT_SAFE const char *rtc_rt_thread_policy(const rtc_rt_thread *t);

/** The priority it got (0 for SCHED_OTHER). RT-safe: yes. */
RTC_RT_SAFE int rtc_rt_thread_priority(const rtc_rt_thread *t);

/**
 * Wait until *@p word differs from @p old and return its value: first a spin of up to
 * @p spin_ns (0: none) reading the word, then FUTEX_WAIT (private) announced in
 * *@p waiters. The read has acquire order: what the waker wrote before changing the word
 * is visible. RT-safe: yes (futex only; the waiting is the caller's design).
 */
RTC_RT_SAFE uint32_t rtc_rt_wait_change(_Atomic uint32_t *word, _Atomic uint32_t *waiters,
                                        uint32_t old, int64_t spin_ns);

/** As rtc_rt_wait_change(), giving up at @p deadline_ns (CLOCK_MONOTONIC; 0: never): then
 *  the value returned may equal @p old. RT-safe: yes. */
RTC_RT_SAFE uint32_t rtc_rt_wait_change_until(_Atomic uint32_t *word, _Atomic uint32_t *waiters,
                                              uint32_t old, int64_t spin_ns, int64_t deadline_ns);

/**
 * After changing *@p word (any atomic store or read-modify-write): wake every thread
 * sleeping in rtc_rt_wait_change() on it — FUTEX_WAKE only when *@p waiters says one may
 * sleep, so a waker whose partner is still spinning makes no system call. RT-safe: yes.
 */
RTC_RT_SAFE void rtc_rt_wake(_Atomic uint32_t *word, _Atomic uint32_t *waiters);

/** Number of online CPUs. RT-safe: yes. */
RTC_RT_SAFE int rtc_rt_cpu_count(void);

#endif
