#!/usr/bin/env bash
# Records a validation under data/validation/<name>/ (docs/validation.md §5): calibrates
# in the same placement (every rank in its own network namespace, unshaped), then runs
# `gcu validate` over the grid and keeps the trainer's raw JSON-lines logs (raw/), the
# link sweeps (links/), the profile, validate.{json,csv,txt} and the plots. A recording
# kept in the tree then has its logs packed: scripts/recordings.sh pack NAME.
#
#   sudo bash scripts/record_validation.sh                  # the default grid (CNN, below)
#   MODEL=resnet18:classes=10,image=32 NAME=cpu-2rank-resnet18 ITERS=12 WARMUP=3 \
#     sudo -E bash scripts/record_validation.sh
#   FULL=1 sudo -E bash scripts/record_validation.sh         # the issue's full grid (hours)
set -euo pipefail
cd "$(dirname "$0")/.."
GCU=${GCU:-build/cli/gcu}
MODEL=${MODEL:-cnn}
NAME=${NAME:-cpu-2rank-cnn}
BATCH=${BATCH:-32}
RANKS=${RANKS:-2}
SCHEMES=${SCHEMES:-none;fp16;powersgd:rank=4}
LINKS=${LINKS:-unlimited,1gbit,200mbit}
MODES=${MODES:-overlap,after}
ITERS=${ITERS:-30}
WARMUP=${WARMUP:-5}
REPEATS=${REPEATS:-3}
BUDGET=${BUDGET:-150}
DATA=${DATA:-synthetic}   # or fashion-mnist: the cells train, and calibrate times compute, on it
# diagnose (default here): the in-grid measurements run too, and every link is probed, so
# the same logs give the user protocol's figures with `--reuse --protocol user`.
PROTOCOL=${PROTOCOL:-diagnose}
# Extra `gcu calibrate` arguments, split on spaces (e.g. CALIBRATE_ARGS="--collective-calls-scale 4").
read -r -a cal_words <<< "${CALIBRATE_ARGS:-}"
cal_args=()
for w in "${cal_words[@]}"; do cal_args+=("--calibrate-arg=$w"); done
if [[ ${FULL:-0} == 1 ]]; then
  SCHEMES="none;fp16;bf16;powersgd:rank=1;powersgd:rank=4;topk:k=0.01;ef(topkc);signsgd;qsgd;thc"
  LINKS=unlimited,3gbit,1gbit,500mbit,200mbit
  RANKS=2,4
  NAME=${NAME}-full
fi
OUT=data/validation/$NAME
mkdir -p "$OUT"
rc=0
"$GCU" validate --calibrate --calibrate-budget-s "$BUDGET" --model "$MODEL" --batch "$BATCH" --ranks "$RANKS" \
  --schemes "$SCHEMES" --links "$LINKS" --modes "$MODES" --iters "$ITERS" --warmup "$WARMUP" \
  --repeats "$REPEATS" --data "$DATA" --protocol "$PROTOCOL" --out "$OUT" -p "$OUT/profile.json" ${cal_args[@]+"${cal_args[@]}"} || rc=$?
# Exit 3: the grid ran and its reports are written, but some cells failed (named in them).
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || exit "$rc"
rm -f "$OUT"/raw/*.out.tmp.* 2>/dev/null || true
echo "recorded in $OUT$([ "$rc" -eq 3 ] && echo ' (some cells failed: see validate.txt)')"
