#!/usr/bin/env bash
# The testbed's set-up and tear-down (scripts/netbed.sh): 2 ranks at 100mbit, checks the
# namespaces, links, addresses and both directions' tbf qdiscs; a rate change; tear-down
# leaves nothing; a rate tc refuses is a clear error and leaves nothing. Root only.
set -u
NB=$1
if ! bash "$NB" check 2>/tmp/netbed_check.$$; then
  echo "SKIP: $(cat /tmp/netbed_check.$$) (needs root with ip and tc)"; rm -f /tmp/netbed_check.$$; exit 77
fi
rm -f /tmp/netbed_check.$$
P=gt$(( $$ % 100000 ))
fail() { echo "FAIL: $*"; bash "$NB" down "$P"; exit 1; }
trap 'bash "$NB" down "$P"' EXIT
bash "$NB" up "$P" 2 100mbit || fail "up"
bash "$NB" up "$P" 2 100mbit >/dev/null || fail "second up (idempotent)"
for ns in "$P-br" "$P-r0" "$P-r1"; do ip netns list | grep -q "^$ns\b" || fail "namespace $ns missing"; done
ip -n "$P-br" link show br0 >/dev/null || fail "bridge missing"
for r in 0 1; do
  ip -n "$P-r$r" addr show gcu0 | grep -q "10.77.0.$((r + 1))/24" || fail "rank $r address"
  tc -n "$P-r$r" qdisc show dev gcu0 | grep -q "tbf.*rate 100Mbit" || fail "rank $r egress tbf"
  tc -n "$P-br" qdisc show dev "${P}b$r" | grep -q "tbf.*rate 100Mbit" || fail "bridge->rank $r tbf"
  ip -n "$P-br" link show "${P}b$r" | grep -q "master br0" || fail "port $r not on the bridge"
done
bash "$NB" rate "$P" 2 300mbit || fail "rate change"
tc -n "$P-r1" qdisc show dev gcu0 | grep -q "rate 300Mbit" || fail "rate not changed"
bash "$NB" rate "$P" 2 unlimited || fail "unlimited"
tc -n "$P-r1" qdisc show dev gcu0 | grep -q tbf && fail "tbf left after unlimited"
bash "$NB" down "$P" || fail "down"
bash "$NB" down "$P" || fail "second down (idempotent)"
ip netns list | grep -q "^$P-" && fail "namespaces left after down"
out=$(bash "$NB" up "$P" 2 12parsecs 2>&1) && fail "a bad rate was accepted"
echo "$out" | grep -q "tc refused rate '12parsecs'" || fail "unclear message for a bad rate: $out"
ip netns list | grep -q "^$P-" && fail "namespaces left after a refused rate"
echo "netbed: set-up, rate change, tear-down and refused rate OK"
