/*
 * tests/fuzz/fuzz_inputs.c — a session's inputs.bin through the reader `rtcosim replay`
 * uses (rtc_inputs_read, which takes a path), then the replay feed: every signal's
 * samples are handed out as the replay I/O units would ask for them, up to the last
 * recorded tick, so the times the reader accepted are computed too.
 */
#include "fuzz_util.h"

#include "rtcosim/io_unit.h"
#include "rtcosim/session.h"
#include "rtcosim/status.h"

#include <stdint.h>
#include <string.h>

/* Look every signal up by name, then ask for each one's samples up to the end of time,
 * as the replay I/O units do tick by tick (feed->next computes each record's k·tick). */
static void drain(const rtc_inputs *in, rtc_replay *r)
{
    const rtc_io_sample_source *feed = rtc_replay_feed(r);
    for (size_t s = 0; s < in->n_signals; s++) {
        long sig = feed->lookup(feed->user, in->sig_unit[s], in->sig_name[s]);
        if (sig < 0)
            rtc_fuzz_fail("a signal of the table is not found by name", in->sig_name[s]);
        double v;
        int64_t a, b;
        for (size_t n = 0; feed->next(feed->user, sig, INT64_MAX, &v, &a, &b); n++)
            if (n > in->n_recs)
                rtc_fuzz_fail("the feed hands out more samples than recorded", in->sig_name[s]);
    }
    (void)rtc_replay_unconsumed(r);
}

static void read_and_replay(const char *path)
{
    char err[512];
    rtc_inputs in;
    err[0] = '\0';
    int rc = rtc_inputs_read(path, &in, err, sizeof err);
    if (rc != RTC_OK && rc != RTC_ENOMEM && (!err[0] || strchr(err, '\n')))
        rtc_fuzz_fail("rtc_inputs_read failed without a one-line reason", err);
    if (rc != RTC_OK)
        return;
    rtc_replay *r = NULL;
    if (rtc_replay_new(&in, &r) == RTC_OK)
        drain(&in, r);
    rtc_replay_free(r);
    rtc_inputs_clear(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtc_fuzz_on_file("inputs.bin", data, size, read_and_replay);
    return 0;
}
