/*
 * rtcosim/sha256.h — SHA-256 (FIPS 180-4), for the hashes a session directory keeps of
 * every FMU it ran, so that a replay can refuse a changed model.
 */
#ifndef RTCOSIM_SHA256_H
#define RTCOSIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "rtcosim/rtsafe.h"

typedef struct rtc_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
} rtc_sha256;

/** Start a hash. RT-safe: yes. */
RTC_RT_SAFE void rtc_sha256_init(rtc_sha256 *s);
/** Add @p n bytes. RT-safe: yes. */
RTC_RT_SAFE void rtc_sha256_update(rtc_sha256 *s, const void *data, size_t n);
/** Finish: 32 bytes of digest into @p out. RT-safe: yes. */
RTC_RT_SAFE void rtc_sha256_final(rtc_sha256 *s, uint8_t out[32]);

/**
 * Hash a whole file into 64 lower-case hex digits plus NUL.
 * Returns RTC_OK or -errno (cannot open or read, e.g. -ENOENT). RT-safe: no.
 */
int rtc_sha256_file(const char *path, char hex[65]);

#endif
