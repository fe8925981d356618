#!/usr/bin/env bash
# Capacities are CMake cache variables (issue 13 item 6, STYLE rule 3): every row of the
# README's capacity table is an rtc_capacity() of CMakeLists.txt and the reverse; a
# configure with each set to the low end of its range writes that value into the
# generated rtcosim/rtc_config.h; each is used by the code; a value outside the range
# stops the configure with a line naming the variable.
# Usage: capacity_test.sh SOURCE_DIR
set -u
src=$(cd "$1" && pwd) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "capacity_test: FAIL: $*" >&2; exit 1; }

# README rows: | `NAME` | default | min..max | what |
rows=$(sed -n 's/^| `\(RTC_[A-Z0-9_]*\)` | \([0-9]*\) | \([0-9]*\)\.\.\([0-9]*\) |.*/\1 \2 \3 \4/p' \
       "$src/README.md")
[[ -n $rows ]] || fail "no capacity table in README.md"
readme_names=$(awk '{ print $1 }' <<<"$rows" | sort)
cmake_names=$(sed -n 's/^rtc_capacity(\(RTC_[A-Z0-9_]*\) .*/\1/p' "$src/CMakeLists.txt" | sort)
[[ $readme_names == "$cmake_names" ]] ||
    fail "README table and CMakeLists.txt rtc_capacity() differ: $(diff <(echo "$readme_names") <(echo "$cmake_names") | grep '^[<>]' | tr '\n' ' ')"

defs=()
while read -r name def min max; do
    ((min <= def && def <= max)) || fail "$name: default $def outside $min..$max"
    grep -rqw --include='*.c' --include='*.h' "$name" "$src/rt-core" "$src/fmu-host" \
        "$src/io-drivers" || fail "$name is not used by the code"
    defs+=("-D$name=$min")
done <<<"$rows"

cmake -S "$src" -B "$tmp/low" -DRTC_BUILD_TESTS=OFF "${defs[@]}" >"$tmp/low.log" 2>&1 ||
    { tail -n 20 "$tmp/low.log" >&2; fail "configure with every capacity at its minimum failed"; }
header=$tmp/low/generated/rtcosim/rtc_config.h
while read -r name def min max; do
    grep -Eq "^#define $name ${min}(ULL)?\$" "$header" || fail "$header lacks '#define $name $min'"
done <<<"$rows"
echo "capacity_test: $(wc -l <<<"$rows") capacities documented, configured into rtc_config.h, used"

read -r name def min max < <(tail -n 1 <<<"$rows")
if cmake -S "$src" -B "$tmp/bad" -DRTC_BUILD_TESTS=OFF "-D$name=$((max + 1))" >"$tmp/bad.log" 2>&1; then
    fail "configure accepted $name=$((max + 1)) (range $min..$max)"
fi
grep -q "$name=$((max + 1)): must be an integer from $min to $max" "$tmp/bad.log" ||
    { cat "$tmp/bad.log" >&2; fail "the refusal does not name $name and its range"; }
echo "capacity_test: $name=$((max + 1)) refused with its range: PASS"
