/*
 * tests/fuzz/fuzz_dcpx.c — a DCP slave description (.dcpx) through rtc_dcpx_read(), which
 * takes a path: the input is written to a private temporary directory removed after each
 * run. A refusal must have been reported; what is accepted is walked (every variable found
 * again by its name, every template by its id).
 */
#include "fuzz_util.h"

#include "rtcosim/dcpx.h"

static void read_dcpx(const char *path)
{
    rtc_dcpx *d = NULL;
    rtc_fuzz_errors_reset();
    rtc_fuzz_check_reported(rtc_dcpx_read(path, rtc_fuzz_logger(), &d), "rtc_dcpx_read");
    for (size_t i = 0; d && i < d->n_vars; i++)
        if (!d->vars[i].name || !rtc_dcpx_find(d, d->vars[i].name))
            rtc_fuzz_fail("an accepted variable is not found by its name", d->vars[i].name);
    for (size_t i = 0; d && i < d->n_templates; i++)
        if (!rtc_dcpx_template_find(d, d->templates[i].id))
            rtc_fuzz_fail("an accepted template is not found by its id", d->templates[i].msg);
    rtc_dcpx_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtc_fuzz_on_file("slave.dcpx", data, size, read_dcpx);
    return 0;
}
