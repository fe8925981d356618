/*
 * bench_system — engine overhead per unit-step of the Jacobi and Gauss-Seidel masters for
 * systems of 1, 10, 100 and 1000 units (scripts/bench-system prints its table; not a test).
 *
 * Each system is a ring of Lag FMUs (unit i's y feeds unit i+1's u1) stepped at 1 ms with
 * no recording. The baseline, measured in the same run, makes exactly the FMI calls the
 * engine makes per unit-step — fmi2SetReal of the input, fmi2DoStep, fmi2GetReal of the
 * output — on the same number of instances, in a bare loop. Engine overhead per
 * unit-step = (engine time − baseline time) / unit-steps: the time spent outside FMU
 * calls (links, buffers, due checks, status handling, the unit interface).
 *
 * With WORKERS > 0 only Jacobi runs, on that many worker threads: every Lag instance
 * shares one owner (one FMU file), so the rows measure the per-tick hand-off between the
 * coordinator and the workers (system/src/masters/jacobi_workers.c) on top of the
 * sequential engine.
 *
 * usage: bench_system LAG_FMU [UNIT_STEPS [WORKERS [SIZES]]]   (SIZES: e.g. 1,10,100,1000)
 */
#include "rtc_fmi2.h"
#include "rtcosim/fmu.h"
#include "rtcosim/status.h"
#include "rtcosim/system.h"
#include "rtcosim/time.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    return rtc_time_to_s(rtc_time_now_ns());
}

/* An SSD with n Lag units in a ring; returns its path in a fresh temporary directory. */
static int write_ring(const char *dir, const char *fmu, size_t n, const char *algo, char *path)
{
    snprintf(path, PATH_MAX, "%s/ring%zu-%s.ssd", dir, n, algo);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
               "name=\"ring\" xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
               "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
               "xmlns:rtc=\"urn:rtcosim:realtime:1\">\n<ssd:System name=\"s\">\n<ssd:Elements>\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "<ssd:Component name=\"u%zu\" source=\"%s\"><ssd:Connectors>"
                   "<ssd:Connector name=\"u1\" kind=\"input\"><ssc:Real/></ssd:Connector>"
                   "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>"
                   "</ssd:Connectors></ssd:Component>\n", i, fmu);
    fprintf(f, "</ssd:Elements>\n<ssd:Connections>\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "<ssd:Connection startElement=\"u%zu\" startConnector=\"y\" endElement=\"u%zu\" "
                   "endConnector=\"u1\">%s</ssd:Connection>\n", i, (i + 1) % n,
                i + 1 < n ? "" : /* the ring is cut here for Gauss-Seidel */
                "<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
                "<rtc:Connection breakLoop=\"true\"/></ssc:Annotation></ssd:Annotations>");
    fprintf(f, "</ssd:Connections>\n<ssd:Annotations><ssc:Annotation type=\"org.rtcosim.realtime\">"
               "<rtc:RealTime baseStep=\"0.001\" algorithm=\"%s\"/></ssc:Annotation>"
               "</ssd:Annotations>\n</ssd:System>\n<ssd:DefaultExperiment startTime=\"0\" "
               "stopTime=\"100000\"/>\n</ssd:SystemStructureDescription>\n", algo);
    return fclose(f);
}

/* Ticks per timed batch for n units: about 10^4 unit-steps (a millisecond or so). The
 * machine is shared: a batch during which another process ran, or after which the caches
 * were cold, is slower, so each side reports its fastest batch (both the same way). */
static long batch_ticks(size_t n)
{
    return n >= 10000 ? 1 : (long)(10000 / n);
}

/* The timed loops are functions of their own, so that a profiler can count just them
 * (valgrind --tool=callgrind --toggle-collect=engine_ticks --toggle-collect=raw_ticks).
 * Each returns the seconds per tick of its fastest batch. */
__attribute__((noinline)) static double engine_ticks(rtc_system *sys, long ticks, long batch)
{
    double best = 1e30;
    for (long k = 0; k < ticks; k += batch) {
        long m = ticks - k < batch ? ticks - k : batch;
        double t0 = now_s();
        for (long i = 0; i < m; i++)
            if (rtc_system_step(sys) != RTC_OK)
                return -1;
        double dt = (now_s() - t0) / (double)m;
        best = dt < best ? dt : best;
    }
    return best;
}

static double run_engine(const char *ssd, long ticks, unsigned workers, const rtc_logger *lg)
{
    rtc_unit_factory f;
    rtc_system *sys = NULL;
    rtc_system_options so = {.workers = workers};
    if (rtc_fmu_factory(&f) != RTC_OK || rtc_system_load(ssd, &f, 1, &so, lg, &sys) != RTC_OK ||
        rtc_system_init(sys) != RTC_OK) {
        rtc_system_free(sys);
        return -1;
    }
    double dt = engine_ticks(sys, ticks, batch_ticks(rtc_system_unit_count(sys)));
    rtc_system_free(sys);
    return dt;
}

typedef struct raw_api {
    fmi2InstantiateTYPE *inst;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2SetRealTYPE *set;
    fmi2GetRealTYPE *get;
    fmi2DoStepTYPE *step;
    fmi2FreeInstanceTYPE *free_inst;
} raw_api;

static void quiet(fmi2ComponentEnvironment e, fmi2String i, fmi2Status s, fmi2String c,
                  fmi2String m, ...)
{
    (void)e, (void)i, (void)s, (void)c, (void)m;
}

__attribute__((noinline)) static double raw_ticks(const raw_api *a, fmi2Component *c, double *y,
                                                 size_t n, long ticks, long batch)
{
    const fmi2ValueReference vr_u1 = 6, vr_y = 8;
    double best = 1e30;
    for (long k0 = 0; k0 < ticks; k0 += batch) {
        long end = ticks - k0 < batch ? ticks : k0 + batch;
        double t0 = now_s();
        for (long k = k0; k < end; k++) {
            double t = (double)k * 1e-3;
            for (size_t i = 0; i < n; i++) {
                double u = y[(i + n - 1) % n];
                a->set(c[i], &vr_u1, 1, &u);
                a->step(c[i], t, 1e-3, fmi2True);
                a->get(c[i], &vr_y, 1, &y[i]);
            }
        }
        double dt = (now_s() - t0) / (double)(end - k0);
        best = dt < best ? dt : best;
    }
    return best;
}

/* The same FMI calls as the engine per unit-step, in a bare loop over n instances. */
static double run_raw(void *dl, const char *guid, size_t n, long ticks)
{
    raw_api a;
    *(void **)&a.inst = dlsym(dl, "fmi2Instantiate");
    *(void **)&a.setup = dlsym(dl, "fmi2SetupExperiment");
    *(void **)&a.enter = dlsym(dl, "fmi2EnterInitializationMode");
    *(void **)&a.exit_init = dlsym(dl, "fmi2ExitInitializationMode");
    *(void **)&a.set = dlsym(dl, "fmi2SetReal");
    *(void **)&a.get = dlsym(dl, "fmi2GetReal");
    *(void **)&a.step = dlsym(dl, "fmi2DoStep");
    *(void **)&a.free_inst = dlsym(dl, "fmi2FreeInstance");
    const fmi2CallbackFunctions cb = {quiet, calloc, free, NULL, NULL};
    fmi2Component *c = calloc(n, sizeof *c);
    double *y = calloc(n, sizeof *y);
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "u%zu", i);
        c[i] = a.inst(name, fmi2CoSimulation, guid, "file:///tmp", &cb, 0, 0);
        if (!c[i] || a.setup(c[i], 0, 0, 0, 0, 0) || a.enter(c[i]) || a.exit_init(c[i]))
            return -1;
    }
    double dt = raw_ticks(&a, c, y, n, ticks, batch_ticks(n));
    for (size_t i = 0; i < n; i++)
        a.free_inst(c[i]);
    free(c);
    free(y);
    return dt;
}

/* One row: the engine and the bare loop on a ring of n units, best batch of 3 runs each. */
static int row(const char *dir, const char *fmu_path, void *dl, const char *guid, size_t n,
               const char *algo, long unit_steps, unsigned workers, const rtc_logger *lg,
               double *first)
{
    long ticks = unit_steps / (long)n;
    char ssd[PATH_MAX];
    if (ticks < 1 || write_ring(dir, fmu_path, n, algo, ssd) != 0)
        return -1;
    double best_e = 1e9, best_r = 1e9; /* seconds per tick */
    for (int rep = 0; rep < 3; rep++) {
        double e = run_engine(ssd, ticks, workers, lg), r = run_raw(dl, guid, n, ticks);
        if (e < 0 || r < 0)
            return -1;
        best_e = e < best_e ? e : best_e;
        best_r = r < best_r ? r : best_r;
    }
    unlink(ssd);
    double e_ns = best_e / (double)n * 1e9, r_ns = best_r / (double)n * 1e9, ov = e_ns - r_ns;
    if (*first == 0)
        *first = ov;
    printf("%-13s %5zu %10ld %14.1f %14.1f %14.1f %8.2f\n", algo, n, ticks, e_ns, r_ns, ov,
           ov / *first);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_system LAG_FMU [UNIT_STEPS [WORKERS [SIZES]]]\n");
        return 2;
    }
    long unit_steps = argc > 2 ? atol(argv[2]) : 3000000;
    unsigned workers = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    size_t sizes[16] = {1, 10, 100, 1000}, n_sizes = 4;
    if (argc > 4) { /* "1,1000": the rows to run (a profile of one size) */
        n_sizes = 0;
        for (char *p = argv[4], *e; *p && n_sizes < 16; p = *e ? e + 1 : e) {
            sizes[n_sizes] = (size_t)strtoul(p, &e, 10);
            if (e == p || sizes[n_sizes++] == 0) {
                fprintf(stderr, "bench_system: SIZES '%s': a comma-separated list of unit "
                        "counts >= 1\n", argv[4]);
                return 2;
            }
        }
    }
    char fmu_path[PATH_MAX]; /* absolute: the SSD refers to it from a temporary directory */
    if (!realpath(argv[1], fmu_path)) {
        perror(argv[1]);
        return 1;
    }
    rtc_logger lg = rtc_logger_stderr(RTC_LOG_WARNING);
    rtc_fmu *fmu;
    if (rtc_fmu_open(argv[1], NULL, &lg, &fmu) != RTC_OK)
        return 1;
    char so[PATH_MAX + 64], dir[] = "/tmp/rtc-bench-system.XXXXXX";
    snprintf(so, sizeof so, "%s/binaries/linux64/Lag.so", rtc_fmu_dir(fmu));
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!dl || !mkdtemp(dir))
        return 1;
    static const char *const algos[] = {"jacobi", "gauss-seidel"};
    printf("%-13s %5s %10s %14s %14s %14s %8s\n", "master", "units", "ticks", "engine ns/us",
           "FMI ns/us", "overhead ns/us", "vs 1");
    if (workers)
        printf("(Jacobi on %u worker thread(s))\n", workers);
    for (int a = 0; a < (workers ? 1 : 2); a++) {
        double first = 0;
        for (size_t s = 0; s < n_sizes; s++)
            if (row(dir, fmu_path, dl, rtc_fmu_model(fmu)->guid, sizes[s], algos[a], unit_steps,
                    workers, &lg, &first) != 0)
                return 1;
    }
    printf("(us = unit-step; FMI = the same set/doStep/get calls in a bare loop, same run;\n"
           " overhead = engine - FMI; vs 1 = overhead / the first row's; each side: its fastest\n"
           " batch of ~10^4 unit-steps over 3 runs, the machine being shared)\n");
    rmdir(dir);
    rtc_fmu_close(fmu);
    return 0;
}
