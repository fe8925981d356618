/*
 * tests/fuzz/fuzz_ssv.c — parameter files: the input is written both as p.ssv and as
 * p.ssm next to a fixed .ssd that binds p.ssv to a component (as an ssv:ParameterSet) and
 * maps a fixed, valid base.ssv through p.ssm (as an ssm:ParameterMapping). Whichever root
 * element the input has, one of the two readers parses it in full; the other stops at the
 * root check. The component's connectors cover every SSP type, so the values are matched,
 * converted and transformed, not only parsed.
 */
#include "fuzz_util.h"

#include "rtcosim/ssp.h"

#include <limits.h>
#include <string.h>

#define NS_SSD "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define NS_SSC "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define NS_SSV "http://ssp-standard.org/SSP1/SystemStructureParameterValues"

static const char ssd[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"fuzz\" xmlns:ssd=\"" NS_SSD "\"\n"
    "    xmlns:ssc=\"" NS_SSC "\">\n"
    "  <ssd:System name=\"root\">\n"
    "    <ssd:Elements>\n"
    "      <ssd:Component name=\"plant\" source=\"plant.fmu\">\n"
    "        <ssd:Connectors>\n"
    "          <ssd:Connector name=\"k\" kind=\"parameter\"><ssc:Real unit=\"kg\"/></ssd:Connector>\n"
    "          <ssd:Connector name=\"m\" kind=\"parameter\"><ssc:Real/></ssd:Connector>\n"
    "          <ssd:Connector name=\"n\" kind=\"parameter\"><ssc:Integer/></ssd:Connector>\n"
    "          <ssd:Connector name=\"on\" kind=\"parameter\"><ssc:Boolean/></ssd:Connector>\n"
    "          <ssd:Connector name=\"label\" kind=\"parameter\"><ssc:String/></ssd:Connector>\n"
    "          <ssd:Connector name=\"mode\" kind=\"parameter\"><ssc:Enumeration name=\"Mode\"/></ssd:Connector>\n"
    "          <ssd:Connector name=\"blob\" kind=\"parameter\"><ssc:Binary/></ssd:Connector>\n"
    "        </ssd:Connectors>\n"
    "        <ssd:ParameterBindings>\n"
    "          <ssd:ParameterBinding source=\"p.ssv\"/>\n"
    "          <ssd:ParameterBinding source=\"base.ssv\">\n"
    "            <ssd:ParameterMapping source=\"p.ssm\"/>\n"
    "          </ssd:ParameterBinding>\n"
    "        </ssd:ParameterBindings>\n"
    "      </ssd:Component>\n"
    "    </ssd:Elements>\n"
    "  </ssd:System>\n"
    "  <ssd:Enumerations>\n"
    "    <ssc:Enumeration name=\"Mode\"><ssc:Item name=\"off\" value=\"0\"/>"
    "<ssc:Item name=\"on\" value=\"1\"/></ssc:Enumeration>\n"
    "  </ssd:Enumerations>\n"
    "  <ssd:Units>\n"
    "    <ssc:Unit name=\"kg\"><ssc:BaseUnit kg=\"1\"/></ssc:Unit>\n"
    "    <ssc:Unit name=\"g\"><ssc:BaseUnit kg=\"1\" factor=\"0.001\"/></ssc:Unit>\n"
    "  </ssd:Units>\n"
    "</ssd:SystemStructureDescription>\n";

static const char base_ssv[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ssv:ParameterSet version=\"1.0\" name=\"base\" xmlns:ssv=\"" NS_SSV "\"\n"
    "    xmlns:ssc=\"" NS_SSC "\">\n"
    "  <ssv:Parameters>\n"
    "    <ssv:Parameter name=\"mass\"><ssv:Real value=\"500\" unit=\"g\"/></ssv:Parameter>\n"
    "    <ssv:Parameter name=\"count\"><ssv:Integer value=\"3\"/></ssv:Parameter>\n"
    "    <ssv:Parameter name=\"flag\"><ssv:Boolean value=\"true\"/></ssv:Parameter>\n"
    "    <ssv:Parameter name=\"text\"><ssv:String value=\"hello\"/></ssv:Parameter>\n"
    "    <ssv:Parameter name=\"sel\"><ssv:Enumeration value=\"on\"/></ssv:Parameter>\n"
    "  </ssv:Parameters>\n"
    "  <ssv:Units>\n"
    "    <ssc:Unit name=\"g\"><ssc:BaseUnit kg=\"1\" factor=\"0.001\"/></ssc:Unit>\n"
    "  </ssv:Units>\n"
    "</ssv:ParameterSet>\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[PATH_MAX], path[PATH_MAX];
    rtc_fuzz_tmpdir(dir, sizeof dir);
    rtc_fuzz_write(dir, "base.ssv", base_ssv, strlen(base_ssv), path);
    rtc_fuzz_write(dir, "p.ssv", data, size, path);
    rtc_fuzz_write(dir, "p.ssm", data, size, path);
    rtc_fuzz_write(dir, "SystemStructure.ssd", ssd, strlen(ssd), path);
    rtc_ssp *ssp = NULL;
    rtc_fuzz_errors_reset();
    rtc_fuzz_check_reported(rtc_ssp_load(path, rtc_fuzz_logger(), &ssp), "rtc_ssp_load");
    rtc_ssp_free(ssp);
    rtc_fuzz_rmdir(dir);
    return 0;
}
