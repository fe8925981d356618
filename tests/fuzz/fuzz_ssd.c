/*
 * tests/fuzz/fuzz_ssd.c — an .ssd (SystemStructureDescription) through rtc_ssp_load(),
 * written as SystemStructure.ssd into a private temporary directory: relative sources it
 * names resolve inside that directory, which is removed after each run.
 */
#include "fuzz_util.h"

#include "rtcosim/ssp.h"

static void load(const char *path)
{
    rtc_ssp *ssp = NULL;
    rtc_fuzz_errors_reset();
    rtc_fuzz_check_reported(rtc_ssp_load(path, rtc_fuzz_logger(), &ssp), "rtc_ssp_load");
    rtc_ssp_free(ssp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtc_fuzz_on_file("SystemStructure.ssd", data, size, load);
    return 0;
}
