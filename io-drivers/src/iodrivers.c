/*
 * Registration of the built-in drivers under their SSP component types.
 */
#include "rtcosim/iodrivers.h"
#include "rtcosim/status.h"

int rtc_iodrivers_register(void)
{
    int rc = rtc_driver_register(RTC_DRIVER_TYPE_MODBUS_CLIENT, &rtc_modbus_client_ops);
    if (rc == RTC_OK)
        rc = rtc_driver_register(RTC_DRIVER_TYPE_MODBUS_SERVER, &rtc_modbus_server_ops);
    if (rc == RTC_OK)
        rc = rtc_driver_register(RTC_DRIVER_TYPE_OSC, &rtc_osc_ops);
    if (rc == RTC_OK)
        rc = rtc_driver_register(RTC_DRIVER_TYPE_UDP_FRAME, &rtc_udp_frame_ops);
    if (rc == RTC_OK)
        rc = rtc_driver_register(RTC_DRIVER_TYPE_NODE_BRIDGE, &rtc_node_bridge_ops);
    if (rc == RTC_OK)
        rc = rtc_driver_register(RTC_DRIVER_TYPE_DCP_SLAVE, &rtc_dcp_master_ops);
    return rc;
}
