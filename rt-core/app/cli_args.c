/*
 * Checked option values of the command line: every number an option takes goes through
 * one of these (on the one number parser, rtcosim/numparse.h), so "--decimation 10x",
 * "--workers -1" or "--tolerance nan" is a usage error naming the option, its text and the
 * reason, never a silent 10, 4294967295 or NaN (atoi/atol/strtod accept a prefix, wrap
 * around and never fail), and "0.5" means one half whatever the locale.
 */
#include "cli.h"

#include "rtcosim/numparse.h"
#include "rtcosim/status.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

const char *rtc_cli_num_long(const char *text, long lo, long hi, long *out)
{
    if (!text || !*text)
        return "missing value";
    int64_t v;
    int rc = rtc_parse_i64(text, lo, hi, 0, &v);
    if (rc != RTC_OK)
        return rc == RTC_ELIMIT ? "out of range" : "not an integer";
    *out = (long)v;
    return NULL;
}

const char *rtc_cli_num_double(const char *text, double lo, double hi, double *out)
{
    if (!text || !*text)
        return "missing value";
    int rc = rtc_parse_f64(text, lo, hi, 0, out);
    if (rc != RTC_OK)
        return rc == RTC_ELIMIT ? "out of range" : "not a number";
    return NULL;
}

int rtc_cli_parse_long(const char *cmd, const char *opt, const char *text, long lo, long hi,
                       long *out)
{
    const char *why = rtc_cli_num_long(text, lo, hi, out);
    if (why)
        return rtc_cli_usage_error(cmd, "--%s %s: %s (expected an integer in %ld..%ld)", opt,
                                   text ? text : "", why, lo, hi);
    return RTC_EXIT_OK;
}

int rtc_cli_parse_double(const char *cmd, const char *opt, const char *text, double lo,
                         double hi, double *out)
{
    const char *why = rtc_cli_num_double(text, lo, hi, out);
    if (why)
        return rtc_cli_usage_error(cmd, "--%s %s: %s (expected a number in %g..%g)", opt,
                                   text ? text : "", why, lo, hi);
    return RTC_EXIT_OK;
}

int rtc_cli_getopt_error(const char *cmd, int c, int argc, char **argv)
{
    char name[128];
    const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    if (optopt > 0 && optopt < 128 && strncmp(word, "--", 2))
        snprintf(name, sizeof name, "-%c", optopt); /* a short option, maybe in a cluster */
    else
        snprintf(name, sizeof name, "%.*s", (int)strcspn(word, "="), word);
    if (c == ':')
        return rtc_cli_usage_error(cmd, "%s: missing value", name);
    if (optopt && !strncmp(word, "--", 2) && strchr(word, '=')) /* a known flag with "=x" */
        return rtc_cli_usage_error(cmd, "%s: takes no value", name);
    return rtc_cli_usage_error(cmd, "unknown option '%s'", name);
}
