#!/bin/sh
# `gcu profile from-trace --network torchscript:FILE.pt`: the traced job's own model, scripted
# by PyTorch (scripts/ddp_job.py --script), fills the buckets with the same tensors as the
# recorded tensor list does: the two model parts are the same but for their provenance. A
# file that does not load exits 2 and writes nothing.
# Usage: from_trace_torchscript.sh <gcu> <work dir> <python3 with torch> <source dir>
set -eu
GCU="$1"
DIR="$2"
PY="$3"
SRC="$4"
rm -rf "$DIR" && mkdir -p "$DIR"
if ! "$PY" -c 'import torch' 2>/dev/null; then
  echo "SKIP: $PY has no torch (Debian: apt install python3-torch)"; exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
T="$SRC/tests/data/traces"
"$PY" "$SRC/scripts/ddp_job.py" --model cnn --script "$DIR/cnn.pt"
"$PY" "$SRC/scripts/ddp_job.py" --model transformer --layers 1 --script "$DIR/transformer.pt" 2>/dev/null
for job in cnn:32 transformer:2; do
  m=${job%%:*} batch=${job#*:}
  "$GCU" profile from-trace "$T/cpu-gloo-2rank-$m.json" --network "torchscript:$DIR/$m.pt" --batch "$batch" \
    -o "$DIR/$m-ts.json" > "$DIR/$m-ts.out" 2> "$DIR/$m-ts.err" || { cat "$DIR/$m-ts.err"; fail "$m: import"; }
  "$GCU" profile from-trace "$T/cpu-gloo-2rank-$m.json" --network "tensors:$T/cpu-gloo-2rank-$m.tensors.csv" \
    --batch "$batch" -o "$DIR/$m-csv.json" > /dev/null
  "$PY" - "$DIR/$m-ts.json" "$DIR/$m-csv.json" <<'PYEOF' || fail "$m: the TorchScript and tensor-list parts differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for part in (a, b):
    part.pop("provenance", None)
    part["model"].pop("name", None)
if a != b:
    for key in a:
        if a[key] != b.get(key):
            print("differs:", key, json.dumps(a[key])[:300], "|", json.dumps(b.get(key))[:300])
    sys.exit(1)
print(len(a["model"]["tensors"]), "tensors, the same")
PYEOF
done
grep -q "torchscript:$DIR/cnn.pt" "$DIR/cnn-ts.json" || fail "the part does not record the TorchScript file"
rc=0
"$GCU" profile from-trace "$T/cpu-gloo-2rank-cnn.json" --network "torchscript:$SRC/README.md" --batch 32 \
  -o "$DIR/bad.json" > /dev/null 2> "$DIR/bad.err" || rc=$?
[ "$rc" -eq 2 ] || fail "a file that is not TorchScript: exit $rc, expected 2"
grep -q "does not load as a TorchScript module" "$DIR/bad.err" || { cat "$DIR/bad.err"; fail "message"; }
test ! -e "$DIR/bad.json" || fail "a part was written for a file that does not load"
echo "PASS: --network torchscript: the same parts as the tensor lists; a bad file exits 2"
