#!/usr/bin/env bash
# Compute as calibrate times it against compute as training pays it
# (docs/history/validation-log.md, "Compute at 4 ranks x batch 16"). Interleaved pairs on
# loopback: `gcu calibrate` with only its compute step (every iteration after a barrier,
# the slowest rank of each iteration), then `gcu train --scheme none` on synthetic data (every rank's log, the
# rank with the largest forward + backward + optimizer of each iteration, as `gcu
# validate` merges them). Prints both per pair.
#
#   bash scripts/compute_gap_check.sh                  # CNN, 4 ranks x batch 16, 2 pairs
#   RANKS=2 BATCH=32 PAIRS=3 bash scripts/compute_gap_check.sh
#   TRAIN_ARGS="--mode after" CAL_ARGS="--compute-loop barrier" bash scripts/compute_gap_check.sh
#   RANKS=2 BATCH=32 DATA=fashion-mnist bash scripts/compute_gap_check.sh   # both on the real data
set -euo pipefail
cd "$(dirname "$0")/.."
GCU=${GCU:-build/cli/gcu} MODEL=${MODEL:-cnn} RANKS=${RANKS:-4} BATCH=${BATCH:-16} PAIRS=${PAIRS:-2}
DATA=${DATA:-synthetic}
[ -x "$GCU" ] || { echo "compute_gap_check: no gcu binary at $GCU (build first)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/gcu-compute-gap.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export OPENBLAS_NUM_THREADS=1
for ((p = 1; p <= PAIRS; p++)); do
  "$GCU" launch -n "$RANKS" -- "$GCU" calibrate --model "$MODEL" --batch-sizes "$BATCH" --threads 1 \
    --convergence-schemes - --skip gamma,collectives,codecs,errors,codec-gradients,contention \
    --compute-data "$DATA" ${CAL_ARGS:-} -o "$WORK/p$p.json" > "$WORK/cal$p.log" 2>&1 || { tail -5 "$WORK/cal$p.log" >&2; exit 1; }
  echo "pair $p: calibrate: $(grep -m1 'rank 0.*slowest rank of each iteration' "$WORK/cal$p.log" | sed 's/.*calibrate: //')"
  "$GCU" launch -n "$RANKS" -- "$GCU" train --model "$MODEL" --data "$DATA" --batch "$BATCH" --threads 1 \
    --scheme none --iters 110 --warmup 10 ${TRAIN_ARGS:-} --log "$WORK/t$p.jsonl" --log-all-ranks --quiet > "$WORK/tr$p.log" 2>&1 \
    || { tail -5 "$WORK/tr$p.log" >&2; exit 1; }
  /usr/bin/python3 - "$WORK/t$p.jsonl" "$RANKS" "$p" <<'PY'
import json, statistics, sys
base, ranks, pair = sys.argv[1], int(sys.argv[2]), sys.argv[3]
logs = []
for r in range(ranks):
    recs = (json.loads(line) for line in open(f"{base}.rank{r}"))
    logs.append([x for x in recs if x.get("type") == "iter" and x.get("measured")])
n = min(len(log) for log in logs)
comp = ("forward_s", "backward_s", "optimizer_s")
slow = [max((log[k] for log in logs), key=lambda x: sum(x[c] for c in comp)) for k in range(n)]
mean = {c: 1e3 * sum(x[c] for x in slow) / n for c in comp}
med = {c: 1e3 * statistics.median(x[c] for x in slow) for c in comp}
print(f"pair {pair}: train: slowest rank of each iteration, mean: forward {mean['forward_s']:.2f} ms, "
      f"backward {mean['backward_s']:.2f} ms, optimizer {mean['optimizer_s']:.2f} ms "
      f"(medians {med['forward_s']:.2f}, {med['backward_s']:.2f} ms; {n} iterations)")
PY
done
