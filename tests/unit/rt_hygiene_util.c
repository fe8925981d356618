/*
 * The watchers of test_rt_hygiene.c (its file comment says how each rule is observed):
 * allocation counting (malloc, calloc, realloc and free defined here, or the sanitizers'
 * hooks), the clock_nanosleep positive control, the seccomp system-call tracer of the RT
 * thread, and a logger that tells on which thread it was called.
 */
#include "rt_hygiene_util.h"

#include "cu_main.h"

#include "rtcosim/exec.h"
#include "rtcosim/rtlog.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

_Atomic unsigned long rt_mallocs, rt_frees, any_mallocs, rt_sleeps;

/* A thread doing run-phase work: the RT thread, or a worker/unit thread inside a job it
 * was handed by the RT thread (bound to the executive's rtlog for that job). */
static bool run_phase_thread(void)
{
    return rtc_exec_is_rt_thread() || rtc_rtlog_thread() != NULL;
}

static void count_alloc(void)
{
    atomic_fetch_add_explicit(&any_mallocs, 1, memory_order_relaxed);
    if (run_phase_thread())
        atomic_fetch_add_explicit(&rt_mallocs, 1, memory_order_relaxed);
}

static void count_free(void)
{
    if (run_phase_thread())
        atomic_fetch_add_explicit(&rt_frees, 1, memory_order_relaxed);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* From the sanitizers' allocator interface (compiler-rt allocator_interface.h; GCC
 * does not install the header): hooks called on every malloc and free. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void san_malloc_hook(const volatile void *p, size_t n)
{
    (void)p;
    (void)n;
    count_alloc();
}

static void san_free_hook(const volatile void *p)
{
    (void)p;
    count_free();
}

static void install_counting(void)
{
    __sanitizer_install_malloc_and_free_hooks(san_malloc_hook, san_free_hook);
}
#else
/* glibc's real allocator entry points (exported for exactly this kind of wrapper). */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

void *malloc(size_t n)
{
    count_alloc();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    count_alloc();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    count_alloc();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    if (p)
        count_free();
    __libc_free(p);
}

static void install_counting(void)
{
}
#endif

/* Positive control: the RT thread's sleeps, seen through the same flag. */
typedef int (*nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);
static nanosleep_fn real_clock_nanosleep;

int clock_nanosleep(clockid_t c, int flags, const struct timespec *t, struct timespec *rem)
{
    if (rtc_exec_is_rt_thread())
        atomic_fetch_add_explicit(&rt_sleeps, 1, memory_order_relaxed);
    return real_clock_nanosleep(c, flags, t, rem);
}

/* Resolve the real clock_nanosleep, install the allocation counters. */
int rt_watch_setup(void)
{
    /* resolved here, on the main thread: dlsym may allocate */
    real_clock_nanosleep = (nanosleep_fn)dlsym(RTLD_NEXT, "clock_nanosleep");
    install_counting();
    return real_clock_nanosleep ? 0 : -1;
}

/* ---- the system-call tracer (see the file comment) ---- */

_Atomic unsigned n_traps;
static _Atomic unsigned n_traps_after;
_Atomic int traps[MAX_TRAPS];
_Atomic bool traced;
static _Atomic bool violate, trace_failed;

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
#if defined(__x86_64__)
    if (rtc_exec_is_rt_thread()) {
        unsigned i = atomic_fetch_add(&n_traps, 1);
        if (i < MAX_TRAPS)
            atomic_store(&traps[i], si->si_syscall);
    } else {
        atomic_fetch_add(&n_traps_after, 1); /* after the loop: not the run phase */
    }
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RAX] = -ENOSYS;
#else
    (void)si, (void)ctx;
#endif
}

static const int allowed[] = {
    SYS_clock_nanosleep, SYS_futex, SYS_rt_sigreturn, /* the design; the handler's return */
    SYS_getrusage, SYS_exit, SYS_munmap, SYS_madvise, SYS_mprotect, SYS_sigaltstack,
    SYS_rt_sigprocmask, /* the thread's end after its loop */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    SYS_mmap, /* the sanitizer runtimes map their own memory lazily (fake stacks, traces);
                 the plain build screens it */
#endif
};
#define N_ALLOWED (sizeof allowed / sizeof allowed[0])

/* Runs on the RT thread at the first boundary: from here on every call is screened. */
static void install_filter(void)
{
    struct sock_filter f[N_ALLOWED + 6];
    size_t n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, nr));
    for (size_t i = 0; i < N_ALLOWED; i++) /* a match jumps to the ALLOW at the end */
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)allowed[i],
                                              (unsigned char)(N_ALLOWED - i), 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
        atomic_store(&trace_failed, true);
    else
        atomic_store(&traced, true);
}

void trace_hook(void *user, int at, int64_t k)
{
    (void)user;
    if (at == RTC_EXEC_AT_BOUNDARY && !atomic_load(&traced) && !atomic_load(&trace_failed))
        install_filter();
    if (at == RTC_EXEC_AT_STEP && k == 5 && atomic_load(&violate))
        (void)!write(STDERR_FILENO, "", 0); /* positive control: a system call */
}

void trace_reset(bool with_violation)
{
    atomic_store(&n_traps, 0);
    atomic_store(&n_traps_after, 0);
    atomic_store(&traced, false);
    atomic_store(&trace_failed, false);
    atomic_store(&violate, with_violation);
}

/* The run phase held no system call outside the allowed set (listed when it did). */
void assert_trace_clean(void)
{
    if (!atomic_load(&traced)) {
        rtc_test_skip("rt_hygiene syscall trace", "seccomp filter refused by the kernel");
        return;
    }
    unsigned n = atomic_load(&n_traps);
    if (n) {
        printf("\n    run-phase system calls on the RT thread:");
        for (unsigned i = 0; i < n && i < MAX_TRAPS; i++)
            printf(" %d", atomic_load(&traps[i]));
    }
    printf("\n    syscall trace: %u run-phase violation(s), %u after the loop", n,
           atomic_load(&n_traps_after));
    CU_ASSERT_EQUAL(n, 0);
}

bool trace_supported(void)
{
#if defined(__x86_64__)
    struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGSYS, &sa, NULL) == 0;
#else
    return false;
#endif
}

/* ---- a logger that tells on which thread it was called ---- */

static void rlog_cb(void *user, int level, const char *msg)
{
    rlog *l = user;
    (void)level;
    atomic_fetch_add(&l->lines, 1);
    if (run_phase_thread()) /* a logger on the RT side formats, locks, writes: a violation */
        atomic_fetch_add(&l->on_rt, 1);
    if (strstr(msg, "Fault logs every step"))
        atomic_fetch_add(&l->fmu_lines, 1);
    pthread_mutex_lock(&l->mu);
    int n = snprintf(l->text + l->len, sizeof l->text - l->len, "%s\n", msg);
    if (n > 0 && l->len + (size_t)n < sizeof l->text)
        l->len += (size_t)n;
    pthread_mutex_unlock(&l->mu);
}

void rlog_init(rlog *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->lg = (rtc_logger){.log = rlog_cb, .user = l, .max_level = RTC_LOG_WARNING};
}
