# Sourced by the re-prediction scripts (repredict.sh, scaleout_check.sh, batch_check.sh)
# for their two common steps: the output directory (prepare_out_dir: new, empty, or an
# earlier output of the same script, by its marker file, which is emptied; anything else is
# refused, nothing removed) and the recording they read (open_recording, below).
#   prepare_out_dir DIR MARKER WHO     (the caller defines die)
prepare_out_dir() {
  local out=$1 marker=$2 who=$3
  if [ -e "$out" ]; then
    [ -d "$out" ] || die "$out exists and is not a directory"
    if [ -n "$(ls -A "$out")" ]; then
      [ -f "$out/$marker" ] || die "$out is not empty and not an earlier $who output: give another directory"
      rm -rf "${out:?}"/*
    fi
  fi
  mkdir -p "$out"
  touch "$out/$marker"
}

# A recording given by the user may be packed (data/validation/<name>/raw.tar.xz,
# scripts/recordings.sh): open_recording VAR replaces the path in VAR with a complete copy
# under $TMPDIR, removed when the script exits, or leaves it when it is complete already.
OPENED_RECORDINGS=()
open_recording() {
  local -n rec_ref=$1
  [ -d "$rec_ref" ] || return 0  # the caller's own checks name what is missing
  local d
  d=$(bash "$(dirname "${BASH_SOURCE[0]}")/recordings.sh" open "$rec_ref") || exit 2
  if [ "$d" != "${rec_ref%/}" ]; then
    OPENED_RECORDINGS+=("$(dirname "$d")")
    trap 'rm -rf "${OPENED_RECORDINGS[@]}"' EXIT
  fi
  rec_ref=$d
}
