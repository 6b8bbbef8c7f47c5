#!/usr/bin/env bash
# trace_rates.sh: the "user's own DDP job" experiment: record a PyTorch
# profiler trace of a plain DDP job (scripts/ddp_job.py) on the shaped-network testbed at
# one rate, then measure that job's median iteration time at several rates with PyTorch's
# own comm hooks (none, fp16, powersgd), so that `gcu profile from-trace` + `gcu simulate`
# predictions made from the one trace can be compared with measurements at every rate.
#
#   scripts/trace_rates.sh [options] OUTDIR [-- EXTRA ddp_job.py OPTIONS]
#
#   --model cnn|transformer   the job's model (default cnn)
#   -n N                      ranks, one network namespace each (default 2)
#   --trace-rate A            rate the trace is recorded at, hook none (default 1gbit)
#   --rates "A B ..."         rates measured (default "A 300mbit 100mbit"); any rate
#                             netbed.sh accepts, `unlimited` included
#   --hooks "H ..."           hooks measured (default "none fp16 powersgd")
#   --repeats R               repeats; the repeat loop is OUTERMOST, so rates and hooks
#                             interleave and slow drift hits them all alike (default 3)
#   --warmup W --iters I      ddp_job.py untimed / timed steps per run (default 5 / 20)
#   --batch B --threads T     per-rank batch (default 32), torch threads per rank (default 1)
#   --trace-steps S           active profiled steps in the trace (default 3)
#   --prefix P                netbed prefix (default gcutr; 2-8 chars [a-z0-9])
#   --port P                  first MASTER_PORT (default 29700; each run takes the next)
#   --timeout S               seconds one run may take before it is killed (default 900)
#   --python PY               interpreter (default /usr/bin/python3)
#   Options after `--` go to every ddp_job.py run unchanged (e.g. --layers 1
#   --bucket-cap-mb 4 --powersgd-rank 2).
#
# OUTDIR (created) receives:
#   trace.json            rank 0's profiler trace at --trace-rate, hook none
#   tensors.csv           the model's gcu tensor list (name,shape, backward order)
#   trace-run.json        ddp_job.py --json of the recording run
#   runs/REP-RATE-HOOK.json, logs/*.log   every measured run (rank 0 json; all ranks' logs)
#   measured.csv          model,hook,rate,repeat,median_s (one row per successful run)
#   setup.txt             the command line, torch version, cores, ranks, netbed prefix
# Needs root (network namespaces; see scripts/netbed.sh). The testbed is brought up once,
# its rate changed in place with `netbed.sh rate` between runs, and removed on exit
# (trap: normal end, error, Ctrl-C). A failed run is logged and skipped; the exit status
# is then 1. Example smoke run:
#   scripts/trace_rates.sh --iters 3 --warmup 2 --rates 1gbit --repeats 1 /tmp/tr-smoke
set -euo pipefail

argv=("$@")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
netbed=$here/netbed.sh
job=$here/ddp_job.py

die() { echo "trace_rates: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

model=cnn n=2 trace_rate=1gbit rates="" hooks="none fp16 powersgd" repeats=3
warmup=5 iters=20 batch=32 threads=1 trace_steps=3 prefix=gcutr port=29700 tmo=900
py=/usr/bin/python3 out="" extra=()
while (( $# )); do
  case $1 in
    --model) model=${2:?}; shift 2 ;;
    -n) n=${2:?}; shift 2 ;;
    --trace-rate) trace_rate=${2:?}; shift 2 ;;
    --rates) rates=${2:?}; shift 2 ;;
    --hooks) hooks=${2:?}; shift 2 ;;
    --repeats) repeats=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --iters) iters=${2:?}; shift 2 ;;
    --batch) batch=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --trace-steps) trace_steps=${2:?}; shift 2 ;;
    --prefix) prefix=${2:?}; shift 2 ;;
    --port) port=${2:?}; shift 2 ;;
    --timeout) tmo=${2:?}; shift 2 ;;
    --python) py=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    --) shift; extra=("$@"); break ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z $out ]] || die "one OUTDIR only (got '$out' and '$1')"; out=$1; shift ;;
  esac
done
[[ -n $out ]] || die "no OUTDIR (usage: trace_rates.sh [options] OUTDIR [-- ddp_job options])"
[[ $model == cnn || $model == transformer ]] || die "--model must be cnn or transformer"
for v in n repeats warmup iters batch threads trace_steps port tmo; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "--${v//_/-} must be a non-negative integer (got '${!v}')"
done
(( n >= 1 && repeats >= 1 && iters >= 1 )) || die "-n, --repeats and --iters must be >= 1"
for h in $hooks; do
  [[ $h == none || $h == fp16 || $h == powersgd ]] || die "unknown hook '$h' (none fp16 powersgd)"
done
[[ -n $rates ]] || rates="$trace_rate 300mbit 100mbit"
[[ -x $py ]] || die "no python interpreter '$py'"
"$netbed" check || exit 3

mkdir -p "$out/runs" "$out/logs"
pids=()
cleanup() {
  local rc=$? p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$netbed" down "$prefix" >/dev/null 2>&1 || true
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

{
  echo "command: $0 ${argv[*]}"
  echo "date: $(date -u +%FT%TZ)"
  echo "torch: $("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
  echo "cores: $(nproc)  ranks: $n  threads/rank: $threads  prefix: $prefix"
  echo "model: $model  batch: $batch  warmup: $warmup  iters: $iters  extra: ${extra[*]:-}"
  echo "trace_rate: $trace_rate  rates: $rates  hooks: $hooks  repeats: $repeats"
} >"$out/setup.txt"

# run_job LOGNAME ddp_job-args...: N ranks, rank r in namespace r, rank 0 at 10.77.0.1.
run_job() {
  local name=$1; shift
  local r rc=0 p s
  pids=()
  for (( r = 0; r < n; ++r )); do
    RANK=$r WORLD_SIZE=$n MASTER_ADDR=10.77.0.1 MASTER_PORT=$port \
      OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=$threads \
      timeout "$tmo" "$netbed" exec "$prefix" -- "$py" "$job" --model "$model" \
        --batch "$batch" --threads "$threads" --warmup "$warmup" --iters "$iters" \
        "$@" "${extra[@]}" >"$out/logs/$name.r$r.log" 2>&1 &
    pids+=("$!")
  done
  # Each rank's exit status goes into its log: a rank that dies without a word (a signal,
  # a hang ended by --timeout: 124) is otherwise indistinguishable from one that succeeded.
  for (( r = 0; r < n; ++r )); do
    p=${pids[r]} s=0
    wait "$p" || s=$?
    if (( s != 0 )); then
      echo "trace_rates: rank $r exited with status $s$( (( s == 124 )) && echo " (--timeout $tmo s)" )" \
        >>"$out/logs/$name.r$r.log"
      rc=$s
    fi
  done
  pids=()
  port=$(( port + 1 ))
  return "$rc"
}

median_of() { "$py" -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["median_s"]))' "$1"; }

"$netbed" up "$prefix" "$n" "$trace_rate" >&2
cur_rate=$trace_rate

echo "trace_rates: recording the trace at $trace_rate, hook none" >&2
run_job trace --hook none --trace "$out/trace.json" --trace-steps "$trace_steps" \
  --tensors "$out/tensors.csv" --json "$out/trace-run.json" \
  || die "the tracing run failed (see $out/logs/trace.r*.log)"
echo "trace_rates: trace.json ($(stat -c %s "$out/trace.json") bytes), median $(median_of "$out/trace-run.json") s" >&2

echo "model,hook,rate,repeat,median_s" >"$out/measured.csv"
failed=0
for (( rep = 1; rep <= repeats; ++rep )); do
  for rate in $rates; do
    if [[ $rate != "$cur_rate" ]]; then
      "$netbed" rate "$prefix" "$n" "$rate" || die "netbed refused rate '$rate'"
      cur_rate=$rate
    fi
    for hook in $hooks; do
      tag=$rep-$rate-$hook
      if run_job "$tag" --hook "$hook" --json "$out/runs/$tag.json"; then
        m=$(median_of "$out/runs/$tag.json")
        echo "$model,$hook,$rate,$rep,$m" >>"$out/measured.csv"
        echo "trace_rates: repeat $rep rate $rate hook $hook: median $m s" >&2
      else
        failed=$(( failed + 1 ))
        echo "trace_rates: repeat $rep rate $rate hook $hook FAILED (see $out/logs/$tag.r*.log)" >&2
      fi
    done
  done
done
echo "trace_rates: wrote $out/measured.csv ($failed failed runs)" >&2
(( failed == 0 )) || exit 1
