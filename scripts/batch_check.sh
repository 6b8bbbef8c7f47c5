#!/usr/bin/env bash
# Does a profile measured at some per-rank batch sizes predict another? (The weak-scaling
# what-if of SPEC §1: `gcu simulate --sweep batch_size` answers from the profile's compute
# table, model/profile.h compute_for_batch.) Re-predicts the trainer logs of a recording
# whose grid has several batch sizes (docs/history/validation-log.md, "Batch sizes"),
# without running anything, each time with one batch size's compute left out of the profile:
#   OUT/own            every batch size's own compute (scripts/repredict.sh);
#   OUT/without-<B>    batch B's compute entry removed: B's cells predicted from the other
#                      entries (interpolated between its neighbours, or extrapolated
#                      linearly from the two nearest);
#   OUT/only-<M>       only the middle batch size M kept: every other batch scaled
#                      proportionally from it (what a profile of one batch size gives).
# The compute probes (gcu.validate/7) are the recording's, applied to the entries the
# profile keeps (validate/compute_probe.h), so a left-out batch size's own compute reaches
# no prediction; everything else (gamma, collectives, codecs) is the calibration's.
#
#   scripts/batch_check.sh RECORDING OUT [GCU]
#     RECORDING  a recording of scripts/record_validation.sh with >= 2 batch sizes
#     OUT        created; must be empty or an earlier output (marker .batchcheck)
#   REPREDICT_CALIBRATE_ARGS  as for scripts/repredict.sh
# Prints one line per held-out batch size and writes OUT/batch_check.json: for each
# variant and left-out batch size, the errors of its cells against the same cells
# predicted with their own compute. Needs jq.
set -euo pipefail
die() { echo "batch_check: $*" >&2; exit 2; }
# shellcheck source=out_dir.sh
. "$(dirname "$0")/out_dir.sh"
[ $# -ge 2 ] || die "usage: scripts/batch_check.sh RECORDING OUT [GCU]"
REC=$1 OUT=$2 GCU=${3:-build/cli/gcu}
open_recording REC
HERE=$(cd "$(dirname "$0")" && pwd)
command -v jq >/dev/null || die "jq is missing (apt-get install jq, or scripts/install-deps.sh)"
[ -f "$REC/profile.json" ] && [ -f "$REC/validate.json" ] \
  || die "$REC is not a recording of scripts/record_validation.sh (no profile.json or validate.json)"
mapfile -t batches < <(jq -er '[.model.compute[].batch_size] | sort | .[] | tostring' "$REC/profile.json") \
  || die "$REC/profile.json: no model.compute entries"
for b in "${batches[@]}"; do [[ $b =~ ^[0-9]+$ ]] || die "$REC/profile.json: batch size '$b' is not an integer"; done
[ "${#batches[@]}" -ge 2 ] || die "$REC/profile.json has ${#batches[@]} batch size(s): need >= 2 to leave one out"
grid=$(jq -c '[.cells[].settings.batch] | unique' "$REC/validate.json")
for b in "${batches[@]}"; do
  jq -e --argjson b "$b" 'index($b) != null' <<< "$grid" > /dev/null \
    || die "$REC: the grid has no cells at batch $b (grid batches $grid)"
done
prepare_out_dir "$OUT" .batchcheck batch_check

bash "$HERE/repredict.sh" "$REC" "$OUT/own" "$GCU" > "$OUT/own.summary"
echo "own (every batch size's compute): $(tail -1 "$OUT/own.summary")"
variants=()
for b in "${batches[@]}"; do
  REPREDICT_PROFILE_JQ=".model.compute |= map(select(.batch_size != $b))" \
    bash "$HERE/repredict.sh" "$REC" "$OUT/without-$b" "$GCU" > "$OUT/without-$b.summary"
  variants+=("without-$b:$b")
done
mid=${batches[$(( ${#batches[@]} / 2 ))]}
REPREDICT_PROFILE_JQ=".model.compute |= map(select(.batch_size == $mid))" \
  bash "$HERE/repredict.sh" "$REC" "$OUT/only-$mid" "$GCU" > "$OUT/only-$mid.summary"
for b in "${batches[@]}"; do [ "$b" = "$mid" ] || variants+=("only-$mid:$b"); done

# Per variant and held-out batch: the held-out cells' total error (the report's own
# per-batch group, speed-adjusted where the report adjusted it) beside the same cells'
# error with their own compute, and how the model got the held-out compute.
rows=()
for v in "${variants[@]}"; do
  name=${v%%:*} b=${v##*:}
  rows+=("$(jq -c --arg name "$name" --arg b "$b" --slurpfile own "$OUT/own/validate.json" '
    def group(r): r.summary.by_batch | map(select(.name == $b)) | first
      | {cells, noise_limited, median_abs_error_total, max_abs_error_total, median_error_total};
    {variant: $name, batch: ($b | tonumber),
     compute_basis: ([.cells[] | select(.settings.batch == ($b | tonumber)) | .settings.compute_basis] | unique),
     held_out: group(.), own: group($own[0])}' "$OUT/$name/validate.json")") \
    || die "$OUT/$name/validate.json: no summary.by_batch entry for batch $b"
done
printf '%s\n' "${rows[@]}" | jq -s --arg rec "$REC" --argjson batches "$(printf '%s\n' "${batches[@]}" | jq -s 'map(tonumber)')" \
  '{schema: "gcu.validate.batch_check/1", recording: $rec, batches: $batches, rows: .}' > "$OUT/batch_check.json.tmp"
mv "$OUT/batch_check.json.tmp" "$OUT/batch_check.json"
jq -r '.rows[] | "\(.variant): batch \(.batch) cells (\(.held_out.cells)): median |error| \(.held_out.median_abs_error_total * 1000 | round / 10)%, max \(.held_out.max_abs_error_total * 1000 | round / 10)%, median signed \(.held_out.median_error_total * 1000 | round / 10)% (own compute: \(.own.median_abs_error_total * 1000 | round / 10)% / \(.own.max_abs_error_total * 1000 | round / 10)% / \(.own.median_error_total * 1000 | round / 10)%)"' \
  "$OUT/batch_check.json"
