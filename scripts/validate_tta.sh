#!/usr/bin/env bash
# TTA validation protocol (issue 12; docs/validation-tta.md): ground-truth runs to the
# target vs predictions from pilots of 3% and 10% of the baseline's iterations.
#
#   1. baseline ("none") for T_FULL iterations x seeds: the targets are its seed-mean
#      held-out loss at T_FULL/2 and T_FULL (mean of the evaluations within +-5%);
#   2. every scheme (the baselines included) x seeds runs until its held-out loss reaches
#      the harder target or CAP x T_FULL iterations (ground truth);
#   3. the pilots: every scheme x seeds again for the longest pilot the targets need (10%
#      of the baseline's T_0 at the harder target), as a user would run them (same seeds,
#      data order and schedule, so their curves are the ground truth's prefixes): their eval
#      records carry the noise scale and relative error measured so far, which a prefix of
#      a ground-truth run does not (its run record averages them over the whole run);
#   4. `gcu pilot predict` per target x pilot fraction x T_0 source (measured baseline
#      iterations, or extrapolated from the pilot's own baseline curve), from the pilots;
#   5. scripts/validate_tta.py writes summary.json (schema gcu.validate.tta/1) and a table;
#   6. and truth-noise.json: what the ground truth's own seed noise allows any predictor
#      (docs/validation-tta.md, "The ground truth's noise").
# Environment: TASK (fashion-mnist | fortunes), SCHEMES (';'), SEEDS (','), T_FULL, CAP,
# LR, BATCH, WORKERS, EVAL_SAMPLES, JOBS (parallel run processes), LATE (1: late pilots too) and
# LATE_SEEDS (their seeds, default SEEDS; one seed scored the same), OUT (directory),
# GCU (binary). Cost: (schemes x seeds) runs of <= CAP x T_FULL iterations each.
# Runs already in OUT are kept. The recorded protocols in data/validation have theirs packed
# in raw.tar.xz: to extend one, unpack it (scripts/recordings.sh unpack DEST NAME) and give
# OUT=DEST/NAME.
set -euo pipefail
cd "$(dirname "$0")/.."
TASK=${TASK:-fashion-mnist}
SCHEMES=${SCHEMES:-"fp16;powersgd:rank=2;ef(topk:k=0.01);signsgd;efsignsgd;qsgd;terngrad"}
SEEDS=${SEEDS:-1,2,3}
T_FULL=${T_FULL:-600}
CAP=${CAP:-2}
LR=${LR:-0.05}
BATCH=${BATCH:-32}
WORKERS=${WORKERS:-2}
EVAL_SAMPLES=${EVAL_SAMPLES:-500}
JOBS=${JOBS:-2}
LATE=${LATE:-0}
LATE_SEEDS=${LATE_SEEDS:-$SEEDS}
OUT=${OUT:-data/validation/tta-$TASK}
GCU=${GCU:-build/cli/gcu}
export OMP_NUM_THREADS=1
mkdir -p "$OUT"
common=(--task "$TASK" --seeds "$SEEDS" --workers "$WORKERS" --batch-size "$BATCH" --lr "$LR"
        --eval-samples "$EVAL_SAMPLES" --threads 1)

# 1. baseline and targets
if [ ! -s "$OUT/baseline.jsonl" ]; then
  "$GCU" pilot run "${common[@]}" --schemes none --iterations "$T_FULL" -o "$OUT/baseline.jsonl"
fi
python3 scripts/validate_tta.py targets "$OUT/baseline.jsonl" "$T_FULL" > "$OUT/targets.json"
hard=$(python3 -c "import json;print(min(t['loss'] for t in json.load(open('$OUT/targets.json'))))")

# 2. ground truth: each scheme in its own file, JOBS at a time
IFS=';' read -ra list <<< "none;$SCHEMES"
i=0
for s in "${list[@]}"; do
  f="$OUT/runs-$(echo "$s" | tr -c 'A-Za-z0-9=.,\n' '_').jsonl"
  if [ ! -s "$f" ] || ! grep -q '"type":"run"' "$f" || [ "$(grep -c '"type":"run"' "$f")" -lt "$(echo "$SEEDS" | tr ',' '\n' | wc -l)" ]; then
    "$GCU" pilot run "${common[@]}" --schemes "$s" --iterations "$((CAP * T_FULL))" --stop-loss "$hard" -o "$f" &
    i=$((i + 1))
    if [ "$i" -ge "$JOBS" ]; then wait -n; i=$((i - 1)); fi
  fi
done
wait

# 3. the pilots, recorded on their own
plen=$(python3 scripts/validate_tta.py pilot-length "$OUT")
if [ ! -s "$OUT/pilots.jsonl" ] || ! grep -q '"type":"run"' "$OUT/pilots.jsonl"; then
  "$GCU" pilot run "${common[@]}" --schemes "none;$SCHEMES" --iterations "$plen" -o "$OUT/pilots.jsonl"
fi

# 3b. with LATE=1, late pilots: every scheme from the baseline's state at T_0/2 of each
#     target, for that target's 10% pilot length (docs/validation-tta.md, "Late pilots");
#     gcu pilot predict reads them beside the pilots
pilots="$OUT/pilots.jsonl"
if [ "$LATE" = 1 ]; then
  late_runs=$(( $(echo "none;$SCHEMES" | tr ';' '\n' | wc -l) * $(echo "$LATE_SEEDS" | tr ',' '\n' | wc -l) ))
  while read -r branch len; do
    f="$OUT/late-$branch.jsonl"
    if [ ! -s "$f" ] || [ "$(grep -c '"type":"run"' "$f")" -lt "$late_runs" ]; then
      "$GCU" pilot run --task "$TASK" --seeds "$LATE_SEEDS" --workers "$WORKERS" --batch-size "$BATCH" --lr "$LR" \
        --eval-samples "$EVAL_SAMPLES" --threads 1 --schemes "none;$SCHEMES" --branch-at "$branch" --iterations "$len" -o "$f"
    fi
  done < <(python3 scripts/validate_tta.py late-branches "$OUT")
  cat "$OUT/pilots.jsonl" "$OUT"/late-*.jsonl > "$OUT/pilots-late.jsonl"
  pilots="$OUT/pilots-late.jsonl"
fi

# 4 + 5. predictions and the summary (with LATE=1 both: the pilots alone in summary.json,
#        with the late pilots in summary-late.json)
python3 scripts/validate_tta.py summary "$OUT" --gcu "$GCU" --cap "$CAP" --pilots "$OUT/pilots.jsonl"
if [ "$pilots" != "$OUT/pilots.jsonl" ]; then
  python3 scripts/validate_tta.py summary "$OUT" --gcu "$GCU" --cap "$CAP" --pilots "$pilots" --suffix=-late
fi
# 6. the ground truth's own ceilings (iterations only; pass a gcu validate grid of the same
#    model, ranks and batch with `validate_tta.py truth-noise OUT --timing` for seconds)
python3 scripts/validate_tta.py truth-noise "$OUT"
