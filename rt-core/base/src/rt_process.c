/*
 * Process and thread set-up for real-time runs (rtcosim/rt.h).
 *
 * Order of rtc_rt_prepare_process() (after LinuxCNC's configure_memory and cyclictest -m):
 *   1. raise RLIMIT_MEMLOCK to infinity (root) so mlockall cannot fail on the limit;
 *   2. mallopt(M_TRIM_THRESHOLD, -1) and mallopt(M_MMAP_MAX, 0): freed memory is never
 *      returned to the kernel and big blocks come from the (locked) heap, not from fresh
 *      mmaps that would fault in on first touch;
 *   3. mlockall(MCL_CURRENT | MCL_FUTURE): everything mapped now and later is resident;
 *   4. malloc a reserve, touch one byte per page, free it: it stays in the heap, mapped;
 *   5. write a 32-bit 0 to /dev/cpu_dma_latency and keep the fd open — the kernel honours
 *      the request only while the file is open.
 * The process-wide state (the fd, "prepared", "locked") lives in statics touched only by
 * the main thread (the one that arms the run).
 */
#include "rtcosim/rt.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RTC_UNDER_SANITIZER 1
#else
#define RTC_UNDER_SANITIZER 0
#endif

static int dma_fd = -1;           /* main thread only */
static bool mem_locked;           /* main thread only */

/* Read the first line of a sysfs file without its newline ("" when absent). */
static void read_line(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)cap, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

void rtc_rt_detect(rtc_rt_info *info)
{
    struct utsname u;
    char rt[16];
    if (uname(&u) == 0) {
        snprintf(info->kernel_release, sizeof info->kernel_release, "%s", u.release);
        snprintf(info->kernel_version, sizeof info->kernel_version, "%s", u.version);
    }
    read_line("/sys/kernel/realtime", rt, sizeof rt);
    info->preempt_rt = rt[0] == '1' || strstr(info->kernel_version, "PREEMPT_RT") != NULL;
    read_line("/sys/devices/system/cpu/isolated", info->isolated_cpus,
              sizeof info->isolated_cpus);
    read_line("/sys/devices/system/cpu/nohz_full", info->nohz_full, sizeof info->nohz_full);
    if (!strcmp(info->nohz_full, "(null)"))
        info->nohz_full[0] = '\0';
    info->memory_locked = mem_locked;
    info->dma_latency_held = dma_fd >= 0;
    info->sanitizer = RTC_UNDER_SANITIZER;
}

/* Touch one byte per page of a malloc'ed reserve, then free it: with trimming off it
 * stays in the heap, already faulted in (and locked, when mlockall worked). */
static int prefault_heap(size_t heap_reserve)
{
    long page = sysconf(_SC_PAGESIZE);
    volatile char *p = malloc(heap_reserve);
    if (!p)
        return ENOMEM;
    for (size_t i = 0; i < heap_reserve; i += (size_t)page)
        p[i] = 0;
    free((void *)p);
    return 0;
}

/* Steps 1-4: returns 0 or the errno of the failing call (logged by the caller). */
static int lock_memory(size_t heap_reserve, const char **what)
{
    struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
    (void)setrlimit(RLIMIT_MEMLOCK, &rl); /* may fail unprivileged: mlockall tells */
    mallopt(M_TRIM_THRESHOLD, -1);
    mallopt(M_MMAP_MAX, 0);
    int e = 0;
    if (RTC_UNDER_SANITIZER) {
        *what = "skipped: sanitizer shadow memory cannot be locked";
        e = EOPNOTSUPP;
    } else if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
        *what = "mlockall(MCL_CURRENT|MCL_FUTURE)";
        e = errno;
    } else {
        mem_locked = true;
    }
    if (prefault_heap(heap_reserve) != 0 && e == 0) {
        *what = "heap reserve";
        e = ENOMEM;
    }
    return e;
}

static int hold_dma_latency(void)
{
    if (dma_fd >= 0)
        return 0;
    int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int32_t zero = 0;
    if (write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
        int e = errno;
        close(fd);
        return e;
    }
    dma_fd = fd;
    return 0;
}

int rtc_rt_prepare_process(size_t heap_reserve, bool hard, const rtc_logger *lg,
                           rtc_rt_info *info)
{
    static bool prepared;
    int rc = RTC_OK, level = hard ? RTC_LOG_ERROR : RTC_LOG_WARNING;
    if (!prepared) {
        const char *what = "";
        int e = lock_memory(heap_reserve, &what);
        if (e != 0) {
            rtc_log(lg, level, "memory not locked (%s: %s): page faults may delay the "
                    "real-time thread", what, strerror(e));
            rc = hard ? rtc_status_from_errno(e) : rc;
        }
        prepared = true;
    }
    /* every run holds the latency request again (rtc_rt_release_process dropped it) */
    int e = hold_dma_latency();
    if (e != 0) {
        rtc_log(lg, level, "/dev/cpu_dma_latency: %s: deep C-states may add wake-up "
                "latency", strerror(e));
        rc = hard && rc == RTC_OK ? rtc_status_from_errno(e) : rc;
    }
    if (info)
        rtc_rt_detect(info);
    return rc;
}

void rtc_rt_release_process(void)
{
    if (dma_fd >= 0)
        close(dma_fd);
    dma_fd = -1;
}

/* Bytes of stack left below the caller's frame, minus a margin for the calls to come
 * (sanitizers put large per-thread state in the stack area, so never assume the size). */
static size_t stack_room(void)
{
    pthread_attr_t a;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return 0;
    int e = pthread_attr_getstack(&a, &lo, &size);
    pthread_attr_destroy(&a);
    char here;
    size_t room = e == 0 ? (size_t)(&here - (char *)lo) : 0;
    return room > ((size_t)64 << 10) ? room - ((size_t)64 << 10) : 0;
}

void rtc_rt_prefault_stack(size_t bytes)
{
    size_t room = stack_room();
    bytes = bytes < room ? bytes : room;
    if (bytes == 0)
        return;
    /* A VLA, not a fixed array, so the size can follow the thread's stack size; the
     * volatile pointer keeps the compiler from dropping the writes. */
    unsigned char buf[bytes];
    volatile unsigned char *p = buf;
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < bytes; i += (size_t)page)
        p[i] = 0;
}

int rtc_rt_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
