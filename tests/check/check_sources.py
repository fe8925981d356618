#!/usr/bin/env python3
"""Source checks of the layered library, run by ctest as `check_sources`.

Reads the library's sources and public headers as text (no compiler) and fails, naming the
file and line, when:

  layering   a file includes a public header of a higher layer, a private header of another
             folder (src/*.h, *_priv.h, base/internal/ beyond the folders CMake gives it to,
             the FMI headers outside fmu-host), or a public header includes a third-party header
             (anything but the C library, POSIX and rtcosim/ headers);
  rtsafe     a header other than rtcosim/rtsafe.h defines RTC_RT_SAFE, or a public function
             declaration's doc comment and its RTC_RT_SAFE marker disagree ("RT-safe: yes"
             needs the marker, the marker needs "RT-safe: yes");
  threads    pthread_create is called anywhere but rt-core/base/src/rt_thread.c (the one
             creator: SCHED_FIFO, priority, affinity, prefaulted stack set before creation);
  clock      clock_gettime(CLOCK_MONOTONIC) or clock_nanosleep is called anywhere but
             rt-core/base/src/time.c (the library, the CLI and scripts/bench, which links
             it; io-drivers/tools do not link the library and keep their own)
             (rtc_time_now_ns, rtc_time_sleep_until_ns).

The layer table (LAYERS below): base <- {fmu-host, io-drivers, est, load} <- system <- exec
<- session <- surfaces (OSC control, HTTP panel: session.h only) <- assemble <- app, where the
plug-ins (fmu-host, io-drivers) and the leaf layers stand on base only and never on each
other, and only assemble and app see the plug-ins. `--selftest` plants one violation of each
kind in a temporary copy-shaped tree and checks that each is caught, and that a clean tree
passes.

Usage: check_sources.py SOURCE_DIR | check_sources.py --selftest
"""
import os
import re
import sys
import tempfile

# The layer table: folder -> the folders whose public headers it may include (besides its
# own). Plug-ins (fmu-host, io-drivers) and the leaf layers (load, est) sit on base only and
# never on each other; the core (system .. surfaces) never names a concrete plug-in; only the
# wiring on top (assemble) and the CLI see everything.
BELOW = {}
LAYERS = [  # (folder, the folders it stands on directly)
    ("rt-core/base", []),
    ("rt-core/load", ["rt-core/base"]),
    ("rt-core/est", ["rt-core/base"]),
    ("fmu-host", ["rt-core/base"]),
    ("io-drivers", ["rt-core/base"]),
    ("rt-core/system", ["rt-core/load", "rt-core/est"]),
    ("rt-core/exec", ["rt-core/system"]),
    ("rt-core/session", ["rt-core/exec"]),
    ("rt-core/surfaces", ["rt-core/session"]),
    ("rt-core/assemble", ["rt-core/session", "fmu-host", "io-drivers"]),
    ("rt-core/app", ["rt-core/assemble", "rt-core/surfaces"]),
]
for _folder, _on in LAYERS:
    BELOW[_folder] = set(_on).union(*(BELOW[o] for o in _on))
RANKS = {f: i for i, (f, _) in enumerate(LAYERS)}  # for folder_of(); order only

# folders whose sources are scanned (io-drivers/tools are standalone programs that do not
# link the library; tests and benches are not the library)
SCANNED = {
    "rt-core/base": ["src", "include/rtcosim"],
    "rt-core/load": ["src", "include/rtcosim"],
    "rt-core/est": ["src", "include/rtcosim"],
    "rt-core/system": ["src", "src/masters", "include/rtcosim"],
    "rt-core/exec": ["src", "include/rtcosim"],
    "rt-core/session": ["src", "include/rtcosim"],
    "rt-core/surfaces": ["src", "include/rtcosim"],
    "rt-core/assemble": ["src", "include/rtcosim"],
    "rt-core/app": ["."],
    "fmu-host": ["src", "include/rtcosim"],
    "io-drivers": ["src", "include/rtcosim"],
}
# private headers that a named set of other folders may use (folder or single header ->
# users), as the CMake interface targets hand them out: rtc_base_internal (XML: load,
# fmu-host), rtc_base_json (jansson: exec, the panel in surfaces, a distributed run's
# node.json in assemble, the CLI)
SHARED_PRIVATE = {
    "rt-core/base/internal/xml_util.h": {"rt-core/base", "rt-core/load", "fmu-host"},
    "rt-core/base/internal/json_util.h": {"rt-core/base", "rt-core/exec", "rt-core/surfaces",
                                          "rt-core/assemble", "rt-core/app"},
    "fmu-host/fmi": {"fmu-host"},
}
GENERATED = {"rtcosim/rtc_config.h": "rt-core/base"}  # configured into the build tree
# private headers generated into the build tree, for their folder only: the node bridge's
# sample types and the real-time control plane's, compiled by idlc from io-drivers/idl/
GENERATED_PRIVATE = {"rtcosim_node.h": "io-drivers", "rtcosim_control.h": "io-drivers"}

# headers a public header may include: ISO C and POSIX
SYSTEM_HEADERS = set("""
assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h
math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h
stdio.h stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h
aio.h arpa/inet.h cpio.h dirent.h dlfcn.h fcntl.h fmtmsg.h fnmatch.h ftw.h glob.h grp.h
iconv.h langinfo.h libgen.h monetary.h mqueue.h ndbm.h net/if.h netdb.h netinet/in.h
netinet/tcp.h nl_types.h poll.h pthread.h pwd.h regex.h sched.h search.h semaphore.h
spawn.h strings.h stropts.h sys/ipc.h sys/mman.h sys/msg.h sys/resource.h sys/select.h
sys/sem.h sys/shm.h sys/socket.h sys/stat.h sys/statvfs.h sys/time.h sys/times.h
sys/types.h sys/uio.h sys/un.h sys/utsname.h sys/wait.h syslog.h tar.h termios.h
ulimit.h unistd.h utime.h utmpx.h wordexp.h
""".split())

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def rel(root, path):
    return os.path.relpath(path, root).replace(os.sep, "/")


def folder_of(relpath):
    """The layer folder a path belongs to (longest prefix match), or None."""
    best = None
    for f in list(RANKS) + list(SHARED_PRIVATE):
        if relpath == f or relpath.startswith(f + "/"):
            if best is None or len(f) > len(best):
                best = f
    return best


def scanned_files(root):
    for folder, subs in SCANNED.items():
        for sub in subs:
            d = os.path.join(root, folder, sub)
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                if name.endswith((".c", ".h")):
                    yield folder, os.path.normpath(os.path.join(d, name))


def public_headers(root):
    """rtcosim/<name>.h -> (folder, path) for every public header."""
    out = {}
    for folder in RANKS:
        d = os.path.join(root, folder, "include", "rtcosim")
        if os.path.isdir(d):
            for name in os.listdir(d):
                if name.endswith(".h"):
                    out["rtcosim/" + name] = (folder, os.path.join(d, name))
    return out


def lines_of(text, pos):
    return text.count("\n", 0, pos) + 1


def strip_comments(text):
    """Blank out comments and string literals, keeping offsets and line numbers."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', blank, text, flags=re.S)


# ---- layering ----

def check_layering(root):
    errors = []
    pub = public_headers(root)
    for folder, path in scanned_files(root):
        r = rel(root, path)
        is_public = "/include/rtcosim/" in r
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in INCLUDE_RE.finditer(text):
            kind, name = m.group(1), m.group(2)
            where = "%s:%d" % (r, lines_of(text, m.start()))
            errors += include_errors(root, folder, path, is_public, kind, name, where, pub)
    return errors


def within(path, directory):
    return os.path.commonpath([path, directory]) == directory


def include_errors(root, folder, path, is_public, kind, name, where, pub):
    if name in pub or name in GENERATED:
        owner = pub[name][0] if name in pub else GENERATED[name]
        if owner != folder and owner not in BELOW[folder]:
            return ["%s: %s includes %s of %s, which is not below it (%s stands on %s)"
                    % (where, folder, name, owner, folder,
                       ", ".join(sorted(BELOW[folder])) or "nothing")]
        return []
    if name.startswith("rtcosim/"):
        return ["%s: %s is no public header of any layer" % (where, name)]
    if kind == '"':
        local = os.path.normpath(os.path.join(os.path.dirname(path), name))
        target = None
        if os.path.exists(local):
            target = local
        else:  # found through an include directory: a shared private one
            for shared in SHARED_PRIVATE:
                cand = os.path.join(root, shared, name)
                if shared.endswith(".h"):
                    cand = os.path.join(root, shared) if shared.endswith("/" + name) else ""
                if cand and os.path.exists(cand):
                    target = cand
        if target is None and GENERATED_PRIVATE.get(name) == folder and not is_public:
            return []
        if target is None:
            return ["%s: \"%s\" not found beside the file or in a shared private "
                    "folder" % (where, name)]
        owner = folder_of(rel(root, target))
        if owner in SHARED_PRIVATE:
            if folder not in SHARED_PRIVATE[owner]:
                return ["%s: %s includes the private %s of %s" % (where, folder, name, owner)]
            if is_public:
                return ["%s: a public header includes the private %s" % (where, name)]
            return []
        # a layer's private headers serve its whole src/ tree (system/src/masters/ too)
        src = os.path.join(root, folder, "src")
        src = src if os.path.isdir(src) else os.path.join(root, folder)  # the CLI: no src/
        if owner != folder or not (within(target, src) and within(path, src)):
            return ["%s: private header %s of another folder (%s)"
                    % (where, name, rel(root, target))]
        if is_public:
            return ["%s: a public header includes the private %s" % (where, name)]
        return []
    if is_public and name not in SYSTEM_HEADERS:
        return ["%s: a public header includes the third-party header <%s>" % (where, name)]
    return []


# ---- RT-safe markers ----

DOC_RE = re.compile(r"/\*\*(?!<)(.*?)\*/", re.S)


def declaration_after(text, end):
    """The top-level function declaration right after a doc comment, or None: its start
    offset, its text up to ';' or '{', and the function's name."""
    m = re.compile(r"[ \t]*\n").match(text, end)
    if not m:
        return None
    start = m.end()
    if start >= len(text) or text[start] in " \t#\n":
        return None  # a member, a macro or nothing
    stop = start
    depth = 0
    while stop < len(text):
        c = text[stop]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c in ";{" and depth == 0:
            break
        stop += 1
    decl = text[start:stop]
    if re.match(r"(typedef|struct|enum|union)\b", decl) and not re.match(
            r"(struct|enum|union)\s+\w+\s*\*?\s*\w+\s*\(", decl):
        return None
    fm = re.search(r"(\w+)\s*\(", decl)
    if not fm or re.search(r"\(\s*\*\s*\w+\s*\)\s*\(", decl):
        return None  # not a function, or a function pointer object
    return start, decl, fm.group(1)


def check_rtsafe(root):
    errors = []
    marker_home = "rt-core/base/include/rtcosim/rtsafe.h"
    for folder, path in scanned_files(root):
        r = rel(root, path)
        text = open(path, encoding="utf-8", errors="replace").read()
        code = strip_comments(text)
        for m in re.finditer(r"^\s*#\s*define\s+RTC_RT_SAFE\b", code, re.M):
            if r != marker_home:
                errors.append("%s:%d: defines RTC_RT_SAFE; only %s may (include it)"
                              % (r, lines_of(text, m.start()), marker_home))
        if "/include/rtcosim/" not in r:
            continue
        documented = set()
        for dm in DOC_RE.finditer(text):
            d = declaration_after(text, dm.end())
            if not d:
                continue
            start, decl, name = d
            documented.add(start)
            says_yes = re.search(r"RT-safe:\s*yes", dm.group(1)) is not None
            marked = decl.lstrip().startswith("RTC_RT_SAFE")
            where = "%s:%d" % (r, lines_of(text, start))
            if says_yes and not marked:
                errors.append("%s: %s() is documented RT-safe: yes but lacks RTC_RT_SAFE"
                              % (where, name))
            if marked and not says_yes:
                errors.append("%s: %s() carries RTC_RT_SAFE but its doc does not say "
                              "RT-safe: yes" % (where, name))
        for m in re.finditer(r"^RTC_RT_SAFE\b", code, re.M):
            if m.start() not in documented:
                errors.append("%s:%d: RTC_RT_SAFE on a declaration without a doc comment "
                              "saying RT-safe: yes" % (r, lines_of(text, m.start())))
    return errors


# ---- one thread creator, one clock ----

# benchmark programs link the library, so they read its clock too (io-drivers/tools do
# not link it and keep their own)
CLOCK_EXTRA = ["scripts/bench"]


def check_calls(root, func_re, home, what, extra=()):
    errors = []
    files = list(scanned_files(root))
    for d in extra:
        full = os.path.join(root, d)
        if os.path.isdir(full):
            files += [(d, os.path.join(full, n)) for n in sorted(os.listdir(full))
                      if n.endswith((".c", ".h"))]
    for folder, path in files:
        r = rel(root, path)
        if r == home:
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in re.finditer(func_re, strip_comments(text)):
            errors.append("%s:%d: %s outside %s (%s)"
                          % (r, lines_of(text, m.start()), m.group(1), home, what))
    return errors


def check_threads(root):
    return check_calls(root, r"\b(pthread_create)\s*\(", "rt-core/base/src/rt_thread.c",
                       "use rtc_rt_thread_start()")


def check_clock(root):
    # CLOCK_REALTIME readers (wall-clock stamps of events.log, OSC timetags) are not pacing
    return check_calls(root, r"\b(clock_gettime(?=\s*\(\s*CLOCK_MONOTONIC)|clock_nanosleep)\s*\(",
                       "rt-core/base/src/time.c",
                       "use rtc_time_now_ns() / rtc_time_sleep_until_ns()", CLOCK_EXTRA)


CHECKS = [("layering", check_layering), ("rtsafe", check_rtsafe),
          ("threads", check_threads), ("clock", check_clock)]


def run(root):
    failed = 0
    for name, fn in CHECKS:
        errs = fn(root)
        for e in errs:
            print("%s: %s" % (name, e))
        print("%s: %s" % (name, "%d problem(s)" % len(errs) if errs else "ok"))
        failed += len(errs)
    return failed


# ---- self test: plant each violation in a small tree ----

CLEAN = {
    "rt-core/base/include/rtcosim/rtsafe.h": "#define RTC_RT_SAFE\n",
    "rt-core/base/include/rtcosim/time.h":
        '#include "rtcosim/rtsafe.h"\n#include <stdint.h>\n'
        "/** Now. RT-safe: yes. */\nRTC_RT_SAFE int64_t rtc_time_now_ns(void);\n"
        "/** Parse. RT-safe: no. */\nint rtc_time_parse(const char *t);\n",
    "rt-core/base/src/time.c": '#include "rtcosim/time.h"\n#include <time.h>\n'
        "int64_t rtc_time_now_ns(void) { struct timespec ts; "
        "clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec; }\n",
    "rt-core/base/src/rt_thread.c": '#include "rt_priv.h"\n#include <pthread.h>\n'
        "void f(void) { pthread_create(0, 0, 0, 0); }\n",
    "rt-core/base/src/rt_priv.h": "#include <libxml/parser.h>\n",
    "rt-core/base/internal/xml_util.h": "#include <libxml/parser.h>\n",
    "rt-core/base/internal/json_util.h": "#include <jansson.h>\n",
    "rt-core/exec/src/exec_report.c": '#include "json_util.h"\n',
    "rt-core/load/src/ssp.c": '#include "xml_util.h"\n#include "rtcosim/time.h"\n',
    "rt-core/system/include/rtcosim/system.h": '#include "rtcosim/time.h"\n',
    "rt-core/exec/include/rtcosim/exec.h": '#include "rtcosim/system.h"\n',
    "rt-core/exec/src/exec.c": '#include "rtcosim/exec.h"\n#include "exec_priv.h"\n',
    "rt-core/exec/src/exec_priv.h": "\n",
    "rt-core/system/src/system_priv.h": "\n",
    "rt-core/system/src/masters/master_priv.h": '#include "../system_priv.h"\n',
    "rt-core/system/src/masters/master.c": '#include "master_priv.h"\n',
    "rt-core/system/src/system_exec.c": '#include "masters/master_priv.h"\n',
    "rt-core/session/include/rtcosim/session.h": '#include "rtcosim/exec.h"\n',
    "rt-core/app/main.c": '#include "rtcosim/session.h"\n#include "rtcosim/fmu.h"\n',
    "fmu-host/include/rtcosim/fmu.h": '#include "rtcosim/time.h"\n',
    "io-drivers/include/rtcosim/iodrivers.h": '#include "rtcosim/time.h"\n',
    "rt-core/est/include/rtcosim/estimate.h": '#include "rtcosim/rtsafe.h"\n',
    "rt-core/surfaces/src/panel.c": '#include "rtcosim/session.h"\n',
    "rt-core/surfaces/src/panel_api.c": '#include "json_util.h"\n',
    "rt-core/surfaces/include/rtcosim/panel.h": '#include "rtcosim/session.h"\n',
    "rt-core/session/src/session_priv.h": "\n",
    "rt-core/assemble/src/assemble.c":
        '#include "rtcosim/session.h"\n#include "rtcosim/fmu.h"\n#include "rtcosim/iodrivers.h"\n',
    "fmu-host/src/fmu.c": '#include "xml_util.h"\n#include "rtc_fmi2.h"\n',
    "fmu-host/fmi/rtc_fmi2.h": "\n",
    "io-drivers/src/osc.c": '#include "rtcosim/iodrivers.h"\n#include <lo/lo.h>\n',
}

PLANTED = [  # (check, file, text appended, expected substring of the error)
    ("layering", "rt-core/system/src/system.c", '#include "rtcosim/exec.h"\n',
     "exec.h of rt-core/exec, which is not below it"),
    ("layering", "rt-core/base/include/rtcosim/hist.h", '#include "rtcosim/fmu.h"\n',
     "fmu.h of fmu-host, which is not below it"),
    ("layering", "rt-core/session/src/session.c", '#include "../../exec/src/exec_priv.h"\n',
     "private header"),
    ("layering", "rt-core/exec/src/x.c", '#include "../../system/src/masters/master_priv.h"\n',
     "private header"),
    # plug-ins stand on base only, never on each other or on the core
    ("layering", "fmu-host/src/fmu_factory.c", '#include "rtcosim/iodrivers.h"\n',
     "iodrivers.h of io-drivers, which is not below it"),
    ("layering", "io-drivers/src/drv.c", '#include "rtcosim/system.h"\n',
     "system.h of rt-core/system, which is not below it"),
    ("layering", "io-drivers/src/ctl.c", '#include "rtcosim/session.h"\n',
     "session.h of rt-core/session, which is not below it"),
    # the core never names a concrete plug-in; est and load are siblings on base
    ("layering", "rt-core/system/src/x.c", '#include "rtcosim/fmu.h"\n',
     "fmu.h of fmu-host, which is not below it"),
    ("layering", "rt-core/est/src/estimate.c", '#include "rtcosim/system.h"\n',
     "system.h of rt-core/system, which is not below it"),
    # surfaces see the session through its public header only
    ("layering", "rt-core/surfaces/src/panel.c", '#include "../../session/src/session_priv.h"\n',
     "private header"),
    ("layering", "rt-core/session/src/x.c", '#include "rtcosim/panel.h"\n',
     "panel.h of rt-core/surfaces, which is not below it"),
    ("layering", "rt-core/exec/src/x.c", '#include "xml_util.h"\n', "private xml_util.h"),
    ("layering", "rt-core/session/src/x.c", '#include "json_util.h"\n', "private json_util.h"),
    ("layering", "rt-core/app/cmd.c", '#include "rtc_fmi2.h"\n', "private rtc_fmi2.h"),
    ("layering", "io-drivers/include/rtcosim/iodrivers.h", "#include <lo/lo.h>\n",
     "third-party header <lo/lo.h>"),
    ("rtsafe", "rt-core/est/include/rtcosim/estimate.h",
     "#ifndef RTC_RT_SAFE\n#define RTC_RT_SAFE\n#endif\n", "defines RTC_RT_SAFE"),
    ("rtsafe", "rt-core/est/include/rtcosim/estimate.h",
     "/** Estimate. RT-safe: yes. */\ndouble rtc_est(double t);\n", "lacks RTC_RT_SAFE"),
    ("rtsafe", "rt-core/est/include/rtcosim/estimate.h",
     "/** Build. RT-safe: no. */\nRTC_RT_SAFE int rtc_est_new(void);\n",
     "does not say RT-safe: yes"),
    ("threads", "rt-core/exec/src/recorder.c",
     "void g(void) { pthread_create(0, 0, 0, 0); }\n", "pthread_create outside"),
    ("threads", "io-drivers/src/drv.c",
     "/* pthread_create(...) in a comment is fine */\nvoid g(void) {\n"
     "  pthread_create (0, 0, 0, 0); }\n", "drv.c:3: pthread_create"),
    ("clock", "rt-core/session/src/session.c",
     "void h(void) { clock_gettime(CLOCK_REALTIME, 0); clock_gettime(CLOCK_MONOTONIC, 0); }\n",
     "clock_gettime outside"),
    ("clock", "io-drivers/src/drv.c",
     "void h(void) { clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, 0, 0); }\n",
     "clock_nanosleep outside"),
    ("clock", "scripts/bench/bench_x.c",
     "void h(void) { clock_gettime(CLOCK_MONOTONIC, 0); }\n", "bench_x.c:1: clock_gettime"),
]


def write_tree(base, files):
    for r, text in files.items():
        p = os.path.join(base, r)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "a", encoding="utf-8") as f:
            f.write(text)


def selftest():
    ok = True
    with tempfile.TemporaryDirectory() as d:
        write_tree(d, CLEAN)
        for name, fn in CHECKS:
            errs = fn(d)
            if errs:
                print("selftest: the clean tree fails %s: %s" % (name, errs))
                ok = False
    for check, r, text, expect in PLANTED:
        with tempfile.TemporaryDirectory() as d:
            write_tree(d, CLEAN)
            write_tree(d, {r: text})
            errs = dict(CHECKS)[check](d)
            hit = [e for e in errs if expect in e]
            if len(hit) != 1:
                print("selftest: planted %s in %s: expected one error with %r, got %s"
                      % (check, r, expect, errs))
                ok = False
            else:
                print("selftest: %s caught: %s" % (check, hit[0]))
    print("selftest: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--selftest":
        return selftest()
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    return 1 if run(os.path.abspath(sys.argv[1])) else 0


if __name__ == "__main__":
    sys.exit(main())
