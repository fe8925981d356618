#!/usr/bin/env bash
# demo_hygiene BUILD_DIR — the main job (scripts/demo) stops cleanly:
#   1. a short run ends with plots and leaves no process behind;
#   2. Ctrl-C (SIGINT to the demo's whole process group, as a terminal sends it) in the
#      middle of a run: rtcosim writes the bench's safe value (voltage 0) before the bench
#      simulator stops, the demo exits 130, and no process is left behind;
#   3. a run that fails is reported as failed, exits non-zero, draws no plots and leaves no
#      process behind.
# The demo's processes are found by a tag in their environment, which every child inherits.
set -uo pipefail
build=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
tag="rtc-demo-test-$$-$RANDOM"
work=$(mktemp -d)
fails=0 checks=0

check() { # description command...
    checks=$((checks + 1))
    if "${@:2}"; then echo "  ok: $1"; else echo "  FAILED: $1"; fails=$((fails + 1)); fi
}
# PIDs of live processes carrying our tag (not this script or its own subshells).
tagged() {
    local p
    for p in /proc/[0-9]*; do
        { tr '\0' '\n' < "$p/environ"; } 2> /dev/null | grep -qx "RTC_DEMO_TEST_TAG=$tag" &&
            grep -qv '^Z' <(awk '{print $3}' "$p/stat" 2> /dev/null) && echo "${p#/proc/}"
    done
}
none_left() { # wait up to 10 s for stragglers, then list them
    local left
    for _ in $(seq 100); do
        left=$(tagged)
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    echo "    left behind: $(for p in $left; do tr '\0' ' ' < /proc/$p/cmdline; echo -n '; '; done)"
    return 1
}
# Wait (bounded) until a command succeeds.
wait_for() { # tries command...
    local n=$1
    shift
    for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
    return 1
}
cleanup() { for p in $(tagged); do kill -KILL "$p" 2> /dev/null; done; rm -rf "$work"; }
trap cleanup EXIT

echo "case 1: a short run"
rc=0
RTC_DEMO_TEST_TAG=$tag scripts/demo --build "$build" --no-setup --seconds 2 --output-dir "$work/ok" > "$work/ok.log" 2>&1 || rc=$?
check "exit status 0 (got $rc)" test $rc -eq 0
check "signals.png drawn" test -s "$work/ok/signals.png"
check "no process left behind" none_left

echo "case 2: Ctrl-C in the middle of a run"
# A shell ignores SIGINT in its background jobs; a terminal's foreground job does not:
# perl (always installed) restores the default before the demo starts, in a new session.
RTC_DEMO_TEST_TAG=$tag perl -MPOSIX -e 'POSIX::setsid(); $SIG{INT} = "DEFAULT"; exec @ARGV or die' \
    scripts/demo --build "$build" --no-setup --seconds 60 --output-dir "$work/int" \
    > "$work/int.log" 2>&1 &
pgid=$!
# The first operator set-point arrives after 10 s; wait until the bench is driven.
driven() {
    kill -0 "$pgid" 2> /dev/null || return 0 # the demo ended: stop waiting (checks below fail)
    awk -F, 'NR > 1 && ($4 > 0.5 || $4 < -0.5) { f = 1 } END { exit !f }' "$work/int/results.csv" 2> /dev/null; }
check "the bench is driven (voltage column non-zero) within 120 s" wait_for 1200 driven
kill -INT -- "-$pgid"
rc=0
wait_exit() { ! kill -0 "$pgid" 2> /dev/null; }
wait_for 600 wait_exit
wait "$pgid" || rc=$?
check "demo exit status 130 (got $rc)" test $rc -eq 130
check "rtcosim stopped by the signal (130)" grep -q "rtcosim exit 130" "$work/int.log"
check "bench-sim stopped after the safe value arrived (voltage 0)" \
    grep -q "last command: voltage 0.000 V" "$work/int/bench-sim.log"
check "no process left behind" none_left

echo "case 3: a run that fails"
rc=0
RTC_DEMO_TEST_TAG=$tag scripts/demo --build "$build" --no-setup --seconds 5 --estimator no-such-estimator \
    --output-dir "$work/fail" > "$work/fail.log" 2>&1 || rc=$?
check "exit status non-zero (got $rc)" test $rc -ne 0
check "reported as failed" grep -q "the run FAILED" "$work/fail.log"
check "no plots" test ! -e "$work/fail/signals.png" -a ! -e "$work/fail/latency-histogram.png"
check "no process left behind" none_left

[ $fails -gt 0 ] && { echo "--- logs ---"; tail -n 5 "$work"/*.log "$work"/*/bench-sim.log 2> /dev/null; }
echo "demo_hygiene: $((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
