/*
 * rtcosim/udp.h — one UDP socket bound to an IPv4 address and port: what every datagram
 * peer of the engine opens (the UDP-frame driver, the DCP master and slave, the OSC
 * control surface). Addresses and ports are in host byte order, so this header needs no
 * system header.
 */
#ifndef RTCOSIM_UDP_H
#define RTCOSIM_UDP_H

#include <stdbool.h>
#include <stdint.h>

/**
 * Open a UDP socket (close-on-exec; non-blocking when @p nonblock) and bind it to
 * @p ip:@p *port (port 0: the system picks one); *port becomes the port bound.
 * Returns RTC_OK with the socket in *fd, or the errno of the failing call as an rtc_status
 * with *fd = -1 (the caller names the address in its own line).
 * RT-safe: no. Thread: any.
 */
int rtc_udp_bind(uint32_t ip, uint16_t *port, bool nonblock, int *fd);

#endif
