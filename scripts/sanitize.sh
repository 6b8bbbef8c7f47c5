#!/usr/bin/env bash
# ASan + UBSan build of gcu's library tests, run by ctest (docs/robustness-fuzzing.md).
#
#   scripts/sanitize.sh             model, simulate, compressors, calibrate fits, CLI
#                                   (no LibTorch): build-asan/
#   scripts/sanitize.sh --torch     also trainer/ and calibrate/ (LibTorch): much longer
#   scripts/sanitize.sh --test-only run ctest again on the existing build
# Extra arguments after `--` go to ctest (e.g. -- -R 'compressors').
# GCC by default (the project's compiler; clang 14 cannot build bitpack.cpp with
# OpenMP, see the doc); GCU_SAN_CXX=clang++-14 to try clang. GCU_SAN_JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${GCU_SAN_BUILD_DIR:-build-asan}
TORCH=OFF TEST_ONLY=0
CTEST_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --torch) TORCH=ON; B=${GCU_SAN_BUILD_DIR:-build-asan-torch} ;;
    --test-only) TEST_ONLY=1 ;;
    --) shift; CTEST_ARGS=("$@"); break ;;
    *) sed -n '2,11p' "$0"; exit 2 ;;
  esac
  shift
done
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# LibTorch is not instrumented: leaks and ODR reports from inside it are not ours.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:detect_odr_violation=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
start=$(date +%s)
if [ "$TEST_ONLY" = 0 ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="${GCU_SAN_CXX:-g++}" \
    -DCMAKE_CXX_FLAGS="$SAN" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DGCU_WITH_TORCH=$TORCH -DGCU_WITH_CUDA=OFF -DGCU_BUILD_BENCH=OFF -DGCU_BUILD_TESTS=ON
  cmake --build "$B" -j "${GCU_SAN_JOBS:-2}"
fi
built=$(date +%s)
rc=0
ctest --test-dir "$B" --no-tests=error --output-on-failure -j "${GCU_SAN_JOBS:-2}" "${CTEST_ARGS[@]}" || rc=$?
end=$(date +%s)
echo "sanitize: build $((built - start)) s, tests $((end - built)) s, ctest exit $rc ($B)"
exit $rc
