#!/usr/bin/env bash
# A designed calibration-to-grid drift (docs/history/validation-log.md, "A drifted
# calibration"):
# waits for `gcu validate --calibrate`'s calibration to start its compute step, runs one
# busy process beside it (at the niceness given, default -10: the same as the recording's
# ranks, so it takes its share of the 2 cores) through the compute and gamma steps, and
# stops it when the collectives step starts. The grid then runs on a quiet machine, so
# the calibration's compute is slower than the grid's by the load's share.
#
#   OUT=data/validation/cpu-2rank-resnet18-drift
#   mkdir -p "$OUT"; scripts/load_during_calibration.sh "$OUT" &
#   NAME=cpu-2rank-resnet18-drift ... nice -n -10 bash scripts/record_validation.sh
#
# (That recording is no longer in the tree: git checkout 4e7d2dea -- data/validation/cpu-2rank-resnet18-drift.)
#
# Needs root for a negative niceness. Writes the start and stop times to OUT/load.log.
set -euo pipefail
OUT=${1:?usage: scripts/load_during_calibration.sh OUT_DIR [NICENESS]}
NICE=${2:--10}
[ -d "$OUT" ] || { echo "load_during_calibration: $OUT is not a directory" >&2; exit 2; }
LOG=$OUT/calibrate.log
until grep -q "calibrate: compute (" "$LOG" 2>/dev/null; do sleep 0.1; done
nice -n "$NICE" sh -c 'while :; do :; done' &
hog=$!
trap 'kill "$hog" 2>/dev/null || true' EXIT INT TERM
date -u +"load started %Y-%m-%dT%H:%M:%SZ (compute step)" > "$OUT/load.log"
until grep -q "calibrate: collectives (" "$LOG" 2>/dev/null; do sleep 0.1; done
kill "$hog"
date -u +"load stopped %Y-%m-%dT%H:%M:%SZ (collectives step)" >> "$OUT/load.log"
