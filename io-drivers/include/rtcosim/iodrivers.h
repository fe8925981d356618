/*
 * rtcosim/iodrivers.h — the built-in I/O drivers (io-drivers library).
 *
 * Each driver implements rtc_driver_ops (rtcosim/driver.h), where the settings keys of
 * every driver are documented. The executable calls rtc_iodrivers_register() once during
 * load; tests and embedders may also use the vtables directly.
 */
#ifndef RTCOSIM_IODRIVERS_H
#define RTCOSIM_IODRIVERS_H

#include "rtcosim/driver.h"

/** Modbus client over TCP or RTU (libmodbus): polls the bench, writes outputs. */
extern const rtc_driver_ops rtc_modbus_client_ops;
/** Modbus server over TCP or RTU (libmodbus): a PLC/SCADA polls the engine. */
extern const rtc_driver_ops rtc_modbus_server_ops;
/** OSC over UDP (liblo): operator set-points in, streamed outputs out. */
extern const rtc_driver_ops rtc_osc_ops;

/**
 * Register the three drivers under RTC_DRIVER_TYPE_MODBUS_CLIENT, _MODBUS_SERVER, _OSC.
 *
 * Returns: RTC_OK or the first rtc_driver_register() error.
 * RT-safe: no. Thread: main thread, during load.
 */
int rtc_iodrivers_register(void);

#endif
