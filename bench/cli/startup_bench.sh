#!/usr/bin/env bash
# Start-up cost of the `gcu` front end against `gcu-torch` (the same CLI with LibTorch,
# CUDA and NCCL loaded), measured side by side: ROUNDS interleaved rounds of
#   help      gcu --help
#   point     gcu simulate -p data/profiles/v100-resnet50.json     (one point, a table)
#   sweep10k  gcu simulate ... --sweep bandwidth_gbps=1:100:10000 --format csv -o FILE
#   torch     gcu-torch --help                                      (the baseline)
# Prints, per case, the median wall time and its min..max, the peak memory (max RSS), and
# the ratio of the median to the baseline's median.
# Usage: bash bench/cli/startup_bench.sh [BUILD_DIR] [ROUNDS]     (default build, 11)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build} rounds=${2:-11}
gcu=$build/cli/gcu torch=$build/cli/gcu-torch
[ -x "$gcu" ] || { echo "startup_bench: no $gcu (build first: bash scripts/build.sh)" >&2; exit 2; }
have_torch=1; [ -x "$torch" ] || have_torch=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
p=data/profiles/v100-resnet50.json
cases=(help point sweep10k); ((have_torch)) && cases+=(torch)
run_case() {
  case $1 in
    help) "$gcu" --help ;;
    point) "$gcu" simulate -p "$p" ;;
    sweep10k) "$gcu" simulate -p "$p" --sweep bandwidth_gbps=1:100:10000 --no-tta --format csv -o "$tmp/s.csv" ;;
    torch) "$torch" --help ;;
  esac
}
for ((r = 0; r < rounds; r++)); do
  for c in "${cases[@]}"; do
    /usr/bin/time -f "%e %M" -o "$tmp/t" bash -c "$(declare -f run_case); gcu=$gcu torch=$torch p=$p tmp=$tmp; run_case $c" > /dev/null 2>&1
    # wall time of the command alone, without bash's start: time it again inside
    s=$(date +%s%N); run_case "$c" > /dev/null 2>&1; e=$(date +%s%N)
    echo "$c $(( (e - s) / 1000 )) $(awk '{print $2}' "$tmp/t")" >> "$tmp/all"
  done
done
awk -v base=torch '
  { t[$1] = t[$1] " " $2; m[$1] = ($3 > m[$1] ? $3 : m[$1]); n[$1]++ }
  function median(s,   a, k, i, j, x) { k = split(s, a, " "); for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                                         lo = a[1]; hi = a[k]; return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
  END {
    bm = (base in t) ? median(t[base]) : 0
    printf "%-9s %12s %18s %10s %10s\n", "case", "median ms", "min..max ms", "peak MB", "x torch"
    split("help point sweep10k torch", order, " ")
    for (i = 1; i <= 4; i++) { c = order[i]; if (!(c in t)) continue; md = median(t[c])
      printf "%-9s %12.1f %8.1f..%-8.1f %10.1f %10s\n", c, md / 1000, lo / 1000, hi / 1000, m[c] / 1024, bm ? sprintf("%.3f", md / bm) : "-" }
  }' "$tmp/all"
