#!/usr/bin/env bash
# The recorded TTA protocols' reach/never decisions (issue 12, docs/validation-tta.md):
# fortunes, the held-out CNN at 4 workers x batch 16 and the held-out fortunes model at 4
# workers x batch 16 (recorded after the stability rule), re-predicted by this build's
# `gcu pilot predict` from their separately recorded pilots. At 10% pilots with measured
# T_0, at least 90% of the decided cases must be right and no `reaches` false (one of 22
# on the held-out fortunes setting), as recorded, with at least 7 decided (held out: 8 before the stability rule left
# ef(topkc) at loss@100% `uncertain`: `never` at iteration 45, `uncertain` at 44); every prediction must use its pilot's own running figures. The held-out
# setting is also joined with its own recorded validate grid (4 ranks x batch 16), and
# fortunes with its 2-rank BERT grid: their end-to-end picks (and the held-out TTA
# ranking) must stay as recorded. ~45 s.
set -eu
PY=$1 SCRIPTS=$2 GCU=$3 DATA=$4 WORK=$5
rm -rf "$WORK"; mkdir -p "$WORK"
for name in tta-fortunes tta-fashion-mnist-4w tta-fortunes-4w; do
  cp -r "$DATA/$name" "$WORK/$name"
  rm -f "$WORK/$name/summary.json" "$WORK/$name/table.md" "$WORK/$name/table-links.md"
  timing=()
  [ "$name" = tta-fashion-mnist-4w ] && timing=(--timing "$DATA/cpu-4rank-cnn-tta-loop/validate.json")
  [ "$name" = tta-fortunes ] && timing=(--timing "$DATA/cpu-2rank-bert-tta-fresh/validate.json")
  "$PY" "$SCRIPTS/validate_tta.py" summary "$WORK/$name" --gcu "$GCU" --cap 2 \
    --pilots "$WORK/$name/pilots.jsonl" "${timing[@]}" > "$WORK/$name.out"
  jq -e '([.cases[].figures_over] | unique) == ["pilot"]' "$WORK/$name/summary.json" >/dev/null \
    || { echo "$name: predictions not from the pilots' own figures"; exit 1; }
  # The fortunes model at 4 workers x batch 16 (recorded after every rule was fixed) has
  # one false `reaches` of 22 at 10% pilots (ef(topkc) at loss@50%) and 11 decided.
  max_false=0; [ "$name" = tta-fortunes-4w ] && max_false=0.05
  jq -e --argjson f "$max_false" '[.settings[] | select(.t0_source == "measured" and .pilot_fraction == 0.1)][0]
         | .decided >= 7 and .decided_right_fraction >= 0.9 and .false_reaches_fraction <= $f' \
    "$WORK/$name/summary.json" >/dev/null \
    || { echo "$name: 10% pilots' decisions fell below the recorded figures"; cat "$WORK/$name/table.md"; exit 1; }
done
# The late pilots' scoring beside the pilots' own (validate_tta.sh LATE=1): --suffix=-late
# writes summary-late.json and table-late.md and leaves summary.json as it was; on the
# held-out fortunes setting the stall test decides 92% right (13) as recorded; a suffix
# that could leave the directory is refused.
f4=$WORK/tta-fortunes-4w
cp "$f4/summary.json" "$WORK/f4-summary.json"
cat "$f4/pilots.jsonl" "$f4"/late-*.jsonl > "$f4/pilots-late.jsonl"
"$PY" "$SCRIPTS/validate_tta.py" summary "$f4" --gcu "$GCU" --cap 2 --pilots "$f4/pilots-late.jsonl" \
  --suffix=-late > "$WORK/f4-late.out"
cmp -s "$f4/summary.json" "$WORK/f4-summary.json" || { echo "--suffix=-late rewrote summary.json"; exit 1; }
[ -s "$f4/table-late.md" ] || { echo "--suffix=-late wrote no table-late.md"; exit 1; }
jq -e '[.settings[] | select(.t0_source == "measured" and .pilot_fraction == 0.1)][0]
       | .decided >= 13 and .decided_right_fraction >= 0.92 and .late_pilot_cost_per_scheme_vs_one_baseline_run > 0' \
  "$f4/summary-late.json" >/dev/null \
  || { echo "tta-fortunes-4w with late pilots: decisions below the recorded figures"; cat "$f4/table-late.md"; exit 1; }
if "$PY" "$SCRIPTS/validate_tta.py" summary "$f4" --gcu "$GCU" --suffix /../x > "$WORK/bad-suffix.out" 2>&1 \
   || ! grep -q "suffix" "$WORK/bad-suffix.out"; then
  echo "a suffix with a '/' was not refused by name"; cat "$WORK/bad-suffix.out"; exit 1
fi
# Held out, end to end (6 settings: 2 targets x 3 links), measured T_0: the predicted best
# within 10% of the measured best in >= 5 of 6 at both pilot lengths (the grid recorded with
# compute timed in the trainer's loop; 4 of 6 at 10% with the older cpu-4rank-cnn-tta), and
# the 10% pilots' median Kendall tau >= 0.7, as recorded.
jq -e '[.links[] | select(.t0_source == "measured")] as $l
       | ($l | length) == 2 and ([$l[].settings] | all(. == 6))
       and ($l[] | select(.pilot_fraction == 0.1) | .predicted_best_within_10pct >= 0.83 and .kendall_tau_median >= 0.7)
       and ($l[] | select(.pilot_fraction == 0.03) | .predicted_best_within_10pct >= 0.83)' \
  "$WORK/tta-fashion-mnist-4w/summary.json" >/dev/null \
  || { echo "held-out end-to-end picks fell below the recorded figures"; cat "$WORK/tta-fashion-mnist-4w/table-links.md"; exit 1; }
# fortunes end to end (2 targets x 3 links) with its grid recorded on fresh synthetic labels: the
# predicted best within 10% in >= 5 of 6 at both pilot lengths (4 of 6 at 10% with the
# grid before it).
jq -e '[.links[] | select(.t0_source == "measured")] as $l
       | ($l | length) == 2 and ([$l[].settings] | all(. == 6))
       and ([$l[] | .predicted_best_within_10pct >= 0.83] | all)' \
  "$WORK/tta-fortunes/summary.json" >/dev/null \
  || { echo "fortunes end-to-end picks fell below the recorded figures"; cat "$WORK/tta-fortunes/table-links.md"; exit 1; }
echo "ok"
