/*
 * raw_fmu_loop — the baseline of scripts/bench-fmu: the least a host can do to run an FMI 2
 * co-simulation FMU. It extracts the FMU with fmu-host (so both sides pay the same set-up),
 * then dlopen()s the binary itself and calls fmi2DoStep directly in a bare loop with
 * t = k·h, recording nothing.
 *
 * usage: raw_fmu_loop FMU N_STEPS STEP_S
 * Prints "raw loop: N steps in T s (X ns/step)", the loop alone.
 */
#include "rtc_fmi2.h"
#include "rtcosim/fmu.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void logger(fmi2ComponentEnvironment env, fmi2String inst, fmi2Status st, fmi2String cat,
                   fmi2String msg, ...)
{
    (void)env;
    fprintf(stderr, "%s [%s] %d: %s\n", inst, cat, (int)st, msg);
}

static double now_s(void)
{
    return rtc_time_to_s(rtc_time_now_ns());
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: raw_fmu_loop FMU N_STEPS STEP_S\n");
        return 2;
    }
    rtc_logger lg = rtc_logger_stderr(RTC_LOG_WARNING);
    rtc_fmu *fmu;
    if (rtc_fmu_open(argv[1], NULL, &lg, &fmu) != RTC_OK)
        return 1;
    const rtc_model_desc *md = rtc_fmu_model(fmu);
    long n = atol(argv[2]);
    double h = atof(argv[3]);
    char so[PATH_MAX + 64];
    snprintf(so, sizeof so, "%s/binaries/linux64/%s.so", rtc_fmu_dir(fmu), md->cs.model_identifier);
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    fmi2InstantiateTYPE *inst;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2DoStepTYPE *step;
    *(void **)&inst = dlsym(dl, "fmi2Instantiate");
    *(void **)&setup = dlsym(dl, "fmi2SetupExperiment");
    *(void **)&enter = dlsym(dl, "fmi2EnterInitializationMode");
    *(void **)&exit_init = dlsym(dl, "fmi2ExitInitializationMode");
    *(void **)&step = dlsym(dl, "fmi2DoStep");
    const fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    fmi2Component c = inst("raw", fmi2CoSimulation, md->guid, "file:///tmp", &cb, 0, 0);
    if (!c || setup(c, 0, 0, 0, 1, (double)n * h) > fmi2Warning || enter(c) > fmi2Warning ||
        exit_init(c) > fmi2Warning)
        return 1;
    double t0 = now_s();
    for (long k = 0; k < n; k++) {
        if (step(c, (double)k * h, h, fmi2True) != fmi2OK)
            return 1;
    }
    double dt = now_s() - t0;
    printf("raw loop: %ld steps in %.6f s (%.1f ns/step)\n", n, dt, dt / (double)n * 1e9);
    /* Process exit releases the instance; the comparison is about the loop. */
    rtc_fmu_close(fmu);
    return 0;
}
