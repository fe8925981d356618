/*
 * bench_me — scripts/bench-me: the cost of Model Exchange units against a bare loop.
 *
 * (1) For each solver (euler, heun, rk4, implicit) the engine's ME unit (fmu-host,
 *     rtc_fmu_unit_new_opts) integrates an FMI 2 ME FMU for N communication steps of S
 *     substeps; a bare loop in this file does the same method with the same FMU functions
 *     called directly (fmi2SetTime, fmi2SetContinuousStates, fmi2GetDerivatives, and
 *     fmi2GetDirectionalDerivative for the implicit method), no event handling, no
 *     bookkeeping. Both print ns per substep per state; the ratio is the engine's overhead.
 * (2) The worst-case time of one communication step of BouncingBall (state events located
 *     inside the step, event iteration) against the median step.
 *
 * usage: bench_me DIR_OF_FMI2_FMUS [N_STEPS] [SUBSTEPS]
 */
#include "rtc_fmi2.h"
#include "rtcosim/fmu.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 16

static double now_s(void)
{
    return rtc_time_to_s(rtc_time_now_ns());
}

typedef struct bare {
    fmi2Component c;
    fmi2SetTimeTYPE *set_time;
    fmi2SetContinuousStatesTYPE *set_x;
    fmi2GetDerivativesTYPE *get_dx;
    fmi2GetDirectionalDerivativeTYPE *dd;
    size_t nx;
    fmi2ValueReference xvr[MAXN], dxvr[MAXN];
} bare;

static void logger(fmi2ComponentEnvironment env, fmi2String inst, fmi2Status st, fmi2String cat,
                   fmi2String msg, ...)
{
    (void)env;
    fprintf(stderr, "%s [%s] %d: %s\n", inst, cat, (int)st, msg);
}

static void *sym(void *dl, const char *name)
{
    void *p = dlsym(dl, name);
    if (!p) {
        fprintf(stderr, "bench_me: missing %s\n", name);
        exit(1);
    }
    return p;
}

/* Instantiate the FMU's ME interface directly and bring it to Continuous-Time Mode. */
static void bare_open(bare *b, rtc_fmu *fmu, double *x)
{
    const rtc_model_desc *md = rtc_fmu_model(fmu);
    static const fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    char so[PATH_MAX + 64];
    snprintf(so, sizeof so, "%s/binaries/linux64/%s.so", rtc_fmu_dir(fmu),
             md->me_model_identifier);
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!dl)
        exit(1);
    b->c = ((fmi2InstantiateTYPE *)sym(dl, "fmi2Instantiate"))("bare", fmi2ModelExchange,
                                                                md->guid, "", &cb, 0, 0);
    ((fmi2SetupExperimentTYPE *)sym(dl, "fmi2SetupExperiment"))(b->c, 0, 0, 0, 0, 0);
    ((fmi2EnterInitializationModeTYPE *)sym(dl, "fmi2EnterInitializationMode"))(b->c);
    ((fmi2ExitInitializationModeTYPE *)sym(dl, "fmi2ExitInitializationMode"))(b->c);
    fmi2EventInfo ev = {.newDiscreteStatesNeeded = fmi2True};
    while (ev.newDiscreteStatesNeeded)
        ((fmi2NewDiscreteStatesTYPE *)sym(dl, "fmi2NewDiscreteStates"))(b->c, &ev);
    ((fmi2EnterContinuousTimeModeTYPE *)sym(dl, "fmi2EnterContinuousTimeMode"))(b->c);
    b->nx = md->structure.n_derivatives;
    ((fmi2GetContinuousStatesTYPE *)sym(dl, "fmi2GetContinuousStates"))(b->c, x, b->nx);
    *(void **)&b->set_time = sym(dl, "fmi2SetTime");
    *(void **)&b->set_x = sym(dl, "fmi2SetContinuousStates");
    *(void **)&b->get_dx = sym(dl, "fmi2GetDerivatives");
    *(void **)&b->dd = sym(dl, "fmi2GetDirectionalDerivative");
    for (size_t i = 0; i < b->nx; i++) {
        const rtc_var *d = &md->vars[md->structure.derivatives[i].var];
        b->dxvr[i] = d->vr;
        b->xvr[i] = md->vars[d->derivative_of].vr;
    }
}

static void f(bare *b, double t, const double *x, double *dx)
{
    b->set_time(b->c, t);
    b->set_x(b->c, x, b->nx);
    b->get_dx(b->c, dx, b->nx);
}

/* One step of method m the plainest way (2x2..16x16 Gauss elimination for implicit). */
static void bare_step(bare *b, rtc_me_solver m, double t, double h, double *x)
{
    size_t n = b->nx;
    double k[4][MAXN], y[MAXN], a[MAXN][MAXN + 1];
    f(b, t, x, k[0]);
    if (m == RTC_ME_EULER) {
        for (size_t i = 0; i < n; i++)
            x[i] += h * k[0][i];
    } else if (m == RTC_ME_HEUN) {
        for (size_t i = 0; i < n; i++)
            y[i] = x[i] + h * k[0][i];
        f(b, t + h, y, k[1]);
        for (size_t i = 0; i < n; i++)
            x[i] += 0.5 * h * (k[0][i] + k[1][i]);
    } else if (m == RTC_ME_RK4) {
        static const double c[] = {0.5, 0.5, 1.0};
        for (int s = 0; s < 3; s++) {
            for (size_t i = 0; i < n; i++)
                y[i] = x[i] + c[s] * h * k[s][i];
            f(b, t + c[s] * h, y, k[s + 1]);
        }
        for (size_t i = 0; i < n; i++)
            x[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    } else {
        static const double one = 1.0;
        for (size_t j = 0; j < n; j++) {
            b->dd(b->c, b->dxvr, n, &b->xvr[j], 1, &one, y);
            for (size_t i = 0; i < n; i++)
                a[i][j] = (i == j) - h * y[i];
        }
        for (size_t i = 0; i < n; i++)
            a[i][n] = h * k[0][i];
        for (size_t p = 0; p < n; p++) /* no pivoting: I - hJ is dominant here */
            for (size_t i = p + 1; i < n; i++) {
                double l = a[i][p] / a[p][p];
                for (size_t j = p; j <= n; j++)
                    a[i][j] -= l * a[p][j];
            }
        for (size_t i = n; i-- > 0;) {
            for (size_t j = i + 1; j < n; j++)
                a[i][n] -= a[i][j] * a[j][n];
            x[i] += a[i][n] / a[i][i];
        }
    }
}

static rtc_unit *engine_unit(rtc_fmu *fmu, rtc_me_solver m, unsigned substeps, double stop)
{
    rtc_logger lg = rtc_logger_stderr(RTC_LOG_WARNING);
    static rtc_logger keep;
    keep = lg;
    rtc_fmu_unit_opts o = {.iface = RTC_FMU_IFACE_ME, .solver = m, .substeps = substeps};
    rtc_unit *u;
    rtc_unit_setup s = {.instance_name = "engine", .stop_time_defined = true,
                        .stop_time_s = stop};
    if (rtc_fmu_unit_new_opts(fmu, "engine", &o, &keep, &u) != RTC_OK ||
        u->ops->instantiate(u->self, &s) || u->ops->enter_init(u->self) ||
        u->ops->exit_init(u->self))
        exit(1);
    return u;
}

static double time_engine(rtc_fmu *fmu, rtc_me_solver m, long n, unsigned sub, double h)
{
    rtc_unit *u = engine_unit(fmu, m, sub, n * h);
    rtc_step_result r;
    double t0 = now_s();
    for (long k = 0; k < n; k++)
        if (u->ops->do_step(u->self, k * h, h, &r) != RTC_OK)
            exit(1);
    double dt = now_s() - t0;
    u->ops->free(u->self);
    return dt;
}

static double time_bare(rtc_fmu *fmu, rtc_me_solver m, long n, unsigned sub, double h)
{
    bare b;
    double x[MAXN];
    bare_open(&b, fmu, x);
    double t0 = now_s();
    for (long k = 0; k < n; k++)
        for (unsigned s = 0; s < sub; s++)
            bare_step(&b, m, k * h + s * (h / sub), h / sub, x);
    return now_s() - t0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* (2): BouncingBall, RK4, one substep per 10 ms step, 3 s: worst and median step. */
static void event_steps(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/BouncingBall.fmu", dir);
    rtc_logger lg = rtc_logger_stderr(RTC_LOG_WARNING);
    rtc_fmu *fmu;
    if (rtc_fmu_open(path, NULL, &lg, &fmu) != RTC_OK)
        exit(1);
    enum { N = 300 };
    double dt[N], h = 0.01, worst = 0.0;
    long worst_k = 0;
    for (int rep = 0; rep < 20; rep++) { /* repeat for a stable worst case and median */
        rtc_unit *u = engine_unit(fmu, RTC_ME_RK4, 1, 3.0);
        rtc_step_result r;
        for (long k = 0; k < N; k++) {
            double t0 = now_s();
            u->ops->do_step(u->self, k * h, h, &r);
            double d = now_s() - t0;
            dt[k] = rep ? fmin(dt[k], d) : d;
        }
        rtc_me_events ev;
        rtc_fmu_unit_events(u, &ev);
        if (rep == 0)
            printf("BouncingBall ME (rk4, 1 substep of 10 ms, 3 s): %llu state events, %llu "
                   "event iterations\n", (unsigned long long)ev.state_events,
                   (unsigned long long)ev.iterations);
        u->ops->free(u->self);
    }
    for (long k = 0; k < N; k++)
        if (dt[k] > worst)
            worst = dt[k], worst_k = k;
    qsort(dt, N, sizeof *dt, cmp_d);
    printf("  worst communication step: %.0f ns (t = %.2f s, a step with an impact), median "
           "%.0f ns, ratio %.1f (best of 20 runs per step)\n",
           worst * 1e9, worst_k * h, dt[N / 2] * 1e9, worst / dt[N / 2]);
    rtc_fmu_close(fmu);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_me DIR_OF_FMI2_FMUS [N_STEPS] [SUBSTEPS]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 20000;
    unsigned sub = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/VanDerPol.fmu", argv[1]);
    rtc_logger lg = rtc_logger_stderr(RTC_LOG_WARNING);
    rtc_fmu *fmu;
    if (rtc_fmu_open(path, NULL, &lg, &fmu) != RTC_OK)
        return 1;
    double h = 0.01, nx = (double)rtc_fmu_model(fmu)->structure.n_derivatives;
    printf("VanDerPol ME (FMI 2, %g states), %ld steps of %g s, %u substeps each\n\n", nx, n,
           h, sub);
    printf("%-10s %22s %22s %8s\n", "solver", "engine ns/substep/state", "bare ns/substep/state",
           "ratio");
    static const rtc_me_solver ms[] = {RTC_ME_EULER, RTC_ME_HEUN, RTC_ME_RK4, RTC_ME_IMPLICIT};
    for (size_t i = 0; i < 4; i++) {
        double best_e = INFINITY, best_b = INFINITY;
        for (int rep = 0; rep < 3; rep++) { /* alternate, keep the best of each */
            best_e = fmin(best_e, time_engine(fmu, ms[i], n, sub, h));
            best_b = fmin(best_b, time_bare(fmu, ms[i], n, sub, h));
        }
        double per = 1e9 / ((double)n * sub * nx);
        printf("%-10s %22.1f %22.1f %8.2f\n", rtc_me_solver_name(ms[i]), best_e * per,
               best_b * per, best_e / best_b);
    }
    printf("\ntarget: engine <= 2x the bare loop of the same FMU calls\n\n");
    rtc_fmu_close(fmu);
    event_steps(argv[1]);
    return 0;
}
