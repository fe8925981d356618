/*
 * tests/fuzz/fuzz_md.c — modelDescription.xml (FMI 2.0 and 3.0: the fmiVersion attribute
 * picks the reader) through rtc_fmu_md_read(), which takes a path: the input is written to
 * a private temporary directory removed after each run.
 */
#include "fuzz_util.h"

#include "rtcosim/fmu.h"

static void read_md(const char *path)
{
    rtc_model_desc *md = NULL;
    rtc_fuzz_errors_reset();
    rtc_fuzz_check_reported(rtc_fmu_md_read(path, rtc_fuzz_logger(), &md), "rtc_fmu_md_read");
    rtc_fmu_md_free(md);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtc_fuzz_on_file("modelDescription.xml", data, size, read_md);
    return 0;
}
