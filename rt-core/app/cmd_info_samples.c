/*
 * `rtcosim info --samples SESSION_DIR|inputs.bin`: every bench sample a real-time session
 * consumed, as text — what `rtcosim plot` draws as the raw late samples beside their
 * estimate, and what a user reads to see what a bench sent and when it arrived.
 */
#include "cli.h"
#include "rt_cli.h"

#include "rtcosim/numfmt.h"
#include "rtcosim/session.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int rtc_cli_info_samples(const char *path)
{
    char file[4200];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(file, sizeof file, "%s/inputs.bin", path);
    else
        snprintf(file, sizeof file, "%s", path);
    rtc_inputs in = {0};
    char err[512];
    if (rtc_inputs_read(file, &in, err, sizeof err) != RTC_OK) {
        fprintf(stderr, "rtcosim info: error: %s: %s\n", file, err);
        return RTC_EXIT_ERROR;
    }
    printf("# signal\tk\tsample_s\tarrival_s\tvalue\n");
    for (size_t i = 0; i < in.n_recs; i++) {
        const rtc_inputs_rec *r = &in.recs[i];
        if (r->kind != 1 || r->index >= in.n_signals)
            continue; /* commands and the end record */
        char a[40], b[40], v[RTC_NUMFMT_MAX];
        rtc_time_format_s(in.start_ns + r->a_ns, a, sizeof a); /* exact decimal seconds */
        rtc_time_format_s(in.start_ns + r->b_ns, b, sizeof b);
        rtc_fmt_double_short(r->value, v);
        printf("%s.%s\t%lld\t%s\t%s\t%s\n", in.sig_unit[r->index], in.sig_name[r->index],
               (long long)r->k, a, b, v);
    }
    rtc_inputs_clear(&in);
    return RTC_EXIT_OK;
}
