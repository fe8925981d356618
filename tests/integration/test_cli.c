/*
 * The rtcosim executable, driven as a user would: info and run on the test FMUs, the CSV
 * it writes, its exit codes and one-line errors, and that no temporary directory is left
 * behind whatever goes wrong. Every command runs with TMPDIR pointing at a private
 * directory that must be empty afterwards.
 */
#include "cu_main.h"
#include "fmu_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmp[512];   /* TMPDIR of the commands */
static char work[512];  /* output files */
static char out[65536]; /* captured stdout+stderr */

static int setup(void)
{
    rtc_test_tmpdir(tmp, sizeof tmp);
    rtc_test_tmpdir(work, sizeof work);
    return 0;
}

static int teardown(void)
{
    rtc_test_rmtree(tmp);
    rtc_test_rmtree(work);
    return 0;
}

/* Run "rtcosim ARGS" with the private TMPDIR; returns the exit status. */
static int rtcosim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int rtcosim(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rtc_test_vrtcosim(work, tmp, out, sizeof out, fmt, ap);
    va_end(ap);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0); /* nothing left behind, success or not */
    return rc;
}

static void info_describes_fmi2_and_fmi3(void)
{
    CU_ASSERT_EQUAL(rtcosim("info '%s'", tfmu_path(2, "Decay")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "FMI version:   2.0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Model name:    Decay"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "canGetAndSetFMUState"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "stop=10"));
    CU_ASSERT_EQUAL(rtcosim("info '%s'", tfmu_path(3, "Passthrough")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "FMI version:   3.0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Token:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "UInt64_input"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Float64[3]"));
}

static void run_decay_writes_exact_csv(void)
{
    for (int v = 2; v <= 3; v++) {
        CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 2 --step 0.1 -o r.csv", tfmu_path(v, "Decay")),
                        0);
        char path[600];
        snprintf(path, sizeof path, "%s/r.csv", work);
        char *text = rtc_test_slurp(path, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        CU_ASSERT_EQUAL(strncmp(text, "\"time\",", 7), 0);
        free(text);
        tcsv c;
        CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
        CU_ASSERT_EQUAL(c.n_rows, 21);
        long x = tcsv_col(&c, "x");
        CU_ASSERT_FATAL(x > 0);
        CU_ASSERT_STRING_EQUAL(c.time_text[3], "0.3"); /* k·h in decimal, not 0.30000000000000004 */
        CU_ASSERT_STRING_EQUAL(c.time_text[20], "2");
        for (size_t k = 0; k < c.n_rows; k++)
            CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, k, (size_t)x), exp(-0.1 * (double)k), 1e-15);
        tcsv_free(&c);
    }
}

static void run_defaults_from_default_experiment(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' -o d.csv --record x", tfmu_path(2, "Decay")), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/d.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_cols, 2); /* --record selects: time, x */
    CU_ASSERT_EQUAL(c.n_rows, 1001); /* DefaultExperiment: stop 10, step 0.01 */
    tcsv_free(&c);
}

static void run_set_changes_parameter(void)
{
    CU_ASSERT_EQUAL(
        rtcosim("run '%s' --stop 1 --step 0.5 --set k=2 -o s.csv", tfmu_path(3, "Decay")), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/s.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    long x = tcsv_col(&c, "x");
    CU_ASSERT_FATAL(x > 0 && c.n_rows == 3);
    CU_ASSERT_DOUBLE_EQUAL(tcsv_at(&c, 2, (size_t)x), exp(-2.0), 1e-15);
    tcsv_free(&c);
}

static void run_bad_inputs_give_one_line_errors(void)
{
    char decay[1024]; /* tfmu_path() reuses its buffer */
    snprintf(decay, sizeof decay, "%s", tfmu_path(2, "Decay"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set nosuch=1 --no-output", decay), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--set nosuch=1: no variable of that name"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set k=abc --no-output", decay), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"abc\" is not a valid value for a Float64 variable"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --set x=3 --no-output", decay), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot be set"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --step 1e-12 --no-output", decay), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "not a whole number of nanoseconds"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --record nosuch", decay), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--record nosuch"));
    CU_ASSERT_EQUAL(rtcosim("run /nonexistent.fmu"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "/nonexistent.fmu: cannot open"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --no-output", tfmu_path(2, "NoSymbol")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "missing required function fmi2DoStep"));
    CU_ASSERT_EQUAL(rtcosim("run '%s' --no-output", tfmu_path(3, "NoBinary")), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "no binary for this platform"));
    CU_ASSERT_EQUAL(rtcosim("run --bogus '%s'", decay), 2);
    CU_ASSERT_EQUAL(rtcosim("run -o '%s/nodir/r.csv' '%s'", work, decay), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot create"));
    /* Each failure is one line. */
    CU_ASSERT_EQUAL(strchr(out, '\n'), strrchr(out, '\n'));
}

static void run_fault_error_keeps_rows_and_fails(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 3 --step 0.5 --set mode=1 -o f.csv",
                            tfmu_path(2, "Fault")),
                    1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "fmi2DoStep returned Error"));
    char path[600];
    snprintf(path, sizeof path, "%s/f.csv", work);
    tcsv c;
    CU_ASSERT_TRUE_FATAL(tcsv_read(path, &c));
    CU_ASSERT_EQUAL(c.n_rows, 3); /* t = 0, 0.5, 1: the step from 1 failed */
    tcsv_free(&c);
}

/* ---- write errors: real kernel errors, no root needed ---- */

/* Run "rtcosim ARGS" under `ulimit -f` @p kib KiB with SIGXFSZ at its default action, as a
 * user's shell leaves it: rtcosim must make a write past the limit fail with EFBIG (a
 * write error, exit 4) instead of being killed by the signal. */
static int rtcosim_fsize(int kib, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && ulimit -f %d && TMPDIR='%s' '%s' %s", work, kib, tmp,
             RTCOSIM_EXE, args);
    int rc = rtc_test_run(cmd, out, sizeof out);
    CU_ASSERT_EQUAL(rtc_test_entries(tmp), 0);
    return rc;
}

/* Lines of the captured output holding @p needle. */
static int lines_with(const char *needle)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* /dev/full: ENOSPC at the first write. One line at once, exit 4 (not 1, not 0). */
static void run_to_dev_full_reports_once_exit_4(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 100 --step 0.001 -o /dev/full",
                            tfmu_path(2, "Decay")),
                    4);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "/dev/full: write failed: No space left on device"));
    CU_ASSERT_EQUAL(lines_with("write failed"), 1); /* reported once (the final line
                                                       names the result file too) */
    CU_ASSERT_EQUAL(rtcosim("run '%s' --on-write-error maybe", tfmu_path(2, "Decay")), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--on-write-error maybe: expected stop or continue"));
}

/* RLIMIT_FSIZE 2 MiB (above any extracted FMU binary, sanitizer builds included) against
 * a 12 MB run: the write fails mid-run with EFBIG; the run stops there (fewer steps), the
 * file keeps only whole rows; with continue it runs on. */
static void run_file_size_limit_stops_mid_run_with_whole_rows(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/big.csv", work);
    char args[1024];
    snprintf(args, sizeof args, "run -v --stop 30 --step 0.0001 -o big.csv '%s'",
             tfmu_path(2, "Decay"));
    CU_ASSERT_EQUAL(rtcosim_fsize(2048, args), 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "big.csv: write failed: File too large; stopping the run"));
    CU_ASSERT_EQUAL(lines_with("write failed"), 1);
    long rows = tcsv_whole_rows(path);
    CU_ASSERT(rows > 1000 && rows < 300001); /* mid-run: some rows, not all */
    CU_ASSERT_PTR_NULL(strstr(out, "300000 steps in"));
    snprintf(args, sizeof args, "run -v --stop 30 --step 0.0001 -o big.csv "
             "--on-write-error continue '%s'", tfmu_path(2, "Decay"));
    CU_ASSERT_EQUAL(rtcosim_fsize(2048, args), 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "big.csv: write failed: File too large; continuing"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "300000 steps in")); /* it ran to the end */
    CU_ASSERT(tcsv_whole_rows(path) > 1000);
}

static void run_fault_terminate_ends_cleanly(void)
{
    for (int v = 2; v <= 3; v++) {
        CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 3 --step 0.5 --set mode=3 -o t.csv",
                                tfmu_path(v, "Fault")),
                        0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "requested to terminate the simulation at t="));
    }
}

static void run_passthrough_csv_types(void)
{
    CU_ASSERT_EQUAL(rtcosim("run '%s' --stop 0.2 --step 0.1 -o p.csv --set String_input=a,b "
                            "--set Boolean_input=true --set Binary_input=00ff",
                            tfmu_path(3, "Passthrough")),
                    0);
    char path[600];
    snprintf(path, sizeof path, "%s/p.csv", work);
    char *text = rtc_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"time\","));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "[1]\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "[3]\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"a,b\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",00ff"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "18446744073709551615"));
    free(text);
}

/* Broken archives: one line, exit 1, no temporary directory left (checked by rtcosim()). */
static void bad_archives_refused_cleanly(void)
{
    char cmd[4096];
    /* an archive without modelDescription.xml */
    snprintf(cmd, sizeof cmd, "cd '%s' && mkdir -p nomd && echo hi > nomd/readme.txt && "
             "cd nomd && cmake -E tar cf ../nomd.fmu --format=zip readme.txt", work);
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_EQUAL(rtcosim("info nomd.fmu"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "nomd.fmu: no modelDescription.xml in the FMU"));
    /* a truncated copy of a real FMU */
    snprintf(cmd, sizeof cmd, "cd '%s' && head -c 1500 '%s' > cut.fmu", work, tfmu_path(2, "Decay"));
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_EQUAL(rtcosim("run cut.fmu --no-output"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "cut.fmu"));
    CU_ASSERT_EQUAL(strchr(out, '\n'), strrchr(out, '\n'));
    /* not a zip at all */
    snprintf(cmd, sizeof cmd, "cd '%s' && echo garbage > garbage.fmu", work);
    CU_ASSERT_EQUAL_FATAL(rtc_test_run(cmd, out, sizeof out), 0);
    CU_ASSERT_EQUAL(rtcosim("info garbage.fmu"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "garbage.fmu"));
}

static void help_texts_exit_zero(void)
{
    CU_ASSERT_EQUAL(rtcosim("--help"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: rtcosim"));
    CU_ASSERT_EQUAL(rtcosim("run --help"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--record NAME"));
    CU_ASSERT_EQUAL(rtcosim("info --help"), 0);
    CU_ASSERT_EQUAL(rtcosim("frobnicate"), 2);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"info_describes_fmi2_and_fmi3", info_describes_fmi2_and_fmi3},
        {"run_decay_writes_exact_csv", run_decay_writes_exact_csv},
        {"run_defaults_from_default_experiment", run_defaults_from_default_experiment},
        {"run_set_changes_parameter", run_set_changes_parameter},
        {"run_bad_inputs_give_one_line_errors", run_bad_inputs_give_one_line_errors},
        {"run_fault_error_keeps_rows_and_fails", run_fault_error_keeps_rows_and_fails},
        {"run_fault_terminate_ends_cleanly", run_fault_terminate_ends_cleanly},
        {"run_passthrough_csv_types", run_passthrough_csv_types},
        {"bad_archives_refused_cleanly", bad_archives_refused_cleanly},
        {"help_texts_exit_zero", help_texts_exit_zero},
        {"run_to_dev_full_reports_once_exit_4", run_to_dev_full_reports_once_exit_4},
        {"run_file_size_limit_stops_mid_run_with_whole_rows",
         run_file_size_limit_stops_mid_run_with_whole_rows},
        {NULL, NULL}};
    rtc_test_add_suite("cli", setup, teardown, cases);
}
