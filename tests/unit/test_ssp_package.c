/* Unit tests of the SSP loader (rtcosim/ssp.h), part two: .ssp packages built at test time
 * with minizip's writer, and an unpacked directory. */
#include "test_ssp_util.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <minizip/zip.h>

static const char pkg_ssd[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"pkg\"\n"
    "  xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
    "  xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
    "  <ssd:System name=\"root\"><ssd:Elements>\n"
    "    <ssd:Component name=\"a\" source=\"resources/a.fmu\">\n"
    "      <ssd:ParameterBindings>\n"
    "        <ssd:ParameterBinding source=\"resources/x.ssv\"/>\n"
    "      </ssd:ParameterBindings>\n"
    "    </ssd:Component>\n"
    "  </ssd:Elements></ssd:System>\n"
    "</ssd:SystemStructureDescription>\n";

static const char pkg_ssv[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssv:ParameterSet version=\"1.0\" name=\"x\"\n"
    "  xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
    "  <ssv:Parameters><ssv:Parameter name=\"gain\"><ssv:Real value=\"2.5\"/></ssv:Parameter>\n"
    "  </ssv:Parameters>\n"
    "</ssv:ParameterSet>\n";

RTC_TEST_WORKDIR_FIXTURE

static bool zip_add(zipFile z, const char *name, const char *data, size_t len)
{
    zip_fileinfo zi = {0};
    if (zipOpenNewFileInZip64(z, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED,
                              Z_DEFAULT_COMPRESSION, 0) != ZIP_OK)
        return false;
    bool ok = zipWriteInFileInZip(z, data, (unsigned)len) == ZIP_OK;
    return zipCloseFileInZip(z) == ZIP_OK && ok;
}

static void make_zip(const char *path, bool with_ssd)
{
    zipFile z = zipOpen64(path, APPEND_STATUS_CREATE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(z);
    CU_ASSERT_TRUE(
        zip_add(z, with_ssd ? "SystemStructure.ssd" : "Other.ssd", pkg_ssd, strlen(pkg_ssd)));
    CU_ASSERT_TRUE(zip_add(z, "resources/x.ssv", pkg_ssv, strlen(pkg_ssv)));
    CU_ASSERT_TRUE(zip_add(z, "resources/a.fmu", "not really an FMU", 17));
    CU_ASSERT_EQUAL(zipClose(z, NULL), ZIP_OK);
}

static void load_package_sources_inside_and_cleanup(void)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/sys.ssp", work);
    make_zip(path, true);
    rtc_ssp *s = open_ok(path, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->extract_dir);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", s->extract_dir);
    struct stat sb;
    CU_ASSERT_EQUAL(stat(dir, &sb), 0);
    const rtc_ssp_component *a = comp(s, "a");
    char want[PATH_MAX + 32];
    snprintf(want, sizeof want, "%s/resources/a.fmu", dir);
    CU_ASSERT_STRING_EQUAL(a->source, want);
    CU_ASSERT_EQUAL(stat(a->source, &sb), 0); /* extracted */
    expect_param(s, "a", "gain", RTC_TYPE_FLOAT64, "2.5", 1);
    snprintf(want, sizeof want, "%s/resources/x.ssv", path);
    CU_ASSERT_STRING_EQUAL(rtc_ssp_find_param(s, "a", "gain")->file, want);
    rtc_ssp_free(s);
    CU_ASSERT_NOT_EQUAL(stat(dir, &sb), 0); /* removed */
}

static void reject_package_without_ssd(void)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/nossd.ssp", work);
    make_zip(path, false);
    char needle[PATH_MAX + 128];
    snprintf(needle, sizeof needle, "%s: no SystemStructure.ssd at the top of the package", path);
    expect_error(path, RTC_ENOTFOUND, 1, needle);
    /* Nothing left behind: with a private TMPDIR (other tests run in parallel and extract
     * packages too), the extraction directory must be gone after the failure. */
    char priv[PATH_MAX], cmd[PATH_MAX + 64], out[256];
    rtc_test_tmpdir(priv, sizeof priv);
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", priv, 1);
    expect_error(path, RTC_ENOTFOUND, 1, needle);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", priv);
    rtc_test_run(cmd, out, sizeof out);
    CU_ASSERT_EQUAL(atoi(out), 0);
    rtc_test_rmtree(priv);
}
static void load_unpacked_directory(void)
{
    rtc_ssp *s = open_ok(DATA "params", 1);
    CU_ASSERT_EQUAL(s->n_params, 10);
    rtc_ssp_free(s);
}
void rtc_test_register_ssp_package(void)
{
    static const rtc_test_case pkg[] = {
        {"load_package_sources_inside_and_cleanup", load_package_sources_inside_and_cleanup},
        {"reject_package_without_ssd", reject_package_without_ssd},
        {"load_unpacked_directory", load_unpacked_directory},
        {NULL, NULL}};
    rtc_test_add_suite("ssp_package", setup, teardown, pkg);
}
