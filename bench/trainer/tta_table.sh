#!/usr/bin/env bash
# Fashion-MNIST, 2 ranks on this machine: time to a target test accuracy (default 85%)
# for FP32, FP16, PowerSGD rank 4, TopK 1% (with error feedback), TopKC, THC and SignSGD,
# measured with `gcu train`. Prints a table (scheme, iterations and training time to the
# target, median iteration time, bytes per iteration per rank) and keeps the logs.
#
#   bench/trainer/tta_table.sh [gcu-binary] [out-dir]
#   TARGET=0.85 ITERS=3000 BATCH=64 LR=0.05 THREADS=1 bench/trainer/tta_table.sh build/cli/gcu
#
# Training time excludes evaluation (every EVAL_EVERY iterations on the full test set);
# "wall" includes it. Schemes missing from the registry are reported and skipped.
set -euo pipefail
GCU=${1:-build/cli/gcu}
OUT=${2:-tta-logs}
TARGET=${TARGET:-0.85}
ITERS=${ITERS:-3000}
BATCH=${BATCH:-64}
LR=${LR:-0.05}
THREADS=${THREADS:-1}
EVAL_EVERY=${EVAL_EVERY:-50}
RANKS=${RANKS:-2}
SCHEMES=${SCHEMES:-"none fp16 powersgd:rank=4 ef(topk:k=0.01) topkc thc signsgd"}
mkdir -p "$OUT"
export OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS

for s in $SCHEMES; do
  log="$OUT/$(echo "$s" | tr -c 'A-Za-z0-9=._-' '_').jsonl"
  echo "== $s" >&2
  if ! "$GCU" launch -n "$RANKS" -- "$GCU" train --model cnn --data fashion-mnist \
      --batch "$BATCH" --lr "$LR" --iters "$ITERS" --eval-every "$EVAL_EVERY" \
      --target-acc "$TARGET" --threads "$THREADS" --scheme "$s" --warmup 10 --quiet \
      --log "$log" >&2; then
    echo "!! $s failed (see above)" >&2
    rm -f "$log"
  fi
done

/usr/bin/python3 - "$OUT" "$TARGET" "$RANKS" "$BATCH" "$LR" <<'PY'
import glob, json, sys
out, target, ranks, batch, lr = sys.argv[1:]
print(f"Fashion-MNIST, CNN, {ranks} ranks x batch {batch}, SGD lr {lr} momentum 0.9, target {float(target):.0%}")
print(f"{'scheme':<22} {'reached':>7} {'iters':>6} {'TTA train s':>11} {'TTA wall s':>10} "
      f"{'iter ms':>8} {'final acc':>9} {'KiB/iter':>9}")
for path in sorted(glob.glob(f"{out}/*.jsonl")):
    recs = [json.loads(l) for l in open(path) if l.strip()]
    h, s = recs[0], recs[-1]
    if s.get("type") != "summary":
        continue
    reached = s["reached_target"]
    it = s.get("iters_to_target", "-")
    tta = f"{s['time_to_target_s']:.1f}" if reached else "-"
    wall = f"{s['time_to_target_wall_s']:.1f}" if reached else "-"
    acc = s.get("final_test_acc")
    print(f"{h['scheme']:<22} {('yes' if reached else 'no'):>7} {it!s:>6} {tta:>11} {wall:>10} "
          f"{s['iter_time_median_s'] * 1e3:8.2f} {acc if acc is None else round(acc, 4)!s:>9} "
          f"{h['wire_bytes_per_iter'] / 1024:9.1f}")
PY
