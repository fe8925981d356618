#!/usr/bin/env python3
"""The browser operator panel driven in headless Chromium (issue 14 item 3, issue 19).

usage: panel_browser.py RTCOSIM SYSTEM.ssp OUT_DIR FMU_DIR

Part 1, the controls. Starts `rtcosim run SYSTEM --realtime --http 0` (the controller-plant
example, its set-point controller.r exposed and recorded), opens the panel in headless
Chromium and drives it over the DevTools protocol on a pipe (--remote-debugging-pipe: fds
3 and 4, NUL-terminated JSON; no websocket module needed): it waits for the plot to update,
types a new set-point and presses Set, presses Pause, Step and Resume, writes a mark, saves
a 1280x800 screenshot, and presses Stop. Then it checks the effect in results.csv
(controller.r ramps from 0.5 to the new value, rate-limited, after the step the set took
effect at), in events.log (the set, pause, resume, mark and stop lines, from the panel's
address), and that `rtcosim replay` of the session is identical (the panel's commands were
recorded like OSC's). Clicks and typing are real input events (Input.dispatchMouseEvent /
Input.insertText) at the elements' positions.

Part 2, a page opened mid-run (issue 19). A bench-like system (FMU_DIR's Mass1 and PI):
an OSC operator input `op` (receive-only, a force in N) drives the plant, the PI's kp is
exposed. The test sends op a set-point, opens the panel, sets kp through it, leaves; the run
goes on unwatched for 2 s (measured in steps from events.log); then a new page opens. From
its first frame it must show: the present (not the frame from when the first page left),
the RTF already measured, op listed (from /api/info, before any frame) with its "in" link
up (a receive-only link that delivered set-points, not "link down"), kp's current value in
its field and at its slider, units on the plot's labels and the set-point; and, once the
engine's history arrived, a plot from within the history window, through the stretch
nobody watched, without a line across a gap, whose every point equals results.csv's row
at that time.

Exit 0: passed; 1: failed (the reason printed); 77: skipped (no chromium; the reason
printed). Every wait is bounded (30 s) and waits for an event, not for a time window.
"""
import base64
import csv
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

TIMEOUT = 30.0
NEW_R = 1.5


def fail(msg):
    print("panel_browser: FAILED: " + msg, flush=True)
    raise SystemExit(1)


class Chromium:
    """Chromium with the DevTools protocol on a pipe (fd 3: its input, fd 4: its output)."""

    def __init__(self, exe, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # above 10 first, so moving them onto 3 and 4 in the child cannot clobber either
        high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
        high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)

        def fds():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        args = [exe, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
                "--user-data-dir=" + profile, "--window-size=1280,800", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=fds, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(high_r)
        os.close(high_w)
        self.buf = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            while b"\0" not in self.buf:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    fail("chromium closed the DevTools pipe during " + method)
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(method + ": " + json.dumps(reply["error"]))
                return reply.get("result", {})
        fail("no DevTools answer to " + method)

    def attach(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        att = self.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                  "flatten": True}, session=False)
        self.session = att["sessionId"]
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            fail("page script error in %s: %s" % (expr, json.dumps(r["exceptionDetails"])))
        return r["result"].get("value")

    def wait(self, expr, what):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.eval(expr):
                return
            time.sleep(0.05)
        fail("timed out waiting for " + what + " (" + expr + ")")

    def click(self, element_id):
        box = self.eval("(() => { const e = document.getElementById(%s); if (!e || e.disabled)"
                        " return null; e.scrollIntoView({block: 'center'}); const r = "
                        "e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + "
                        "r.height / 2]; })()" % json.dumps(element_id))
        if not box:
            fail("#%s is missing or disabled" % element_id)
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                   "button": "left", "clickCount": 1})

    def type_into(self, element_id, text):
        self.click(element_id)
        self.eval("document.getElementById(%s).select()" % json.dumps(element_id))
        self.send("Input.insertText", {"text": text})

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_run(rtcosim, system, out, extra=None):
    log = open(os.path.join(out, "run.log"), "w+")
    args = [rtcosim, "run", system, "--realtime", "--priority", "0", "--stop", "600"]
    args += extra if extra is not None else [
        "--expose", "controller.r:min=-1:max=2:rate=5:safe=0",
        "--record", "controller.r", "--record", "plant.x1", "--record", "controller.u"]
    args += ["--http", "0", "--output-dir", os.path.join(out, "session")]
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        log.seek(0)
        m = re.search(r"operator panel on (http://127\.0\.0\.1:\d+/)", log.read())
        if m:
            return proc, m.group(1)
        if proc.poll() is not None:
            log.seek(0)
            fail("rtcosim exited (%d) before the panel was up:\n%s" % (proc.returncode,
                                                                       log.read()))
        time.sleep(0.05)
    proc.kill()
    fail("the panel's address never appeared in rtcosim's output")


def drive(chrome, url, out):
    chrome.send("Page.navigate", {"url": url})
    chrome.wait("window.rtcPanel && rtcPanel.info !== null", "the panel's info")
    # the plot updates: frames stream in and new points reach the graph
    chrome.wait("rtcPanel.points >= 5 && document.querySelector('#graph canvas') !== null",
                "the first plotted points")
    t0, n0 = time.monotonic(), chrome.eval("rtcPanel.frames")
    chrome.wait("rtcPanel.frames >= %d" % (n0 + 50), "50 more frames")
    rate = 50 / (time.monotonic() - t0)
    print("panel_browser: %.1f frame(s) per second reached the page" % rate, flush=True)
    p0 = chrome.eval("rtcPanel.points")
    chrome.wait("rtcPanel.points > %d" % (p0 + 10), "the plot to move on")
    # move the set-point (typed, then the Set button)
    chrome.type_into("var-0", str(NEW_R))
    chrome.click("set-0")
    chrome.wait("rtcPanel.replies.some(r => r.op === 'set' && r.ok && r.applied === %r)" % NEW_R,
                "the set reply")
    chrome.wait("Math.abs(rtcPanel.last.v[0] - %r) < 1e-9" % NEW_R,
                "controller.r to reach the new set-point in the live values")
    # pause and resume, seen in the status the page shows
    chrome.click("btn-pause")
    chrome.wait("document.getElementById('state').textContent === 'PAUSED'", "PAUSED")
    tick = chrome.eval("rtcPanel.last.tick")
    # one single step while paused: time moves by exactly one tick, and stays paused
    chrome.wait("rtcPanel.last.tick === %d" % tick, "the paused time to settle")
    chrome.click("btn-step")
    chrome.wait("rtcPanel.replies.some(r => r.op === 'step' && r.ok)", "the step reply")
    chrome.wait("rtcPanel.last.tick === %d && rtcPanel.last.state === 'paused'" % (tick + 1),
                "one tick more, still paused")
    tick += 1
    chrome.click("btn-resume")
    chrome.wait("document.getElementById('state').textContent === 'RUNNING' && "
                "rtcPanel.last.tick > %d" % tick, "RUNNING again, time moving")
    chrome.type_into("mark-text", "browser test mark")
    chrome.click("btn-mark")
    chrome.wait("rtcPanel.replies.some(r => r.op === 'mark' && r.ok)", "the mark reply")
    chrome.wait("[...document.querySelectorAll('#feed div')].some(d => "
                "d.textContent.includes('mark browser test mark'))", "the mark in the feed")
    p1 = chrome.eval("rtcPanel.points")
    chrome.wait("rtcPanel.points > %d" % (p1 + 25), "a second of plot after the resume")
    shot = chrome.send("Page.captureScreenshot", {"format": "png"})
    png = os.path.join(out, "panel.png")
    with open(png, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print("panel_browser: screenshot of the running panel (1280x800): " + png, flush=True)
    chrome.click("btn-stop")
    chrome.wait("rtcPanel.replies.some(r => r.op === 'stop' && r.ok)", "the stop reply")


def event_k(lines, pattern):
    for line in lines:
        if re.search(pattern, line):
            return int(line.split()[0])
    fail("events.log has no line matching %r" % pattern)


def check_outputs(session):
    with open(os.path.join(session, "events.log")) as f:
        lines = f.read().splitlines()
    who = r"operator 127\.0\.0\.1:\d+: "
    k_set = event_k(lines, who + r"set controller\.r = 1\.5 \(applied before step (\d+)\)")
    k_pause = event_k(lines, who + r"pause \(before step \d+\)")
    k_resume = event_k(lines, who + r"resume \(before step \d+\)")
    event_k(lines, who + r"step 1 \(from step \d+\)")
    event_k(lines, r"operator panel 127\.0\.0\.1:\d+: mark browser test mark")
    event_k(lines, who + r"stop \(before step \d+\)")
    if not k_set <= k_pause <= k_resume:
        fail("events.log: set at %d, pause at %d, resume at %d: out of order" %
             (k_set, k_pause, k_resume))
    with open(os.path.join(session, "results.csv")) as f:
        rows = list(csv.reader(f))
    head, data = rows[0], [[float(x) for x in r] for r in rows[1:]]
    col = head.index("controller.r")
    tick = data[1][0] - data[0][0]
    before = [r[col] for r in data if r[0] < (k_set - 1) * tick - 1e-12]
    after = [r for r in data if r[0] >= k_set * tick - 1e-12]
    if not before or any(abs(v - 0.5) > 1e-12 for v in before):
        fail("results.csv: controller.r is not 0.5 before the set (step %d)" % k_set)
    # rate 5/s from 0.5 to 1.5: 0.2 s of ramp, every step at most 5·tick
    steps = [b[col] - a[col] for a, b in zip(after, after[1:])]
    if any(s > 5 * tick + 1e-9 for s in steps):
        fail("results.csv: controller.r moved faster than its rate limit")
    if abs(after[-1][col] - NEW_R) > 1e-12:
        fail("results.csv: controller.r ends at %r, not %r" % (after[-1][col], NEW_R))
    times = [r[0] for r in data]
    if any(abs((b - a) - tick) > 1e-9 for a, b in zip(times, times[1:])):
        fail("results.csv: rows are missing around the pause")
    print("panel_browser: results.csv: controller.r 0.5 until step %d, ramps to %g; "
          "events.log: set %d, pause %d, resume %d" % (k_set, NEW_R, k_set, k_pause, k_resume))


# ---- part 2: a page opened mid-run ----

UNITS_SSD = """<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="mid-run"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:rtc="urn:rtcosim:realtime:1">
  <ssd:System name="bench">
    <ssd:Elements>
      <ssd:Component name="op" type="application/x-rtcosim-osc">
        <ssd:Connectors>
          <ssd:Connector name="sp" kind="output"><ssc:Real unit="N"/></ssd:Connector>
        </ssd:Connectors>
        <ssd:Annotations><ssc:Annotation type="org.rtcosim.realtime">
          <rtc:Component port="{port}" priority="0"><rtc:Signal name="sp" path="/sp"/></rtc:Component>
        </ssc:Annotation></ssd:Annotations>
      </ssd:Component>
      <ssd:Component name="plant" source="{fmus}/Mass1.fmu">
        <ssd:Connectors>
          <ssd:Connector name="Fe" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="x1" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="ctl" source="{fmus}/PI.fmu"/>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="op" startConnector="sp" endElement="plant" endConnector="Fe"/>
    </ssd:Connections>
    <ssd:Annotations><ssc:Annotation type="org.rtcosim.realtime">
      <rtc:RealTime baseStep="0.001" record="plant.x1 op.sp"/>
    </ssc:Annotation></ssd:Annotations>
  </ssd:System>
  <ssd:Units><ssc:Unit name="N"><ssc:BaseUnit kg="1" m="1" s="-2"/></ssc:Unit></ssd:Units>
</ssd:SystemStructureDescription>
"""
KP = 3.0


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def osc_send(port, path, value):
    """One OSC message with one float64 argument (OSC 1.0: padded strings, big-endian)."""
    def pad(b):
        return b + b"\0" * (4 - len(b) % 4)
    msg = pad(path.encode()) + pad(b",d") + struct.pack(">d", value)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(msg, ("127.0.0.1", port))


def peer_steps(session):
    """The steps (events.log's first field) of the lines about op's set-points: each one
    applied, or (beyond the log's rate limit) the count of those not logged one by one."""
    try:
        with open(os.path.join(session, "events.log")) as f:
            return [int(line.split()[0]) for line in f
                    if ("op.sp = " in line and "set by the I/O peer" in line) or
                    "set-point change(s) from I/O peers" in line]
    except FileNotFoundError:
        return []


def run_on_unwatched(session, port, min_step):
    """Set-points to op until one is applied at step >= min_step: the run's own clock,
    read without opening a page (a page would refresh what the next viewer gets)."""
    deadline = time.monotonic() + TIMEOUT
    value = 2.5
    while time.monotonic() < deadline:
        value += 0.01
        osc_send(port, "/sp", value)
        time.sleep(0.25)  # within the log's rate limit: one line each
        steps = peer_steps(session)
        if steps and steps[-1] >= min_step:
            return steps[-1]
    fail("the run did not reach step %d" % min_step)


def first_frame(chrome):
    chrome.wait("window.rtcPanel && rtcPanel.firstFrame !== null", "the first frame")
    return chrome.eval("JSON.parse(JSON.stringify(rtcPanel.firstFrame))")


def check_first_frame(ff, io_at_setup, now_t):
    """What a new page shows from its first frame."""
    f = ff["frame"]
    print("panel_browser: new page's first frame after %.0f ms (%.0f ms after navigation): "
          "t=%.3f (run at >= %.3f), RTF %s, io %s, kp field %s slider %s live %s" %
          (ff["ms"], ff["navMs"], f["sim_t"], now_t, ff["rtf"], ff["dirs"],
           ff["vars"][0]["field"], ff["vars"][0]["slider"], ff["vars"][0]["live"]), flush=True)
    if f["sim_t"] < now_t - 0.1:
        fail("stale first frame: t=%.3f, while the run was at %.3f" % (f["sim_t"], now_t))
    if not 0.5 < float(ff["rtf"]) < 2:
        fail("RTF on the first frame: %s (the run keeps real time)" % ff["rtf"])
    if not any("op" in t for t in io_at_setup) or any("none in this system" in t
                                                      for t in io_at_setup):
        fail("I/O components before the first frame: %r" % io_at_setup)
    if ff["dirs"] != ["dir up"]:
        fail("op's receive-only link on the first frame: %r (want one 'in' entry, up)" %
             ff["dirs"])
    v = ff["vars"][0]
    if float(v["field"] or "nan") != KP or float(v["slider"] or "nan") != KP:
        fail("kp's field/slider on the first frame: %r (want %g)" % (v, KP))
    if v["live"] != "3":
        fail("kp's live value on the first frame: %r" % v["live"])
    if ff["ms"] > 1000:
        fail("the first frame took %.0f ms after the page's script started" % ff["ms"])


def check_history(data, info, opened_t, left_t):
    """The plot: within the history window, through the unwatched stretch, no line across
    a gap."""
    pts = [r for r in data if r[1] is not None]
    first = pts[0][0]
    if first < opened_t - info["history_s"] - 1 or first > left_t:
        fail("the first plotted point at t=%.3f (page opened at %.3f, history %g s, the "
             "first page left at %.3f)" % (first, opened_t, info["history_s"], left_t))
    unwatched = [r for r in pts if left_t + 0.2 < r[0] < opened_t - 0.2]
    if len(unwatched) < 10:
        fail("%d point(s) of the stretch nobody watched" % len(unwatched))
    prev = None
    for r in data:
        if prev is not None and r[0] <= prev[0]:
            fail("plot rows out of order or twice at t=%r" % r[0])
        if (prev is not None and r[1] is not None and prev[1] is not None and
                r[0] - prev[0] > 0.5):
            fail("a line drawn across a gap: t=%.3f to %.3f" % (prev[0], r[0]))
        prev = r
    print("panel_browser: new page's plot: %d point(s) from t=%.3f, %d while nobody watched "
          "(%.3f..%.3f)" % (len(pts), first, len(unwatched), left_t, opened_t), flush=True)
    return pts


def check_against_results(pts, columns, session):
    with open(os.path.join(session, "results.csv")) as f:
        rows = list(csv.reader(f))
    head, body = rows[0], [[float(x) for x in r] for r in rows[1:]]
    tick = body[1][0] - body[0][0]
    cols = [head.index(c) for c in columns]
    for p in pts:
        r = body[round((p[0] - body[0][0]) / tick)]
        if abs(r[0] - p[0]) > 1e-9 or any(r[c] != v for c, v in zip(cols, p[1:])):
            fail("plotted point %r differs from results.csv's row %r" % (p, r))
    print("panel_browser: every plotted point (%d) equals results.csv at its time" % len(pts),
          flush=True)


def check_estimates(chrome):
    """The late input op.sp is listed with the estimator and figures of the last frame."""
    chrome.wait("document.querySelectorAll('#est-table tbody tr').length === "
                "rtcPanel.last.estimates.length && rtcPanel.last.estimates.length > 0",
                "the late inputs' table")
    rows = chrome.eval("[...document.querySelectorAll('#est-table tbody tr')].map("
                       "r => [...r.cells].map(c => c.textContent))")
    est = chrome.eval("rtcPanel.last.estimates")
    names = [r[0] for r in rows]
    if names != [e["name"] for e in est] or "op.sp" not in names:
        fail("the late inputs' table lists %r, the frame %r" % (names, est))
    for r, e in zip(rows, est):
        if e["estimator"] not in r[1] or e["in_use"] not in r[1]:
            fail("%s: the table shows estimator %r, the frame %s/%s" %
                 (r[0], r[1], e["estimator"], e["in_use"]))
        if not all(re.fullmatch(r"-?\d[\d.e+-]*", c) for c in r[2:4]) or \
                not re.fullmatch(r"–|\d[\d.e+-]* ms", r[4]):
            fail("%s: an estimator figure is not a number: %r" % (r[0], r))
        if not r[5].isdigit() or int(r[5]) > e["samples"]:
            fail("%s: the table shows %r samples, the frame %d" % (r[0], r[5], e["samples"]))
    print("panel_browser: late inputs shown with their estimators: %r" % rows, flush=True)


def mid_run_viewer(chrome, rtcosim, out, fmu_dir):
    os.makedirs(out)
    port = free_udp_port()
    ssd = os.path.join(out, "mid-run.ssd")
    with open(ssd, "w") as f:
        f.write(UNITS_SSD.format(port=port, fmus=fmu_dir))
    session = os.path.join(out, "session")
    run, url = start_run(rtcosim, ssd, out, ["--expose", "ctl.kp:min=0:max=10"])
    try:
        run_on_unwatched(session, port, 0)  # op has delivered a set-point
        chrome.send("Page.navigate", {"url": url})
        chrome.wait("window.rtcPanel && rtcPanel.points >= 5", "the first page's plot")
        chrome.type_into("var-0", str(KP))
        chrome.click("set-0")
        chrome.wait("rtcPanel.replies.some(r => r.op === 'set' && r.ok)", "the set reply")
        chrome.wait("rtcPanel.last.x[0] === %r" % KP, "kp at its new value")
        left_t = chrome.eval("rtcPanel.last.sim_t")
        chrome.send("Page.navigate", {"url": "about:blank"})  # the viewer leaves
        now_k = run_on_unwatched(session, port, round(left_t * 1000) + 2000)
        now_t = now_k / 1000.0
        chrome.send("Page.navigate", {"url": url})
        ff = first_frame(chrome)
        io_at_setup = chrome.eval("rtcPanel.ioAtSetup")
        info = chrome.eval("rtcPanel.info")
        check_first_frame(ff, io_at_setup, now_t)
        check_estimates(chrome)
        legend = chrome.eval("document.getElementById('legend').textContent")
        if "plant.x1 [m]" not in legend or "op.sp [N]" not in legend:
            fail("the plot's labels carry no units: %r" % legend)
        if chrome.eval("document.querySelector('#vars .unit').textContent") != "1":
            fail("kp's field has no unit")
        chrome.wait("rtcPanel.data.length > 0 && rtcPanel.data[rtcPanel.data.length - 1][0] >= "
                    "%r" % now_t, "the history up to the present")
        data = chrome.eval("rtcPanel.data")
        pts = check_history(data, info, now_t, left_t)
        shot = chrome.send("Page.captureScreenshot", {"format": "png"})
        with open(os.path.join(out, "panel.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        chrome.click("btn-stop")
        chrome.wait("rtcPanel.replies.some(r => r.op === 'stop' && r.ok)", "the stop reply")
        if run.wait(timeout=TIMEOUT) != 0:
            fail("the mid-run system exited with status %d" % run.returncode)
        check_against_results(pts, info["columns"], session)
    finally:
        if run.poll() is None:
            run.send_signal(signal.SIGTERM)
            run.wait(timeout=TIMEOUT)


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    rtcosim, system, out, fmu_dir = sys.argv[1:]
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("panel_browser: SKIPPED: chromium is not installed (Debian package 'chromium'; "
              "scripts/setup installs it)", flush=True)
        return 77
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    run, url = start_run(rtcosim, system, out)
    profile = tempfile.mkdtemp(prefix="rtc-chromium-")
    chrome = None
    try:
        chrome = Chromium(exe, profile)
        chrome.attach()
        drive(chrome, url, out)
        try:
            status = run.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            fail("rtcosim did not stop after the panel's Stop")
        if status != 0:
            fail("rtcosim exited with status %d after Stop (see %s/run.log)" % (status, out))
        check_outputs(os.path.join(out, "session"))
        # the panel's commands were recorded like OSC's: the replay repeats them exactly
        rep = subprocess.run([rtcosim, "replay", os.path.join(out, "session")],
                             capture_output=True, text=True, timeout=120)
        if rep.returncode != 0 or "identical" not in rep.stdout + rep.stderr:
            fail("rtcosim replay of the panel session: exit %d: %s" %
                 (rep.returncode, (rep.stdout + rep.stderr)[-600:]))
        print("panel_browser: replay: identical", flush=True)
        run.wait()
        mid_run_viewer(chrome, rtcosim, os.path.join(out, "mid-run"), fmu_dir)
    finally:
        if chrome:
            chrome.close()
        if run.poll() is None:
            run.send_signal(signal.SIGTERM)
            try:
                run.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                run.kill()
        shutil.rmtree(profile, ignore_errors=True)
    print("panel_browser: passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
