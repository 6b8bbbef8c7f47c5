#!/usr/bin/env bash
# Every GPU figure gcu still lacks, in one command, for a person with a GPU and a CUDA
# build of PyTorch (docs/compressors_cuda.md, "Unmeasured"):
#   1. the CUDA compressor tests (compressors_cuda_tests: CPU parity, bit-exact sums,
#      multi-layout, NaN payloads, streams, NCCL timeouts) and compressors_cuda_bench
#      (goals: topk 1% of 25.6M floats < 1 ms; elementwise >= 60% of HBM bandwidth),
#      built without LibTorch in $BUILD-tests -> $OUT/cuda-tests.log, $OUT/cuda-bench.txt;
#   2. `gcu train --device cuda` (the trainer's NCCL path): world size NPROC with a few
#      schemes on MODEL / synthetic data, per-iteration breakdown -> $OUT/*.jsonl;
#   3. `gcu calibrate --backend nccl` -> data/profiles/gpu-<device>.json (PROFILE);
#   4. `gcu validate` on that profile, when this gcu has the subcommand -> $OUT/validate.*.
# Written without access to a GPU: untested (see docs/trainer.md, "GPU path").
#
#   bench/trainer/gpu_smoke.sh                  # build in build-gpu, logs in gpu-smoke/
#   NPROC=2 bench/trainer/gpu_smoke.sh          # 2 ranks on 2 GPUs (LOCAL_RANK = GPU)
#   PYTHON=/opt/venv/bin/python SCHEMES="none fp16" MODEL=resnet50 BATCH=64 bench/trainer/gpu_smoke.sh
#   STEPS="tests train" bench/trainer/gpu_smoke.sh   # a subset of: tests bench train calibrate validate
#   DEPS=.gpu bench/trainer/gpu_smoke.sh        # a machine with no package registry: header-only
#                                               # libraries and the prebuilt CUDA tests packed
#                                               # here by scripts/gpu_pack.sh
#
# Needs: python3 with a CUDA torch, cmake >= 3.25, the CUDA toolkit (nvcc) and NCCL
# (nccl.h + libnccl; e.g. the libnccl-dev package or pip's nvidia-nccl-cu12 with
# CMAKE_PREFIX_PATH pointing at it), Eigen3, nlohmann-json and CLI11.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-gpu-smoke}
NPROC=${NPROC:-1}
MODEL=${MODEL:-resnet18}
BATCH=${BATCH:-32}
ITERS=${ITERS:-60}
WARMUP=${WARMUP:-10}
SCHEMES=${SCHEMES:-"none fp16 ef(topk:k=0.01) powersgd:rank=4"}
STEPS=${STEPS:-"tests bench train calibrate validate"}
CAL_BUDGET_S=${CAL_BUDGET_S:-900}
CAL_ARGS=${CAL_ARGS:-}            # extra gcu calibrate arguments, e.g. "--skip convergence"
STEP_TIMEOUT_S=${STEP_TIMEOUT_S:-600}   # each train / calibrate / validate command
DEPS=${DEPS:-}                    # scripts/gpu_pack.sh output (cmake/, include-gloo/, bin/, lib/)
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

"$PY" - <<'PY'
import sys, torch
if not torch.cuda.is_available():
    sys.exit(f"torch {torch.__version__}: torch.cuda.is_available() is False (CPU-only torch or no GPU visible)")
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.device_count()} GPU(s): "
      f"{torch.cuda.get_device_name(0)}")
PY
PREFIX=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
# Every translation unit must use the C++ ABI LibTorch was built with (older PyPI wheels
# use the pre-C++11 std::string); tests and benchmarks are off so that no prebuilt C++
# library (GoogleTest, Google Benchmark) with the other ABI is linked.
ABI=$("$PY" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
EXTRA_CMAKE=()
EXTRA_CXX=""
# NCCL of the torch package (pip's nvidia-nccl-*: nccl.h and libnccl.so.2, no libnccl.so),
# unless the CUDA toolkit or the system has one: gcu's NcclCommunicator must load the
# libnccl that LibTorch loads.
NCCL_DIRS=$("$PY" - <<'PY'
import glob, os, site
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for h in glob.glob(os.path.join(r, "nvidia", "**", "nccl.h"), recursive=True):
        inc = os.path.dirname(h)
        libs = sorted(glob.glob(os.path.join(os.path.dirname(inc), "lib", "libnccl.so*")))
        if libs:
            print(inc, libs[0]); raise SystemExit
PY
)
if [ -n "$NCCL_DIRS" ]; then
  read -r NCCL_INC NCCL_LIB <<< "$NCCL_DIRS"
  echo "NCCL of the torch package: $NCCL_INC, $NCCL_LIB"
  EXTRA_CMAKE+=(-DGCU_NCCL_INCLUDE_DIR="$NCCL_INC" -DGCU_NCCL_LIBRARY="$NCCL_LIB")
fi
LIB_PATH=$("$PY" - <<'PY'
import glob, os, site, torch
dirs = ["/usr/local/cuda/lib64", "/usr/local/cuda/lib"]
for r in site.getsitepackages():
    dirs += sorted(set(os.path.dirname(p) for p in glob.glob(os.path.join(r, "nvidia", "**", "lib*.so*"), recursive=True)))
dirs.append(os.path.join(os.path.dirname(torch.__file__), "lib"))
print(":".join(d for d in dirs if os.path.isdir(d)))
PY
)
ARCH=${CUDA_ARCH:-$("$PY" -c 'import torch; m, n = torch.cuda.get_device_capability(0); print(f"{m}{n}")')}
if [ ! -d "$("$PY" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "include", "gloo"))')" ]; then
  if [ -n "$DEPS" ] && [ -d "$DEPS/include-gloo/gloo" ]; then
    echo "note: this torch ships no gloo headers (include/gloo): using $DEPS/include-gloo (Debian's)" >&2
    EXTRA_CXX="-isystem $(cd "$DEPS/include-gloo" && pwd)"
  else
    echo "warning: this torch ships no gloo headers (include/gloo); c10d's ProcessGroupGloo.hpp needs them" >&2
  fi
fi
if [ -n "$DEPS" ]; then
  DEPS=$(cd "$DEPS" && pwd)
  PREFIX="$PREFIX;$DEPS/cmake"
  LIB_PATH="$LIB_PATH:$DEPS/lib"
fi

mkdir -p "$OUT"
status=0
# Waits for the prebuilt CUDA tests started below (if any) and prints their summary.
tests_pid=""
wait_tests() {
  [ -n "$tests_pid" ] || return 0
  wait "$tests_pid" || status=1
  grep -E "^\[  (FAILED|SKIPPED) |^\[==========\]|^\[  PASSED" "$OUT/cuda-tests.log" | head -40 || true
  grep -q "^\[  PASSED  \]" "$OUT/cuda-tests.log" && ! grep -q "^\[  FAILED  \]" "$OUT/cuda-tests.log" || status=1
  tests_pid=""
}

# 1. CUDA compressor tests and benchmark: no LibTorch needed (GoogleTest's ABI is the
# system's), so a separate build.
if want tests && [ -n "$DEPS" ] && [ -x "$DEPS/bin/compressors_cuda_tests" ]; then
  # Prebuilt by scripts/gpu_pack.sh (same CUDA major version; sm_90); they run on the GPU
  # while LibTorch code compiles on the CPUs below.
  echo "== prebuilt CUDA tests from $DEPS/bin (in the background of the build)" >&2
  LD_LIBRARY_PATH="$LIB_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout "$STEP_TIMEOUT_S" \
    "$DEPS/bin/compressors_cuda_tests" > "$OUT/cuda-tests.log" 2>&1 &
  tests_pid=$!
elif want tests; then
  cmake -S . -B "$BUILD-tests" -DCMAKE_BUILD_TYPE=Release -DGCU_WITH_TORCH=OFF -DGCU_WITH_CUDA=ON -DGCU_UNITY_BUILD=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" > "$OUT/cmake-tests.log"
  cmake --build "$BUILD-tests" --target compressors_cuda_tests compressors_cuda_bench compressors_tests \
    model_tests -j "$(nproc)"
  "$BUILD-tests/tests/compressors/cuda/compressors_cuda_tests" 2>&1 | tee "$OUT/cuda-tests.log" || status=1
  if grep -q "SKIPPED" "$OUT/cuda-tests.log"; then
    echo "note: some GPU tests skipped (e.g. the dead-peer NCCL test needs 2 GPUs); see $OUT/cuda-tests.log" >&2
  fi
  bash tests/compressors/cuda/no_cuda_link_test.sh "$BUILD-tests/tests/model/model_tests" || status=1
  if want bench; then
    "$BUILD-tests/bench/compressors_cuda/compressors_cuda_bench" --reps 20 | tee "$OUT/cuda-bench.txt" || status=1
  fi
fi

# One translation unit per file: 16 cores there keep busy without batches, and LibTorch 2.x's
# headers have not been compiled in unity batches (docs/architecture.md "Build time").
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGCU_WITH_TORCH=ON -DGCU_WITH_CUDA=ON -DGCU_UNITY_BUILD=OFF \
  -DCMAKE_PREFIX_PATH="$PREFIX${CMAKE_PREFIX_PATH:+;$CMAKE_PREFIX_PATH}" \
  -DCMAKE_CXX_FLAGS="-D_GLIBCXX_USE_CXX11_ABI=$ABI $EXTRA_CXX" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DGCU_BUILD_TESTS=OFF -DGCU_BUILD_BENCH=OFF "${EXTRA_CMAKE[@]}" > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
if ! grep -q "trainer GPU path (NCCL) enabled" "$OUT/cmake.log"; then
  echo "error: CMake did not enable the trainer's GPU path (CUDA compressors + NCCL); see $OUT/cmake.log" >&2
  exit 1
fi
# -k: every compile error of this LibTorch version in one log.
if ! cmake --build "$BUILD" --target gcu -j "$(nproc)" -- -k > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -60
  wait_tests
  exit 1
fi
GCU=$BUILD/cli/gcu
wait_tests
if want bench && [ -n "$DEPS" ] && [ -x "$DEPS/bin/compressors_cuda_bench" ]; then
  # After the build: the benchmark times a quiet machine.
  LD_LIBRARY_PATH="$LIB_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout "$STEP_TIMEOUT_S" \
    "$DEPS/bin/compressors_cuda_bench" --reps 20 > "$OUT/cuda-bench.txt" 2>&1 || status=1
  tail -40 "$OUT/cuda-bench.txt"
fi

for s in $SCHEMES; do
  want train || break
  for mode in after overlap; do
    log="$OUT/$(echo "$s" | tr -c 'A-Za-z0-9=._-' '_')-$mode.jsonl"
    echo "== $s, $mode" >&2
    if ! timeout "$STEP_TIMEOUT_S" "$GCU" launch -n "$NPROC" -- "$GCU" train --device cuda --model "$MODEL" --data synthetic \
        --batch "$BATCH" --iters "$ITERS" --warmup "$WARMUP" --scheme "$s" --mode "$mode" \
        --log "$log"; then
      echo "!! $s ($mode) failed" >&2
      rm -f "$log"
      status=1
    fi
  done
done

"$PY" - "$OUT" <<'PY'
import glob, json, sys
fields = ["forward_s", "backward_s", "comm_exposed_s", "encode_s", "collective_s", "decode_s",
          "optimizer_s", "total_s"]
print("median ms per iteration (device-synchronized phases; encode/collective/decode inside the steps)")
print(f"{'scheme':<26}{'mode':<9}" + "".join(f"{f[:-2]:>13}" for f in fields) + f"{'KiB/iter':>10}")
header = None
for path in sorted(glob.glob(f"{sys.argv[1]}/*.jsonl")):
    recs = [json.loads(l) for l in open(path) if l.strip()]
    header = recs[0]
    h, s = recs[0], recs[-1]
    if s.get("type") != "summary":
        continue
    t = s["timing"]
    print(f"{h['scheme']:<26}{h['mode']:<9}" + "".join(f"{t[f]['median'] * 1e3:13.2f}" for f in fields)
          + f"{h['wire_bytes_per_iter'] / 1024:10.1f}")
if header:
    print("device:", header.get("device"), "|", header.get("nccl"), "| world size", header["world_size"])
PY
# 3. A calibrated NCCL profile of this machine (all registered schemes' codecs on the GPU).
DEVNAME=$("$PY" -c 'import torch, re; print(re.sub(r"[^a-z0-9]+", "-", torch.cuda.get_device_name(0).lower()).strip("-"))')
PROFILE=${PROFILE:-data/profiles/gpu-$DEVNAME-${NPROC}rank.json}
if want calibrate; then
  echo "== gcu calibrate --backend nccl -> $PROFILE" >&2
  # shellcheck disable=SC2086
  if ! timeout "$STEP_TIMEOUT_S" "$GCU" launch -n "$NPROC" -- "$GCU" calibrate --backend nccl --model "$MODEL" --batch-sizes "$BATCH" \
      --budget-s "$CAL_BUDGET_S" -o "$PROFILE" $CAL_ARGS 2>&1 | tee "$OUT/calibrate.log"; then
    echo "!! calibrate failed (see $OUT/calibrate.log)" >&2
    status=1
  fi
fi

# 4. Predicted vs measured on the GPU (the validate subcommand, where this gcu has it).
if want validate; then
  if "$GCU" validate --help > /dev/null 2>&1; then
    echo "== gcu validate -p $PROFILE" >&2
    # One GPU per rank on one machine: no shaped links (loopback); the ranks train on CUDA.
    # shellcheck disable=SC2086
    timeout "$STEP_TIMEOUT_S" "$GCU" validate -p "$PROFILE" --model "$MODEL" --batch "$BATCH" --testbed loopback \
      --ranks "$NPROC" --schemes "${VAL_SCHEMES:-none;fp16;powersgd:rank=4}" --device cuda \
      --no-plots --out "$OUT/validate" ${VAL_ARGS:-} 2>&1 | tee "$OUT/validate.log" || status=1
  else
    echo "note: this gcu has no 'validate' subcommand yet: GPU validation not run" | tee "$OUT/validate.log" >&2
  fi
fi
exit $status
