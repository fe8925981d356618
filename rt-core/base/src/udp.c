/* One bound UDP socket (rtcosim/udp.h). */
#include "rtcosim/udp.h"

#include "rtcosim/status.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int rtc_udp_bind(uint32_t ip, uint16_t *port, bool nonblock, int *fd)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(*port),
                            .sin_addr.s_addr = htonl(ip)};
    socklen_t len = sizeof a;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) != 0) {
        int rc = rtc_status_from_errno(errno);
        if (s >= 0)
            close(s);
        *fd = -1;
        return rc;
    }
    *port = ntohs(a.sin_port);
    *fd = s;
    return RTC_OK;
}
