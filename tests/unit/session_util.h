/*
 * Helpers of the operator-session tests (test_session.c, test_session_control.c): a liblo
 * client of the control surface, the test systems (Lag FMUs behind an OSC component), and
 * `rtcosim run --realtime --control-port 0` as a child process with its events.log.
 */
#ifndef RTC_TEST_SESSION_UTIL_H
#define RTC_TEST_SESSION_UTIL_H

#include "io_util.h"

#include <lo/lo.h>
#include <stdbool.h>
#include <stdio.h>

/* The suite's private directory with a copy of the FMI 2 Lag FMU (a test may change it):
 * session_setup/_teardown are the suite fixtures. */
extern char work[512];
int session_setup(void);
int session_teardown(void);

/* ---- a liblo client: sends from its own server socket, collects the replies ---- */
typedef struct reply {
    char path[64], types[16];
    char s[8][256];
    double d[8];
} reply;

typedef struct client {
    lo_server srv;
    lo_address ctl;
    reply last;
    bool got;
    int values; /* /rtcosim/value messages received */
} client;

void client_open(client *c, int port);
void client_close(client *c);
/* Receive for up to ms milliseconds (all messages, replies and values). */
void pump(client *c, int ms);
/* Send @p m (freed) to the control port and wait up to 30 s for a reply or an error. */
bool call(client *c, const char *path, lo_message m);
/* /rtcosim/status, asked again every second for up to 30 s: a query changes nothing, and
 * its datagram may be dropped while a flood still fills the surface's socket (UDP). */
bool call_status(client *c);
/* A message from a type string ("s", "d", "f", "i") and the arguments. */
lo_message msg(const char *types, ...);
/* The last reply is "/rtcosim/reply s:WHAT s:ok". */
bool reply_ok(client *c, const char *what);
/* status until it says @p paused and k >= @p min_k (polling every 20 ms, up to 5 s) */
bool status_until(client *c, int paused, double min_k);

/* ---- systems and processes ---- */

extern const char ssd_head[];
void lag_component(FILE *f, const char *name, const char *fmu);
/* "op": an OSC input (its one connector "sp", path /sp, with @p unit or none) on
 * @p osc_port. */
void osc_op_component(FILE *f, int osc_port, const char *unit);
/* op (OSC set-point on @p osc_port) -> lag.u1; lag2 alone; @p rt: rtc:RealTime attributes */
void write_osc_system(const char *path, int osc_port, const char *base_step, const char *rt);
/* Start `rtcosim run SYSTEM --realtime ... --output-dir DIR EXTRA`; returns the control port. */
int start_run(io_child *run, const char *system_file, const char *dir, const char *extra);
/* Start `rtcosim run SYSTEM --realtime ... --stop 600 --http 0 --output-dir DIR EXTRA`;
 * returns the panel's port. With @p osc_port, also the OSC control surface (--control-port
 * 0), its port there. */
int start_panel_run(io_child *run, const char *system_file, const char *dir,
                    const char *extra, int *osc_port);
/* Wait (up to 15 s) for the run to exit; returns its exit status. */
int wait_run(io_child *run);
/* The step index K of the events.log line containing @p needle: "K T WALL ...", or -1. */
long event_k(const char *dir, const char *needle);
bool events_have(const char *dir, const char *needle);
/* Lines of DIR/events.log containing @p needle. */
size_t events_count(const char *dir, const char *needle);

#endif
