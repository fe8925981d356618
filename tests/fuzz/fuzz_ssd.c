/*
 * tests/fuzz/fuzz_ssd.c — an .ssd (SystemStructureDescription) through rtc_ssp_load(),
 * written as SystemStructure.ssd into a private temporary directory: relative sources it
 * names resolve inside that directory, which is removed after each run.
 */
#include "fuzz_util.h"

#include "rtcosim/ssp.h"

#include <limits.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[PATH_MAX], path[PATH_MAX];
    rtc_fuzz_tmpdir(dir, sizeof dir);
    rtc_fuzz_write(dir, "SystemStructure.ssd", data, size, path);
    rtc_ssp *ssp = NULL;
    rtc_ssp_load(path, rtc_fuzz_logger(), &ssp);
    rtc_ssp_free(ssp);
    rtc_fuzz_rmdir(dir);
    return 0;
}
