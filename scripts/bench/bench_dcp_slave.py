#!/usr/bin/env python3
"""bench_dcp_slave — what `rtcosim dcp-slave` costs (scripts/bench-dcp; a table, not a test).

The slave is `rtcosim dcp-slave` of the Passthrough test FMU (Real_input copied to
Real_output), the master the specification-written one of tests/integration/
dcp_master_script.py (Python, struct.pack), over UDP on 127.0.0.1:
  nrt  back to back: DAT_input_output, STC_do_step, NTF COMPUTED, STC_send_outputs, the
       outputs: wall time per step and its p50/p99 (the Python master's own time included);
  srt  the slave at a 1 ms tick, one DAT output per tick; a new input every ms, timed
       until it comes back as the output: link latency p50/p99/max master -> session set
       -> step -> snapshot -> master;
  fast a fast run (`rtcosim run`, no --realtime) of the PI/Lag loop whose PI is
       `rtcosim dcp-slave` of PI.fmu in NRT, stepped in lock-step by rtcosim's own master,
       against the same system with PI.fmu in the process: ns per step of each (the run's
       own "steps in" line), the two results.csv compared.

usage: bench_dcp_slave.py RTCOSIM FMU_DIR OUT_DIR SECONDS
"""
import os
import re
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "integration"))
import dcp_master_script as d  # noqa: E402


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))] if xs else float("nan")


def part_nrt(rtcosim, fmu, out, seconds):
    s = d.Slave(rtcosim, fmu, out, "bench_nrt", ["--dcp-op-mode", "nrt", "--record",
                                                 "Real_output", "--step", "0.001"],
                expose="Passthrough.Real_input", stop="1e6")
    m = d.Master(s)
    m.register(d.NRT)
    m.configure(False, "Passthrough.Real_input", "Real_output")
    m.run(0)
    per = []
    t_end = time.monotonic() + seconds
    k = 0
    while time.monotonic() < t_end:
        t0 = time.perf_counter()
        m.dat_in(k & 0xFFFF, float(k))
        m.request(struct.pack("<BBI", d.STC_DO_STEP, d.RUNNING, 1))
        m.wait_state(d.COMPUTED)
        m.request(struct.pack("<BB", d.STC_SEND_OUTPUTS, d.COMPUTED))
        m.wait_state(d.RUNNING)
        per.append((time.perf_counter() - t0) * 1e6)
        k += 1
    m.stop_deregister()
    s.wait()
    d.check(m.data and m.data[-1] == float(k - 1), "the last output is not the last input")
    print("%-48s %10.1f us/step  p50 %.1f  p99 %.1f us  (%d steps)" %
          ("nrt: rtcosim dcp-slave, Passthrough, per step", sum(per) / len(per),
           pct(per, 50), pct(per, 99), k))


def part_srt(rtcosim, fmu, out, seconds):
    s = d.Slave(rtcosim, fmu, out, "bench_srt", ["--dcp-op-mode", "srt", "--record",
                                                 "Real_output", "--step", "0.001",
                                                 "--dcp-heartbeat-ms", "0"],
                expose="Passthrough.Real_input", stop="1e6")
    m = d.Master(s)
    m.register(d.SRT)
    m.configure(True, "Passthrough.Real_input", "Real_output")
    m.run(0)
    sent = {}
    lat = []
    seq = 0
    nxt = time.monotonic()
    t_end = nxt + seconds
    while time.monotonic() < t_end:
        now = time.monotonic()
        if now >= nxt:
            seq += 1
            sent[float(seq)] = time.perf_counter()
            m.dat_in(seq & 0xFFFF, float(seq))
            nxt += 0.001
        b = m.recv(max(0.0, nxt - time.monotonic()))
        if b is None:
            continue
        n0 = len(m.data)
        m.note(b)
        if len(m.data) > n0 and m.data[-1] in sent:
            lat.append((time.perf_counter() - sent.pop(m.data[-1])) * 1e6)
    m.stop_deregister()
    s.wait()
    print("%-48s %10d came back  p50 %.0f  p99 %.0f  max %.0f us  (%d sent)" %
          ("srt 1 kHz: rtcosim dcp-slave, input -> output", len(lat), pct(lat, 50),
           pct(lat, 99), max(lat) if lat else float("nan"), seq))


def fast_run(rtcosim, sysdir):
    r = subprocess.run([rtcosim, "run", sysdir, "--output-dir", sysdir + ".out", "-v"],
                       capture_output=True, text=True, timeout=3600)
    d.check(r.returncode == 0, "rtcosim run %s: exit %d: %s" % (sysdir, r.returncode,
                                                               r.stderr[-500:]))
    m = re.search(r"(\d+) steps in [0-9.]+ s \(([0-9.]+) ns/step\)", r.stderr)
    with open(os.path.join(sysdir + ".out", "results.csv"), "rb") as f:
        return int(m.group(1)), float(m.group(2)), f.read()


def part_fast(rtcosim, fmu_dir, out, seconds):
    pi = os.path.abspath(os.path.join(fmu_dir, "fmi2", "PI.fmu"))
    lag = os.path.abspath(os.path.join(fmu_dir, "fmi2", "Lag.fmu"))
    stop = "%g" % (seconds * 50)  # 0.01 s steps: 5000 per second of --seconds
    ref = os.path.join(out, "fast_in_process")
    d.write_system(ref, '<ssd:Component name="pi" source="%s"><ssd:Connectors>'
                   '<ssd:Connector name="y" kind="input"><ssc:Real/></ssd:Connector>'
                   '<ssd:Connector name="u" kind="output"><ssc:Real/></ssd:Connector>'
                   '</ssd:Connectors></ssd:Component>\n' % pi, "y", "u", lag, stop)
    s = d.Slave(rtcosim, pi, out, "bench_fast", ["--expose", "PI.y", "--dcp-op-mode", "nrt"],
                stop="%g" % (seconds * 100))
    sysdir = d.dcp_pi_system(out, "fast_dcp", s, 'step_ms="10"', lag, stop)
    n_dcp, ns_dcp, got = fast_run(rtcosim, sysdir)
    s.wait()
    n_ref, ns_ref, want = fast_run(rtcosim, ref)
    print("%-48s %10.0f ns/step  (%d steps)" % ("fast: PI/Lag, PI.fmu in the process", ns_ref,
                                                 n_ref))
    print("%-48s %10.0f ns/step  (%d steps), results.csv %s" %
          ("fast: PI/Lag, PI as NRT DCP slave (lock-step)", ns_dcp, n_dcp,
           "identical" if got == want else "DIFFERENT"))


def main():
    rtcosim, fmu_dir, out, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    fmu = os.path.abspath(os.path.join(fmu_dir, "fmi2", "Passthrough.fmu"))
    part_nrt(rtcosim, fmu, out, seconds)
    part_srt(rtcosim, fmu, out, seconds)
    part_fast(rtcosim, fmu_dir, out, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
