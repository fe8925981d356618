/* rtc_strerror(): the text column of RTC_STATUS_MAP. */
#include "rtcosim/status.h"

const char *rtc_strerror(int status)
{
    switch (status) {
#define RTC_STATUS_TEXT(name, value, text)                                                         \
    case value:                                                                                    \
        return text;
        RTC_STATUS_MAP(RTC_STATUS_TEXT)
#undef RTC_STATUS_TEXT
    default:
        return "unknown status";
    }
}
