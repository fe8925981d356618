/*
 * The .dcpx reader (rtcosim/dcpx.h) on the files of tests/data/dcpx: the slave of DCPLib's
 * example (SRT, 1/100 s, UDP control 127.0.0.1:8080, input a, output y) and one using
 * every element, read field by field; then files with many faults, each reported as
 * "FILE:LINE: reason" and all of them before the read fails.
 */
#include "cu_main.h"
#include "io_util.h"

#include "rtcosim/dcp.h"
#include "rtcosim/dcpx.h"
#include "rtcosim/status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DCPX_DIR RTC_TEST_DATA_DIR "/dcpx"

static io_log LOG;

static int suite_init(void)
{
    io_log_init(&LOG);
    return 0;
}

static int read_case(const char *name, io_log *cap, rtc_dcpx **d)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DCPX_DIR, name);
    io_log_reset(cap);
    *d = NULL;
    return rtc_dcpx_read(path, &cap->lg, d);
}

/* The log holds a line with "<name>:<line>: " and @p what. */
static void said(const io_log *cap, const char *file, unsigned line, const char *what)
{
    char key[256];
    snprintf(key, sizeof key, "%s:%u: ", file, line);
    for (const char *p = cap->text; (p = strstr(p, key)); p++) {
        const char *eol = strchr(p, '\n');
        const char *w = strstr(p, what);
        if (w && (!eol || w < eol)) {
            CU_PASS("said");
            return;
        }
    }
    fprintf(stderr, "  expected \"%s%s\" in:\n%s", key, what, cap->text);
    CU_FAIL("message not found");
}

static void dcplib_example_slave_read(void)
{
    rtc_dcpx *d;
    CU_ASSERT_EQUAL_FATAL(read_case("srt_a_y.dcpx", &LOG, &d), RTC_OK);
    CU_ASSERT_EQUAL(LOG.n_errors + LOG.n_warnings, 0);
    CU_ASSERT_STRING_EQUAL(d->slave_name, "dcpslave");
    CU_ASSERT_EQUAL(d->uuid[0], 0xb5);
    CU_ASSERT_EQUAL(d->uuid[15], 0x5f);
    CU_ASSERT(d->srt && !d->hrt && !d->nrt);
    CU_ASSERT_EQUAL_FATAL(d->n_res, 1);
    CU_ASSERT_EQUAL(d->res[0].numerator, 1);
    CU_ASSERT_EQUAL(d->res[0].denominator, 100);
    CU_ASSERT(d->res[0].fixed && !d->res[0].range);
    CU_ASSERT(d->udp && !d->tcp);
    CU_ASSERT_EQUAL(d->udp_max_pdu, 65507);
    CU_ASSERT_STRING_EQUAL(d->control_host, "127.0.0.1");
    CU_ASSERT_EQUAL(d->control_port, 8080);
    CU_ASSERT_EQUAL_FATAL(d->n_dat_ports, 1);
    CU_ASSERT_EQUAL(d->dat_ports[0].from, 8080);
    CU_ASSERT(d->can_accept_config_pdus && !d->can_handle_reset && !d->heartbeat);
    CU_ASSERT_EQUAL_FATAL(d->n_vars, 2);
    const rtc_dcpx_var *a = rtc_dcpx_find(d, "a"), *y = rtc_dcpx_find(d, "y");
    CU_ASSERT_FATAL(a && y);
    CU_ASSERT_EQUAL(a->vr, 2);
    CU_ASSERT_EQUAL(a->causality, RTC_DCPX_INPUT);
    CU_ASSERT_EQUAL(a->type, RTC_DCP_FLOAT64);
    CU_ASSERT(a->has_start && a->start == 0);
    CU_ASSERT_EQUAL(a->line, 20);
    CU_ASSERT_EQUAL(y->causality, RTC_DCPX_OUTPUT);
    CU_ASSERT(!y->has_start && y->default_steps == 1 && y->fixed_steps);
    CU_ASSERT_PTR_NULL(rtc_dcpx_find(d, "z"));
    rtc_dcpx_free(d);
}

static void every_element_read(void)
{
    rtc_dcpx *d;
    CU_ASSERT_EQUAL_FATAL(read_case("full.dcpx", &LOG, &d), RTC_OK);
    CU_ASSERT_EQUAL(LOG.n_errors, 0);
    CU_ASSERT(d->hrt && d->srt && d->nrt);
    CU_ASSERT(d->nrt_default_steps == 2 && !d->nrt_fixed_steps && d->nrt_max_steps == 10);
    CU_ASSERT_EQUAL_FATAL(d->n_res, 2);
    CU_ASSERT(d->res[0].recommended && !d->res[0].fixed);
    CU_ASSERT(d->res[1].range && d->res[1].numerator == 1 && d->res[1].numerator_to == 100);
    CU_ASSERT(d->heartbeat && d->hb_numerator == 3 && d->hb_denominator == 2);
    CU_ASSERT(d->udp && d->tcp && !d->can && d->udp_max_pdu == 1024);
    CU_ASSERT_EQUAL(d->control_port, 9000);
    CU_ASSERT_EQUAL_FATAL(d->n_dat_ports, 2);
    CU_ASSERT(d->dat_ports[0].from == 9001 && d->dat_ports[0].to == 9009);
    CU_ASSERT_EQUAL(d->n_param_ports, 1);
    CU_ASSERT(d->can_handle_variable_steps && d->can_provide_log_on_notification);
    CU_ASSERT(!d->can_provide_log_on_request);
    CU_ASSERT_EQUAL(d->n_vars, 9);
    const rtc_dcpx_var *u8 = rtc_dcpx_find(d, "u8"), *x = rtc_dcpx_find(d, "x");
    const rtc_dcpx_var *y = rtc_dcpx_find(d, "y"), *n = rtc_dcpx_find(d, "n");
    const rtc_dcpx_var *arr = rtc_dcpx_find(d, "arr"), *sz = rtc_dcpx_find(d, "size");
    CU_ASSERT_FATAL(u8 && x && y && n && arr && sz);
    CU_ASSERT(u8->type == RTC_DCP_UINT8 && u8->start == 255);
    CU_ASSERT(x->type == RTC_DCP_FLOAT32 && x->start == 1.5 && x->n_elems == 2);
    CU_ASSERT_STRING_EQUAL(x->unit, "m");
    CU_ASSERT_STRING_EQUAL(x->declared_type, "Position");
    CU_ASSERT_EQUAL(x->max_consec_missed, 5);
    CU_ASSERT(y->default_steps == 4 && y->initialization && y->start == 0.25);
    CU_ASSERT(n->vr == UINT64_MAX && !n->fixed_steps && n->max_steps == 8);
    CU_ASSERT_EQUAL(arr->n_elems, 0); /* sized by a structural parameter */
    CU_ASSERT_EQUAL(sz->causality, RTC_DCPX_STRUCTURAL_PARAMETER);
    CU_ASSERT_EQUAL(rtc_dcpx_find(d, "label")->type, RTC_DCP_STRING);
    const rtc_dcpx_template *t = rtc_dcpx_template_find(d, 7);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT(t->level == 3 && strcmp(t->msg, "step %uint32 done") == 0);
    rtc_dcpx_free(d);
}

static void every_fault_reported_with_its_line(void)
{
    rtc_dcpx *d;
    CU_ASSERT_EQUAL(read_case("bad_many.dcpx", &LOG, &d), RTC_EPARSE);
    CU_ASSERT_PTR_NULL(d);
    const char *f = DCPX_DIR "/bad_many.dcpx";
    said(&LOG, f, 3, "uuid: not a uuid");
    said(&LOG, f, 4, "OpMode: none of HardRealTime, SoftRealTime, NonRealTime");
    said(&LOG, f, 5, "a fixed Resolution must be the only resolution");
    said(&LOG, f, 7, "a time resolution of zero (1/0)");
    said(&LOG, f, 11, "AvailablePortRange to: below from");
    said(&LOG, f, 16, "Float64 start: missing (required for an Input)");
    said(&LOG, f, 17, "Variable 'b': valueReference 1 already used by 'a' at line 16");
    said(&LOG, f, 18, "Variable 'a': name already used at line 16");
    said(&LOG, f, 19, "Uint8 start: not a finite uint8 value (\"300\")");
    said(&LOG, f, 20, "Variable 'd': more than one of Input, Output");
    said(&LOG, f, 21, "Output of variable 'e': no type element");
    said(&LOG, f, 22, "Float64 start: not a finite float64 value (\"INF\")");
    CU_ASSERT_EQUAL(LOG.n_errors, 12);
}

static void version_root_sections_and_syntax_refused(void)
{
    rtc_dcpx *d;
    CU_ASSERT_EQUAL(read_case("bad_version.dcpx", &LOG, &d), RTC_EPARSE);
    said(&LOG, DCPX_DIR "/bad_version.dcpx", 3, "DCP 2.0 is not supported (this engine "
                                                "speaks DCP 1.0)");
    CU_ASSERT_EQUAL(read_case("bad_root.dcpx", &LOG, &d), RTC_EPARSE);
    said(&LOG, DCPX_DIR "/bad_root.dcpx", 2, "root element <fmiModelDescription> is not "
                                             "dcpSlaveDescription");
    CU_ASSERT_EQUAL(read_case("bad_missing.dcpx", &LOG, &d), RTC_EPARSE);
    said(&LOG, DCPX_DIR "/bad_missing.dcpx", 5, "OpMode: given twice");
    said(&LOG, DCPX_DIR "/bad_missing.dcpx", 3, "TimeRes missing (required)");
    said(&LOG, DCPX_DIR "/bad_missing.dcpx", 3, "Variables missing (required)");
    CU_ASSERT_EQUAL(read_case("bad_xml.dcpx", &LOG, &d), RTC_EPARSE);
    CU_ASSERT_EQUAL(LOG.n_errors, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(LOG.text, "bad_xml.dcpx:"));
    CU_ASSERT_EQUAL(read_case("absent.dcpx", &LOG, &d), -ENOENT);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_EQUAL(rtc_dcpx_read(NULL, NULL, &d), RTC_EINVAL);
    rtc_dcpx_free(NULL);
}

void rtc_test_register(void)
{
    static const rtc_test_case cases[] = {
        {"dcplib_example_slave_read", dcplib_example_slave_read},
        {"every_element_read", every_element_read},
        {"every_fault_reported_with_its_line", every_fault_reported_with_its_line},
        {"version_root_sections_and_syntax_refused", version_root_sections_and_syntax_refused},
        {NULL, NULL}};
    rtc_test_add_suite("dcpx", suite_init, NULL, cases);
}
