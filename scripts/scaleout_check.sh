#!/usr/bin/env bash
# Does a profile measured on a few ranks predict more ranks? (SPEC §5's second question;
# docs/history/validation-log.md, "A 2-rank profile predicting 4 ranks".) Re-predicts the
# trainer logs of a recording at more ranks (LARGE) four ways, without running anything:
#   OUT/own    with LARGE's own calibration (scripts/repredict.sh);
#   OUT/fits   with SMALL's collective fits (the link levels' per-collective alpha/beta and
#              algorithms), a recording at fewer ranks: what the model extrapolates across
#              rank counts with the algorithm formulas (ring, tree); everything else
#              LARGE's;
#   OUT/comm   with everything but compute from SMALL: the fits, the codec fits and their
#              collective floors, gamma and the contention factors (per-rank CPU work: on
#              a machine whose ranks share cores it does not carry across rank counts);
#   OUT/small  with SMALL's whole profile, compute too, and no compute probes.
# LARGE's compute probes (its compute at its own rank count) stay in own, fits and comm:
# on a GPU cluster a rank's compute does not depend on how many ranks there are, and a
# user measures it on one node. All four use --predict-rate measured (the link's
# all-reduce rate as measured through it, the profile's fits at that rate): LARGE's
# per-size link sweeps at its own rank count are what a user would not have at scale.
#
#   scripts/scaleout_check.sh SMALL LARGE OUT [GCU]
#     SMALL, LARGE  recordings of scripts/record_validation.sh (data/validation/<name>)
#     OUT           created; must be empty or an earlier output (marker .scaleout)
#   REPREDICT_CALIBRATE_ARGS  as for scripts/repredict.sh (e.g. "--skip codec-gradients")
# Prints one summary line per prediction (OUT/<variant>/validate.{json,txt}). Needs jq.
set -euo pipefail
die() { echo "scaleout_check: $*" >&2; exit 2; }
# shellcheck source=out_dir.sh
. "$(dirname "$0")/out_dir.sh"
[ $# -ge 3 ] || die "usage: scripts/scaleout_check.sh SMALL LARGE OUT [GCU]"
SMALL=$1 LARGE=$2 OUT=$3 GCU=${4:-build/cli/gcu}
open_recording SMALL; open_recording LARGE
HERE=$(cd "$(dirname "$0")" && pwd)
command -v jq >/dev/null || die "jq is missing (apt-get install jq, or scripts/install-deps.sh)"
for r in "$SMALL" "$LARGE"; do
  [ -f "$r/profile.json.state.json" ] || die "$r is not a recording of scripts/record_validation.sh (no profile.json.state.json)"
done
ws=$(jq -er '.meta.world' "$SMALL/profile.json.state.json") || die "$SMALL: no meta.world in its calibrate state"
wl=$(jq -er '.meta.world' "$LARGE/profile.json.state.json") || die "$LARGE: no meta.world in its calibrate state"
[[ $ws =~ ^[0-9]+$ && $wl =~ ^[0-9]+$ ]] || die "meta.world is not a rank count ($ws, $wl)"
[ "$ws" -lt "$wl" ] || die "SMALL ($ws ranks) must be calibrated on fewer ranks than LARGE ($wl)"
prepare_out_dir "$OUT" .scaleout scaleout_check
export REPREDICT_VALIDATE_ARGS="--predict-rate measured ${REPREDICT_VALIDATE_ARGS:-}"
# SMALL's profile, re-fitted by this build (its own grid re-predicted on the way).
bash "$HERE/repredict.sh" "$SMALL" "$OUT/small-own" "$GCU" > /dev/null
P="$OUT/small-own/profile.json"
model=$(jq -c '.model.name' "$P")
[ "$model" = "$(jq -c '.model.name' "$LARGE/profile.json")" ] || die "SMALL and LARGE calibrated different models"
fits=".cluster.levels = $(jq -c '.cluster.levels' "$P") | .cluster.algorithms = $(jq -c '.cluster.algorithms' "$P")"
comm="$fits | .compressors = $(jq -c '.compressors' "$P")"
# The interference factors and the stretch (gcu.profile/2; an older profile's keys as they are).
comm+=" | .cluster += $(jq -c '.cluster | if .interference then {gamma_stretch, interference} else {gamma, overlap_contention, comm_contention: (.comm_contention // 1)} end' "$P")"
line() { echo "$1 ($2): $(tail -1 "$OUT/$1.summary")"; }
bash "$HERE/repredict.sh" "$LARGE" "$OUT/own" "$GCU" > "$OUT/own.summary"
line own "the $wl-rank profile"
REPREDICT_PROFILE_JQ="$fits" bash "$HERE/repredict.sh" "$LARGE" "$OUT/fits" "$GCU" > "$OUT/fits.summary"
line fits "the $ws-rank collective fits, the rest $wl-rank"
REPREDICT_PROFILE_JQ="$comm" bash "$HERE/repredict.sh" "$LARGE" "$OUT/comm" "$GCU" > "$OUT/comm.summary"
line comm "everything but compute $ws-rank"
REPREDICT_VALIDATE_ARGS="$REPREDICT_VALIDATE_ARGS --compute-probes off" \
  REPREDICT_PROFILE_JQ="$comm | .model = $(jq -c '.model' "$P")" bash "$HERE/repredict.sh" "$LARGE" "$OUT/small" "$GCU" > "$OUT/small.summary"
line small "the $ws-rank profile, compute too, no probes"
