#!/bin/sh
# The user's own TorchScript model (a CNN scripted by PyTorch, make_scripted.py) calibrated
# and trained on 2 CPU ranks through `gcu launch`, then predicted by `gcu simulate`; and the
# bad inputs: a file that does not load, an input shape the model rejects, the input flags
# with a built-in model: each exits 2 and writes nothing.
# Usage: torchscript_two_ranks.sh <gcu> <work dir> <python3 with torch>
set -eu
GCU="$1"
DIR="$2"
PY="$3"
rm -rf "$DIR" && mkdir -p "$DIR"
if ! "$PY" -c 'import torch' 2>/dev/null; then
  echo "SKIP: $PY has no torch (Debian: apt install python3-torch)"; exit 77
fi
"$PY" "$(dirname "$0")/make_scripted.py" "$DIR/net.pt"
M="--model torchscript:$DIR/net.pt --input-shape 3x16x16"
fail() { echo "FAIL: $*"; exit 1; }

# expect_usage_error NAME ARGS...: exit 2, a message naming the problem in NAME.err, no output file.
expect_usage_error() {
  name=$1; shift
  rc=0; "$GCU" "$@" > "$DIR/$name.out" 2> "$DIR/$name.err" || rc=$?
  [ "$rc" -eq 2 ] || { cat "$DIR/$name.err"; fail "$name: exit $rc, expected 2"; }
}
expect_usage_error shape train --model "torchscript:$DIR/net.pt" --input-shape 5x16x16 --data synthetic --iters 2 \
  --log "$DIR/shape.jsonl"
grep -q "rejects an input of shape \[2, 5, 16, 16\] (float32)" "$DIR/shape.err" || { cat "$DIR/shape.err"; fail "shape message"; }
test ! -e "$DIR/shape.jsonl" || fail "a log was written for a rejected input"
expect_usage_error noload calibrate --model "torchscript:$(dirname "$0")/make_scripted.py" --input-shape 3x16x16 \
  -o "$DIR/noload.json"
grep -q "does not load as a TorchScript module" "$DIR/noload.err" || { cat "$DIR/noload.err"; fail "load message"; }
test ! -e "$DIR/noload.json" || fail "a profile was written for a file that does not load"
expect_usage_error missing validate --model "torchscript:$DIR/absent.pt" --input-shape 3x16x16 --out "$DIR/val"
grep -q "cannot open '$DIR/absent.pt'" "$DIR/missing.err" || { cat "$DIR/missing.err"; fail "missing-file message"; }
test ! -e "$DIR/val" || fail "validate wrote its directory for a missing model"
expect_usage_error builtin train --model cnn --input-shape 3x16x16 --data synthetic --iters 2
grep -q "'cnn' is a built-in model" "$DIR/builtin.err" || { cat "$DIR/builtin.err"; fail "built-in message"; }
expect_usage_error noshape train --model "torchscript:$DIR/net.pt" --data synthetic --iters 2
grep -q "needs the shape of one input sample: --input-shape" "$DIR/noshape.err" || fail "no-shape message"

# Calibrate it on 2 ranks: the compute step's hooks give each gradient's ready time, the
# profile lists the script's own tensors.
"$GCU" launch -n 2 -- "$GCU" calibrate $M --batch-sizes 8 --warmup 1 --iters 3 --max-bytes 1048576 \
  --schemes "none;powersgd:rank=2" --codec-sizes 4096,16384 --ready-times measured --threads 1 --budget-s 60 \
  --skip errors,codec-gradients,contention,convergence -o "$DIR/profile.json" > "$DIR/cal.out" 2> "$DIR/cal.err" ||
  { tail -20 "$DIR/cal.err"; fail "calibrate"; }
grep -q "\"name\": \"torchscript:$DIR/net.pt|classes=10,dtype=float32,input=3x16x16,loss=cross_entropy\"" \
  "$DIR/profile.json" || { grep -n '"name"' "$DIR/profile.json" | head; fail "the profile does not name the model"; }
grep -q '"classifier.weight"' "$DIR/profile.json" || fail "the profile lacks the script's tensor classifier.weight"
grep -q '"features.0.weight"' "$DIR/profile.json" || fail "the profile lacks the script's tensor features.0.weight"
"$GCU" simulate -p "$DIR/profile.json" --schemes "none,powersgd:rank=2" --format csv > "$DIR/sim.csv" ||
  fail "simulate on the scripted model's profile"
grep -q "powersgd" "$DIR/sim.csv" || fail "no PowerSGD row"

# Train it for a few iterations on 2 ranks with PowerSGD.
"$GCU" launch -n 2 -- "$GCU" train $M --data synthetic --batch 8 --iters 6 --warmup 2 --threads 1 \
  --scheme powersgd:rank=2 --log "$DIR/run.jsonl" --quiet > "$DIR/train.out" 2> "$DIR/train.err" ||
  { tail -20 "$DIR/train.err"; fail "train"; }
grep -q '"model": *"torchscript:' "$DIR/run.jsonl" || { head -3 "$DIR/run.jsonl"; fail "the log does not name the model"; }
n=$(grep -c '"type": *"iter' "$DIR/run.jsonl" || true)
[ "$n" -ge 6 ] || { head -5 "$DIR/run.jsonl"; fail "$n iteration records, expected 6"; }
echo "PASS: scripted model calibrated, simulated and trained on 2 ranks; bad inputs exit 2"
