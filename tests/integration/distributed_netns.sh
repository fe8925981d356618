#!/usr/bin/env bash
# distributed_netns.sh RTCOSIM CONFIG_DIR [realtime] — a distributed run across two network
# namespaces joined by a veth pair (issue 22): node A in one, node B in the other, each
# seeing the other only through its own interface and address (--dds-address,
# --dds-peers: unicast discovery, no multicast), as two machines would. Without
# --realtime the merged results must equal the one-process run byte for byte; with
# "realtime" the nodes run --realtime, B measures its clock against A's over the veth, and
# each node's session replays identical.
#
# The namespaces and the veth pair are made here and removed on every way out. Without
# CAP_NET_ADMIN (ip netns add refused) the test says why and exits 77, which ctest counts
# as skipped, never as passed. Bounded: every rtcosim has a join timeout and a timeout.
set -u
rtc=$1
cfg=$2
id=$$
nsa=rtcA$id nsb=rtcB$id va=rtva$id vb=rtvb$id
va=${va:0:15} vb=${vb:0:15}
a=10.77.1.1 b=10.77.1.2
work=$(mktemp -d)

cleanup() {
    ip netns del "$nsa" 2>/dev/null
    ip netns del "$nsb" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

if ! ip netns add "$nsa" 2>"$work/why"; then
    echo "SKIP distributed_netns: cannot create a network namespace ($(head -c 200 "$work/why")):" \
        "needs CAP_NET_ADMIN"
    exit 77
fi
fail() {
    echo "FAIL distributed_netns: $*"
    for f in "$work"/*.log; do echo "==> $f"; cat "$f"; done
    exit 1
}
ip netns add "$nsb" || fail "ip netns add $nsb"
ip link add "$va" type veth peer name "$vb" || fail "ip link add veth"
ip link set "$va" netns "$nsa" && ip link set "$vb" netns "$nsb" || fail "moving the veth ends"
ip -n "$nsa" addr add "$a/24" dev "$va" && ip -n "$nsb" addr add "$b/24" dev "$vb" ||
    fail "addresses"
for ns in "$nsa" "$nsb"; do
    ip -n "$ns" link set lo up
done
ip -n "$nsa" link set "$va" up && ip -n "$nsb" link set "$vb" up || fail "links up"

sys=$cfg/msd-gauss-seidel.ssp
common=(--place mass1=A --place mass2=B --stop 3 -q --session netns$id --join-timeout 30)
if [ "${3:-}" = realtime ]; then
    sys=$cfg/msd-jacobi.ssp
    for n in A B; do
        [ $n = A ] && ns=$nsa me=$a peer=$b || ns=$nsb me=$b peer=$a
        timeout 120 ip netns exec "$ns" "$rtc" run "$sys" "${common[@]}" --realtime --node $n \
            --dds-address "$me" --dds-peers "$peer" --output-dir "$work/$n" >"$work/$n.log" 2>&1 &
        eval "p$n=\$!"
    done
    wait "$pA" || fail "real-time node A (in $nsa, $a) failed"
    wait "$pB" || fail "real-time node B (in $nsb, $b) failed"
    grep -q '"measured": true' "$work/B/summary.json" || fail "B did not measure its clock"
    for n in A B; do
        "$rtc" replay "$work/$n" >"$work/replay$n.log" 2>&1 || fail "replay of node $n"
        grep -q identical "$work/replay$n.log" || fail "replay of node $n: not identical"
    done
    echo "distributed_netns realtime: nodes A ($a) and B ($b) over veth, each session" \
        "replays identical; B's clock offset $(grep -o '"offset_ms": [-0-9.e]*' \
        "$work/B/summary.json" | head -1)"
    exit 0
fi
timeout 120 "$rtc" run "$sys" --stop 3 -q --output-dir "$work/single" >"$work/single.log" 2>&1 ||
    fail "the one-process run"
timeout 120 ip netns exec "$nsa" "$rtc" run "$sys" "${common[@]}" --node A --dds-address "$a" \
    --dds-peers "$b" --output-dir "$work/A" >"$work/A.log" 2>&1 &
pa=$!
timeout 120 ip netns exec "$nsb" "$rtc" run "$sys" "${common[@]}" --node B --dds-address "$b" \
    --dds-peers "$a" --output-dir "$work/B" >"$work/B.log" 2>&1 &
pb=$!
wait $pa || fail "node A (in $nsa, $a) failed"
wait $pb || fail "node B (in $nsb, $b) failed"
"$rtc" merge "$work/A" "$work/B" -o "$work/merged.csv" 2>"$work/merge.log" || fail "merge"
cmp -s "$work/merged.csv" "$work/single/results.csv" ||
    fail "the merged results differ from the one-process run"
rows=$(($(wc -l <"$work/merged.csv") - 1))
echo "distributed_netns: nodes A ($a, $nsa) and B ($b, $nsb) over veth: $rows rows," \
    "merged byte for byte equal to the one-process run"
