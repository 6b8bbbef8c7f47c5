#!/usr/bin/env bash
# netbed.sh: the shaped-network testbed of `gcu validate` (docs/validation.md §1).
#
# N ranks, each in its own network namespace, joined through a Linux bridge that lives in a
# namespace of its own, one veth pair per rank; every rank's link is rate-limited with tc
# tbf in BOTH directions (egress of the rank's end = rank -> bridge, egress of the bridge's
# end = bridge -> rank), so a ring all-reduce sees the requested rate on every hop.
# Addresses 10.77.0.(r+1)/24 (rank r), interface `gcu0` inside every rank namespace.
# Nothing is routed outside the namespaces: the host's interfaces are never touched.
#
#   netbed.sh check                      exit 0 when root with ip and tc (else says why, exit 3)
#   netbed.sh up   PREFIX N RATE         create (idempotent: an existing PREFIX is removed first)
#   netbed.sh down PREFIX                remove everything named PREFIX-* (idempotent)
#   netbed.sh rate PREFIX N RATE         change the rate of every link of a running testbed
#   netbed.sh list PREFIX                print what exists for PREFIX (namespaces, links, qdiscs)
#   netbed.sh exec PREFIX -- CMD...      run CMD in rank $RANK's namespace with GLOO_SOCKET_IFNAME
#                                        (for `gcu launch -n N --master-addr 10.77.0.1 -- netbed.sh exec ...`)
#   netbed.sh addr R                     rank R's address (10.77.0.(R+1))
#
# RATE: `unlimited` (or 0), or a number with a unit tc understands: 1gbit, 200mbit, 500kbit.
# A rate tc refuses is reported as "netbed: tc refused rate ..." and the testbed removed.
# PREFIX: 2-8 characters [a-z0-9] (interface names must stay within 15 characters).
# `up` removes what it created when it fails or is interrupted (trap); `down` is safe to
# call any number of times.
set -euo pipefail

die() { echo "netbed: $*" >&2; exit 2; }

check() {
  if [[ $(id -u) != 0 ]]; then echo "netbed: not root: network namespaces need root (or CAP_NET_ADMIN)" >&2; return 3; fi
  for t in ip tc; do
    command -v "$t" >/dev/null 2>&1 || { echo "netbed: '$t' not found (install iproute2)" >&2; return 3; }
  done
  return 0
}

check_prefix() {
  [[ $1 =~ ^[a-z0-9]{2,8}$ ]] || die "prefix '$1' must be 2-8 characters of [a-z0-9]"
}

ns_rank() { echo "$1-r$2"; }
ns_bridge() { echo "$1-br"; }
addr() { echo "10.77.0.$(( $1 + 1 ))"; }

down() {
  local p=$1 ns
  check_prefix "$p"
  # Deleting a namespace deletes its interfaces and their veth peers (and the qdiscs).
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$p-(r[0-9]+|br)\$" || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
}

list() {
  local p=$1 ns
  check_prefix "$p"
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$p-(r[0-9]+|br)\$" || true); do
    echo "netns $ns"
    ip -n "$ns" -o link show | awk '{print "  link " $2}' | sed 's/@.*//; s/:$//'
    tc -n "$ns" qdisc show | grep -E 'tbf' | sed 's/^/  qdisc /' || true
  done
}

# tbf: burst = rate * 1 ms (at least 32 KiB: two GSO segments, which shaped links cap at
# 16 KiB, see up()), queue of 50 ms. The bucket lets `burst` bytes through at the veth's
# speed: with rate * 4 ms (500 KB at 1gbit) a CNN's 827 KB bucket all-reduce mostly rode
# the burst and beat the link's sustained rate; with the earlier 64 KiB floor, a 175 KB
# message at 200mbit still did.
shape() {
  local ns=$1 dev=$2 rate=$3 out
  local bits
  bits=$(rate_bits "$rate") || die "tc refused rate '$rate': not a rate (use e.g. 1gbit, 200mbit, unlimited)"
  local burst=$(( bits / 8 / 1000 )); (( burst < 32768 )) && burst=32768
  # Segments of at most 16 KiB (TCP sizes its TSO packets by the device): a 64 KiB
  # super-packet would need a 64 KiB token bucket, a burst a real link does not have.
  if ! out=$(ip -n "$ns" link set "$dev" gso_max_size 16384 2>&1); then
    echo "netbed: cannot cap the GSO size of $dev: $out" >&2
    return 4
  fi
  if ! out=$(tc -n "$ns" qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" latency 50ms 2>&1); then
    echo "netbed: tc refused rate '$rate' on $dev: $out" >&2
    return 4
  fi
}

# bits/s of a tc rate string (bit, kbit, mbit, gbit, tbit; bps kbps mbps gbps = bytes).
rate_bits() {
  local r=${1,,}
  [[ $r =~ ^([0-9]+(\.[0-9]+)?)([kmgt]?)(bit|bps)?$ ]] || return 1
  local v=${BASH_REMATCH[1]} m=${BASH_REMATCH[3]} u=${BASH_REMATCH[4]:-bit}
  local f=1
  case $m in k) f=1000;; m) f=1000000;; g) f=1000000000;; t) f=1000000000000;; esac
  [[ $u == bps ]] && f=$(( f * 8 ))
  awk -v v="$v" -v f="$f" 'BEGIN { x = v * f; if (x < 8000) exit 1; printf "%.0f\n", x }'
}

up() {
  local p=$1 n=$2 rate=$3 r
  check_prefix "$p"
  [[ $n =~ ^[0-9]+$ ]] && (( n >= 1 && n <= 200 )) || die "rank count '$n' must be 1..200"
  local shaped=1
  case ${rate,,} in unlimited|0|none|"") shaped=0;; esac
  if (( shaped )); then
    rate_bits "$rate" >/dev/null || die "tc refused rate '$rate': not a rate tc accepts here (a number with bit/kbit/mbit/gbit or bps units, at least 8kbit; or unlimited)"
  fi
  check || exit 3
  down "$p"
  trap 'rc=$?; down "'"$p"'"; exit $rc' ERR
  trap 'down "'"$p"'"; exit 130' INT TERM HUP
  local br; br=$(ns_bridge "$p")
  ip netns add "$br"
  ip -n "$br" link add name br0 type bridge
  ip -n "$br" link set br0 up
  ip -n "$br" link set lo up
  for (( r = 0; r < n; ++r )); do
    local ns; ns=$(ns_rank "$p" "$r")
    ip netns add "$ns"
    # Created in the bridge namespace, then the rank's end moved into the rank namespace.
    ip -n "$br" link add "${p}b$r" type veth peer name "${p}v$r"
    ip -n "$br" link set "${p}v$r" netns "$ns"
    ip -n "$ns" link set "${p}v$r" name gcu0
    ip -n "$ns" addr add "$(addr "$r")/24" dev gcu0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set gcu0 up
    ip -n "$br" link set "${p}b$r" master br0
    ip -n "$br" link set "${p}b$r" up
    if (( shaped )); then
      shape "$ns" gcu0 "$rate" || { down "$p"; exit 4; }
      shape "$br" "${p}b$r" "$rate" || { down "$p"; exit 4; }
    fi
  done
  trap - ERR INT TERM HUP
  # No STP on br0: ports forward as soon as they are up.
  echo "netbed: $n ranks in namespaces $p-r0..$p-r$((n - 1)), bridge in $br, rate ${rate} both directions, master $(addr 0)"
}

set_rate() {
  local p=$1 n=$2 rate=$3 r
  check_prefix "$p"
  ip netns list | grep -q "^$(ns_bridge "$p")\b" || die "no testbed '$p' (run: netbed.sh up $p $n $rate)"
  for (( r = 0; r < n; ++r )); do
    case ${rate,,} in
      unlimited|0|none|"")
        tc -n "$(ns_rank "$p" "$r")" qdisc del dev gcu0 root 2>/dev/null || true
        tc -n "$(ns_bridge "$p")" qdisc del dev "${p}b$r" root 2>/dev/null || true
        ip -n "$(ns_rank "$p" "$r")" link set gcu0 gso_max_size 65536 2>/dev/null || true
        ip -n "$(ns_bridge "$p")" link set "${p}b$r" gso_max_size 65536 2>/dev/null || true ;;
      *)
        shape "$(ns_rank "$p" "$r")" gcu0 "$rate" || exit 4
        shape "$(ns_bridge "$p")" "${p}b$r" "$rate" || exit 4 ;;
    esac
  done
}

exec_rank() {
  local p=$1; shift
  [[ ${1:-} == -- ]] && shift
  check_prefix "$p"
  local r=${RANK:?netbed exec: RANK is not set (run it under gcu launch)}
  export GLOO_SOCKET_IFNAME=gcu0
  exec ip netns exec "$(ns_rank "$p" "$r")" "$@"
}

cmd=${1:-}; shift || true
case $cmd in
  check) check ;;
  up) (( $# == 3 )) || die "usage: netbed.sh up PREFIX N RATE"; up "$@" ;;
  down) (( $# == 1 )) || die "usage: netbed.sh down PREFIX"; down "$1" ;;
  rate) (( $# == 3 )) || die "usage: netbed.sh rate PREFIX N RATE"; set_rate "$@" ;;
  list) (( $# == 1 )) || die "usage: netbed.sh list PREFIX"; list "$1" ;;
  exec) (( $# >= 2 )) || die "usage: netbed.sh exec PREFIX -- CMD..."; exec_rank "$@" ;;
  addr) addr "$1" ;;
  rate-bits) rate_bits "$1" ;;
  *) die "usage: netbed.sh check|up|down|list|exec|addr (see the header of $0)" ;;
esac
