/*
 * What the browser panel (rtcosim/panel.h) shows an operator who opens it mid-run: the
 * present and the recent past, nothing else. `rtcosim run ... --realtime --http 0` as a
 * child process; streams read over raw HTTP/1.0 on 127.0.0.1 and parsed as Server-Sent
 * Events, every frame and points event as JSON (jansson).
 *   - a stream opened after another one left starts with the current frame (not the one
 *     from when the last page left), the RTF already measured, and the engine's history
 *     from the start of the run — the stretch nobody watched included, no line across a
 *     gap — whose values are results.csv's at the same steps;
 *   - a page that reconnects with its Last-Event-ID continues: no point or line twice;
 *   - /api/info lists the columns' units (model description, SSP connector), the exposed
 *     variable's unit and current value, the I/O components with their directions; a
 *     receive-only OSC link is "connecting" until it receives and "up" after it delivered
 *     a set-point, its outages the link contract's (summary.json "links" agrees); a set
 *     through the panel is the value a new page shows.
 * Waits are bounded (30 s) and wait for events (frames, steps, events.log lines).
 */
#include "cu_main.h"
#include "fmu_util.h"
#include "io_util.h"
#include "session_util.h"

#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SYSTEM RTC_TEST_CONFIG_DIR "/controller-plant.ssp"

/* ---- a Server-Sent Events reader ---- */

typedef struct sse {
    int fd;
    char *buf;
    size_t len, pos; /* bytes read; start of the next unparsed event */
    char id[96];     /* the last event id seen */
    json_t *logs;    /* every events.log line the stream delivered */
} sse;

/* GET @p path (HTTP/1.0: the body is the raw event stream, no chunks), with @p last_id as
 * Last-Event-ID when not NULL. */
static void sse_open(sse *s, int port, const char *path, const char *last_id)
{
    *s = (sse){.fd = io_tcp_connect(port), .buf = calloc(1, 8 << 20), .logs = json_array()};
    CU_ASSERT_FATAL(s->fd >= 0 && s->buf);
    char r[512], extra[160] = "";
    if (last_id)
        snprintf(extra, sizeof extra, "Last-Event-ID: %s\r\n", last_id);
    int n = snprintf(r, sizeof r, "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n%s\r\n", path, port,
                     extra);
    CU_ASSERT_TRUE_FATAL(io_tcp_send(s->fd, r, (size_t)n));
}

static void sse_close(sse *s)
{
    close(s->fd);
    free(s->buf);
    json_decref(s->logs);
}

/* The next event (any type) within 30 s: its type into @p type and its data as JSON
 * (NULL: none in time, or not JSON). The response head is skipped. */
static json_t *sse_next(sse *s, char *type, size_t cap)
{
    for (int i = 0; i < 300; i++) {
        char *head = strstr(s->buf, "\r\n\r\n");
        if (head && s->pos == 0)
            s->pos = (size_t)(head + 4 - s->buf);
        char *ev = s->pos ? s->buf + s->pos : NULL, *end = ev ? strstr(ev, "\n\n") : NULL;
        if (end) {
            *end = '\0';
            s->pos = (size_t)(end + 2 - s->buf);
            char *t = strstr(ev, "event: "), *id = strstr(ev, "id: "), *d = strstr(ev, "data: ");
            snprintf(type, cap, "%.*s", t ? (int)strcspn(t + 7, "\n") : 0, t ? t + 7 : "");
            if (id)
                snprintf(s->id, sizeof s->id, "%.*s", (int)strcspn(id + 4, "\n"), id + 4);
            json_error_t e;
            json_t *j = d ? json_loads(d + 6, JSON_DECODE_ANY, &e) : NULL;
            if (!j)
                printf("\n    event '%s' not JSON: %.200s", type, ev);
            if (j && !strcmp(type, "log"))
                json_array_append(s->logs, j);
            return j;
        }
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        if (poll(&p, 1, 100) > 0) {
            ssize_t got = recv(s->fd, s->buf + s->len, (8 << 20) - 1 - s->len, 0);
            if (got <= 0)
                return NULL;
            s->len += (size_t)got;
            s->buf[s->len] = '\0';
        }
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The next event of type @p want (others skipped), within 30 s. */
static json_t *sse_want(sse *s, const char *want)
{
    char type[32];
    json_t *j;
    double until = now_s() + 30;
    while (now_s() < until && (j = sse_next(s, type, sizeof type)) != NULL) {
        if (!strcmp(type, want))
            return j;
        json_decref(j);
    }
    printf("\n    no '%s' event in time", want);
    return NULL;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

/* Element @p i of array @p a as a string ("" when it is none). */
static const char *str_at(const json_t *a, size_t i)
{
    const char *v = json_string_value(json_array_get(a, i));
    return v ? v : "";
}

/* ---- history rows ---- */

typedef struct rows {
    json_t *all; /* every row received, in order */
    bool first_reset;
    int events;
} rows;

/* Points events until the newest row's time reaches @p until_t; the rows kept in order. */
static void read_rows(sse *s, rows *r, double until_t)
{
    double last = -1;
    while (last < until_t) {
        json_t *p = sse_want(s, "points");
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        if (r->events++ == 0)
            r->first_reset = json_is_true(json_object_get(p, "reset"));
        json_t *row;
        size_t i;
        json_array_foreach(json_object_get(p, "rows"), i, row) {
            json_array_append(r->all, row);
            last = json_number_value(json_array_get(row, 0));
        }
        json_decref(p);
    }
}

static bool is_gap(const json_t *row)
{
    return json_is_null(json_array_get(row, 1));
}

/* No line across a gap: two rows with values one after the other are at most @p max_dt
 * apart (a stretch the panel did not see is a null row between them). Returns the rows
 * with values. */
static size_t check_continuous(const json_t *all, double max_dt)
{
    double prev = NAN;
    size_t n = 0, i;
    json_t *row;
    json_array_foreach(all, i, row) {
        double t = json_number_value(json_array_get(row, 0));
        CU_ASSERT_TRUE(isnan(prev) || t > prev); /* in time order, no point twice */
        if (is_gap(row)) {
            prev = NAN;
            continue;
        }
        if (!isnan(prev) && t - prev > max_dt)
            printf("\n    a line from t=%.3f to t=%.3f across %.3f s", prev, t, t - prev);
        CU_ASSERT_TRUE(isnan(prev) || t - prev <= max_dt);
        prev = t;
        n++;
    }
    return n;
}

/* Every row with values equals results.csv's row at the same time, column by column
 * (both written with 17 significant digits: equal doubles). */
static void check_against_csv(const json_t *all, const char *dir, const char *const *names,
                              size_t n_names)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/results.csv", work, dir);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    double tick = tcsv_at(&c, 1, 0) - tcsv_at(&c, 0, 0);
    size_t checked = 0, bad = 0, i;
    json_t *row;
    json_array_foreach(all, i, row) {
        if (is_gap(row))
            continue;
        double t = json_number_value(json_array_get(row, 0));
        long r = lround((t - tcsv_at(&c, 0, 0)) / tick);
        CU_ASSERT_TRUE_FATAL(r >= 0 && (size_t)r < c.n_rows);
        CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, (size_t)r, 0), t, 1e-9);
        for (size_t j = 0; j < n_names; j++) {
            long col = tcsv_col(&c, names[j]);
            double v = json_number_value(json_array_get(row, j + 1));
            if (col < 0 || tcsv_at(&c, (size_t)r, (size_t)col) != v) {
                if (bad++ < 3)
                    printf("\n    t=%.6f %s: panel %.17g, results.csv %.17g", t, names[j], v,
                           col < 0 ? NAN : tcsv_at(&c, (size_t)r, (size_t)col));
            }
        }
        checked++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_TRUE(checked > 20);
    tcsv_free(&c);
}

/* The run's logical time as the control surface reports it, once it is at least @p t_s. */
static double osc_time_after(client *c, double t_s)
{
    for (int i = 0; i < 1500; i++) {
        if (call(c, "/rtcosim/status", lo_message_new()) && c->last.d[1] >= t_s)
            return c->last.d[1];
        io_sleep_ms(20);
    }
    CU_FAIL("the run's time did not advance");
    return NAN;
}

static int stop(client *c, io_child *run)
{
    CU_ASSERT_TRUE(call(c, "/rtcosim/stop", lo_message_new()));
    return wait_run(run);
}

/* ---- tests ---- */

/* One page watches for half a second and leaves; the run goes on unwatched for 1.5 s; a
 * new page opens. Before: it got the frame from when the first page left, and the plot
 * joined that to the live data with a straight line. */
static void test_panel_view_new_page_gets_present_and_history(void)
{
    static const char *const names[] = {"controller.r", "plant.x1", "controller.u"};
    io_child run;
    int osc;
    int port = start_panel_run(&run, SYSTEM, "hist", "--record controller.r --record plant.x1 "
                     "--record controller.u", &osc);
    client c;
    client_open(&c, osc);
    sse a;
    sse_open(&a, port, "/api/stream", NULL);
    double left_t = 0;
    for (json_t *f; left_t < 0.5 && (f = sse_want(&a, "frame")) != NULL; json_decref(f))
        left_t = num(f, "sim_t");
    CU_ASSERT_TRUE_FATAL(left_t >= 0.5);
    sse_close(&a);
    double asked_t = osc_time_after(&c, left_t + 1.5);

    sse b;
    sse_open(&b, port, "/api/stream", NULL);
    json_t *f = sse_want(&b, "frame");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    printf("\n    first page left at t=%.3f; at t=%.3f a new page's first frame: t=%.3f, "
           "RTF %.3f", left_t, asked_t, num(f, "sim_t"), num(f, "rtf"));
    /* the present (a frame is rebuilt every 40 ms), not one kept from the last page */
    CU_ASSERT_TRUE(num(f, "sim_t") >= asked_t - 0.1);
    CU_ASSERT_TRUE(num(f, "rtf") > 0.5 && num(f, "rtf") < 2); /* measured already */
    CU_ASSERT_EQUAL(json_array_size(json_object_get(f, "v")), 3);
    json_decref(f);
    rows r = {.all = json_array()};
    read_rows(&b, &r, asked_t);
    CU_ASSERT_TRUE(r.first_reset);
    sse_close(&b);
    CU_ASSERT_EQUAL(stop(&c, &run), 0);
    client_close(&c);

    /* the history: from the run's start, through the stretch nobody watched, no line
     * across a gap, every value results.csv's */
    double first_t = json_number_value(json_array_get(json_array_get(r.all, 0), 0));
    CU_ASSERT_TRUE(first_t < 0.2);
    size_t unwatched = 0, i;
    json_t *row;
    json_array_foreach(r.all, i, row) {
        double t = json_number_value(json_array_get(row, 0));
        unwatched += !is_gap(row) && t > left_t + 0.2 && t < asked_t - 0.2;
    }
    printf("\n    history: %zu row(s) from t=%.3f, %zu while nobody watched",
           json_array_size(r.all), first_t, unwatched);
    CU_ASSERT_TRUE(unwatched >= 10);
    check_continuous(r.all, 0.5);
    check_against_csv(r.all, "hist", names, 3);
    json_decref(r.all);
}

/* A page that reconnects (EventSource does, with the last event id) continues its plot
 * and its feed where they were: no reset, no point and no events.log line twice. */
static void test_panel_view_reconnect_continues(void)
{
    io_child run;
    int osc;
    int port = start_panel_run(&run, SYSTEM, "resume", "--record plant.x1", &osc);
    client c;
    client_open(&c, osc);
    sse a;
    sse_open(&a, port, "/api/stream", NULL);
    rows r = {.all = json_array()};
    read_rows(&a, &r, 0.5);
    char last_id[96];
    snprintf(last_id, sizeof last_id, "%s", a.id);
    size_t logs_a = json_array_size(a.logs);
    sse_close(&a);
    double before = json_number_value(json_array_get(json_array_get(r.all, json_array_size(
                                                                         r.all) - 1), 0));
    CU_ASSERT_TRUE(logs_a > 0 && strchr(last_id, '.') != NULL);
    double asked_t = osc_time_after(&c, before + 1.0);
    CU_ASSERT_TRUE(call(&c, "/rtcosim/mark", msg("s", "after the reconnect")));

    sse b;
    sse_open(&b, port, "/api/stream", last_id);
    rows r2 = {.all = r.all};
    read_rows(&b, &r2, asked_t);
    CU_ASSERT_FALSE(r2.first_reset); /* the page keeps what it drew */
    /* the feed goes on from the line the page had: the new mark, nothing twice */
    bool marked = false;
    for (;;) {
        for (size_t i = 0; i < json_array_size(b.logs); i++)
            marked |= strstr(json_string_value(json_array_get(b.logs, i)),
                             "mark after the reconnect") != NULL;
        json_t *l = marked ? NULL : sse_want(&b, "log");
        if (!l)
            break;
        json_decref(l);
    }
    CU_ASSERT_TRUE(marked);
    size_t i;
    json_t *l;
    json_array_foreach(b.logs, i, l)
        CU_ASSERT_PTR_NULL(strstr(json_string_value(l), "session armed"));
    printf("\n    %zu log line(s), then %zu new after the reconnect; %zu rows in all", logs_a,
           json_array_size(b.logs), json_array_size(r.all));
    json_array_foreach(b.logs, i, l)
        printf("\n    %s", json_string_value(l));
    sse_close(&b);
    CU_ASSERT_EQUAL(stop(&c, &run), 0);
    client_close(&c);
    check_continuous(r.all, 0.5); /* in order, nothing twice, nothing left out */
    json_decref(r.all);
}

/* op (OSC input, a force in N) drives plant (Mass1: x1 in m); ctl (PI) alone, its kp
 * exposed. */
static void write_units_system(const char *path, int osc_port)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(ssd_head, f);
    osc_op_component(f, osc_port, "N");
    fprintf(f, "<ssd:Component name=\"plant\" source=\"%s\"><ssd:Connectors>"
               "<ssd:Connector name=\"Fe\" kind=\"input\"><ssc:Real/></ssd:Connector>"
               "<ssd:Connector name=\"x1\" kind=\"output\"><ssc:Real/></ssd:Connector>"
               "</ssd:Connectors></ssd:Component>\n", tfmu_path(2, "Mass1"));
    fprintf(f, "<ssd:Component name=\"ctl\" source=\"%s\"/>\n", tfmu_path(2, "PI"));
    fprintf(f, "</ssd:Elements>\n<ssd:Connections><ssd:Connection startElement=\"op\" "
               "startConnector=\"sp\" endElement=\"plant\" endConnector=\"Fe\"/>"
               "</ssd:Connections>\n<ssd:Annotations><ssc:Annotation "
               "type=\"org.rtcosim.realtime\"><rtc:RealTime baseStep=\"0.001\" "
               "record=\"plant.x1 op.sp\"/></ssc:Annotation></ssd:Annotations>\n"
               "</ssd:System>\n<ssd:Units><ssc:Unit name=\"N\"><ssc:BaseUnit kg=\"1\" m=\"1\" "
               "s=\"-2\"/></ssc:Unit></ssd:Units>\n</ssd:SystemStructureDescription>\n");
    fclose(f);
}

static bool peer_set_logged(void *arg)
{
    (void)arg;
    return events_have("units", "op.sp = 2.5 set by the I/O peer");
}

/* A new stream's first frame built after it connected, and its one link entry. (The very
 * first frame a stream gets is the newest one the panel built, up to one frame period
 * before: it may predate an event the test has just seen.) */
static json_t *fresh_frame(int port, const json_t **link)
{
    sse s;
    sse_open(&s, port, "/api/stream", NULL);
    json_t *f = sse_want(&s, "frame");
    json_decref(f);
    f = f ? sse_want(&s, "frame") : NULL;
    sse_close(&s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    json_t *links = json_object_get(f, "links");
    CU_ASSERT_EQUAL(json_array_size(links), 1); /* receive-only: "in" alone */
    *link = json_array_get(links, 0);
    return f;
}

/* One HTTP/1.0 request; the answer's body as JSON into *out (NULL: none). Returns the
 * HTTP status (0: no answer). */
static int http(int port, const char *method, const char *path, json_t **out)
{
    int fd = io_tcp_connect(port);
    char r[512], *buf = calloc(1, 1 << 16);
    CU_ASSERT_FATAL(fd >= 0 && buf);
    int n = snprintf(r, sizeof r, "%s %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nX-Rtcosim-Panel: 1"
                     "\r\n\r\n", method, path, port);
    io_tcp_send(fd, r, (size_t)n);
    size_t len = 0;
    ssize_t got;
    while (len + 1 < (1 << 16) && (got = recv(fd, buf + len, (1 << 16) - 1 - len, 0)) > 0)
        len += (size_t)got;
    close(fd);
    char *body = strstr(buf, "\r\n\r\n");
    json_error_t e;
    *out = body ? json_loads(body + 4, 0, &e) : NULL;
    int status = 0;
    sscanf(buf, "HTTP/1.%*d %d", &status);
    free(buf);
    return status;
}

static int info(int port, json_t **out)
{
    return http(port, "GET", "/api/info", out) == 200 && *out ? 0 : -1;
}

/* A set through the panel: a new page's first frame shows the value (x) and its target
 * (xt), and /api/info the value, once the RT thread applied it. */
static void set_shows_on_new_page(int port, double value)
{
    char path[128];
    json_t *answer, *in;
    snprintf(path, sizeof path, "/api/cmd?op=set&name=ctl.kp&value=%g", value);
    CU_ASSERT_EQUAL(http(port, "POST", path, &answer), 200);
    json_decref(answer);
    bool seen = false;
    for (int i = 0; i < 1500 && !seen; i++) { /* 30 s at most */
        const json_t *link;
        json_t *f = fresh_frame(port, &link);
        seen = json_number_value(json_array_get(json_object_get(f, "x"), 0)) == value;
        if (seen)
            CU_ASSERT_EQUAL(json_number_value(json_array_get(json_object_get(f, "xt"), 0)), value);
        json_decref(f);
        if (!seen)
            io_sleep_ms(20);
    }
    CU_ASSERT_TRUE(seen);
    CU_ASSERT_EQUAL_FATAL(info(port, &in), 0);
    CU_ASSERT_EQUAL(num(json_array_get(json_object_get(in, "vars"), 0), "value"), value);
    json_decref(in);
}

/* summary.json's "links" entry of the operator's OSC input counts the outages the panel
 * showed (the panel and the summary read the same link contract). */
static void summary_link_agrees(double outages)
{
    char path[700];
    snprintf(path, sizeof path, "%s/units/summary.json", work);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const json_t *l = json_array_get(json_object_get(doc, "links"), 0);
    CU_ASSERT_STRING_EQUAL(str(l, "component"), "op");
    CU_ASSERT_EQUAL(num(json_object_get(l, "outages"), "count"), outages);
    json_decref(doc);
}

static void test_panel_view_units_links_and_exposed_values(void)
{
    char ssd[700];
    snprintf(ssd, sizeof ssd, "%s/units.ssd", work);
    int op_port = io_free_port(SOCK_DGRAM);
    write_units_system(ssd, op_port);
    io_child run;
    int osc;
    int port = start_panel_run(&run, ssd, "units", "--expose ctl.kp:min=0:max=10", &osc);
    json_t *in;
    CU_ASSERT_EQUAL_FATAL(info(port, &in), 0);
    json_t *units = json_object_get(in, "units"), *var = json_array_get(json_object_get(in, "vars"), 0);
    json_t *io = json_array_get(json_object_get(in, "io"), 0);
    CU_ASSERT_STRING_EQUAL(str_at(units, 0), "m"); /* plant.x1: its model description's */
    CU_ASSERT_STRING_EQUAL(str_at(units, 1), "N"); /* op.sp: the SSP connector's */
    CU_ASSERT_STRING_EQUAL(str(var, "unit"), "1");
    CU_ASSERT_EQUAL(num(var, "value"), 1.0); /* the PI's kp start: shown before a set */
    CU_ASSERT_EQUAL(num(var, "target"), 1.0);
    CU_ASSERT_STRING_EQUAL(str(io, "name"), "op");
    CU_ASSERT_EQUAL(num(io, "in"), 1.0);
    CU_ASSERT_EQUAL(num(io, "out"), 0.0);
    CU_ASSERT_TRUE(num(in, "history_s") >= 60);
    json_decref(in);

    const json_t *link;
    json_t *f = fresh_frame(port, &link);
    CU_ASSERT_STRING_EQUAL(str(link, "dir"), "in");
    CU_ASSERT_STRING_EQUAL(str(link, "state"), "connecting"); /* nothing received yet */
    CU_ASSERT_EQUAL(json_number_value(json_array_get(json_object_get(f, "x"), 0)), 1.0);
    json_decref(f);

    /* the operator's OSC panel delivers a set-point: the receive-only link is up */
    char p[16];
    snprintf(p, sizeof p, "%d", op_port);
    lo_address a = lo_address_new("127.0.0.1", p);
    CU_ASSERT_EQUAL(lo_send(a, "/sp", "d", 2.5), 16);
    lo_address_free(a);
    CU_ASSERT_TRUE_FATAL(io_wait(peer_set_logged, NULL, 30000));
    f = fresh_frame(port, &link);
    char *text = json_dumps(link, JSON_COMPACT);
    printf("\n    op's link after a set-point: %s", text ? text : "?");
    free(text);
    CU_ASSERT_STRING_EQUAL(str(link, "state"), "up");
    CU_ASSERT_TRUE(num(link, "age_s") >= 0);
    /* the component's link as the contract keeps it: state and outages */
    const json_t *io0 = json_array_get(json_object_get(f, "io"), 0);
    CU_ASSERT_STRING_EQUAL(str(io0, "link"), "up");
    double outages = num(json_object_get(io0, "outages"), "count");
    CU_ASSERT_EQUAL(outages, 0.0);
    CU_ASSERT_EQUAL(num(json_object_get(io0, "outages"), "total_s"), 0.0);
    json_decref(f);

    set_shows_on_new_page(port, 7.0);
    client c;
    client_open(&c, osc);
    CU_ASSERT_EQUAL(stop(&c, &run), 0);
    client_close(&c);
    summary_link_agrees(outages);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"panel_view_new_page_gets_present_and_history",
         test_panel_view_new_page_gets_present_and_history},
        {"panel_view_reconnect_continues", test_panel_view_reconnect_continues},
        {"panel_view_units_links_and_exposed_values",
         test_panel_view_units_links_and_exposed_values},
        {NULL, NULL}};
    rtc_test_add_suite("panel_view", session_setup, session_teardown, cases);
}
