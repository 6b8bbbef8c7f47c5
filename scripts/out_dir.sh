# Sourced by the re-prediction scripts (repredict.sh, scaleout_check.sh, batch_check.sh):
# their output directory must be new, empty, or an earlier output of the same script
# (its marker file), which is emptied; anything else is refused, nothing removed.
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
