#!/usr/bin/env bash
# Golden outputs of the `gcu` binary, compared byte for byte: `gcu simulate` as JSON on
# every shipped profile, the README demo (table on stdout, CSV, JSON, Chrome trace, gnuplot
# script and data), the analyses (crossover, ratio, trade, recommend) as tables and JSON,
# and `gcu schemes` as a table and JSON. Refactorings must keep these identical; a change
# of behaviour regenerates them deliberately with --update and says why in its commit.
#
# Usage: golden_test.sh GCU_BINARY SOURCE_DIR [--update]
# The commands run in a scratch folder holding a link to SOURCE_DIR/data, so the paths
# that gcu prints (profile, plot files) are the same relative paths wherever it runs.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 GCU_BINARY SOURCE_DIR [--update]" >&2
  exit 2
fi
gcu=$(realpath "$1")
src=$(realpath "$2")
update=${3:-}
golden="$src/tests/cli/golden"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$src/data" "$work/data"
cd "$work"
mkdir out
failed=0

# run NAME ARGS...: stdout of `gcu ARGS` to out/NAME; a failing command fails the test.
run() {
  local name=$1
  shift
  if ! "$gcu" "$@" > "out/$name" 2> "out/$name.stderr"; then
    echo "golden: FAILED (exit status): gcu $*" >&2
    cat "out/$name.stderr" >&2
    failed=1
  fi
  rm -f "out/$name.stderr"
}

for p in data/profiles/*.json; do
  name=$(basename "$p" .json)
  run "simulate-$name.json" simulate -p "$p" --format json
done
run simulate-v100-resnet50.table simulate -p data/profiles/v100-resnet50.json
run simulate-v100-resnet50-closed.csv simulate -p data/profiles/v100-resnet50.json --engine closed --format csv
run simulate-v100-bert-base-gpus.table simulate -p data/profiles/v100-bert-base.json --bandwidth 25 \
  --sweep gpus=8,16,32,64,96
run simulate-v100-resnet101-speedup.json simulate -p data/profiles/v100-resnet101.json --compute-speedup 3 \
  --set cluster.gamma_stretch=1.1 --format json
run simulate-v100-resnet50-overlap.table simulate -p data/profiles/v100-resnet50.json --mode overlap \
  --schemes none,fp16,bf16,signsgd,thc

# The README demo (scripts/demo.sh): table on stdout plus its files.
plot=()
if command -v gnuplot > /dev/null; then plot=(--plot out/demo-sweep.png); fi
run demo.table simulate --profile data/profiles/v100-resnet50.json \
  --schemes none,fp16,powersgd:rank=4,topk:k=0.01 --sweep bandwidth_gbps=1:40:40 \
  --csv out/demo-sweep.csv --json out/demo-sweep.json --trace out/demo-trace.json "${plot[@]}"
rm -f out/demo-sweep.png

bert=data/profiles/v100-bert-base.json
for fmt in table json; do
  run "crossover.$fmt" simulate crossover -p "$bert" --schemes powersgd:rank=4,topk:k=0.01 --gpus 64 --format "$fmt"
  run "crossover-tta.$fmt" simulate crossover -p "$bert" --metric tta --baseline none --format "$fmt"
  run "ratio.$fmt" simulate ratio -p "$bert" --within 0.1 --format "$fmt"
  run "trade.$fmt" simulate trade -p "$bert" --schemes topk:k=0.01 --k 1,2,4,8 --l 1 --format "$fmt"
  run "recommend.$fmt" simulate recommend -p "$bert" --bandwidth 25 --top 0 --format "$fmt"
  run "recommend-iteration.$fmt" simulate recommend -p data/profiles/v100-resnet50.json --metric iteration \
    --format "$fmt"
done
run simulate-cpu-2rank-cnn-casts.table simulate -p data/profiles/cpu-2rank-cnn.json --schemes bf16,efsignsgd,thc
run schemes.table schemes
run schemes.json schemes -n 25557032 --format json
run schemes-layout.json schemes --layout 2048x1000,1000 --world 16 --format json --spec 'powersgd:rank=4;ef(topk:k=0.001);none'

if [[ "$update" == "--update" ]]; then
  if [[ ${#plot[@]} -eq 0 ]]; then
    echo "golden: gnuplot is needed to update the goldens (the plot script is one)" >&2
    exit 1
  fi
  rm -rf "$golden"
  mkdir -p "$golden"
  cp out/* "$golden/"
  echo "golden: wrote $(ls out | wc -l) files to $golden"
  exit "$failed"
fi

for f in "$golden"/*; do
  name=$(basename "$f")
  if [[ ${#plot[@]} -eq 0 && "$name" == demo-sweep.* && "$name" != demo-sweep.csv && "$name" != demo-sweep.json ]]; then
    echo "golden: skipped $name (gnuplot not installed)"
    continue
  fi
  if [[ ! -f "out/$name" ]]; then
    echo "golden: MISSING out/$name" >&2
    failed=1
  elif ! cmp -s "$f" "out/$name"; then
    echo "golden: DIFFERS: $name" >&2
    diff "$f" "out/$name" | head -20 >&2 || true
    failed=1
  fi
done
for f in out/*; do
  [[ -f "$golden/$(basename "$f")" ]] || { echo "golden: NEW output without a golden: $f" >&2; failed=1; }
done
if [[ $failed -eq 0 ]]; then echo "golden: $(ls "$golden" | wc -l) outputs identical"; fi
exit "$failed"
