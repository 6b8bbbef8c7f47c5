#!/usr/bin/env bash
# Configures and builds gcu into ./build (Release). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
# LibTorch, CUDA, tests and benchmarks as found (scripts/demo.sh may have configured
# build/ as the what-if tool alone: these switch the rest back on).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGCU_WITH_TORCH=AUTO -DGCU_WITH_CUDA=AUTO \
  -DGCU_BUILD_TESTS=ON -DGCU_BUILD_BENCH=ON "$@"
cmake --build build -j "$(nproc)"
