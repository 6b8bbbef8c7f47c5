#!/usr/bin/env bash
# libFuzzer targets of gcu (docs/robustness-fuzzing.md).
#
#   scripts/fuzz.sh build                 configure + build build-fuzz (clang-14, ASan+UBSan)
#   scripts/fuzz.sh smoke [SECONDS]       each target for SECONDS (default 10) on its seed
#                                         corpus; exit 1 on any crash (CI)
#   scripts/fuzz.sh campaign SECONDS [TARGET...]
#                                         each target for SECONDS with a growing corpus in
#                                         build-fuzz/campaign/<target>/corpus; crashes in
#                                         build-fuzz/campaign/<target>/; summary (per target:
#                                         executions, exec/s, corpus size, crashes) in
#                                         build-fuzz/campaign/summary.md
#   scripts/fuzz.sh list                  the targets that were built
#   scripts/fuzz.sh ci [SECONDS]          CI: build only the torch-free targets (a few
#                                         minutes) and smoke them (default 5 s each)
#   scripts/fuzz.sh merge [TARGET...]     shrink fuzz/corpus/<target> to its minimal set
#                                         covering the same features (libFuzzer -merge=1),
#                                         keeping every fixed finding (regress-*); the
#                                         targets that were built (default: all of them)
#
# Environment: GCU_FUZZ_JOBS (parallel targets in campaign, default 1), GCU_FUZZ_TORCH
# (AUTO/ON/OFF: build the LibTorch targets, default AUTO), GCU_FUZZ_BUILD_DIR
# (default build-fuzz), GCU_FUZZ_RSS_MB (default 2048).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
B=${GCU_FUZZ_BUILD_DIR:-build-fuzz}
RSS=${GCU_FUZZ_RSS_MB:-2048}
CORPUS=$ROOT/fuzz/corpus
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize=vptr"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

targets() {
  local t
  for t in "$B"/fuzz/fuzz_*; do [ -x "$t" ] && basename "$t" | sed 's/^fuzz_//'; done
}

build() {
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_CXX_FLAGS="$SAN -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
    -DCMAKE_C_FLAGS="$SAN -fno-omit-frame-pointer" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON `# clang 14 does not carry target("avx2") into OpenMP regions; one thread suits libFuzzer anyway` \
    -DGCU_BUILD_FUZZ=ON -DGCU_BUILD_TESTS=OFF -DGCU_BUILD_BENCH=OFF -DGCU_WITH_CUDA=OFF \
    -DGCU_WITH_TORCH="${GCU_FUZZ_TORCH:-AUTO}"
  # Torch-free targets first: they build in a minute or two; the LibTorch ones take longer.
  local j=${GCU_FUZZ_BUILD_JOBS:-2}
  cmake --build "$B" -j "$j" --target fuzz_profile fuzz_set fuzz_sweep fuzz_scheme \
    fuzz_compressor_state fuzz_calibrate_state fuzz_pilot_records fuzz_trainlog
  cmake --build "$B" -j "$j" --target fuzz_all
}

# run TARGET SECONDS CORPUS_DIR ARTIFACT_DIR LOG: libFuzzer with the target's seeds.
run() {
  local t=$1 secs=$2 corpus=$3 art=$4 log=$5
  mkdir -p "$corpus" "$art"
  local dict=()
  [ -f "$ROOT/fuzz/dict/$t.dict" ] && dict=(-dict="$ROOT/fuzz/dict/$t.dict")
  "$B/fuzz/fuzz_$t" -max_total_time="$secs" -rss_limit_mb="$RSS" -malloc_limit_mb="$RSS" \
    -timeout=25 -max_len=65536 -print_final_stats=1 -artifact_prefix="$art/" "${dict[@]}" \
    "$corpus" "$CORPUS/$t" >"$log" 2>&1
}

stat_of() {  # stat_of LOG NAME -> value from -print_final_stats
  sed -n "s/^stat::$2: *//p" "$1" | tail -1
}

smoke() {
  local secs=${1:-10} failed=0 t tmp
  tmp=$(mktemp -d)
  printf '%-18s %10s %9s %s\n' target execs exec/s result
  for t in $(targets); do
    if run "$t" "$secs" "$tmp/$t" "$tmp/$t-crashes" "$tmp/$t.log"; then r=ok; else r=FAILED; failed=1; fi
    printf '%-18s %10s %9s %s\n' "$t" "$(stat_of "$tmp/$t.log" number_of_executed_units)" \
      "$(stat_of "$tmp/$t.log" average_exec_per_sec)" "$r"
    if [ "$r" = FAILED ]; then
      grep -E "ERROR|runtime error|invariant|Test unit written|SUMMARY" "$tmp/$t.log" | head -20 || true
      mkdir -p "$B/smoke-failures" && cp -r "$tmp/$t.log" "$tmp/$t-crashes" "$B/smoke-failures/" || true
    fi
  done
  rm -rf "$tmp"
  return $failed
}

campaign() {
  local secs=${1:?seconds per target}; shift
  local list=("$@") out=$B/campaign jobs=${GCU_FUZZ_JOBS:-1}
  [ ${#list[@]} -eq 0 ] && mapfile -t list < <(targets)
  mkdir -p "$out"
  local t
  for t in "${list[@]}"; do
    ( run "$t" "$secs" "$out/$t/corpus" "$out/$t/crashes" "$out/$t/log.txt" || true ) &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  done
  wait
  {
    echo "# gcu fuzz campaign $(date -u +%FT%TZ), $secs s per target, $(git rev-parse --short HEAD)"
    echo
    echo "| target | seconds | executions | exec/s | corpus files | crashes/timeouts/ooms |"
    echo "|---|---|---|---|---|---|"
    for t in "${list[@]}"; do
      local l=$out/$t/log.txt
      printf '| %s | %s | %s | %s | %s | %s |\n' "$t" "$secs" \
        "$(stat_of "$l" number_of_executed_units)" "$(stat_of "$l" average_exec_per_sec)" \
        "$(find "$out/$t/corpus" -type f | wc -l)" "$(find "$out/$t/crashes" -type f | wc -l)"
    done
  } >"$out/summary.md"
  cat "$out/summary.md"
  echo "crash inputs: $out/<target>/crashes/; reproduce: $B/fuzz/fuzz_<target> <file>"
  echo "minimize the corpus back into fuzz/corpus: $B/fuzz/fuzz_<target> -merge=1 fuzz/corpus/<target> $out/<target>/corpus"
}

# Each target's corpus replaced by the inputs libFuzzer's merge keeps (new coverage in
# order, smallest first), plus every regress-* file, which stays whatever its coverage.
merge() {
  local list=("$@") t tmp before after
  ((${#list[@]})) || mapfile -t list < <(targets)
  for t in "${list[@]}"; do
    [ -d "$CORPUS/$t" ] || { echo "merge: no corpus for $t"; continue; }
    tmp=$(mktemp -d)
    mkdir "$tmp/kept"
    "$B/fuzz/fuzz_$t" -merge=1 -rss_limit_mb="$RSS" "$tmp/kept" "$CORPUS/$t" > "$tmp/log.txt" 2>&1 \
      || { tail -20 "$tmp/log.txt"; rm -rf "$tmp"; echo "merge: $t failed"; exit 1; }
    find "$CORPUS/$t" -maxdepth 1 -type f -name 'regress-*' -exec cp {} "$tmp/kept/" \;
    before=$(find "$CORPUS/$t" -type f | wc -l)
    rm -rf "$CORPUS/$t"
    mv "$tmp/kept" "$CORPUS/$t"
    after=$(find "$CORPUS/$t" -type f | wc -l)
    echo "merge: $t $before -> $after files ($(du -s --apparent-size -k "$CORPUS/$t" | cut -f1) KiB)"
    rm -rf "$tmp"
  done
}

case "${1:-}" in
  build) build ;;
  merge) shift; merge "$@" ;;
  smoke) shift; smoke "$@" ;;
  campaign) shift; campaign "$@" ;;
  list) targets ;;
  ci)
    shift
    if ! command -v clang++-14 >/dev/null; then
      echo "SKIP: clang++-14 not installed (scripts/install-deps.sh installs clang-14 and libfuzzer-14-dev)"
      exit 77
    fi
    export GCU_FUZZ_TORCH=OFF
    B=${GCU_FUZZ_BUILD_DIR:-build-fuzz-ci}
    build
    smoke "${1:-5}"
    ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
