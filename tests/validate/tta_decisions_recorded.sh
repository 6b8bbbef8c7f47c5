#!/usr/bin/env bash
# The recorded TTA protocols' reach/never decisions (issue 12, docs/validation-tta.md):
# fortunes and the held-out CNN at 4 workers x batch 16, re-predicted by this build's
# `gcu pilot predict` from their separately recorded pilots. At 10% pilots with measured
# T_0, at least 90% of the decided cases must be right and no `reaches` false, as
# recorded; every prediction must use its pilot's own running figures. ~10 s.
set -eu
PY=$1 SCRIPTS=$2 GCU=$3 DATA=$4 WORK=$5
rm -rf "$WORK"; mkdir -p "$WORK"
for name in tta-fortunes tta-fashion-mnist-4w; do
  cp -r "$DATA/$name" "$WORK/$name"
  rm -f "$WORK/$name/summary.json" "$WORK/$name/table.md" "$WORK/$name/table-links.md"
  "$PY" "$SCRIPTS/validate_tta.py" summary "$WORK/$name" --gcu "$GCU" --cap 2 \
    --pilots "$WORK/$name/pilots.jsonl" > "$WORK/$name.out"
  jq -e '([.cases[].figures_over] | unique) == ["pilot"]' "$WORK/$name/summary.json" >/dev/null \
    || { echo "$name: predictions not from the pilots' own figures"; exit 1; }
  jq -e '[.settings[] | select(.t0_source == "measured" and .pilot_fraction == 0.1)][0]
         | .decided >= 8 and .decided_right_fraction >= 0.9 and .false_reaches_fraction == 0' \
    "$WORK/$name/summary.json" >/dev/null \
    || { echo "$name: 10% pilots' decisions fell below the recorded figures"; cat "$WORK/$name/table.md"; exit 1; }
done
echo "ok"
