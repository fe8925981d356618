/*
 * rtcosim/rtsafe.h — the RT-safety marker of public declarations.
 *
 * Every public function the real-time thread may call during the run phase carries
 * RTC_RT_SAFE in front of its declaration, and its doc comment says "RT-safe: yes"
 * (STYLE.md rule 13, LinuxCNC hal.h, open62541 UA_THREADSAFE). Such a function does no
 * malloc/free, takes no lock, makes no blocking system call and no stdio call, and formats
 * no text. The marker expands to nothing: it is for readers, reviews and the check in
 * tests/check (which requires the marker and the doc line to agree, and this header to be
 * the only one defining it).
 */
#ifndef RTCOSIM_RTSAFE_H
#define RTCOSIM_RTSAFE_H

/** Marks a declaration the RT thread may call during the run phase. */
#define RTC_RT_SAFE

#endif
