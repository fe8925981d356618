#!/usr/bin/env bash
# bench_session.sh RTCOSIM BENCH_SIM PI_FMU OUT [SECONDS] — a small real session, as the
# demo makes one: rtcosim-bench-sim (a DC-motor bench on an ephemeral Modbus TCP port,
# 10 ms transport delay, its true state logged to OUT/truth.csv) and a real-time run of a PI
# speed controller (PI_FMU, set-point 50 rad/s) closing the loop over Modbus, the measured
# speed estimated by a constant-velocity Kalman filter. OUT gets the session (results.csv,
# inputs.bin, timing.json, ...) and truth.csv; the exit status is rtcosim's (1 when the bench
# does not start). Used by the product test (rtcosim plot) and the .deb test (the packaged
# plot command), so both draw from the files a demo session holds.
set -u
rtcosim=$1 sim=$2 pi=$3 out=$4 secs=${5:-2}
mkdir -p "$out" || exit 1
"$sim" --port 0 --delay-ms 10 --duration $((secs + 20)) --log "$out/truth.csv" \
    > "$out/bench-sim.log" 2>&1 &
sim_pid=$!
trap 'kill "$sim_pid" 2> /dev/null; wait "$sim_pid" 2> /dev/null' EXIT
port=""
for _ in $(seq 200); do
    port=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$out/bench-sim.log")
    [ -n "$port" ] && break
    kill -0 "$sim_pid" 2> /dev/null || break
    sleep 0.05
done
[ -n "$port" ] || { echo "bench_session: the bench did not start: $(cat "$out/bench-sim.log")" >&2; exit 1; }
cat > "$out/loop.ssd" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="loop"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    xmlns:rtc="urn:rtcosim:realtime:1">
  <ssd:System name="loop">
    <ssd:Elements>
      <ssd:Component name="bench" type="application/x-rtcosim-modbus-client">
        <ssd:Connectors>
          <ssd:Connector name="voltage" kind="input"><ssc:Real unit="V"/></ssd:Connector>
          <ssd:Connector name="speed" kind="output"><ssc:Real unit="rad/s"/></ssd:Connector>
        </ssd:Connectors>
        <ssd:Annotations><ssc:Annotation type="org.rtcosim.realtime">
          <rtc:Component host="127.0.0.1" port="$port" poll_ms="20" timeout_ms="18"
                         write_mode="cycle" priority="0">
            <rtc:Signal name="voltage" table="holding" address="0" type="float32" safe="0"/>
            <rtc:Signal name="speed" table="input" address="0" type="float32"
                        estimator="kalman-cv" params="q=1e5 r=0.01"/>
          </rtc:Component>
        </ssc:Annotation></ssd:Annotations>
      </ssd:Component>
      <ssd:Component name="controller" source="$pi">
        <ssd:Connectors>
          <ssd:Connector name="r" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="y" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="u" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="tuning"><ssv:Parameters>
            <ssv:Parameter name="kp"><ssv:Real value="0.035"/></ssv:Parameter>
            <ssv:Parameter name="ki"><ssv:Real value="0.44"/></ssv:Parameter>
            <ssv:Parameter name="u_min"><ssv:Real value="-24"/></ssv:Parameter>
            <ssv:Parameter name="u_max"><ssv:Real value="24"/></ssv:Parameter>
          </ssv:Parameters></ssv:ParameterSet>
        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="bench" startConnector="speed" endElement="controller"
                      endConnector="y" suppressUnitConversion="true"/>
      <ssd:Connection startElement="controller" startConnector="u" endElement="bench"
                      endConnector="voltage" suppressUnitConversion="true"/>
    </ssd:Connections>
    <ssd:Annotations><ssc:Annotation type="org.rtcosim.realtime">
      <rtc:RealTime baseStep="0.001" algorithm="jacobi" overrun="skip"
                    record="bench.speed bench.voltage controller.u"/>
    </ssc:Annotation></ssd:Annotations>
  </ssd:System>
  <ssd:Units>
    <ssc:Unit name="V"><ssc:BaseUnit kg="1" m="2" s="-3" A="-1"/></ssc:Unit>
    <ssc:Unit name="rad/s"><ssc:BaseUnit rad="1" s="-1"/></ssc:Unit>
  </ssd:Units>
</ssd:SystemStructureDescription>
EOF
"$rtcosim" run "$out/loop.ssd" --realtime --stop "$secs" --set controller.r=50 \
    --output-dir "$out" -q
