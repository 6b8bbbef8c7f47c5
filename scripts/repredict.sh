#!/usr/bin/env bash
# Re-predicts a recorded validation with this build's model, without running anything
# on the testbed: the profile is re-fitted from the recording's calibrate state (every
# step resumed; a step the recording predates, such as codec-gradients, is measured here
# unless REPREDICT_CALIBRATE_ARGS="--skip codec-gradients"), then `gcu validate --reuse` re-predicts the
# recording's own trainer logs and link sweeps. A model or fit change is thus checked
# against every recorded grid in seconds (docs/validation.md §5, "Re-predicting").
#
#   scripts/repredict.sh RECORDING OUT_DIR [GCU]
#     RECORDING  a directory written by scripts/record_validation.sh (data/validation/<name>)
#     OUT_DIR    created; must be empty or an earlier repredict output (marker .repredict)
#     GCU        the gcu binary (default: build/cli/gcu)
#   REPREDICT_CALIBRATE_ARGS  extra `gcu calibrate` arguments (split on spaces)
#   REPREDICT_VALIDATE_ARGS   extra `gcu validate` arguments (e.g. --predict-rate link-fits)
#   REPREDICT_PROFILE_JQ      a jq filter applied to the re-fitted profile before predicting, for
#                             ablations (e.g. '.cluster.interference.collective_by_backward = 1': the model without
#                             its collectives' slowdown beside the backward); the edited profile
#                             is OUT_DIR/profile.json
# Copies the recording's raw/, links/ and probes/ (the compute probes) into OUT_DIR.
# Writes OUT_DIR/{profile.json, profile.json.state.json, validate.{json,csv,txt}, *.log};
# prints the validate summary line. Needs jq; starts the recording's number of ranks on
# this machine (Gloo on loopback).
set -euo pipefail
die() { echo "repredict: $*" >&2; exit 2; }
# shellcheck source=out_dir.sh
. "$(dirname "$0")/out_dir.sh"
[ $# -ge 2 ] || die "usage: scripts/repredict.sh RECORDING OUT_DIR [GCU]"
REC=$1 OUT=$2 GCU=${3:-build/cli/gcu}
open_recording REC
command -v jq >/dev/null || die "jq is missing (apt-get install jq, or scripts/install-deps.sh)"
[ -x "$GCU" ] || die "no gcu binary at $GCU (build first, or pass it as the third argument)"
for f in profile.json profile.json.state.json validate.json; do
  [ -f "$REC/$f" ] || die "$REC/$f is missing: not a recording of scripts/record_validation.sh"
done
[ -d "$REC/raw" ] || die "$REC/raw is missing: the recording has no trainer logs"
[ ! -e "$OUT" ] || [ "$(realpath "$OUT")" != "$(realpath "$REC")" ] || die "OUT_DIR is the recording itself: give another directory"
prepare_out_dir "$OUT" .repredict repredict
cp -r "$REC/raw" "$OUT/"
[ -d "$REC/links" ] && cp -r "$REC/links" "$OUT/"
# The grid's compute probes (gcu.validate/7; older recordings have none).
[ -d "$REC/probes" ] && cp -r "$REC/probes" "$OUT/"
cp "$REC/profile.json.state.json" "$OUT/profile.json.state.json"

# The calibration's arguments, from the profile's provenance, minus its output paths.
world=$(jq -er '.meta.world' "$REC/profile.json.state.json") || die "$REC/profile.json.state.json: no meta.world"
[[ $world =~ ^[0-9]+$ ]] && [ "$world" -ge 1 ] && [ "$world" -le 64 ] || die "meta.world = '$world' is not a rank count"
read -r -a pargs <<< "$(jq -er '.provenance.command' "$REC/profile.json")" || die "$REC/profile.json: no provenance.command"
[ "${pargs[1]:-}" = calibrate ] || die "$REC/profile.json: provenance.command is not a gcu calibrate command"
cal=()
for ((i = 2; i < ${#pargs[@]}; i++)); do
  case ${pargs[i]} in
    -o|--output|--state) i=$((i + 1)) ;;
    --resume) ;;
    *) cal+=("${pargs[i]}") ;;
  esac
done
# The grid's arguments, from the recording's report, minus calibration and paths.
read -r -a vargs <<< "$(jq -er '.command' "$REC/validate.json")" || die "$REC/validate.json: no command"
[ "${vargs[1]:-}" = validate ] || die "$REC/validate.json: command is not a gcu validate command"
grid=()
recorded_protocol=diagnose
for ((i = 2; i < ${#vargs[@]}; i++)); do
  case ${vargs[i]} in
    --calibrate|--reuse) ;;
    --calibrate-budget-s|--out|-p|--profile) i=$((i + 1)) ;;
    --protocol) recorded_protocol=${vargs[i + 1]:-}; i=$((i + 1)) ;;
    *) grid+=("${vargs[i]}") ;;
  esac
done

read -r -a extra <<< "${REPREDICT_CALIBRATE_ARGS:-}"
OPENBLAS_NUM_THREADS=1 "$GCU" launch -n "$world" -- "$GCU" calibrate "${cal[@]}" "${extra[@]}" \
  -o "$OUT/profile.json" --state "$OUT/profile.json.state.json" --resume > "$OUT/calibrate.log" 2>&1 \
  || { tail -20 "$OUT/calibrate.log" >&2; die "re-fitting the profile failed (log: $OUT/calibrate.log)"; }
if [ -n "${REPREDICT_PROFILE_JQ:-}" ]; then
  jq -e "$REPREDICT_PROFILE_JQ" "$OUT/profile.json" > "$OUT/profile.edited.json" \
    || die "REPREDICT_PROFILE_JQ: jq failed on $OUT/profile.json"
  mv "$OUT/profile.edited.json" "$OUT/profile.json"
fi
read -r -a vextra <<< "${REPREDICT_VALIDATE_ARGS:-}"
# The recording's protocol (grids recorded before --protocol existed ran today's diagnose:
# in-grid link fits, per-link gamma, compute probes, speed adjustment), or REPREDICT_PROTOCOL
# (user needs a recording whose links were probed).
vextra=(--protocol "${REPREDICT_PROTOCOL:-$recorded_protocol}" "${vextra[@]}")
vrc=0
"$GCU" validate "${grid[@]}" "${vextra[@]}" --reuse -p "$OUT/profile.json" --out "$OUT" > "$OUT/validate.log" 2>&1 \
  || vrc=$?
# Exit 3: the report is written, some cells failed (as recorded, or their logs are missing).
[ "$vrc" -eq 0 ] || [ "$vrc" -eq 3 ] || { tail -20 "$OUT/validate.log" >&2; die "re-predicting failed (log: $OUT/validate.log)"; }
jq -r '.summary | "repredict: \(.ok) cells: median |error| \(.median_abs_error_total_all_ok * 1000 | round / 10)%, max \(.max_abs_error_total_all_ok * 1000 | round / 10)%; counted \(.counted): \(if .counted > 0 then "\(.median_abs_error_total * 1000 | round / 10)% / \(.max_abs_error_total * 1000 | round / 10)%" else "-" end); noise-limited \(.noise_limited_fraction * 100 | round)%"' \
  "$OUT/validate.json"
