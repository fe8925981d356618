#!/usr/bin/env python3
"""A DCP 1.0 master written from the specification, not from rtcosim's codec: every PDU is
packed with struct from the spec's tables (UDP_IPv4, little-endian), every answer is checked
byte for byte. It drives `rtcosim dcp-slave` of a test FMU through full life cycles:

  srt      the DCPLib example master's 14 PDUs: STC_register, CFG_scope, CFG_input,
           CFG_output, CFG_steps, CFG_time_res, CFG_source_network_information,
           CFG_target_network_information, STC_prepare, STC_configure, STC_run (start time
           in whole seconds, from CONFIGURED), STC_run (from SYNCHRONIZED), STC_stop,
           STC_deregister; outputs stream while RUNNING; the session replays identically.
  nrt      the same configuration without CFG_steps, then per step DAT_input_output,
           STC_do_step, STC_send_outputs; the outputs received equal the session's rows and
           the session replays identically.
  hostile  wrong sender (127.0.0.2), wrong sequence ids, truncated, oversized and unknown
           PDUs, PDUs in the wrong state, while an SRT run streams: nothing crashes or
           hangs, every refusal is counted, the outputs keep coming.
  vanish   the master goes silent while RUNNING: after the heartbeat interval the slave
           sets the input's safe value, stops the run and exits by itself.
  refusals what the slave cannot do is refused with the DCP error code (HRT, an op mode
           not offered, a wrong uuid or version, a time resolution other than the tick, an
           unknown value reference, TCP, a gap in positions, STC_reset); NRT of a system
           with I/O components is refused at start.
  rtcosim_master  two rtcosim processes: a real-time system whose component is a DCP slave
           (rtcosim's own master) drives rtcosim dcp-slave, in SRT and in NRT; both end
           cleanly and both sessions replay identically.
  nrt_fast a fast run whose PI is rtcosim dcp-slave in NRT, stepped in lock-step, writes
           the in-process run's results.csv byte for byte; SRT in a fast run is refused.

usage: dcp_master_script.py RTCOSIM FMU_DIR OUT_DIR [CASE...]
"""
import csv
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

# type ids (spec Table 62 / the per-PDU tables)
STC_REGISTER, STC_DEREGISTER, STC_PREPARE, STC_CONFIGURE = 0x01, 0x02, 0x03, 0x04
STC_INITIALIZE, STC_RUN, STC_DO_STEP, STC_SEND_OUTPUTS, STC_STOP = 0x05, 0x06, 0x07, 0x08, 0x09
CFG_TIME_RES, CFG_STEPS, CFG_INPUT, CFG_OUTPUT = 0x20, 0x21, 0x22, 0x23
CFG_TARGET_NI, CFG_SOURCE_NI, CFG_LOGGING, CFG_SCOPE = 0x25, 0x26, 0x2A, 0x2B
INF_STATE = 0x80
RSP_ACK, RSP_NACK, RSP_STATE_ACK = 0xB0, 0xB1, 0xB2
NTF_STATE_CHANGED, NTF_LOG, DAT_INPUT_OUTPUT = 0xE0, 0xE1, 0xF0
# states
ALIVE, CONFIGURATION, PREPARED, CONFIGURED = 0x00, 0x01, 0x03, 0x05
SYNCHRONIZED, RUNNING, COMPUTED, STOPPED = 0x0A, 0x0B, 0x0D, 0x10
ERRORRESOLVED = 0x12
# op modes, data types, transport, scope
SRT, NRT = 1, 2
FLOAT64 = 9
UDP_IPV4 = 0
SCOPE_ALL = 0
# errors
INVALID_SEQUENCE_ID, NOT_ALLOWED = 0x2013, 0x1003

SLAVE = 1  # the receiver id the master gives the slave
DATA_IN, DATA_OUT = 1, 2  # data ids: master -> slave, slave -> master


SLAVES = []  # every slave started, killed when the script fails


def fail(msg):
    print("dcp_master_script: FAILED: " + msg, flush=True)
    for s in SLAVES:
        if s.p.poll() is None:
            s.p.kill()
            s.p.wait()
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def ip_le(ip):  # 127.0.0.1 -> the little-endian uint32 0x7F000001
    a = [int(x) for x in ip.split(".")]
    return a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]


class Slave:
    """rtcosim dcp-slave as a child process, its .dcpx read with ElementTree."""

    def __init__(self, rtcosim, fmu, out, name, extra, expose="PI.r:safe=-7", stop="1000"):
        self.dir = os.path.join(out, name)
        self.dcpx = os.path.join(out, name + ".dcpx")
        args = [rtcosim, "dcp-slave", fmu, "--expose", expose, "--stop", stop,
                "--output-dir", self.dir, "--dcpx", self.dcpx, "-q"] + extra
        self.err_path = os.path.join(out, name + ".stderr")
        self.err = open(self.err_path, "w+")
        self.p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.err)
        SLAVES.append(self)
        deadline = time.monotonic() + 60
        while True:  # the port is printed once the socket is bound and the .dcpx written
            self.err.seek(0)
            m = re.search(r"DCP slave on ([0-9.]+):(\d+)", self.err.read())
            if m:
                break
            check(self.p.poll() is None, "the slave exited: " + self.stderr())
            check(time.monotonic() < deadline, "no DCP slave line within 60 s")
            time.sleep(0.02)
        self.host, self.port = m.group(1), int(m.group(2))
        root = ET.parse(self.dcpx).getroot()
        check(root.tag == "dcpSlaveDescription" and root.get("dcpMajorVersion") == "1",
              "not a DCP 1.0 slave description")
        self.uuid = bytes.fromhex(root.get("uuid").replace("-", ""))
        res = root.find("TimeRes/Resolution")
        self.num, self.den = int(res.get("numerator")), int(res.get("denominator"))
        self.vr = {v.get("name"): int(v.get("valueReference")) for v in root.iter("Variable")}
        udp = root.find("TransportProtocols/UDP_IPv4/Control")
        check(int(udp.get("port")) == self.port, ".dcpx Control port differs from the bound")

    def stderr(self):
        self.err.seek(0)
        return self.err.read().strip()

    def wait(self, timeout=30):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            fail("the slave did not exit within %d s" % timeout)

    def events(self):
        with open(os.path.join(self.dir, "events.log")) as f:
            return f.read()


class Master:
    def __init__(self, slave, bind="127.0.0.1"):
        self.s = slave
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((bind, 0))
        self.ip, self.port = self.sock.getsockname()
        self.seq = 0
        self.state = ALIVE
        self.data = []  # DAT_input_output payloads received (bytes)
        self.data_seq = []
        self.logs = []  # (template id, argument bytes) of NTF_log
        self.stale = 0

    def send(self, b):
        self.sock.sendto(b, (self.s.host, self.s.port))

    def recv(self, timeout):
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return None
        b, _ = self.sock.recvfrom(70000)
        return b

    def note(self, b):
        """Notifications and data, checked for their exact layout."""
        if b[0] == NTF_STATE_CHANGED:
            check(len(b) == 3 and b[1] == SLAVE, "NTF_state_changed bytes %s" % b.hex())
            self.state = b[2]
            return True
        if b[0] == NTF_LOG:  # sender, int64 time, template id, its arguments
            check(len(b) >= 11 and b[1] == SLAVE, "NTF_log bytes %s" % b.hex())
            t = struct.unpack_from("<q", b, 2)[0]
            check(abs(t - time.time()) < 60, "NTF_log time %d is not now" % t)
            self.logs.append((b[10], b[11:]))
            return True
        if b[0] == DAT_INPUT_OUTPUT:
            seq, did = struct.unpack_from("<HH", b, 1)
            check(did == DATA_OUT and len(b) == 5 + 8, "DAT_input_output bytes %s" % b.hex())
            self.data.append(struct.unpack_from("<d", b, 5)[0])
            self.data_seq.append(seq)
            return True
        return False

    def request(self, body, expect=RSP_ACK, timeout=5):
        """Send type_id, seq, receiver + body; return the response (checked)."""
        seq = self.seq
        pdu = bytes([body[0]]) + struct.pack("<HB", seq, SLAVE) + body[1:]
        self.send(pdu)
        deadline = time.monotonic() + timeout
        resend = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            b = self.recv(max(0, min(deadline, resend) - time.monotonic()))
            if b is None:  # UDP may lose it: the same bytes again (spec 3.4.10)
                self.send(pdu)
                resend = time.monotonic() + 0.5
                continue
            if self.note(b):
                continue
            if len(b) >= 4 and b[0] in (RSP_ACK, RSP_NACK) and \
                    struct.unpack_from("<H", b, 1)[0] != seq:
                self.stale += 1  # the answer to an earlier (e.g. refused) request
                continue
            check(struct.unpack_from("<H", b, 1)[0] == seq and b[3] == SLAVE,
                  "response %s to request 0x%02x seq %d" % (b.hex(), body[0], seq))
            check(b[0] == expect, "request 0x%02x: got %s, expected 0x%02x" %
                  (body[0], b.hex(), expect))
            if b[0] == RSP_ACK:
                check(len(b) == 4, "RSP_ack of %d bytes" % len(b))
            if b[0] == RSP_NACK:
                check(len(b) == 8, "RSP_nack of %d bytes" % len(b))
            if expect != RSP_NACK:
                self.seq = (seq + 1) & 0xFFFF
            return b
        fail("no response to request 0x%02x seq %d" % (body[0], seq))

    def wait_state(self, state, timeout=10):
        deadline = time.monotonic() + timeout
        while self.state != state:
            left = deadline - time.monotonic()
            check(left > 0, "state 0x%02x not reached (now 0x%02x)" % (state, self.state))
            b = self.recv(left)
            if b is not None:
                check(self.note(b), "unexpected datagram %s" % b.hex())

    def drain(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            b = self.recv(deadline - time.monotonic())
            if b is not None:
                self.note(b)

    # ---- the requests, as the spec's tables lay them out ----
    def register(self, op_mode):
        self.seq = 0
        self.request(struct.pack("<BB16sBBB", STC_REGISTER, ALIVE, self.s.uuid, op_mode, 1, 0))
        self.wait_state(CONFIGURATION)

    def configure(self, srt, name_in="PI.r", name_out="u", log=False):
        vr_in, vr_out = self.s.vr[name_in], self.s.vr[name_out]
        self.request(struct.pack("<BHB", CFG_SCOPE, DATA_OUT, SCOPE_ALL))
        self.request(struct.pack("<BHHQB", CFG_INPUT, DATA_IN, 0, vr_in, FLOAT64))
        self.request(struct.pack("<BHHQ", CFG_OUTPUT, DATA_OUT, 0, vr_out))
        if srt:
            self.request(struct.pack("<BIH", CFG_STEPS, 1, DATA_OUT))
        self.request(struct.pack("<BII", CFG_TIME_RES, self.s.num, self.s.den))
        self.request(struct.pack("<BHBHI", CFG_SOURCE_NI, DATA_IN, UDP_IPV4, self.s.port,
                                 ip_le(self.s.host)))
        self.request(struct.pack("<BHBHI", CFG_TARGET_NI, DATA_OUT, UDP_IPV4, self.port,
                                 ip_le(self.ip)))
        if log:  # every category, up to debug, on notification
            self.request(struct.pack("<BBBB", CFG_LOGGING, 0, 4, 2))
        self.request(struct.pack("<BB", STC_PREPARE, CONFIGURATION))
        self.wait_state(PREPARED)
        self.request(struct.pack("<BB", STC_CONFIGURE, PREPARED))
        self.wait_state(CONFIGURED)

    def run(self, start_s):
        self.request(struct.pack("<BBq", STC_RUN, CONFIGURED, start_s))
        self.wait_state(SYNCHRONIZED, timeout=10)
        self.request(struct.pack("<BBq", STC_RUN, SYNCHRONIZED, 0))
        self.wait_state(RUNNING)

    def stop_deregister(self, state=RUNNING):
        self.request(struct.pack("<BB", STC_STOP, state))
        self.wait_state(STOPPED)
        self.request(struct.pack("<BB", STC_DEREGISTER, STOPPED))
        self.wait_state(ALIVE)

    def dat_in(self, seq, value):
        self.send(struct.pack("<BHHd", DAT_INPUT_OUTPUT, seq, DATA_IN, value))


def results(slave):
    with open(os.path.join(slave.dir, "results.csv")) as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


def replay_identical(rtcosim, slave):
    r = subprocess.run([rtcosim, "replay", slave.dir], capture_output=True, text=True)
    check(r.returncode == 0, "replay of %s: exit %d: %s" % (slave.dir, r.returncode,
                                                             r.stderr.strip()))


def counters(slave):
    m = re.search(r"DCP slave: (\S.*?); (\d+) datagram\(s\), (\d+) request\(s\), (\d+) "
                  r"refused \((\d+) from other senders\), (\d+) data in, (\d+) out",
                  slave.events())
    check(m, "no DCP slave counters in events.log")
    keys = ["received", "requests", "refused", "wrong_sender", "dat_in", "dat_out"]
    return m.group(1), dict(zip(keys, [int(x) for x in m.groups()[1:]]))


def case_nrt(rtcosim, fmu, out):
    s = Slave(rtcosim, fmu, out, "nrt", ["--dcp-op-mode", "nrt"])
    m = Master(s)
    m.register(NRT)
    m.configure(srt=False)
    m.run(0)
    n = 50
    for k in range(n):  # r = 0.1 k applied before step k; u after it sent back
        m.dat_in(k, 0.1 * k)
        m.request(struct.pack("<BBI", STC_DO_STEP, RUNNING, 1))
        m.wait_state(COMPUTED)
        m.request(struct.pack("<BB", STC_SEND_OUTPUTS, COMPUTED))
        m.wait_state(RUNNING)
        check(len(m.data) == k + 1, "step %d: %d output PDUs" % (k, len(m.data)))
    m.stop_deregister()
    check(s.wait() == 0, "slave exit status: " + s.stderr())
    head, rows = results(s)
    check(head == ["time", "u"], "columns %s" % head)
    check(len(rows) >= n, "%d rows for %d steps" % (len(rows), n))
    for k in range(n):  # the row after step k is the output of step k (exactly)
        check(rows[k + 1][1] == m.data[k], "step %d: DAT %r, results.csv %r" %
              (k, m.data[k], rows[k + 1][1]))
    check(m.data_seq == list(range(n)), "output sequence ids %s" % m.data_seq[:8])
    check(any(abs(x) > 0 for x in m.data), "every output is 0: the inputs did not arrive")
    replay_identical(rtcosim, s)
    how, c = counters(s)
    check(how == "released" and c["refused"] == 0 and c["dat_in"] == n,
          "counters %s %s" % (how, c))
    print("nrt: %d steps, outputs equal to the session's rows, replay identical" % n)


def case_srt(rtcosim, fmu, out):
    s = Slave(rtcosim, fmu, out, "srt", ["--dcp-op-mode", "srt", "--dcp-heartbeat-ms", "0"])
    m = Master(s)
    m.register(SRT)
    m.configure(srt=True, log=True)
    m.dat_in(0, 2.5)
    m.run(int(time.time()) + 2)  # whole seconds, as DCPLib's example master
    m.drain(1.0)
    m.stop_deregister()
    check(s.wait() == 0, "slave exit status: " + s.stderr())
    # template 1 "run started (%string) at tick %uint64": "SRT" and tick 0
    check((1, struct.pack("<I", 3) + b"SRT" + struct.pack("<Q", 0)) in m.logs,
          "no NTF_log of the start: %s" % m.logs)
    head, rows = results(s)
    got = len(m.data)
    check(got >= 50, "%d outputs in 1 s of a 10 ms run" % got)
    check(all(b == (a + 1) & 0xFFFF for a, b in zip(m.data_seq, m.data_seq[1:])),
          "gaps in the output sequence ids")
    us = set(r[1] for r in rows)
    check(all(x in us for x in m.data), "an output that is no row of results.csv")
    replay_identical(rtcosim, s)
    print("srt: %d outputs streamed, replay identical" % got)


def case_hostile(rtcosim, fmu, out):
    s = Slave(rtcosim, fmu, out, "hostile", ["--dcp-op-mode", "srt", "--dcp-heartbeat-ms",
                                             "0"])
    m = Master(s)
    # before registration: wrong state (a prepare in ALIVE) is refused with a NACK
    b = m.request(struct.pack("<BB", STC_PREPARE, ALIVE), expect=RSP_NACK)
    check(struct.unpack_from("<H", b, 6)[0] == NOT_ALLOWED, "prepare in ALIVE: %s" % b.hex())
    m.register(SRT)
    m.configure(srt=True)
    m.run(0)
    m.drain(0.3)
    before = len(m.data)
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stranger.bind(("127.0.0.2", 0))
    refused = 0
    for i in range(200):
        # another sender takes over: dropped unread
        stranger.sendto(struct.pack("<BHBB", STC_STOP, m.seq, SLAVE, RUNNING),
                        (s.host, s.port))
        m.send(b"\x06\x00")                            # truncated STC_run
        m.send(struct.pack("<BHBBq", STC_RUN, m.seq, SLAVE, RUNNING, 0) + bytes(1000))  # long
        m.send(b"\x77" + bytes(8))                     # unknown type id
        m.send(b"")                                    # empty
        refused += 5
        if i % 10 == 9:  # within the socket's buffer: each one is read and refused
            time.sleep(0.02)
    # a wrong sequence id: NACK naming the expected one; nothing changes
    good = m.seq
    m.seq = (good + 17) & 0xFFFF
    b = m.request(struct.pack("<BB", STC_STOP, RUNNING), expect=RSP_NACK)
    check(struct.unpack_from("<HH", b, 4) == (good, INVALID_SEQUENCE_ID),
          "wrong sequence id: %s" % b.hex())
    m.seq = good
    # in the wrong state: STC_configure while RUNNING
    b = m.request(struct.pack("<BB", STC_CONFIGURE, RUNNING), expect=RSP_NACK)
    check(struct.unpack_from("<H", b, 6)[0] == NOT_ALLOWED, "configure in RUNNING")
    refused += 2
    m.drain(0.5)
    check(m.state == RUNNING, "the slave left RUNNING: 0x%02x" % m.state)
    check(len(m.data) > before + 10, "outputs stopped under the flood (%d -> %d)" %
          (before, len(m.data)))
    m.stop_deregister()
    check(s.wait() == 0, "slave exit status: " + s.stderr())
    how, c = counters(s)
    check(c["wrong_sender"] == 200, "wrong sender counted %d of 200" % c["wrong_sender"])
    check(c["refused"] >= refused, "refused %d, sent %d to refuse" % (c["refused"], refused))
    with open(os.path.join(s.dir, "summary.json")) as f:
        j = json.load(f)["surfaces"]["dcp_slave"]
    with open(os.path.join(s.dir, "timing.json")) as f:
        overruns = json.load(f)["overruns"]
    parts = ["requests", "dat_in", "repeats", "wrong_sender", "malformed", "wrong_seq",
             "not_allowed", "refused", "dropped", "ignored"]
    check(sum(j[k] for k in parts) == j["received"], "summary counters do not add up: %s" % j)
    check(j["wrong_sender"] == 200 and j["malformed"] >= 600 and j["wrong_seq"] >= 1 and
          j["not_allowed"] >= 1, "summary counters: %s" % j)
    check(overruns == 0, "the real-time loop overran %d time(s) under the flood" % overruns)
    replay_identical(rtcosim, s)
    print("hostile: %d datagrams refused and counted (%d from another sender), run went on"
          % (c["refused"], c["wrong_sender"]))


def case_vanish(rtcosim, fmu, out):
    for mode, op in (("srt", SRT), ("nrt", NRT)):
        s = Slave(rtcosim, fmu, out, "vanish_" + mode, ["--dcp-op-mode", mode,
                                                        "--dcp-heartbeat-ms", "400"])
        m = Master(s)
        m.register(op)
        m.configure(srt=op == SRT)
        m.run(0)
        m.sock.close()  # the master vanishes: no INF_state, nothing
        t0 = time.monotonic()
        check(s.wait(timeout=30) == 0, "slave exit status: " + s.stderr())
        took = time.monotonic() - t0
        ev = s.events()
        check("no request from master" in ev, "the loss of the master is not in events.log")
        check(re.search(r"set PI\.r = -7 \(applied", ev), "the safe value was not applied")
        with open(os.path.join(s.dir, "summary.json")) as f:
            j = json.load(f)["surfaces"]["dcp_slave"]
        check(j["heartbeats_missed"] == 1 and j["state"] == "ERRORRESOLVED",
              "after the loss: %s" % j)
        print("vanish %s: the slave stopped itself %.2f s after its master vanished, safe "
              "value applied, ERRORRESOLVED" % (mode, took))


SSD_HEAD = ('<?xml version="1.0"?>\n<ssd:SystemStructureDescription version="1.0" name="m" '
            'xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" '
            'xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" '
            'xmlns:rtc="urn:rtcosim:realtime:1">\n<ssd:System name="s">\n<ssd:Elements>\n')
LAG = ('<ssd:Component name="lag" source="%s"><ssd:Connectors>'
       '<ssd:Connector name="u1" kind="input"><ssc:Real/></ssd:Connector>'
       '<ssd:Connector name="u2" kind="input"><ssc:Real/></ssd:Connector>'
       '<ssd:Connector name="y" kind="output"><ssc:Real/></ssd:Connector>'
       '</ssd:Connectors></ssd:Component>\n')


def connection(a, ac, b, bc):
    return ('<ssd:Connection startElement="%s" startConnector="%s" endElement="%s" '
            'endConnector="%s"/>' % (a, ac, b, bc))


# the bench beside the slave: an OSC input and a Modbus server on ephemeral ports
BENCH = ('<ssd:Component name="op" type="application/x-rtcosim-osc"><ssd:Connectors>'
         '<ssd:Connector name="sp" kind="output"><ssc:Real/></ssd:Connector></ssd:Connectors>'
         '<ssd:Annotations><ssc:Annotation type="org.rtcosim.realtime"><rtc:Component '
         'port="0" priority="0"><rtc:Signal name="sp" path="/sp"/></rtc:Component>'
         '</ssc:Annotation></ssd:Annotations></ssd:Component>\n'
         '<ssd:Component name="plc" type="application/x-rtcosim-modbus-server"><ssd:Connectors>'
         '<ssd:Connector name="speed" kind="input"><ssc:Real/></ssd:Connector>'
         '</ssd:Connectors><ssd:Annotations><ssc:Annotation type="org.rtcosim.realtime">'
         '<rtc:Component port="0" priority="0" required="false">'  # no PLC connects here
         '<rtc:Signal name="speed" table="input" address="0" type="float32"/></rtc:Component>'
         '</ssc:Annotation></ssd:Annotations></ssd:Component>\n')


def write_system(path, pi_component, pi_in, pi_out, lag_fmu, stop, bench=False):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "SystemStructure.ssd"), "w") as f:
        f.write(SSD_HEAD + LAG % lag_fmu + pi_component + (BENCH if bench else ""))
        more = connection("op", "sp", "lag", "u2") + connection("pi", pi_out, "plc", "speed")
        f.write('</ssd:Elements>\n<ssd:Connections>' + connection("lag", "y", "pi", pi_in) +
                connection("pi", pi_out, "lag", "u1") + (more if bench else "") +
                '</ssd:Connections>\n</ssd:System>\n'
                '<ssd:DefaultExperiment startTime="0" stopTime="%s"/>\n'
                '</ssd:SystemStructureDescription>\n' % stop)


def dcp_pi_system(out, name, s, keys, lag, stop, bench=False):
    """A system whose component pi is the DCP slave @p s (its .dcpx copied to resources/,
    rtc:Component attributes @p keys) in a loop with Lag; returns its folder."""
    sysdir = os.path.join(out, name)
    os.makedirs(os.path.join(sysdir, "resources"), exist_ok=True)
    with open(s.dcpx) as f, open(os.path.join(sysdir, "resources", "pi.dcpx"), "w") as g:
        g.write(f.read())
    write_system(sysdir, '<ssd:Component name="pi" type="application/x-dcp-slave" '
                 'source="resources/pi.dcpx"><ssd:Connectors>'
                 '<ssd:Connector name="PI.y" kind="input"><ssc:Real/></ssd:Connector>'
                 '<ssd:Connector name="u" kind="output"><ssc:Real/></ssd:Connector>'
                 '</ssd:Connectors><ssd:Annotations><ssc:Annotation '
                 'type="org.rtcosim.realtime"><rtc:Component %s/>'
                 '</ssc:Annotation></ssd:Annotations></ssd:Component>\n' % keys,
                 "PI.y", "u", lag, stop, bench)
    return sysdir


def case_rtcosim_master(rtcosim, fmu, out):
    """rtcosim's DCP master (a system component of type application/x-dcp-slave, in a
    real-time session) drives rtcosim dcp-slave of PI, once per op mode: both processes end
    cleanly (the slave released by its master's deregistration) and both sessions replay
    identically."""
    lag = os.path.join(os.path.dirname(fmu), "Lag.fmu")
    for mode, bench in (("srt", False), ("nrt", False), ("srt", True)):
        name = mode + ("_bench" if bench else "")
        s = Slave(rtcosim, fmu, out, "slave_" + name, ["--expose", "PI.y", "--dcp-op-mode",
                                                        mode])
        sysdir = dcp_pi_system(out, "sys_" + name, s, 'op_mode="%s" step_ms="10"' % mode,
                               lag, "1", bench)
        d = sysdir + ".out"
        r = subprocess.run([rtcosim, "run", sysdir, "--realtime", "--output-dir", d, "-q"],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, "rtcosim run %s: exit %d: %s" % (sysdir, r.returncode,
                                                                  r.stderr.strip()))
        check(s.wait() == 0, "slave exit status: " + s.stderr())
        how, c = counters(s)
        # a stop may cross a step (STC_stop naming RUNNING while the slave is COMPUTED:
        # INVALID_STATE_ID, and the master asks again), nothing else is refused
        check(how == "released" and c["refused"] <= 2 and c["wrong_sender"] == 0 and
              c["dat_in"] > 10, "slave counters %s %s" % (how, c))
        head, rows = results(s)
        check(any(r[1] != 0 for r in rows), "the slave's output stayed 0")
        for done in (s, type("M", (), {"dir": d})):
            replay_identical(rtcosim, done)
        print("rtcosim_master %s%s: master and slave sessions ended cleanly (%d inputs, %d "
              "outputs through DCP) and replay identically" %
              (mode, " beside OSC and Modbus I/O" if bench else "", c["dat_in"], c["dat_out"]))


def case_nrt_fast(rtcosim, fmu, out):
    """A fast run of a system whose PI is rtcosim dcp-slave in NRT (the master steps it in
    lock-step: STC_do_step and its outputs every tick) writes the results.csv of the same
    system with PI.fmu inside the process, byte for byte, over 2000 steps (long enough for
    the default estimator to leave the zero-order hold, which lock-step must keep); an SRT
    slave in a fast run is refused with one line."""
    lag = os.path.join(os.path.dirname(fmu), "Lag.fmu")
    ref = os.path.join(out, "fast_ref")
    write_system(ref, '<ssd:Component name="pi" source="%s"><ssd:Connectors>'
                 '<ssd:Connector name="y" kind="input"><ssc:Real/></ssd:Connector>'
                 '<ssd:Connector name="u" kind="output"><ssc:Real/></ssd:Connector>'
                 '</ssd:Connectors></ssd:Component>\n' % fmu, "y", "u", lag, "20")
    rec = ["--record", "lag.y", "--record", "pi.u", "-q"]
    r = subprocess.run([rtcosim, "run", ref, "--output-dir", ref + ".out"] + rec,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "in-process run: exit %d: %s" % (r.returncode, r.stderr))
    for mode in ("nrt", "srt"):
        s = Slave(rtcosim, fmu, out, "slave_fast_" + mode, ["--expose", "PI.y",
                                                             "--dcp-op-mode", mode])
        sysdir = dcp_pi_system(out, "sys_fast_" + mode, s,
                               'op_mode="%s" step_ms="10"' % mode, lag, "20")
        r = subprocess.run([rtcosim, "run", sysdir, "--output-dir", sysdir + ".out"] + rec,
                           capture_output=True, text=True, timeout=120)
        if mode == "srt":
            check(r.returncode == 1 and "op mode SRT" in r.stderr and "fast run" in r.stderr,
                  "SRT slave in a fast run: exit %d: %s" % (r.returncode, r.stderr))
            s.p.terminate()
            s.wait()
            continue
        check(r.returncode == 0, "fast run with the NRT slave: exit %d: %s" %
              (r.returncode, r.stderr.strip()))
        check(s.wait() == 0, "slave exit status: " + s.stderr())
        with open(ref + ".out/results.csv", "rb") as a, \
                open(sysdir + ".out/results.csv", "rb") as b:
            want, got = a.read(), b.read()
        check(want.count(b"\n") == 2002, "reference rows: %d" % want.count(b"\n"))
        check(want == got, "results.csv differs from the in-process run:\n%s\n---\n%s" %
              (want[:400].decode(), got[:400].decode()))
    # a slave that goes silent mid-run (SIGSTOP) fails the fast run by the link contract:
    # exit 6, the reason naming the component and its address, a line naming the PDU
    s = Slave(rtcosim, fmu, out, "slave_fast_mute", ["--expose", "PI.y", "--dcp-op-mode", "nrt"])
    sysdir = dcp_pi_system(out, "sys_fast_mute", s, "", lag, "1000000")
    p = subprocess.Popen([rtcosim, "run", sysdir, "--output-dir", sysdir + ".out", "-v"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = []
    for line in p.stderr:  # the run is on once the master says the slave is stepped
        err.append(line)
        if "(NRT, communication step" in line:
            break
    os.kill(s.p.pid, signal.SIGSTOP)
    try:
        err.append(p.stderr.read())
        rc = p.wait(timeout=60)
    finally:
        os.kill(s.p.pid, signal.SIGCONT)
        s.p.kill()
        s.wait()
    err = "".join(err)
    with open(os.path.join(sysdir + ".out", "summary.json")) as f:
        summary = json.load(f)
    want = "I/O component pi (dcp-master %s:%d) lost its link (no answer from the DCP slave)" \
        % (s.host, s.port)
    check(rc == 6 and want in summary["reason"] and summary["cause"] == "link" and
          re.search(r"slave 'rtcosim' at [0-9.:]+: no answer to [A-Z_a-z]+ \(sequence id", err),
          "mute slave in a fast run: exit %d, reason %s:\n%s" % (rc, summary["reason"], err))
    # no slave at its address: refused at connect_ms, exit 6, no rows
    dead = dcp_pi_system(out, "sys_fast_dead", s, 'connect_ms="1000"', lag, "1")
    r = subprocess.run([rtcosim, "run", dead, "--output-dir", dead + ".out", "-q"],
                       capture_output=True, text=True, timeout=60)
    want = "I/O component pi (dcp-master %s:%d) not up within connect_ms=1000" % (s.host, s.port)
    check(r.returncode == 6 and want in r.stderr and
          not os.path.exists(os.path.join(dead + ".out", "results.csv")),
          "no slave in a fast run: exit %d: %s" % (r.returncode, r.stderr))
    print("nrt_fast: the fast run with an NRT DCP slave equals the in-process run byte for "
          "byte; an SRT slave in a fast run is refused; a mute one stops it with exit 6, a "
          "missing one at connect_ms")


def nack_code(b):
    return struct.unpack_from("<H", b, 6)[0]


def case_refusals(rtcosim, fmu, out):
    """What the slave cannot do is refused with the DCP error code, and what the engine
    cannot do at start with one line."""
    s = Slave(rtcosim, fmu, out, "refusals", ["--dcp-op-mode", "srt"])
    m = Master(s)
    reg = lambda uuid, mode, major: m.request(  # noqa: E731
        struct.pack("<BB16sBBB", STC_REGISTER, ALIVE, uuid, mode, major, 0), expect=RSP_NACK)
    check(nack_code(reg(s.uuid, 0, 1)) == 0x2008, "HRT: not INVALID_OP_MODE")
    check(nack_code(reg(s.uuid, NRT, 1)) == 0x2008, "NRT not offered: not INVALID_OP_MODE")
    check(nack_code(reg(bytes(16), SRT, 1)) == 0x2011, "wrong uuid: not INVALID_UUID")
    check(nack_code(reg(s.uuid, SRT, 2)) == 0x2005, "version 2: not INVALID_MAJOR_VERSION")
    m.register(SRT)
    b = m.request(struct.pack("<BII", CFG_TIME_RES, 1, 1000), expect=RSP_NACK)
    check(nack_code(b) == 0x200F, "1 ms on a 10 ms tick: not INVALID_TIME_RESOLUTION")
    b = m.request(struct.pack("<BHHQB", CFG_INPUT, 1, 0, 999, FLOAT64), expect=RSP_NACK)
    check(nack_code(b) == 0x2012, "vr 999: not INVALID_VALUE_REFERENCE")
    b = m.request(struct.pack("<BHBHI", CFG_SOURCE_NI, 1, 4, s.port, ip_le(s.host)),
                  expect=RSP_NACK)
    check(nack_code(b) == 0x4004, "TCP: not NOT_SUPPORTED_TRANSPORT_PROTOCOL")
    m.request(struct.pack("<BHHQB", CFG_INPUT, DATA_IN, 1, s.vr["PI.r"], FLOAT64))
    b = m.request(struct.pack("<BB", STC_PREPARE, CONFIGURATION), expect=RSP_NACK)
    check(nack_code(b) == 0x3001, "input at pos 1 only: not INCOMPLETE_CONFIG_GAP_INPUT_POS")
    b = m.request(struct.pack("<BB", 0x0A, CONFIGURATION), expect=RSP_NACK)
    check(nack_code(b) in (0x4005, 0x1003), "STC_reset: %s" % b.hex())
    m.request(struct.pack("<BB", STC_DEREGISTER, CONFIGURATION))
    m.wait_state(ALIVE)
    s.p.terminate()
    check(s.wait() == 143, "SIGTERM: exit status")
    cfg = os.path.join(out, "sys_io")  # PI and Lag beside OSC and Modbus I/O
    write_system(cfg, '<ssd:Component name="pi" source="%s"><ssd:Connectors>'
                 '<ssd:Connector name="y" kind="input"><ssc:Real/></ssd:Connector>'
                 '<ssd:Connector name="u" kind="output"><ssc:Real/></ssd:Connector>'
                 '</ssd:Connectors></ssd:Component>\n' % fmu, "y", "u",
                 os.path.join(os.path.dirname(fmu), "Lag.fmu"), "1", bench=True)
    r = subprocess.run([rtcosim, "dcp-slave", cfg, "--dcp-op-mode", "nrt", "--output-dir",
                        os.path.join(out, "refused_nrt"), "-q"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 1 and "op mode nrt refused: the system has I/O components"
          in r.stderr, "NRT of a bench system: exit %d: %s" % (r.returncode, r.stderr))
    print("refusals: op mode, uuid, version, time resolution, value reference, transport, "
          "a gap, reset refused with their codes; NRT of a bench system refused at start")


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    rtcosim, fmu_dir, out = sys.argv[1:4]
    cases = sys.argv[4:] or ["nrt", "srt", "hostile", "vanish", "refusals", "rtcosim_master",
                             "nrt_fast"]
    os.makedirs(out, exist_ok=True)
    try:
        run(rtcosim, fmu_dir, out, cases)
    except Exception:
        fail("exception:\n" + __import__("traceback").format_exc())
    return 0


def run(rtcosim, fmu_dir, out, cases):
    fmu = os.path.abspath(os.path.join(fmu_dir, "fmi2", "PI.fmu"))
    for c in cases:
        globals()["case_" + c](rtcosim, fmu, out)
    print("dcp_master_script: passed (%s)" % ", ".join(cases))


if __name__ == "__main__":
    sys.exit(main())
