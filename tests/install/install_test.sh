#!/usr/bin/env bash
# The installed engine is embeddable (issue 13 item 6): `cmake --install` into a fresh
# prefix, then, using only what was installed:
#   - librtcosim.so.<major> carries its soname and exports only the public rtc_* API;
#   - the engine comes without the operator surfaces (issue 18): librtcosim.so does not
#     need libmicrohttpd, panel.h and osc_control.h are not installed, and the embedding
#     example neither needs nor loads libmicrohttpd, while bin/rtcosim (which has the
#     surfaces) needs it;
#   - every installed header compiles alone (twice: include guard) without any
#     third-party header (tests/integration/header_alone.sh), and no private one is there;
#   - rtcosim(1) holds the same text as `rtcosim --help`, and EXIT STATUS (every status of the
#     README's table), FILES, ENVIRONMENT, EXAMPLES (whose info/run/check/plan lines run
#     against the install) and SEE ALSO (every installed tool); each installed program has
#     a page holding its own --help text (issue 20);
#   - the installed `rtcosim plot` draws a real-time session of an installed example;
#   - tests/install/embed_example.c (the README's example) compiles with
#     `cc $(pkg-config --cflags --libs rtcosim)` (PKG_CONFIG_PATH at the prefix, nothing
#     from the source or build tree on the include or library path), runs the installed
#     example system share/rtcosim/examples/msd-jacobi.ssp 100 ticks and reads mass1.x1; the value must equal the one the
#     installed CLI writes for t = 1 s. The README's example is built and run the same way.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CC [extra compiler/linker flags...]
#   (a sanitizer build passes its -fsanitize flags: its library needs the runtime.)
set -u
build=$(cd "$1" && pwd) || exit 1
src=$(cd "$2" && pwd) || exit 1
cc=$3
shift 3
extra=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "cmake --install failed"; }

# ---- the library: soname, version, exports ----
lib=$(find "$prefix" 2>/dev/null -name 'librtcosim.so.*.*.*' -type f | head -n1)
[[ -n $lib ]] || fail "no librtcosim.so.X.Y.Z under $prefix"
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname =~ ^librtcosim\.so\.[0-9]+$ ]] || fail "$lib: soname '$soname', want librtcosim.so.<major>"
[[ -L $libdir/$soname && -L $libdir/librtcosim.so ]] || fail "symlinks $soname / librtcosim.so missing"
bad=$(nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' |
      grep -Ev '^rtc_[^_]|^(__(odr_asan|asan|tsan|ubsan|sanitizer))' | head -n5)
[[ -z $bad ]] || fail "$lib exports non-API symbols: $bad"
nm -D --defined-only "$lib" | grep -q ' rtc_fmu_load_system$' || fail "rtc_fmu_load_system not exported"
echo "install_test: $(basename "$lib"), soname $soname, exports only rtc_*"

# ---- the engine without the operator surfaces (the command has them) ----
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needed "$prefix/bin/rtcosim" | grep -q '^libmicrohttpd\.so' ||
    fail "bin/rtcosim does not need libmicrohttpd: the check below would prove nothing"
if needed "$lib" | grep -q '^libmicrohttpd\.so'; then
    fail "$lib needs libmicrohttpd (the HTTP panel belongs to the command, not the engine)"
fi
echo "install_test: $(basename "$lib") needs $(needed "$lib" | tr '\n' ' ')(no libmicrohttpd)"

# ---- programs and the man pages ----
tools=(rtcosim-plot rtcosim-operator rtcosim-bench-sim rtcosim-fault-proxy)
for exe in rtcosim "${tools[@]}"; do
    [[ -x $prefix/bin/$exe ]] || fail "bin/$exe not installed"
done
# A page as text: roff escapes undone (the generator's: \- \e \& and four glyphs).
plain_page() {
    sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/^\\&//' -e 's/\\(mc/µ/g' -e 's/\\(em/—/g' \
        -e 's/\\(+-/±/g' -e 's/\\(pc/·/g' "$1"
}
# Every line of a program's help text appears in its page (a "usage: " line also as the
# SYNOPSIS, without that word; "exit status:" is the EXIT STATUS heading).
page_has_help() { # page help-command...
    local plain line
    plain=$(plain_page "$1")
    while IFS= read -r line; do
        [[ -z $line || $line == "exit status:" ]] && continue
        grep -qF -- "${line#usage: }" <<<"$plain" || fail "$(basename "$1") lacks help line: $line"
    done < <("${@:2}")
}
man=$prefix/share/man/man1/rtcosim.1
[[ -f $man ]] || fail "man page rtcosim.1 not installed"
page_has_help "$man" "$prefix/bin/rtcosim" --help
page_has_help "$man" "$prefix/bin/rtcosim" run --help SYSTEM.ssd
for exe in "${tools[@]}"; do
    page=$prefix/share/man/man1/$exe.1
    [[ -f $page ]] || fail "bin/$exe has no man page ($page)"
    page_has_help "$page" "$prefix/bin/$exe" --help
    grep -q "^\.SH NAME" "$page" && grep -q "^\.SH SYNOPSIS" "$page" ||
        fail "$exe.1 lacks NAME or SYNOPSIS"
done
for section in NAME SYNOPSIS DESCRIPTION COMMANDS '"EXIT STATUS"' FILES ENVIRONMENT EXAMPLES \
               '"SEE ALSO"'; do
    grep -q "^\.SH $section\$" "$man" || fail "rtcosim.1 has no $section section"
done
# EXIT STATUS: every exit status of the README's table of how a run ends
section() { plain_page "$man" | awk -v s="$1" '/^\.SH / { on = index($0, s) > 0; next } on'; }
exits=$(section "EXIT STATUS")
codes=$(awk '/^### How a run ends/ { on = 1; next } on && /^##/ { exit } on' "$src/README.md" |
        sed -n 's/^| .* | \([0-9][0-9 /]*\) |$/\1/p' | tr '/' ' ')
[[ $(wc -w <<<"$codes") -ge 6 ]] || fail "no exit status table in the README ('How a run ends')"
for code in $codes; do
    grep -Eq "^  ([0-9]+, )*$code( |,)" <<<"$exits" || fail "rtcosim.1 EXIT STATUS lacks $code"
done
for exe in "${tools[@]}"; do
    section "SEE ALSO" | grep -q "^\.BR $exe (1)" || fail "rtcosim.1 SEE ALSO lacks $exe(1)"
done
# EXAMPLES: the info/run/check/plan lines, run against this install in a fresh folder
mkdir "$tmp/examples"
n=0
while IFS= read -r line; do
    cmd=${line/#rtcosim /$prefix/bin/rtcosim }
    cmd=${cmd//\/usr\/share\//$prefix/share/}
    (cd "$tmp/examples" && eval "$cmd" >"$tmp/example.log" 2>&1) ||
        { cat "$tmp/example.log" >&2; fail "rtcosim.1 example failed: $line"; }
    n=$((n + 1))
done < <(section EXAMPLES | sed -n 's/^  \(rtcosim \(info\|run\|check\|plan\) [^\\]*\)$/\1/p')
((n >= 4)) || fail "only $n runnable examples in rtcosim.1"
echo "install_test: bin/ and man1/ (rtcosim.1 and ${#tools[@]} tool pages hold their --help;"\
     "EXIT STATUS, FILES, ENVIRONMENT, EXAMPLES ($n run), SEE ALSO)"

# ---- rtcosim plot, installed: the plots of a real-time session of an installed example ----
if command -v gnuplot >/dev/null; then
    (cd "$tmp" && "$prefix/bin/rtcosim" run "$prefix/share/rtcosim/examples/msd-jacobi.ssp" \
        --realtime --stop 0.3 --output-dir rt -q 2>"$tmp/rt.err") ||
        { cat "$tmp/rt.err" >&2; fail "a real-time run of the installed example failed"; }
    plots=$(cd "$tmp" && "$prefix/bin/rtcosim" plot rt 2>&1) || fail "rtcosim plot: $plots"
    for p in signals latency-histogram latency-time; do
        [[ -s $tmp/rt/$p.png ]] || fail "rtcosim plot drew no $p.png: $plots"
    done
    echo "install_test: the installed rtcosim plot drew $(tr '\n' ' ' <<<"$plots")"
else
    echo "install_test: SKIP rtcosim plot: gnuplot is not installed (the package depends on it)"
fi

# ---- headers ----
export PKG_CONFIG_PATH=$libdir/pkgconfig
pkg-config --exists rtcosim || fail "pkg-config does not find rtcosim in $PKG_CONFIG_PATH"
cflags=$(pkg-config --cflags rtcosim)
libs=$(pkg-config --libs rtcosim)
for f in $cflags $libs; do
    case $f in *"$src"* | *"$build"*) fail "pkg-config points into the tree: $f" ;; esac
done
# Each installed header alone, twice, with every third-party header the project uses
# poisoned (the same check the source tree's headers get).
bash "$src/tests/integration/header_alone.sh" "$cc" "$prefix/include" $cflags ||
    fail "an installed header does not compile alone without third-party headers"
n=$(find "$prefix/include/rtcosim" -name '*.h' | wc -l)
((n >= 20)) || fail "only $n headers installed"
[[ -f $prefix/include/rtcosim/rtcosim.h && -f $prefix/include/rtcosim/rtc_config.h ]] ||
    fail "rtcosim.h or rtc_config.h not installed"
if find "$prefix/include" -name '*_priv.h' -o -name 'xml_util.h' -o -name 'json_util.h' |
    grep -q .; then
    fail "private headers installed"
fi
if find "$prefix/include" -name 'panel.h' -o -name 'osc_control.h' | grep -q .; then
    fail "the operator surfaces' headers are installed, but librtcosim does not hold them"
fi
echo "install_test: $n headers installed, no private one, none of the surfaces"

# ---- the example, built against the install only, run on an installed example system ----
system=$prefix/share/rtcosim/examples/msd-jacobi.ssp
[[ -f $system ]] || fail "example system $system not installed"
cp "$src/tests/install/embed_example.c" "$tmp/"
(cd "$tmp" && "$cc" -std=c11 -Wall -Wextra -Werror embed_example.c $cflags $libs "${extra[@]}" \
    -o embed_example) || fail "the example does not build with pkg-config --cflags --libs rtcosim"
# Found through the rpath pkg-config gives, without LD_LIBRARY_PATH.
unset LD_LIBRARY_PATH
ldd "$tmp/embed_example" | grep -q "librtcosim.so.* => $libdir/" ||
    fail "example does not load librtcosim.so from $libdir: $(ldd "$tmp/embed_example" | grep rtcosim)"
# A program embedding the engine links and loads without libmicrohttpd (ldd: every
# library the loader maps, not only the program's own NEEDED entries).
if needed "$tmp/embed_example" | grep -q microhttpd || ldd "$tmp/embed_example" | grep -q microhttpd
then
    fail "embed_example needs libmicrohttpd: $(ldd "$tmp/embed_example" | grep microhttpd)"
fi
echo "install_test: embed_example links and loads without libmicrohttpd"
out=$(cd "$tmp" && ./embed_example "$system" 100 mass1.x1) ||
    fail "embed_example failed"
echo "install_test: embed_example: $out"
[[ $out =~ ^mass1\.x1\ t=1\ value=(.+)$ ]] || fail "unexpected output: $out"
got=${BASH_REMATCH[1]}

# The README's example (its first C block after "## Build, install and embed").
awk '/^## Build, install and embed/ { sec = 1 } sec && /^```c$/ { on = 1; next }
     on && /^```$/ { exit } on' "$src/README.md" >"$tmp/readme_example.c"
[[ -s $tmp/readme_example.c ]] || fail "no C example in the README's install section"
(cd "$tmp" && "$cc" -std=c11 -Wall -Wextra -Werror readme_example.c $cflags $libs "${extra[@]}" \
    -o readme_example) || fail "the README's example does not build"
readme_out=$(cd "$tmp" && ./readme_example "$system" \
    100 mass1.x1) || fail "the README's example failed"
echo "install_test: README example: $readme_out"
[[ $readme_out == "mass1.x1 = $got at t = 1 s" ]] || fail "README example printed: $readme_out"

# The reference: the installed CLI on the same system, row t = 1.
(cd "$tmp" && "$prefix/bin/rtcosim" run "$system" --stop 1 --record mass1.x1 \
    --output-dir ref >/dev/null 2>"$tmp/ref.err") || { cat "$tmp/ref.err" >&2; fail "rtcosim run failed"; }
want=$(awk -F, 'NR > 1 && $1 + 0 == 1 { print $2 }' "$tmp/ref/results.csv")
[[ -n $want ]] || fail "no row t=1 in the CLI's results.csv"
awk -v g="$got" -v w="$want" 'BEGIN {
    d = g - w; if (d < 0) d = -d; s = w < 0 ? -w : w
    exit !(d <= 1e-12 * (s > 1 ? s : 1) && w != 0) }' ||
    fail "mass1.x1 at t=1: embed_example $got, rtcosim run $want"
echo "install_test: mass1.x1 = $got at t = 1 s, as rtcosim run writes: PASS"
