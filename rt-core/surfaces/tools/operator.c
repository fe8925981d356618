/*
 * rtcosim-operator — a minimal operator console for the OSC control surface of a real-time
 * session (`rtcosim run --realtime --control-port PORT`; address table in the README,
 * "Operator control surface"). scripts/operator wraps it.
 *
 *   rtcosim-operator [--token-file FILE] PORT pause | resume | stop | status | step [N] |
 *                    set NAME VALUE | get NAME | mark TEXT | watch NAME RATE_HZ [SECONDS]
 *
 * It sends one message from its own UDP socket (the control surface answers the sender)
 * and prints the reply: "ok", the applied value, the value and its time, the status
 * fields, or the error (exit 1). `watch` subscribes, prints "t value" lines until SECONDS
 * pass (default: until interrupted) and unsubscribes.
 *
 * Every number is checked before anything is sent: "abc", "12abc", "", "nan", "inf" are
 * refused with one line on stderr and exit 2 (atof would have sent 0 or 12). With a token
 * (--token-file FILE, or the file named by RTCOSIM_CONTROL_TOKEN_FILE) the secret is sent
 * as the first string argument of every message, as `rtcosim run --control-token` wants.
 */
#include "rtcosim/osc_args.h"

#include <errno.h>
#include <float.h>
#include <lo/lo.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_bool interrupted;
static int replies, errors;

static void on_sigint(int s)
{
    (void)s;
    atomic_store(&interrupted, true);
}

static void print_args(const char *types, lo_arg **argv, int argc)
{
    for (int i = 0; i < argc; i++) {
        const char *sep = i ? " " : "";
        switch (types[i]) {
        case LO_STRING: printf("%s%s", sep, (const char *)argv[i]); break;
        case LO_DOUBLE: printf("%s%.17g", sep, rtc_osc_f64(argv[i]) + 0.0); break; /* -0: 0 */
        case LO_FLOAT: printf("%s%.9g", sep, rtc_osc_f32(argv[i])); break;
        case LO_INT32: printf("%s%d", sep, rtc_osc_i32(argv[i])); break;
        case LO_INT64: printf("%s%lld", sep, (long long)rtc_osc_i64(argv[i])); break;
        default: printf("%s?", sep);
        }
    }
    printf("\n");
}

/* The status reply (s:status d:SIM_TIME_S d:RTF h:K h:OVERRUNS d:P99_WAKEUP_US i:PAUSED
 * s:HEALTH) as labelled text with the precision each field has; false: not that reply. */
static bool print_status(const char *types, lo_arg **argv, int argc)
{
    if (argc != 8 || strcmp(types, "sddhhdis") || strcmp((const char *)argv[0], "status"))
        return false;
    printf("status: sim_time_s=%.3f rtf=%.3f k=%lld overruns=%lld p99_wakeup_us=%.1f "
           "paused=%s io=\"%s\"\n", rtc_osc_f64(argv[1]), rtc_osc_f64(argv[2]),
           (long long)rtc_osc_i64(argv[3]), (long long)rtc_osc_i64(argv[4]),
           rtc_osc_f64(argv[5]), rtc_osc_i32(argv[6]) ? "yes" : "no",
           *(const char *)argv[7] ? (const char *)argv[7] : "none");
    return true;
}

static int on_msg(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
                  void *user)
{
    (void)m, (void)user;
    if (!strcmp(path, "/rtcosim/value") && argc == 3) { /* name value t */
        printf("%.9f %.17g\n", rtc_osc_f64(argv[2]), rtc_osc_f64(argv[1]) + 0.0); /* -0: 0 */
    } else if (!strcmp(path, "/rtcosim/error")) {
        fprintf(stderr, "rtcosim-operator: error: %s\n", argc ? (const char *)argv[0] : "?");
        errors++;
        replies++;
    } else {
        if (!print_status(types, argv, argc))
            print_args(types, argv, argc); /* /rtcosim/reply: what, then the fields */
        replies++;
    }
    fflush(stdout);
    return 0;
}

/* Wait up to ms for a reply (or until interrupted when ms < 0). */
static void wait_reply(lo_server s, int ms)
{
    int want = replies + 1;
    for (int t = 0; (ms < 0 || t < ms) && !atomic_load(&interrupted) && replies < want; t += 10)
        lo_server_recv_noblock(s, 10);
}

static const char *token; /* --token-file: sent first in every message */

static const char help[] =
    "usage: rtcosim-operator [--token-file FILE] PORT pause|resume|stop|status\n"
    "       rtcosim-operator PORT step [N]          (while paused; N whole, 1..10000)\n"
    "       rtcosim-operator PORT set NAME VALUE    (an exposed variable; the reply is the\n"
    "                                               value applied, after clamping)\n"
    "       rtcosim-operator PORT get NAME          (a recorded column: value t_s k)\n"
    "       rtcosim-operator PORT mark TEXT         (an annotation in events.log)\n"
    "       rtcosim-operator PORT watch NAME RATE_HZ [SECONDS]  (\"t value\" lines)\n"
    "Operator console for the OSC control surface of a real-time session.\n"
    "PORT is the --control-port of `rtcosim run --realtime` (UDP on 127.0.0.1). One message\n"
    "is sent from this program's own socket and the reply printed: \"ok\", the value\n"
    "applied, the value and its time, the status fields, or the error (exit 1; no reply\n"
    "within 3 s: exit 1). Numbers are checked before anything is sent (\"abc\", \"12abc\",\n"
    "\"nan\": one error line, exit 2). With a run started with --control-token FILE, pass\n"
    "the same file (--token-file FILE, or RTCOSIM_CONTROL_TOKEN_FILE=FILE in the\n"
    "environment): the token is sent first in every message.\n";

static int usage(void)
{
    fprintf(stderr, "usage: rtcosim-operator [--token-file FILE] PORT pause|resume|stop|status|"
            "step [N]|set NAME VALUE|get NAME|mark TEXT|watch NAME RATE_HZ [SECONDS]\n");
    return 2;
}

/* The whole of @p text as a finite number in [lo, hi] (whole when @p whole), or one line
 * on stderr naming the argument and false. */
static bool number(const char *what, const char *text, double lo, double hi, bool whole,
                   double *out)
{
    char *end = NULL;
    errno = 0;
    double v = *text ? strtod(text, &end) : NAN;
    /* the range is checked first, so the whole-number test converts only a safe value */
    if (!*text || *end || errno == ERANGE || !isfinite(v) || v < lo || v > hi ||
        (whole && v != (double)(long long)v)) {
        if (lo == -DBL_MAX)
            fprintf(stderr, "rtcosim-operator: %s '%s': expected a finite number\n", what,
                    text);
        else
            fprintf(stderr, "rtcosim-operator: %s '%s': expected %s in %g..%g\n", what, text,
                    whole ? "a whole number" : "a number", lo, hi);
        return false;
    }
    *out = v;
    return true;
}

/* The message for the command line, or NULL (usage, or a bad number: already said). */
static lo_message build(int argc, char **argv, const char **path, bool *bad)
{
    static char p[64];
    const char *cmd = argv[2];
    double v = 1;
    snprintf(p, sizeof p, "/rtcosim/%s", !strcmp(cmd, "watch") ? "subscribe" : cmd);
    *path = p;
    *bad = (!strcmp(cmd, "set") && argc == 5 &&
            !number("set: VALUE", argv[4], -DBL_MAX, DBL_MAX, false, &v)) ||
           (!strcmp(cmd, "step") && argc == 4 &&
            !number("step: N", argv[3], 1, 10000, true, &v)) ||
           (!strcmp(cmd, "watch") && (argc == 5 || argc == 6) &&
            (!number("watch: RATE_HZ", argv[4], 1e-6, 1000, false, &v) ||
             (argc == 6 && !number("watch: SECONDS", argv[5], 0, 1e6, false, &(double){0}))));
    if (*bad)
        return NULL;
    lo_message m = lo_message_new();
    if (token)
        lo_message_add_string(m, token);
    if (!strcmp(cmd, "set") && argc == 5) {
        lo_message_add_string(m, argv[3]);
        lo_message_add_double(m, v);
    } else if ((!strcmp(cmd, "get") || !strcmp(cmd, "mark")) && argc == 4) {
        lo_message_add_string(m, argv[3]);
    } else if (!strcmp(cmd, "step") && argc <= 4) {
        lo_message_add_int32(m, (int32_t)v);
    } else if (!strcmp(cmd, "watch") && (argc == 5 || argc == 6)) {
        lo_message_add_string(m, argv[3]);
        lo_message_add_double(m, v);
    } else if (argc != 3 || (strcmp(cmd, "pause") && strcmp(cmd, "resume") &&
                             strcmp(cmd, "stop") && strcmp(cmd, "status"))) {
        lo_message_free(m);
        return NULL;
    }
    return m;
}

/* The secret of FILE without a trailing newline (the same rules as the run's side). */
static char *read_token(const char *path)
{
    static char buf[257];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = '\0';
    if (!f || n == 0 || strlen(buf) != n) {
        fprintf(stderr, "rtcosim-operator: --token-file %s: %s\n", path,
                !f ? strerror(errno) : "empty or not text");
        return NULL;
    }
    return buf;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(help, stdout);
        return 0;
    }
    const char *tf = getenv("RTCOSIM_CONTROL_TOKEN_FILE");
    if (argc >= 3 && !strcmp(argv[1], "--token-file")) {
        tf = argv[2];
        argv[2] = argv[0];
        argc -= 2, argv += 2;
    }
    if (tf && *tf && !(token = read_token(tf)))
        return 2;
    if (argc < 3)
        return usage();
    double port;
    if (!number("PORT", argv[1], 1, 65535, true, &port))
        return 2;
    const char *path;
    bool bad = false;
    lo_message m = build(argc, argv, &path, &bad);
    if (!m)
        return bad ? 2 : usage();
    lo_server s = lo_server_new("0", NULL);
    lo_address a = lo_address_new("127.0.0.1", argv[1]);
    if (!s || !a)
        return 1;
    lo_server_add_method(s, NULL, NULL, on_msg, NULL);
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    lo_send_message_from(a, s, path, m);
    lo_message_free(m);
    wait_reply(s, 3000);
    bool watch = !strcmp(argv[2], "watch") && !errors && replies;
    if (watch) { /* stream until SECONDS or an interrupt, then unsubscribe */
        int ms = argc == 6 ? (int)(strtod(argv[5], NULL) * 1000) : -1; /* checked above */
        for (int t = 0; (ms < 0 || t < ms) && !atomic_load(&interrupted); t += 10)
            lo_server_recv_noblock(s, 10);
        lo_message u = lo_message_new();
        if (token)
            lo_message_add_string(u, token);
        lo_message_add_string(u, argv[3]);
        lo_send_message_from(a, s, "/rtcosim/unsubscribe", u);
        lo_message_free(u);
        atomic_store(&interrupted, false);
        wait_reply(s, 1000);
    }
    int rc = !replies ? (fprintf(stderr, "rtcosim-operator: no reply from 127.0.0.1:%s\n",
                                 argv[1]), 1)
                      : errors ? 1 : 0;
    lo_address_free(a);
    lo_server_free(s);
    return rc;
}
