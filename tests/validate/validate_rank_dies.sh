#!/usr/bin/env bash
# A rank that dies in a cell: `gcu validate` over none and fp16 (CNN, 2 ranks, one round);
# one rank of the fp16 cell is killed (SIGKILL) while it trains. That cell is reported
# failed with its exit and the ranks' output, the `none` cell is measured, the reports are
# written, validate exits 3, and on the netns testbed (root with ip and tc) no namespace is
# left behind. ~20-40 s.
set -u
GCU=$1 PROFILE=$2 DIR=$3
rm -rf "$DIR"; mkdir -p "$DIR"
TESTBED=loopback
if [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && command -v tc >/dev/null; then TESTBED=netns; fi
ns_before=$(ip netns list 2>/dev/null | grep -c "^gv" || true)
# The killer: the first rank of the fp16 cell it sees (a `gcu train` process, not the
# launcher), once it has trained for a second.
(
  for _ in $(seq 1 900); do
    pid=$(pgrep -f -- '^[^ ]*gcu(-torch)? train .*--scheme fp16' | head -1)
    if [ -n "$pid" ]; then sleep 1; kill -9 "$pid" 2>/dev/null && echo "killed $pid" > "$DIR/killed"; exit 0; fi
    sleep 0.1
  done
) &
killer=$!
"$GCU" validate -p "$PROFILE" --model cnn --schemes "none;fp16" --links unlimited --modes overlap --batch 32 \
  --ranks 2 --iters 1500 --warmup 2 --repeats 1 --testbed "$TESTBED" --no-measure-links --no-plots \
  --no-calibration-noise --cell-timeout 120 --out "$DIR/out" 2> "$DIR/log"
rc=$?
kill "$killer" 2>/dev/null; wait "$killer" 2>/dev/null
fail() { echo "FAIL: $*"; cat "$DIR/log"; exit 1; }
[ -s "$DIR/killed" ] || fail "no fp16 rank was seen to kill"
[ "$rc" -eq 3 ] || fail "validate exited $rc with a failed cell (expected 3)"
grep -q "1 of 2 cells failed" "$DIR/log" || fail "no summary of the failed cells"
J=$DIR/out/validate.json
[ -s "$J" ] || fail "no report written"
jq -e '[.cells[] | select(.settings.scheme == "fp16")][0] | .status == "failed" and (.message | test("exit|timed out"))' "$J" >/dev/null \
  || fail "the fp16 cell is not reported failed with its exit: $(jq -c '.cells[] | {s: .settings.scheme, status, message}' "$J")"
jq -e '[.cells[] | select(.settings.scheme == "none")][0] | .status == "ok" and .measured.total.mean > 0' "$J" >/dev/null \
  || fail "the none cell was not measured"
jq -e '.summary.failed == 1 and .summary.ok == 1' "$J" >/dev/null || fail "summary counts"
if [ "$TESTBED" = netns ]; then
  ns_after=$(ip netns list 2>/dev/null | grep -c "^gv" || true)
  [ "$ns_after" -le "$ns_before" ] || fail "namespaces left behind: $(ip netns list)"
fi
echo "validate: a killed rank fails its cell only ($TESTBED testbed): OK"
