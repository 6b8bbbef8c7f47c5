#!/usr/bin/env bash
# scripts/plot_tta.py: a recorded TTA summary becomes a PNG (with its .gp and .dat); a file
# that is not a gcu.validate.tta/1 summary is a clear error (exit 2) and writes nothing.
set -u
PY=$1 SCRIPTS=$2 DATA=$3 DIR=$4
rm -rf "$DIR"; mkdir -p "$DIR"
"$PY" "$SCRIPTS/plot_tta.py" "$DATA/tta-fashion-mnist/summary.json" "$DIR/scatter.png" > "$DIR/ok.log" 2>&1 \
  || { echo "FAIL: plotting the recorded summary"; cat "$DIR/ok.log"; exit 1; }
[ "$(head -c 4 "$DIR/scatter.png" | od -An -c | tr -d ' ')" = "211PNG" ] || { echo "FAIL: not a PNG"; exit 1; }
grep -q "pilots of 10%" "$DIR/scatter.gp" || { echo "FAIL: no 10% panel"; exit 1; }
echo '{"schema": "gcu.validate/5", "cases": []}' > "$DIR/bad.json"
if "$PY" "$SCRIPTS/plot_tta.py" "$DIR/bad.json" "$DIR/bad.png" 2> "$DIR/bad.log"; then echo "FAIL: bad input accepted"; exit 1; fi
grep -q "not a gcu.validate.tta/1 summary" "$DIR/bad.log" || { echo "FAIL: unclear error"; cat "$DIR/bad.log"; exit 1; }
[ ! -e "$DIR/bad.png" ] || { echo "FAIL: wrote a PNG for bad input"; exit 1; }
echo "plot_tta OK"
