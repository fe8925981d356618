/*
 * Helpers of the panel tests (test_panel.c, test_panel_trust.c): the controller-plant
 * example with the panel as a child process, raw HTTP over real sockets on 127.0.0.1
 * (from any 127.x.y.z source address, to play several hosts), answers as JSON, and the
 * run's summary.json.
 */
#ifndef RTC_TEST_PANEL_UTIL_H
#define RTC_TEST_PANEL_UTIL_H

#include "io_util.h"
#include "session_util.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define SYSTEM RTC_TEST_CONFIG_DIR "/controller-plant.ssp"
#define EXPOSE "--expose controller.r:min=-1:max=2:rate=5:safe=0 --record controller.r"

/* The last answer of raw()/req()/cmd(), NUL-terminated. */
extern char resp[1 << 18];
/* How long raw() waits for an answer (30 s; a test that checks promptness lowers it). */
extern int answer_timeout_s;

/* (Any other system with the panel: start_panel_run of session_util.h.) */
/* The controller-plant example, controller.r exposed and recorded. */
int start_panel(io_child *run, const char *dir, const char *extra, int *osc_port);
bool alive(io_child *run);
/* Send @p req (n bytes) on a new connection (from @p src) and read the answer until the
 * server closes (at most 30 s). Returns the HTTP status, 0 when closed without an answer,
 * -1: no connection. */
int raw(int port, const char *req, size_t n);
int raw_from(int port, const char *src, const char *req, size_t n);
/* METHOD PATH with the loopback Host, Connection: close and @p headers ("" or lines). */
int req(int port, const char *method, const char *path, const char *headers);
/* POST /api/cmd?QUERY with the panel's header. */
int cmd(int port, const char *query);
/* The last answer contains @p needle (else it is printed). */
bool has(const char *needle);
/* The last answer's body as JSON: one compact document on one line (NULL, with the answer
 * printed, when it is not). */
json_t *body_json(void);
/* Member @p key of @p o as a number; NAN when it is missing or not a number. */
double num(const json_t *o, const char *key);
/* Stop the run from the panel and wait for its exit status (429 retried for up to 30 s). */
int stop_run(io_child *run, int port);
/* work/@p dir/summary.json's number at @p obj.@p sub.@p key (@p sub NULL: obj.key); NAN
 * when there is none. */
double summary_num(const char *dir, const char *obj, const char *sub, const char *key);

#endif
