#!/usr/bin/env python3
"""The browser operator panel driven in headless Chromium (issue 14 item 3).

usage: panel_browser.py RTCOSIM SYSTEM.ssp OUT_DIR

Starts `rtcosim run SYSTEM --realtime --http 0` (the controller-plant example, its set-point
controller.r exposed and recorded), opens the panel in headless Chromium and drives it over
the DevTools protocol on a pipe (--remote-debugging-pipe: fds 3 and 4, NUL-terminated JSON;
no websocket module needed): it waits for the plot to update, types a new set-point and
presses Set, presses Pause, Step and Resume, writes a mark, saves a 1280x800 screenshot, and
presses Stop. Then it checks the effect in results.csv (controller.r ramps from 0.5 to the
new value, rate-limited, after the step the set took effect at), in events.log (the set,
pause, resume, mark and stop lines, from the panel's address), and that `rtcosim replay`
of the session is identical (the panel's commands were recorded like OSC's). Clicks and typing are
real input events (Input.dispatchMouseEvent / Input.insertText) at the elements' positions.

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


def start_run(rtcosim, system, out):
    log = open(os.path.join(out, "run.log"), "w+")
    args = [rtcosim, "run", system, "--realtime", "--priority", "0", "--stop", "600",
            "--expose", "controller.r:min=-1:max=2:rate=5:safe=0",
            "--record", "controller.r", "--record", "plant.x1", "--record", "controller.u",
            "--http", "0", "--output-dir", os.path.join(out, "session")]
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
    chrome.attach()
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


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    rtcosim, system, out = sys.argv[1:]
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
