#!/usr/bin/env bash
# `cpack -G DEB` builds rtcosim_<version>_<arch>.deb (issue 13 item 6): its Depends are the
# Debian runtime packages of the libraries the engine links (no -dev package), and it
# holds the library with its soname link, the headers, rtcosim.pc, the programs and the
# man page under /usr.
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

contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for want in '/usr/bin/rtcosim$' '/usr/bin/rtcosim-operator$' '/usr/bin/rtcosim-bench-sim$' \
            '/usr/bin/rtcosim-fault-proxy$' '/usr/lib/.*librtcosim\.so\.[0-9]+\.[0-9]+\.[0-9]+$' \
            '/usr/lib/.*librtcosim\.so\.[0-9]+$' '/usr/include/rtcosim/rtcosim\.h$' \
            '/usr/include/rtcosim/rtc_config\.h$' '/usr/lib/.*pkgconfig/rtcosim\.pc$' \
            '/usr/share/man/man1/rtcosim\.1' '/usr/share/rtcosim/examples/msd-jacobi\.ssp'; do
    grep -Eq "$want" <<<"$contents" || fail "package lacks $want"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -q 'shlibs' || fail "no shlibs control file"
echo "deb_test: library, headers, rtcosim.pc, programs, man page and shlibs present: PASS"
