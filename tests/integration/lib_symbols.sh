#!/usr/bin/env bash
# Every symbol a static library of the project exports carries the project prefix (rtc_;
# internal cross-file functions rtc__), so an embedder linking librtc_* with its own code
# or with other libraries never gets a clash (issue 13: io-drivers exported drv_*, mb_*).
# Symbols the sanitizers generate (ASan ODR indicators and the like) are not ours.
# Usage: lib_symbols.sh NM LIB...
set -u
nm=$1
shift
status=0
for lib in "$@"; do
    if [[ ! -s $lib ]]; then
        echo "lib_symbols: $lib: missing or empty" >&2
        status=1
        continue
    fi
    if ! syms=$("$nm" -g --defined-only "$lib"); then
        echo "lib_symbols: $nm failed on $lib" >&2
        status=1
        continue
    fi
    bad=$(awk 'NF == 3 { print $3 }' <<<"$syms" |
          grep -Ev '^(rtc_|__(odr_asan|asan|tsan|ubsan|sanitizer))' | sort -u)
    n=$(awk 'NF == 3' <<<"$syms" | wc -l)
    if [[ -n $bad ]]; then
        echo "lib_symbols: $(basename "$lib") exports symbols without the rtc_ prefix:" >&2
        sed 's/^/    /' <<<"$bad" >&2
        status=1
    else
        echo "lib_symbols: $(basename "$lib"): $n exported symbols, all rtc_*"
    fi
done
exit $status
