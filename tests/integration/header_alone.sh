#!/usr/bin/env bash
# Each public header compiles on its own (it includes what it uses) and includes no
# third-party header (STYLE.md rule 1; issue 13: osc_args.h included <lo/lo.h>). The
# system include directories still hold liblo, libmodbus and the others, so leaving their
# pkg-config paths out would prove nothing: a directory searched first holds a poisoned
# copy of every third-party header the project uses, which stops the compile by name.
# Usage: header_alone.sh CC HEADER_DIR -I<dir>...   (the dirs of the rtcosim headers)
set -u
cc=$1
hdir=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in lo/lo.h lo/lo_lowlevel.h lo/lo_types.h modbus.h modbus/modbus.h \
         modbus/modbus-tcp.h modbus/modbus-rtu.h jansson.h microhttpd.h \
         libxml/parser.h libxml/tree.h minizip/unzip.h unzip.h CUnit/CUnit.h; do
    mkdir -p "$tmp/poison/$(dirname "$h")"
    echo "#error \"third-party header $h included by a public header\"" >"$tmp/poison/$h"
done
status=0
n=0
for f in "$hdir"/rtcosim/*.h; do
    name=rtcosim/$(basename "$f")
    printf '#include "%s"\n#include "%s"\n' "$name" "$name" >"$tmp/t.c"
    if ! "$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only \
            -I"$tmp/poison" -I"$hdir" "$@" "$tmp/t.c" 2>"$tmp/err"; then
        echo "header_alone: $name does not compile alone without third-party headers:" >&2
        sed 's/^/    /' "$tmp/err" >&2
        status=1
    fi
    n=$((n + 1))
done
if ((n == 0)); then
    echo "header_alone: no headers in $hdir/rtcosim" >&2
    exit 1
fi
((status == 0)) && echo "header_alone: $n headers of $hdir compile alone"
exit $status
