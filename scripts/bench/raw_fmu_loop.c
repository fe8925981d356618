/*
 * raw_fmu_loop — the baseline of scripts/bench-fmu and scripts/bench-record: the least a host
 * can do to run an FMI 2 FMU and, with --csv, to record it. It extracts the FMU with
 * fmu-host (so both sides pay the same set-up), then dlopen()s the binary itself and calls
 * the FMU directly in a bare loop with t = k·h:
 *   Co-Simulation (default)  fmi2DoStep;
 *   --me euler|rk4           the method the engine's Model Exchange unit uses, with the
 *                            same arithmetic and the fewest calls (fmi2SetTime only when
 *                            the time changes), ending each step at (t + h, x(t + h));
 * and, with --csv FILE, fmi2GetReal of every output after each step, each row formatted
 * with the project's formatters (rtc_time_format_s, rtc_fmt_double) straight into one
 * buffer written in RTC_OFILE_FLUSH_BYTES pieces, the file fsynced at the end: the
 * physical limit of `rtcosim run FMU -o FILE` on one thread, whose CSV must be the same
 * bytes (the bench compares them). Without --csv nothing is fetched or recorded.
 *
 * usage: raw_fmu_loop [--me euler|rk4] [--csv FILE] FMU N_STEPS STEP_S
 * Prints "raw loop: N steps in T s (X ns/step)", the loop alone (stepping, and with --csv
 * formatting and writing), then with --csv "fsync: T ms".
 */
#include "rtc_fmi2.h"
#include "rtcosim/fmu.h"
#include "rtcosim/numfmt.h"
#include "rtcosim/ofile.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXN 16 /* states and recorded outputs this baseline handles */

typedef enum { CS, ME_EULER, ME_RK4 } method;

typedef struct raw {
    method m;
    fmi2Component c;
    fmi2DoStepTYPE *do_step;
    fmi2GetRealTYPE *get_real;
    fmi2SetTimeTYPE *set_time;
    fmi2SetContinuousStatesTYPE *set_x;
    fmi2GetDerivativesTYPE *get_dx;
    size_t nx, n_out;
    double t_fmu;
    double x[MAXN], x1[MAXN], k[4][MAXN], tmp[MAXN];
    fmi2ValueReference out_vr[MAXN];
    const char *out_name[MAXN];
    /* --csv */
    int fd;
    char *buf;
    size_t len;
} raw;

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
        fprintf(stderr, "raw_fmu_loop: the FMU has no %s\n", name);
        exit(1);
    }
    return p;
}

static void check(fmi2Status st, const char *what)
{
    if (st > fmi2Warning) {
        fprintf(stderr, "raw_fmu_loop: %s returned status %d\n", what, (int)st);
        exit(1);
    }
}

/* The Float64 outputs, in modelDescription order (rtcosim's default selection). */
static void find_outputs(raw *r, const rtc_model_desc *md)
{
    for (size_t i = 0; i < md->n_vars; i++) {
        const rtc_var *v = &md->vars[i];
        if (v->causality != RTC_CAUSALITY_OUTPUT)
            continue;
        if (v->type != RTC_TYPE_FLOAT64 || v->n_dims > 0 || r->n_out == MAXN) {
            fprintf(stderr, "raw_fmu_loop: --csv records up to %d scalar Real outputs; %s "
                    "is not one of them\n", MAXN, v->name);
            exit(1);
        }
        r->out_vr[r->n_out] = v->vr;
        r->out_name[r->n_out++] = v->name;
    }
}

/* Instantiate, initialize and (ME) enter Continuous-Time Mode, as the engine does. */
static void open_instance(raw *r, const rtc_fmu *fmu, double stop)
{
    const rtc_model_desc *md = rtc_fmu_model(fmu);
    const char *id = r->m == CS ? md->cs.model_identifier : md->me_model_identifier;
    if (!id) {
        fprintf(stderr, "raw_fmu_loop: the FMU has no %s interface\n",
                r->m == CS ? "Co-Simulation" : "Model Exchange");
        exit(1);
    }
    char so[PATH_MAX + 64];
    snprintf(so, sizeof so, "%s/binaries/linux64/%s.so", rtc_fmu_dir(fmu), id);
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "%s\n", dlerror());
        exit(1);
    }
    static const fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    r->c = ((fmi2InstantiateTYPE *)sym(dl, "fmi2Instantiate"))(
        "raw", r->m == CS ? fmi2CoSimulation : fmi2ModelExchange, md->guid, "file:///tmp", &cb,
        0, 0);
    if (!r->c)
        exit(1);
    check(((fmi2SetupExperimentTYPE *)sym(dl, "fmi2SetupExperiment"))(r->c, 0, 0, 0, 1, stop),
          "fmi2SetupExperiment");
    check(((fmi2EnterInitializationModeTYPE *)sym(dl, "fmi2EnterInitializationMode"))(r->c),
          "fmi2EnterInitializationMode");
    check(((fmi2ExitInitializationModeTYPE *)sym(dl, "fmi2ExitInitializationMode"))(r->c),
          "fmi2ExitInitializationMode");
    *(void **)&r->get_real = sym(dl, "fmi2GetReal");
    if (r->m == CS) {
        *(void **)&r->do_step = sym(dl, "fmi2DoStep");
        return;
    }
    fmi2EventInfo ev = {.newDiscreteStatesNeeded = fmi2True};
    while (ev.newDiscreteStatesNeeded)
        check(((fmi2NewDiscreteStatesTYPE *)sym(dl, "fmi2NewDiscreteStates"))(r->c, &ev),
              "fmi2NewDiscreteStates");
    check(((fmi2EnterContinuousTimeModeTYPE *)sym(dl, "fmi2EnterContinuousTimeMode"))(r->c),
          "fmi2EnterContinuousTimeMode");
    r->nx = md->structure.n_derivatives;
    if (r->nx > MAXN) {
        fprintf(stderr, "raw_fmu_loop: more than %d states\n", MAXN);
        exit(1);
    }
    check(((fmi2GetContinuousStatesTYPE *)sym(dl, "fmi2GetContinuousStates"))(r->c, r->x, r->nx),
          "fmi2GetContinuousStates");
    *(void **)&r->set_time = sym(dl, "fmi2SetTime");
    *(void **)&r->set_x = sym(dl, "fmi2SetContinuousStates");
    *(void **)&r->get_dx = sym(dl, "fmi2GetDerivatives");
    r->t_fmu = 0.0;
}

/* dx = f(t, x): the FMU is moved to (t, x) first; its time only when it changes. */
static void f(raw *r, double t, const double *x, double *dx)
{
    if (t != r->t_fmu) {
        r->set_time(r->c, t);
        r->t_fmu = t;
    }
    if (x != r->x) /* r->x is where the FMU already is */
        r->set_x(r->c, x, r->nx);
    r->get_dx(r->c, dx, r->nx);
}

/* One ME step from (t, r->x) to te: the engine's arithmetic (me_solver.c), then the FMU is
 * left at (te, x(te)) where the outputs are read. */
static void me_step(raw *r, double t, double te)
{
    double h = te - t, (*k)[MAXN] = r->k;
    size_t n = r->nx;
    f(r, t, r->x, k[0]);
    if (r->m == ME_EULER) {
        for (size_t i = 0; i < n; i++)
            r->x1[i] = r->x[i] + h * k[0][i];
    } else {
        static const double c[] = {0.5, 0.5, 1.0};
        for (int s = 0; s < 3; s++) {
            for (size_t i = 0; i < n; i++)
                r->tmp[i] = r->x[i] + c[s] * h * k[s][i];
            f(r, s == 2 ? t + h : t + 0.5 * h, r->tmp, k[s + 1]);
        }
        for (size_t i = 0; i < n; i++)
            r->x1[i] = r->x[i] + h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    }
    memcpy(r->x, r->x1, n * sizeof *r->x);
    if (te != r->t_fmu) {
        r->set_time(r->c, te);
        r->t_fmu = te;
    }
    r->set_x(r->c, r->x, n);
}

static void write_out(raw *r)
{
    for (size_t at = 0; at < r->len;) {
        ssize_t n = write(r->fd, r->buf + at, r->len - at);
        if (n <= 0) {
            perror("raw_fmu_loop: write");
            exit(1);
        }
        at += (size_t)n;
    }
    r->len = 0;
}

/* One row: the outputs now, at @p t_ns, formatted as rtcosim formats them. */
static void row(raw *r, int64_t t_ns)
{
    double v[MAXN];
    check(r->get_real(r->c, r->out_vr, r->n_out, v), "fmi2GetReal");
    char *p = r->buf + r->len;
    p += rtc_time_format_s(t_ns, p, RTC_NUMFMT_MAX);
    for (size_t i = 0; i < r->n_out; i++) {
        *p++ = ',';
        p += rtc_fmt_double(v[i], p);
    }
    *p++ = '\n';
    r->len = (size_t)(p - r->buf);
    if (r->len >= RTC_OFILE_FLUSH_BYTES)
        write_out(r);
}

static void open_csv(raw *r, const char *path)
{
    r->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    r->buf = malloc(RTC_OFILE_FLUSH_BYTES + (MAXN + 1) * (RTC_NUMFMT_MAX + 1) + 1);
    if (r->fd < 0 || !r->buf) {
        perror(path);
        exit(1);
    }
    r->len = (size_t)snprintf(r->buf, 64, "\"time\"");
    for (size_t i = 0; i < r->n_out; i++) /* plain names: no quotes to double here */
        r->len += (size_t)sprintf(r->buf + r->len, ",\"%s\"", r->out_name[i]);
    r->buf[r->len++] = '\n';
}

int main(int argc, char **argv)
{
    raw r = {.m = CS, .fd = -1};
    const char *csv = NULL;
    int a = 1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (!strcmp(argv[a], "--csv"))
            csv = argv[a + 1];
        else if (!strcmp(argv[a], "--me") && !strcmp(argv[a + 1], "euler"))
            r.m = ME_EULER;
        else if (!strcmp(argv[a], "--me") && !strcmp(argv[a + 1], "rk4"))
            r.m = ME_RK4;
        else
            break;
    }
    if (argc - a != 3) {
        fprintf(stderr, "usage: raw_fmu_loop [--me euler|rk4] [--csv FILE] FMU N_STEPS STEP_S\n");
        return 2;
    }
    rtc_logger lg = rtc_logger_stderr(RTC_LOG_WARNING);
    rtc_fmu *fmu;
    int64_t h_ns;
    long n = atol(argv[a + 1]);
    if (rtc_time_parse_s(argv[a + 2], &h_ns) != RTC_OK || h_ns <= 0 || n <= 0) {
        fprintf(stderr, "raw_fmu_loop: bad N_STEPS or STEP_S\n");
        return 2;
    }
    if (rtc_fmu_open(argv[a], NULL, &lg, &fmu) != RTC_OK)
        return 1;
    if (csv)
        find_outputs(&r, rtc_fmu_model(fmu));
    open_instance(&r, fmu, rtc_time_to_s(n * h_ns));
    if (csv) {
        open_csv(&r, csv);
        row(&r, 0);
    }
    double h = rtc_time_to_s(h_ns);
    int64_t t0 = rtc_time_now_ns();
    for (long k = 0; k < n; k++) {
        double t = rtc_time_to_s(k * h_ns);
        if (r.m == CS)
            check(r.do_step(r.c, t, h, fmi2True), "fmi2DoStep");
        else
            me_step(&r, t, t + h);
        if (csv)
            row(&r, (k + 1) * h_ns);
    }
    if (csv)
        write_out(&r);
    double dt = rtc_time_to_s(rtc_time_now_ns() - t0);
    printf("raw loop: %ld steps in %.6f s (%.1f ns/step)\n", n, dt, dt / (double)n * 1e9);
    if (csv) {
        int64_t s0 = rtc_time_now_ns();
        if (fsync(r.fd) != 0 || close(r.fd) != 0) {
            perror(csv);
            return 1;
        }
        printf("fsync: %.3f ms\n", rtc_time_to_s(rtc_time_now_ns() - s0) * 1e3);
        free(r.buf);
    }
    /* Process exit releases the instance; the comparison is about the loop. */
    rtc_fmu_close(fmu);
    return 0;
}
