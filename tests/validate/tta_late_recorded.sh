#!/usr/bin/env bash
# Late pilots on recorded data (issue 12, docs/validation-tta.md "Late pilots"): the
# recorded CNN pilots (2 workers, and the held-out 4 workers x batch 16) with their late
# pilots from the baseline at T_0/2 of the harder target, predicted by this build's
# `gcu pilot predict` at that target's 10% pilot and measured T_0. PowerSGD rank 4's
# error at the branch is >= 2x its pilot's, so its estimate rises toward the measured
# iterations (1089 and 1010; 610 and 635 without the late pilots) and stays below them;
# a scheme whose error moved by less than 1.5x (THC, ef(topk)) keeps its estimate, QSGD
# (its error fell, but its multiplier is ~1) moves by < 1%; --late off gives the pilots'
# own. The stall test (convergence/pilot_late.h) turns `never` at least one scheme there, and
# only schemes whose full runs never reach the target (TernGrad on both, ef(topkc) held out).
# ~10 s.
set -eu
PY=$1 SCRIPTS=$2 GCU=$3 DATA=$4 WORK=$5
rm -rf "$WORK"; mkdir -p "$WORK"
psgd='powersgd:rank=4,warm_start=true,min_rate=2'
# The schemes whose full runs never reach the harder target (both protocols).
never='["powersgd:rank=2,warm_start=true,min_rate=2","topkc:k=0.01,chunk=256","ef(topkc:k=0.01,chunk=256)","signsgd","efsignsgd","terngrad"]'
run() {  # protocol, late file, target loss, T_0, pilot iterations, measured PowerSGD r4 iterations
  local d=$DATA/$1
  cat "$d/pilots.jsonl" "$d/$2" > "$WORK/$1.jsonl"
  local t; t=$("$PY" -c "import json,sys;print(min(x['loss'] for x in json.load(open(sys.argv[1]))))" "$d/targets.json")
  "$GCU" pilot predict "$WORK/$1.jsonl" --target "$t" --baseline-iterations "$3" --pilot-iterations "$4" --pace off \
    > "$WORK/$1.late.json"
  "$GCU" pilot predict "$WORK/$1.jsonl" --target "$t" --baseline-iterations "$3" --pilot-iterations "$4" --late off \
    > "$WORK/$1.off.json"
  "$GCU" pilot predict "$d/pilots.jsonl" --target "$t" --baseline-iterations "$3" --pilot-iterations "$4" > "$WORK/$1.none.json"
  cmp -s "$WORK/$1.off.json" "$WORK/$1.none.json" || { echo "$1: --late off differs from the pilots alone"; exit 1; }
  jq -e --slurpfile off "$WORK/$1.off.json" --arg p "$psgd" --argjson meas "$5" '. as $r |
      .[$p].late.error_ratio >= 2 and .[$p].late.branch_at > 0
      and .[$p].iterations > 1.1 * $off[0][$p].iterations and .[$p].iterations < $meas
      and ([.[$p].interval[] | isfinite] | all)
      and ([.[$p].evidence[] | select(startswith("late pilot"))] | length) == 1
      and ($r["qsgd:levels=127"].iterations / $off[0]["qsgd:levels=127"].iterations | . > 0.99 and . < 1.01)
      and ([("thc:bits=4,rot=full"), ("ef(topk:k=0.01)")] | all(. as $s |
            ($off[0][$s].iterations == null and $r[$s].iterations == null) or
            ($r[$s].iterations == $off[0][$s].iterations)))' "$WORK/$1.late.json" >/dev/null \
    || { echo "$1: late pilots did not move PowerSGD r4 as recorded (or moved an unchanged scheme)"; \
         jq -c --arg p "$psgd" '.[$p] | {iterations, late}' "$WORK/$1.late.json"; exit 1; }
  jq -e --argjson never "$never" '[to_entries[] | select(.value.late.stalled == true)
      | select(.value.status == "never" and .value.iterations == null) | .key] as $s
      | ($s | length) >= 1 and (($s - $never) | length) == 0' "$WORK/$1.late.json" >/dev/null \
    || { echo "$1: the stall test did not rule out a never-reaching scheme, or ruled out one that reaches:"; \
         jq -c '[to_entries[] | select(.value.late.stalled == true) | .key]' "$WORK/$1.late.json"; exit 1; }
}
run tta-fashion-mnist late-223.jsonl 447.3 45 1089
run tta-fashion-mnist-4w late-233.jsonl 465.8 47 1010
echo "stalled: $(jq -c '[to_entries[] | select(.value.late.stalled == true) | .key]' "$WORK/tta-fashion-mnist.late.json") (CNN), $(jq -c '[to_entries[] | select(.value.late.stalled == true) | .key]' "$WORK/tta-fashion-mnist-4w.late.json") (held out)"
echo "late pilots: PowerSGD r4 $(jq -r --arg p "$psgd" '.[$p].iterations | floor' "$WORK/tta-fashion-mnist.late.json") (CNN), $(jq -r --arg p "$psgd" '.[$p].iterations | floor' "$WORK/tta-fashion-mnist-4w.late.json") (held out)"
