#!/usr/bin/env bash
# `cpack -G DEB` builds rtcosim_<version>_<arch>.deb (issue 13 item 6): its Depends are the
# Debian runtime packages of the libraries the engine links (no -dev package) and what the
# installed commands run (gnuplot and awk for rtcosim plot; cyclictest for bench
# --compare-cyclictest recommended), and it holds the library with its soname link, the
# headers, rtcosim.pc, the programs with the plot script and a man page for each under
# /usr. The package's own rtcosim plot, unpacked, draws the plots of a small real session
# made as the demo makes one (tests/integration/bench_session.sh, issue 20).
# Usage: deb_test.sh BUILD_DIR
set -u
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }

[[ -f $build/CPackConfig.cmake ]] || fail "$build/CPackConfig.cmake missing: no CPack configuration"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp" >"$tmp/cpack.log" 2>&1 ||
    { tail -n 30 "$tmp/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(find "$tmp" -maxdepth 1 -name 'rtcosim_*.deb' | head -n1)
[[ -n $deb ]] || fail "no rtcosim_*.deb in $tmp"
echo "deb_test: built $(basename "$deb")"

depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_test: Depends: $depends"
for pkg in libxml2 libminizip1 libjansson4 liblo7 libmodbus5 libmicrohttpd12 libc6; do
    grep -Eq "(^|, )$pkg( |,|$)" <<<"$depends" || fail "Depends lacks $pkg"
done
if grep -Eq -- '-dev( |,|$)' <<<"$depends"; then
    fail "Depends names a -dev package"
fi
# what the installed commands run besides their libraries
grep -Fq "gnuplot-nox | gnuplot" <<<"$depends" || fail "Depends lacks gnuplot (rtcosim plot)"
grep -Fq "mawk | awk" <<<"$depends" || fail "Depends lacks awk (rtcosim plot)"
recommends=$(dpkg-deb -f "$deb" Recommends)
grep -Eq "(^|, )rt-tests( |,|$)" <<<"$recommends" ||
    fail "Recommends lacks rt-tests (rtcosim bench --compare-cyclictest): '$recommends'"

contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for want in '/usr/bin/rtcosim$' '/usr/bin/rtcosim-operator$' '/usr/bin/rtcosim-bench-sim$' \
            '/usr/bin/rtcosim-fault-proxy$' '/usr/lib/.*librtcosim\.so\.[0-9]+\.[0-9]+\.[0-9]+$' \
            '/usr/lib/.*librtcosim\.so\.[0-9]+$' '/usr/include/rtcosim/rtcosim\.h$' \
            '/usr/include/rtcosim/rtc_config\.h$' '/usr/lib/.*pkgconfig/rtcosim\.pc$' \
            '/usr/share/man/man1/rtcosim\.1' '/usr/share/rtcosim/examples/msd-jacobi\.ssp' \
            '/usr/bin/rtcosim-plot$'; do
    grep -Eq "$want" <<<"$contents" || fail "package lacks $want"
done
# every program has its man page
for exe in $(grep -E '^\./usr/bin/' <<<"$contents" | sed 's|.*/||'); do
    grep -Eq "/usr/share/man/man1/$exe\.1(\.gz)?$" <<<"$contents" || fail "no man page for $exe"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -q 'shlibs' || fail "no shlibs control file"
echo "deb_test: library, headers, rtcosim.pc, programs, man page and shlibs present: PASS"

# The package's own plot command on a small real session: unpacked (no install needed:
# the command links the engine statically), its bench simulator and the PI controller FMU
# of its hil-demo example close a loop over Modbus; rtcosim plot draws the demo's plots.
if ! command -v gnuplot >/dev/null; then
    echo "deb_test: SKIP the packaged rtcosim plot: gnuplot is not installed"
    exit 0
fi
root=$tmp/root
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x failed"
mkdir "$tmp/hil" && (cd "$tmp/hil" && cmake -E tar xf "$root/usr/share/rtcosim/examples/hil-demo.ssp") ||
    fail "cannot unpack the packaged hil-demo.ssp"
bash "$(dirname "$0")/../integration/bench_session.sh" "$root/usr/bin/rtcosim" \
    "$root/usr/bin/rtcosim-bench-sim" "$tmp/hil/resources/PI.fmu" "$tmp/s" 2 \
    >"$tmp/session.log" 2>&1 || { cat "$tmp/session.log" >&2; fail "the bench session failed"; }
plots=$(cd "$tmp" && "$root/usr/bin/rtcosim" plot s 2>&1) || fail "the packaged rtcosim plot: $plots"
for p in signals estimation latency-histogram latency-time; do
    [[ -s $tmp/s/$p.png ]] || fail "the packaged rtcosim plot drew no $p.png: $plots"
done
grep -q "bench.speed: RMS against the true value" <<<"$plots" ||
    fail "the packaged rtcosim plot compared nothing with the true value: $plots"
echo "deb_test: the packaged rtcosim plot drew the session's plots: $(grep -v '^ ' <<<"$plots" | tr '\n' ' ')"
echo "deb_test:$(grep '^ ' <<<"$plots")"
echo "deb_test: Depends and Recommends cover the commands, plot draws a bench session: PASS"
