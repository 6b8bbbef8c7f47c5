#!/usr/bin/env bash
# trace_check.sh: checks `gcu profile from-trace` + `gcu simulate` against measurements
# (docs/accuracy.md "Your own job"). One calibration gives the testbed's system part; a PyTorch profiler
# trace of a plain DDP job (scripts/ddp_job.py) at one rate gives each model's model part;
# gcu simulate then predicts the job's iteration time per (model, rate, hook), and the
# table compares it with the job's measured median iteration time at every rate
# (scripts/trace_rates.sh). Nothing is tuned to the measurements: the protocol is fixed
# by the options below.
#
#   sudo scripts/trace_check.sh [options] OUTDIR
#
#   --models "M ..."        ddp_job.py models (default "cnn transformer")
#   --transformer-args "A"  extra ddp_job.py options for the transformer (default none:
#                           ddp_job.py's defaults, 2 layers, d_model 256, seq 64, batch 32)
#   --trace-rate R          rate the traces are recorded at (default 1gbit)
#   --rates "R ..."         rates measured and predicted (default "1gbit 300mbit 100mbit")
#   --repeats N             trace_rates.sh repeats (default 3)
#   --calib-rate R          link rate of the calibration (default: --trace-rate)
#   --budget-s S            gcu calibrate budget (default 300)
#   --steps "S ..."         any of calibrate probe measure predict (default all four); a step
#                           left out reuses what an earlier run left in OUTDIR (the table is
#                           always printed)
#   --gcu PATH              gcu with `profile from-trace` and `simulate` (default build/cli/gcu)
#   --gcu-torch PATH        LibTorch gcu for calibrate/launch (default build/cli/gcu-torch)
#
# Protocol (2 ranks, batch 32 per rank, 1 torch thread per rank):
#  1. calibrate (ONE run): testbed `netbed.sh up gctc 2 CALIB_RATE`, then, as `gcu validate
#     --calibrate` runs it (validate/validate.cpp calibrate_args, runner.cpp launch_prefix):
#       gcu-torch launch -n 2 --grace 5 --master-addr 10.77.0.1 -- \
#         bash scripts/netbed.sh exec gctc -- gcu-torch calibrate --model cnn \
#         --batch-sizes 32 --threads 1 --budget-s 300 --convergence-schemes - \
#         --compute-data synthetic --schemes "fp16;powersgd:rank=4" \
#         -o OUTDIR/calib/profile.json --system-part OUTDIR/calib/sys.json
#  2. measure, per model: scripts/trace_rates.sh --model M --trace-rate TRACE_RATE
#       --rates RATES --repeats N OUTDIR/M [-- TRANSFORMER_ARGS]
#     (trace at TRACE_RATE with hook none; runs of 5 warm-up + 20 timed steps; hooks none,
#     fp16, powersgd rank 4 with error feedback and warm start; repeats outermost)
#  3. predict, per model: gcu profile from-trace OUTDIR/M/trace.json
#       --network tensors:OUTDIR/M/tensors.csv --batch 32 -o OUTDIR/M/model.json
#     and per rate, as gcu validate predicts a cell (validate/predict.cpp: nodes = ranks,
#     one GPU each, inter- and intra-node bandwidth = the link's rate; here the nominal
#     rate, validate's --predict-rate nominal):
#       gcu simulate -p OUTDIR/M/model.json --system OUTDIR/calib/sys.json
#         --schemes none,fp16,powersgd:rank=4 --nodes 2 --gpus-per-node 1 --batch 32
#         --bandwidth RATE --intra-bandwidth RATE --no-tta --format json
#  4. table (OUTDIR/table.txt, table.csv, summary.json): measured = median over repeats
#     of each run's median step time; error = predicted / measured - 1; summaries (median
#     and max |error|) over the cells at the rates other than the trace's, and over all
#     cells; plus the trace rate's `none` prediction against the tracing run's own median
#     (trace-run.json) and the traced iterations' median (from-trace report).
#
#  1b. probe: each rate's point-to-point rate (scripts/link_probe.py, as gcu validate's user
#     protocol probes a link); only for the diagnostic @probe column.
#  Diagnostic columns beside the protocol's prediction (not part of the protocol; they say
#  where an error comes from): @probe = simulate at the probed rate; gamma1 = at the nominal
#  rate with the system part's interference factors (gamma) set to 1, i.e. the traced
#  backward, already measured beside the job's own all-reduces, not stretched again.
#
# Outputs in OUTDIR: calib/ (profile, system part, log), probe/, cnn/ and transformer/
# (trace_rates.sh's files plus model.json, trace-report.json, from-trace.txt, pred/),
# table.txt, table.csv, summary.json, commands.txt (every command, shell-quoted),
# timings.txt.
#
# Runtime on a 2-core VM: calibrate ~100 s (it finishes its steps well
# inside the 300 s budget), probe ~20 s, cnn ~4 min, transformer ~7 min, predict ~1 s:
# about 13 min in all. Needs root (network namespaces, scripts/netbed.sh) and
# /usr/bin/python3 with torch. Run nothing else heavy beside it: a compile beside the
# measurements moved single runs by up to +70%. Exit status: 0, or 1 when a step failed
# (a failed run is left out of its cell and named in OUTDIR/M.trace_rates.log).
#
#   sudo scripts/trace_check.sh /tmp/tc                          # everything
#   sudo scripts/trace_check.sh --steps predict /tmp/tc          # re-predict, re-tabulate
set -euo pipefail

argv=("$@")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
netbed=$here/netbed.sh
py=/usr/bin/python3

die() { echo "trace_check: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

models="cnn transformer" tf_args="" trace_rate=1gbit rates="1gbit 300mbit 100mbit" repeats=3
calib_rate="" budget=300 steps="calibrate probe measure predict" out=""
gcu=$root/build/cli/gcu gcu_torch=$root/build/cli/gcu-torch
while (( $# )); do
  case $1 in
    --models) models=${2:?}; shift 2 ;;
    --transformer-args) tf_args=${2?}; shift 2 ;;
    --trace-rate) trace_rate=${2:?}; shift 2 ;;
    --rates) rates=${2:?}; shift 2 ;;
    --repeats) repeats=${2:?}; shift 2 ;;
    --calib-rate) calib_rate=${2:?}; shift 2 ;;
    --budget-s) budget=${2:?}; shift 2 ;;
    --steps) steps=${2:?}; shift 2 ;;
    --gcu) gcu=${2:?}; shift 2 ;;
    --gcu-torch) gcu_torch=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z $out ]] || die "one OUTDIR only"; out=$1; shift ;;
  esac
done
[[ -n $out ]] || die "no OUTDIR (see --help)"
[[ -n $calib_rate ]] || calib_rate=$trace_rate
has_step() { [[ " $steps " == *" $1 "* ]]; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "command: $0 ${argv[*]}" >>"$out/commands.txt"
logcmd() { printf '%q ' "${cmd[@]}" >>"$out/commands.txt"; echo >>"$out/commands.txt"; }
timing() { echo "$1 $2 s" | tee -a "$out/timings.txt" >&2; }

# tc rate -> gcu --bandwidth (1gbit -> 1Gbps, 300mbit -> 300Mbps; tc's k/m/g are powers of 10)
gcu_rate() {
  local r=${1,,}
  case $r in
    *gbit) echo "${r%gbit}Gbps" ;; *mbit) echo "${r%mbit}Mbps" ;; *kbit) echo "${r%kbit}kbps" ;;
    *) die "rate '$1': use NNNgbit, NNNmbit or NNNkbit" ;;
  esac
}

failed=0

# ---------------------------------------------------------------- 1. calibrate
if has_step calibrate; then
  [[ -x $gcu_torch ]] || die "no LibTorch gcu at '$gcu_torch' (--gcu-torch)"
  "$netbed" check || exit 3
  mkdir -p "$out/calib"
  trap '"$netbed" down gctc >/dev/null 2>&1 || true' EXIT
  "$netbed" up gctc 2 "$calib_rate" >&2
  cmd=("$gcu_torch" launch -n 2 --grace 5 --master-addr 10.77.0.1 -- bash "$netbed" exec gctc --
       "$gcu_torch" calibrate --model cnn --batch-sizes 32 --threads 1 --budget-s "$budget"
       --convergence-schemes - --compute-data synthetic --schemes "fp16;powersgd:rank=4"
       -o "$out/calib/profile.json" --system-part "$out/calib/sys.json")
  logcmd
  echo "trace_check: calibrating at $calib_rate (budget $budget s)" >&2
  t0=$SECONDS
  "${cmd[@]}" >"$out/calib/calibrate.log" 2>&1 || die "gcu calibrate failed (see $out/calib/calibrate.log)"
  timing calibrate $(( SECONDS - t0 ))
  "$netbed" down gctc >/dev/null 2>&1 || true
  trap - EXIT
fi

# ---------------------------------------------------------------- 1b. probe
# Each rate's point-to-point rate, as gcu validate's user protocol measures it
# (validate/link_rate.cpp measure_link_probe: scripts/link_probe.py, both directions at
# once for 4 s, the lower direction's rate). Used by the diagnostic `pred@probe` column only.
if has_step probe; then
  "$netbed" check || exit 3
  mkdir -p "$out/probe"
  trap '"$netbed" down gctc >/dev/null 2>&1 || true' EXIT
  t0=$SECONDS
  cur=""
  for rate in $rates; do
    if [[ -z $cur ]]; then "$netbed" up gctc 2 "$rate" >&2; else "$netbed" rate gctc 2 "$rate" >&2; fi
    cur=$rate
    rm -f "$out/probe/$rate.rank0" "$out/probe/$rate.rank1"
    cmd=("$gcu_torch" launch -n 2 --grace 5 --master-addr 10.77.0.1 -- bash "$netbed" exec gctc --
         "$py" "$here/link_probe.py" "$out/probe/$rate" 4)
    logcmd
    "${cmd[@]}" >"$out/probe/$rate.out" 2>&1 || { failed=1; echo "trace_check: probe $rate failed" >&2; }
  done
  timing probe $(( SECONDS - t0 ))
  "$netbed" down gctc >/dev/null 2>&1 || true
  trap - EXIT
fi

# ---------------------------------------------------------------- 2. measure
if has_step measure; then
  for m in $models; do
    cmd=("$here/trace_rates.sh" --model "$m" --trace-rate "$trace_rate" --rates "$rates"
         --repeats "$repeats" --timeout 300 "$out/$m")
    # shellcheck disable=SC2206
    [[ $m == transformer && -n $tf_args ]] && cmd+=(-- $tf_args)
    logcmd
    t0=$SECONDS
    "${cmd[@]}" 2>"$out/$m.trace_rates.log" || { failed=1; echo "trace_check: trace_rates $m failed (see $out/$m.trace_rates.log)" >&2; }
    timing "measure-$m" $(( SECONDS - t0 ))
  done
fi

# ---------------------------------------------------------------- 3. predict
if has_step predict; then
  [[ -f $out/calib/sys.json ]] || die "no system part $out/calib/sys.json (run the calibrate step)"
  "$gcu" profile from-trace --help >/dev/null 2>&1 || die "'$gcu' has no \`profile from-trace\` (--gcu)"
  t0=$SECONDS
  for m in $models; do
    d=$out/$m
    [[ -f $d/trace.json ]] || { failed=1; echo "trace_check: no $d/trace.json" >&2; continue; }
    batch=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["batch"])' "$d/trace-run.json")
    cmd=("$gcu" profile from-trace "$d/trace.json" --network "tensors:$d/tensors.csv" --batch "$batch"
         -o "$d/model.json" --report "$d/trace-report.json")
    logcmd
    "${cmd[@]}" >"$d/from-trace.txt" 2>&1 || { failed=1; cat "$d/from-trace.txt" >&2; continue; }
    mkdir -p "$d/pred"
    for rate in $rates; do
      # the protocol's prediction: the nominal rate
      bw=$(gcu_rate "$rate")
      # shellcheck disable=SC2054  # the scheme list is one argument
      sim=("$gcu" simulate -p "$d/model.json" --system "$out/calib/sys.json"
           --schemes none,fp16,powersgd:rank=4 --nodes 2 --gpus-per-node 1 --batch "$batch")
      cmd=("${sim[@]}" --bandwidth "$bw" --intra-bandwidth "$bw" --no-tta --format json -o "$d/pred/$rate.json")
      logcmd
      "${cmd[@]}" 2>>"$d/pred/simulate.log" || { failed=1; echo "trace_check: simulate $m $rate failed" >&2; }
      "${sim[@]}" --bandwidth "$bw" --intra-bandwidth "$bw" --no-tta >"$d/pred/$rate.txt" 2>&1 || true
      # diagnostics, not the protocol's figures:
      #  gamma1: the same with the system part's interference factors set to 1 (the traced
      #          backward is already measured beside the job's own all-reduces)
      cmd=("${sim[@]}" --bandwidth "$bw" --intra-bandwidth "$bw" --no-tta --format json
           --set cluster.interference.backward_by_collective=1 --set cluster.interference.backward_codec=1
           --set cluster.gamma_stretch=1 -o "$d/pred/$rate.gamma1.json")
      logcmd
      "${cmd[@]}" 2>>"$d/pred/simulate.log" || true
      #  probe: at the link's probed point-to-point rate (gcu validate's user protocol)
      pr=$("$py" - "$out/probe/$rate" <<'PY' 2>/dev/null || true
import json, sys
v = [json.load(open(sys.argv[1] + ".rank%d" % r))["rx_gbps"] for r in (0, 1)]
print(repr(min(v)))
PY
)
      if [[ -n $pr ]]; then
        cmd=("${sim[@]}" --bandwidth "$pr" --intra-bandwidth "$pr" --no-tta --format json -o "$d/pred/$rate.probe.json")
        logcmd
        "${cmd[@]}" 2>>"$d/pred/simulate.log" || true
      fi
    done
  done
  timing predict $(( SECONDS - t0 ))
fi

# ---------------------------------------------------------------- 4. table
"$py" - "$out" "$trace_rate" "$rates" "$models" <<'EOF'
import csv, json, os, statistics, sys
out, trace_rate, rates, models = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
# pred: the protocol's figure (nominal rate); probe, gamma1: diagnostics (see step 3)
variants = [("pred", ""), ("probe", ".probe"), ("gamma1", ".gamma1")]
def load_pred(d, rate, suffix):
    try:
        pj = json.load(open(os.path.join(d, "pred", rate + suffix + ".json")))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return {row["scheme"].split(":")[0]: row for row in pj["rows"]}
def ms(x): return "-" if x is None else "%.1f" % (x * 1e3)
def pc(x): return "-" if x is None else "%+.1f" % (x * 100)
rows, extra = [], []
lines = ["%-11s %-8s %-7s %4s %9s %9s %7s | %8s %9s %7s | %9s %7s" % (
    "model", "hook", "rate", "runs", "meas ms", "pred ms", "err %", "probe Gb", "@probe ms", "err %",
    "gamma1 ms", "err %")]
for m in models:
    d = os.path.join(out, m)
    runs = {}
    try:
        for r in csv.DictReader(open(os.path.join(d, "measured.csv"))):
            runs.setdefault((r["hook"], r["rate"]), []).append(float(r["median_s"]))
    except FileNotFoundError:
        continue
    for rate in rates:
        preds = {v: load_pred(d, rate, suf) for v, suf in variants}
        probe_gbps = None
        pr = preds["probe"].get("none")
        if pr: probe_gbps = pr["inter_bandwidth_gbps"]
        for hook in ("none", "fp16", "powersgd"):
            rs = runs.get((hook, rate), [])
            meas = statistics.median(rs) if rs else None
            row = {"model": m, "hook": hook, "rate": rate, "runs": len(rs), "runs_s": rs,
                   "measured_s": meas, "probe_gbps": probe_gbps}
            for v, _ in variants:
                p = preds[v].get(hook)
                row[v + "_s"] = p["iteration_s"] if p else None
                row[v + "_error"] = p["iteration_s"] / meas - 1 if (p and meas) else None
                if v == "pred" and p:
                    row["pred_breakdown_s"] = p["breakdown_s"]
            row["error"] = row["pred_error"]
            rows.append(row)
            lines.append("%-11s %-8s %-7s %4d %9s %9s %7s | %8s %9s %7s | %9s %7s" % (
                m, hook, rate, len(rs), ms(meas), ms(row["pred_s"]), pc(row["pred_error"]),
                "-" if probe_gbps is None else "%.3f" % probe_gbps, ms(row["probe_s"]), pc(row["probe_error"]),
                ms(row["gamma1_s"]), pc(row["gamma1_error"])))
    # the trace's own rate: the prediction (hook none) against the tracing run
    try:
        tr = json.load(open(os.path.join(d, "trace-run.json")))
        rep = json.load(open(os.path.join(d, "trace-report.json")))
        p = [r for r in rows if r["model"] == m and r["rate"] == trace_rate and r["hook"] == "none"][0]
        extra.append({"model": m, "rate": trace_rate, "trace_run_median_s": tr["median_s"],
                      "traced_iteration_s": rep.get("median", {}).get("iteration_s"),
                      "predicted_s": p["pred_s"],
                      "error_vs_trace_run": p["pred_s"] / tr["median_s"] - 1 if p["pred_s"] else None})
    except (FileNotFoundError, IndexError, KeyError):
        pass

def summ(cells, v="pred"):
    e = [r[v + "_error"] for r in cells if r[v + "_error"] is not None]
    a = [abs(x) for x in e]
    return {"cells": len(e), "median_abs_error": statistics.median(a) if a else None,
            "max_abs_error": max(a) if a else None,
            "median_signed_error": statistics.median(e) if e else None}
other = [r for r in rows if r["rate"] != trace_rate]
summary = {"trace_rate": trace_rate, "trace_own_rate": extra, "cells": rows}
for v, _ in variants:
    summary[v] = {"other_rates": summ(other, v), "all_cells": summ(rows, v),
                  "per_model": {m: {"other_rates": summ([r for r in other if r["model"] == m], v),
                                    "all_cells": summ([r for r in rows if r["model"] == m], v)} for m in models}}
lines.append("")
for e in extra:
    lines.append("%s at the trace's rate %s: tracing run's median %s ms (traced iterations' median %s ms), "
                 "predicted (none) %s ms, error %s%%" % (
        e["model"], e["rate"], ms(e["trace_run_median_s"]), ms(e["traced_iteration_s"]),
        ms(e["predicted_s"]), pc(e["error_vs_trace_run"])))
def sline(name, s):
    if not s["cells"]: return "%s: no cells" % name
    return "%s: %d cells, median |error| %.1f%%, max |error| %.1f%% (median signed %+.1f%%)" % (
        name, s["cells"], s["median_abs_error"] * 100, s["max_abs_error"] * 100, s["median_signed_error"] * 100)
names = {"pred": "PROTOCOL (pred: nominal rate)", "probe": "diagnostic (@probe: the probed point-to-point rate)",
         "gamma1": "diagnostic (gamma1: nominal rate, the system part's interference factors set to 1)"}
for v, _ in variants:
    lines.append("")
    lines.append(names[v] + ":")
    lines.append(sline("  rates other than the trace's (%s)" % trace_rate, summary[v]["other_rates"]))
    lines.append(sline("  all cells", summary[v]["all_cells"]))
    for m in models:
        lines.append(sline("    %s, other rates" % m, summary[v]["per_model"][m]["other_rates"]))
        lines.append(sline("    %s, all cells" % m, summary[v]["per_model"][m]["all_cells"]))
text = "\n".join(lines) + "\n"
open(os.path.join(out, "table.txt"), "w").write(text)
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
with open(os.path.join(out, "table.csv"), "w", newline="") as f:
    w = csv.writer(f)
    cols = ["model", "hook", "rate", "runs", "measured_s", "pred_s", "pred_error", "probe_gbps",
            "probe_s", "probe_error", "gamma1_s", "gamma1_error"]
    w.writerow(cols)
    for r in rows:
        w.writerow([r[c] for c in cols])
sys.stdout.write(text)
EOF
exit "$failed"
