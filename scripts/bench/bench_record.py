#!/usr/bin/env python3
"""bench_record.py — the measuring half of scripts/bench-record (see there for the usage).

Runs, alternating and R times each, per case: the bare FMU loop (raw_fmu_loop, nothing
recorded), the physical limit (raw_fmu_loop --csv: the same loop fetching the outputs and
formatting them with the project's formatters into the same kind of file, fsynced), the
rtcosim of the merge base ("before") and the rtcosim of this tree ("after"), each process
timed from spawn to exit with its peak RSS (wait4). The CSVs must be the same bytes. Prints
medians and ratios; with --profile also instructions per row from callgrind (repeatable on
a noisy machine), per thread, with the functions that cost most.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = 10  # functions listed per thread by --profile


def run(cmd):
    """(wall ms, peak RSS KiB, stdout, CPU ms) of one process, timed from fork to its exit;
    the peak RSS and the CPU time (user + system, all threads) are the child's own
    (wait4). Exits when the process fails."""
    t0 = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        out = os.open(os.environ["BENCH_RECORD_OUT"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out, 1)
        os.dup2(fd, 2)
        try:
            os.execv(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t0) / 1e6
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"bench-record: {' '.join(cmd)} failed (status {status})")
    with open(os.environ["BENCH_RECORD_OUT"]) as f:
        return wall, ru.ru_maxrss, f.read(), (ru.ru_utime + ru.ru_stime) * 1e3


def loop_ms(out):
    m = re.search(r"raw loop: \d+ steps in ([0-9.]+) s", out)
    return float(m.group(1)) * 1e3 if m else float("nan")


def fsync_ms(out):
    m = re.search(r"fsync: ([0-9.]+) ms", out)
    return float(m.group(1)) if m else float("nan")


class Case:
    def __init__(self, name, solver, fmu, steps, stop):
        self.name, self.solver, self.fmu, self.steps = name, solver, fmu, steps
        self.stop = stop
        self.res = {k: [] for k in ("fmu", "limit", "limit_loop", "fsync", "before", "after",
                                    "rss_before", "rss_after", "cpu_fmu", "cpu_limit",
                                    "cpu_before", "cpu_after")}

    def raw(self, raw_bin, csv=None, steps=None):
        cmd = [raw_bin, "--me", self.solver]
        if csv:
            cmd += ["--csv", csv]
        n = steps or self.steps
        return cmd + [self.fmu, str(n), repr(self.stop / n)]

    def rtc(self, rtc_bin, csv, steps=None):
        n = steps or self.steps
        return [rtc_bin, "run", "--stop", repr(self.stop), "--step", repr(self.stop / n),
                "--interface", "me", "--solver", self.solver, "-o", csv, self.fmu]


def fresh(path):
    for p in (path, os.path.join(os.path.dirname(path), "summary.json")):
        if os.path.exists(p):
            os.unlink(p)


def same_bytes(a, b):
    return subprocess.run(["cmp", "-s", a, b]).returncode == 0


def measure(cases, a, tmp):
    files = {k: os.path.join(tmp, k + ".csv") for k in ("limit", "before", "after")}
    identical = {}
    for rnd in range(a.repeat):
        for c in cases:
            _, _, out, cpu = run(c.raw(a.raw))
            c.res["fmu"].append(loop_ms(out))
            c.res["cpu_fmu"].append(cpu)
            order = ["limit", "before", "after"]
            order = order[rnd % 3:] + order[:rnd % 3]  # rotate: no side always goes first
            for side in order:
                fresh(files[side])
                if side == "limit":
                    w, rss, out, cpu = run(c.raw(a.raw, files["limit"]))
                    c.res["limit_loop"].append(loop_ms(out))
                    c.res["fsync"].append(fsync_ms(out))
                else:
                    w, rss, _, cpu = run(c.rtc(getattr(a, side), files[side]))
                    c.res["rss_" + side].append(rss)
                c.res[side].append(w)
                c.res["cpu_" + side].append(cpu)
            if rnd == 0:
                identical[c.name] = all(same_bytes(files["limit"], files[s])
                                        for s in ("before", "after"))
    return identical


def measure_big(cases, a, tmp):
    """One run of each side at 10x the steps: peak RSS must stay flat."""
    big = {}
    path = os.path.join(tmp, "big.csv")
    for c in cases:
        n = c.steps * 10
        row = {}
        for side in ("limit", "before", "after"):
            fresh(path)
            if side == "limit":
                row[side] = run(c.raw(a.raw, path, n))
            else:
                row[side] = run(c.rtc(getattr(a, side), path, n))
        fresh(path)
        big[c.name] = row
    return big


def callgrind(cmd, tmp):
    """Instructions per function of each thread (main thread first), by callgrind."""
    out = os.path.join(tmp, "cg.out")
    for f in os.listdir(tmp):
        if f.startswith("cg.out"):
            os.unlink(os.path.join(tmp, f))
    subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                    "--callgrind-out-file=" + out] + cmd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    threads = []
    for f in sorted(os.listdir(tmp)):
        if not re.match(r"cg\.out-\d+$", f):  # one file per thread
            continue
        # --auto=no: a build with debug information would otherwise interleave its
        # annotated source, whose lines this parser would read as functions
        ann = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no",
                              os.path.join(tmp, f)],
                             text=True, capture_output=True).stdout
        fns = {}
        for line in ann.split("\n"):
            m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+)", line)
            if m and "PROGRAM" not in line:
                name = m.group(2).split(":")[-1]
                fns[name] = fns.get(name, 0) + int(m.group(1).replace(",", ""))
        threads.append(fns)
    return threads


def profile(cases, a, tmp):
    """Instructions per row and thread: a run of n steps less a run of one step (the
    start-up and the end), per function, divided by n - 1."""
    n = max(2, cases[0].steps // 10)
    print("\ninstructions per row (callgrind: a run of %d steps less a run of 1 step, per "
          "function;\nper thread: stepping + recorder)" % n)
    csv = os.path.join(tmp, "p.csv")
    for c in cases:
        path = {}
        for side in ("limit", "before", "after"):
            def cmd(steps):
                return c.raw(a.raw, csv, steps) if side == "limit" else \
                    c.rtc(getattr(a, side), csv, steps)
            one, many = callgrind(cmd(1), tmp), callgrind(cmd(n), tmp)
            per = []
            for i, fns in enumerate(many):
                base = one[i] if i < len(one) else {}
                per.append({f: (v - base.get(f, 0)) / (n - 1) for f, v in fns.items()})
            totals = [sum(d.values()) for d in per]
            path[side] = max(totals)
            print("  %-16s %-7s %6.0f  (%s)" % (c.name, side, sum(totals),
                                              " + ".join("%.0f" % t for t in totals)))
            for i, d in enumerate(per):
                top = sorted(d.items(), key=lambda kv: -kv[1])[:TOP]
                print("      %-9s %s" % (("stepping", "recorder")[min(i, 1)] + ":",
                                         ", ".join("%s %.0f" % kv for kv in top)))
        print("  %-16s critical path (the busiest thread; the wall time with a second core "
              "idle):\n      limit %.0f, before %.0f (%.2fx), after %.0f (%.2fx)" % (
                  c.name, path["limit"], path["before"], path["before"] / path["limit"],
                  path["after"], path["after"] / path["limit"]))


def med(v):
    return statistics.median(v)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--raw", required=True)
    p.add_argument("--before", required=True)
    p.add_argument("--after", required=True)
    p.add_argument("--fmu", required=True)
    p.add_argument("--steps", type=int, default=1000000)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--label", default="")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--no-big", action="store_true")
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-record.")
    os.environ["BENCH_RECORD_OUT"] = os.path.join(tmp, "stdout.txt")
    try:
        cases = [Case("VanDerPol rk4", "rk4", a.fmu, a.steps, 20.0),
                 Case("VanDerPol euler", "euler", a.fmu, a.steps, 20.0)]
        identical = measure(cases, a, tmp)
        big = {} if a.no_big else measure_big(cases, a, tmp)
        report(cases, a, identical, big)
        if a.profile:
            profile(cases, a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(cases, a, identical, big):
    print("\nrtcosim bench-record: CSV of every output of VanDerPol (FMI 2, Model Exchange), "
          "%d steps over 20 s,\nmedian of %d alternating runs, ms; %s\n"
          % (a.steps, a.repeat, a.label))
    hdr = ("process wall", "FMU loop", "limit", "rows", "fsync", "before", "after",
           "before/lim", "after/lim", "after/before")
    print("%-16s %9s %8s %7s %7s %8s %8s %11s %10s %13s" % hdr)
    for c in cases:
        r = {k: med(v) for k, v in c.res.items()}
        print("%-16s %9.1f %8.1f %7.1f %7.1f %8.1f %8.1f %11.2f %10.2f %13.2f" % (
            c.name, r["fmu"], r["limit"], r["limit_loop"] - r["fmu"], r["fsync"], r["before"],
            r["after"], r["before"] / r["limit"], r["after"] / r["limit"],
            r["after"] / r["before"]))
    print("\n%-16s %9s %8s %7s %7s %8s %8s %11s %10s %13s" % (
        "CPU user+sys", "FMU run", "limit", "", "", "before", "after", "before/lim",
        "after/lim", "after/before"))
    for c in cases:
        r = {k: med(v) for k, v in c.res.items()}
        print("%-16s %9.1f %8.1f %7s %7s %8.1f %8.1f %11.2f %10.2f %13.2f" % (
            c.name, r["cpu_fmu"], r["cpu_limit"], "", "", r["cpu_before"], r["cpu_after"],
            r["cpu_before"] / r["cpu_limit"], r["cpu_after"] / r["cpu_limit"],
            r["cpu_after"] / r["cpu_before"]))
    print("\n  FMU loop: raw_fmu_loop's stepping alone (no output; FMU run: its whole process); "
          "limit: the whole\n  process of raw_fmu_loop --csv (start-up, the same FMU calls "
          "plus fmi2GetReal, the project's\n  formatters, write, fsync, one thread); rows: its "
          "loop less the FMU loop (fetch, format, write);\n  before/after: rtcosim run ... -o "
          "FILE (same rows, same file kind; stepping and recorder threads).\n  Wall time is "
          "the target; CPU time is what a machine with no idle core would see.")
    print("  CSV bytes identical (limit = before = after): %s" % ", ".join(
        "%s %s" % (k, "yes" if v else "NO") for k, v in identical.items()))
    print("\npeak RSS, KiB (max of the runs)   %10s %10s" % ("before", "after"))
    for c in cases:
        print("  %-16s at %8d steps %10d %10d" % (c.name, a.steps, max(c.res["rss_before"]),
                                                  max(c.res["rss_after"])))
        if c.name in big:
            b = big[c.name]
            print("  %-16s at %8d steps %10d %10d   (one run, wall: limit %.0f ms, before "
                  "%.2fx, after %.2fx)" % (
                      c.name, a.steps * 10, b["before"][1], b["after"][1], b["limit"][0],
                      b["before"][0] / b["limit"][0], b["after"][0] / b["limit"][0]))


if __name__ == "__main__":
    main()
