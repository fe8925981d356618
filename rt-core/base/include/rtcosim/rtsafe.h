/*
 * rtcosim/rtsafe.h — the RT-safety marker of public declarations.
 *
 * Every public function the real-time thread may call during the run phase carries
 * RTC_RT_SAFE in front of its declaration, and its doc comment says "RT-safe: yes"
 * (LinuxCNC hal.h, open62541 UA_THREADSAFE). What such a function may and may not do,
 * how to log from the RT thread, and how all of it is checked (tests/check's source
 * check, the seccomp and malloc-counting test test_rt_hygiene) is written once, in the
 * README's section "Real-time rules". The marker expands to nothing: it is for readers,
 * reviews and the source check, which requires marker and doc line to agree and this
 * header to be the only one defining it.
 */
#ifndef RTCOSIM_RTSAFE_H
#define RTCOSIM_RTSAFE_H

/** Marks a declaration the RT thread may call during the run phase. */
#define RTC_RT_SAFE

#endif
