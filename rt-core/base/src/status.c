/* rtc_strerror(): the text column of RTC_STATUS_MAP, else the errno's description. */
#include "rtcosim/status.h"

#include <errno.h>
#include <string.h>

/* status.h cannot include <errno.h> (public headers stay free of system headers), so it
 * spells the Linux values out; a port to a system that numbers them otherwise fails here. */
_Static_assert(RTC_EINVAL == -EINVAL && RTC_ENOMEM == -ENOMEM && RTC_EIO == -EIO &&
                   RTC_ETIMEDOUT == -ETIMEDOUT,
               "RTC_EINVAL, RTC_ENOMEM, RTC_EIO and RTC_ETIMEDOUT must be -errno");

const char *rtc_strerror(int status)
{
    switch (status) {
#define RTC_STATUS_TEXT(name, value, text)                                                         \
    case value:                                                                                    \
        return text;
        RTC_STATUS_MAP(RTC_STATUS_TEXT)
#undef RTC_STATUS_TEXT
    default:
        break;
    }
    /* strerrordesc_np: a static table, no locale, no buffer (strerror may translate and is
     * not thread-safe) */
    const char *s = rtc_status_errno(status) ? strerrordesc_np(rtc_status_errno(status)) : NULL;
    return s ? s : "unknown status";
}
