#!/usr/bin/env bash
# gcu's main job in one command, from a fresh clone on Debian 12:
#   1. installs the Debian packages that are missing (scripts/install-deps.sh; root or sudo),
#   2. builds the what-if tool, build/cli/gcu (when build/ holds no full build yet, only
#      what it needs: no LibTorch, no CUDA, no tests; the full build is scripts/build.sh),
#   3. predicts ResNet-50 on 64 V100s (the published setup, data/profiles/) for FP32 DDP,
#      FP16 DDP, PowerSGD rank 4 and Top-K 1% while the inter-node bandwidth goes from 1 to
#      40 Gbps: prints the table and writes out/ (CSV, JSON, PNG plot + its gnuplot script,
#      Chrome trace of one iteration per scheme).
# Extra arguments go to `gcu simulate` (e.g. --engine closed, --gpus 32, --set cluster.gamma_stretch=1.1).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! bash scripts/install-deps.sh; then
  echo "demo: installing packages failed (run as root or with sudo); trying with what is installed" >&2
fi

echo "demo: building the what-if tool build/cli/gcu (log: build/demo-build.log)"
mkdir -p build
log=build/demo-build.log
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGCU_WITH_TORCH=OFF -DGCU_WITH_CUDA=OFF \
    -DGCU_BUILD_TESTS=OFF -DGCU_BUILD_BENCH=OFF > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
fi
cmake --build build -j "$(nproc)" --target gcu >> "$log" 2>&1 || { tail -50 "$log" >&2; exit 1; }

mkdir -p out
./build/cli/gcu simulate --profile data/profiles/v100-resnet50.json \
  --schemes none,fp16,powersgd:rank=4,topk:k=0.01 \
  --sweep bandwidth_gbps=1:40:40 \
  --csv out/bandwidth-sweep.csv --json out/bandwidth-sweep.json \
  --plot out/bandwidth-sweep.png --trace out/iteration-trace.json "$@"

cat <<'EOF'

demo: done. Open out/bandwidth-sweep.png (iteration time and speed-up vs FP16 DDP against
bandwidth), load out/iteration-trace.json in https://ui.perfetto.dev, and try:
  ./build/cli/gcu simulate --help
  ./build/cli/gcu simulate crossover -p data/profiles/v100-bert-base.json --schemes powersgd:rank=4
  ./build/cli/gcu simulate recommend -p data/profiles/v100-bert-base.json --bandwidth 25
EOF
