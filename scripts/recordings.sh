#!/usr/bin/env bash
# The recordings in data/validation: each canonical recording keeps its reports plain
# (validate.json/.txt/.csv, summary.json, tables, plots, profile.json: what a reader opens)
# and everything else (trainer logs, link sweeps, probes, run logs, and the runs it was
# recorded with, such as more seeds or a timing grid) in one archive, raw.tar.xz, whose
# paths are relative to data/validation. data/validation/MANIFEST.md lists them.
#
#   scripts/recordings.sh unpack DEST [NAME...]
#       DEST/<name>/ for each recording (all when none named), exactly as recorded, and
#       the runs packed with it beside it (DEST/<companion>/). DEST must be new or empty.
#   scripts/recordings.sh open RECORDING
#       prints a directory holding RECORDING complete: itself when it is unpacked already,
#       else a fresh copy under $TMPDIR (the scripts that read logs call this).
#   scripts/recordings.sh pack NAME [COMPANION...]
#       moves NAME's non-report files and each COMPANION recording into
#       data/validation/NAME/raw.tar.xz (reproducible: sorted, no owners, fixed times).
#   scripts/recordings.sh list
#       the canonical recordings and what each archive holds besides its own logs.
# Exit 2 with a message on bad input; nothing is left half-written.
set -euo pipefail
die() { echo "recordings: $*" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
VAL=${GCU_RECORDINGS:-$HERE/../data/validation}
ARCHIVE=raw.tar.xz

# Top-level files a reader opens stay plain: reports, tables, plots and profiles up to 512 KiB.
is_plain() {
  local f=$1
  [ -f "$f" ] && [ ! -L "$f" ] || return 1
  case "$f" in *.json|*.md|*.txt|*.csv|*.png|*.svg) ;; *) return 1 ;; esac
  [ "$(stat -c %s "$f")" -le 524288 ]
}

# Extracts one archive into DEST; refuses members outside it (absolute or ..).
extract() {
  local archive=$1 dest=$2
  tar -tJf "$archive" | awk '/^\// || /(^|\/)\.\.(\/|$)/ { bad = 1 } END { exit bad }' \
    || die "$archive has a member outside its directory"
  tar -xJf "$archive" -C "$dest" --no-same-owner --no-same-permissions
}

# DEST/<name of SRC>/ with SRC's plain files, and its archive extracted into DEST.
unpack_dir() {  # SRC DEST
  local src=$1 dest=$2
  mkdir -p "$dest/$(basename "$src")"
  find "$src" -maxdepth 1 -type f ! -name "$ARCHIVE" -exec cp -p {} "$dest/$(basename "$src")/" \;
  [ ! -f "$src/$ARCHIVE" ] || extract "$src/$ARCHIVE" "$dest"
}

cmd_unpack() {
  [ $# -ge 1 ] || die "usage: scripts/recordings.sh unpack DEST [NAME...]"
  local dest=$1; shift
  if [ -e "$dest" ]; then
    [ -d "$dest" ] || die "$dest exists and is not a directory"
    [ -z "$(ls -A "$dest")" ] || die "$dest is not empty: give a new or empty directory"
  fi
  local names=("$@")
  if [ ${#names[@]} -eq 0 ]; then
    mapfile -t names < <(find "$VAL" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
  fi
  local tmp; tmp=$(mktemp -d "${dest%/}.unpack.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  for n in "${names[@]}"; do
    [ -d "$VAL/$n" ] || die "no recording '$n' in $VAL (scripts/recordings.sh list)"
    unpack_dir "$VAL/$n" "$tmp"
  done
  mkdir -p "$(dirname "$dest")"
  rmdir "$dest" 2>/dev/null || true
  mv "$tmp" "$dest"
  trap - EXIT
  echo "recordings: ${#names[@]} unpacked into $dest"
}

cmd_open() {
  [ $# -eq 1 ] || die "usage: scripts/recordings.sh open RECORDING"
  local rec=${1%/}
  [ -d "$rec" ] || die "$rec is not a directory"
  if [ ! -f "$rec/$ARCHIVE" ]; then echo "$rec"; return; fi
  local tmp; tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcu-recording.XXXXXX")
  unpack_dir "$rec" "$tmp"
  echo "$tmp/$(basename "$rec")"
}

cmd_pack() {
  [ $# -ge 1 ] || die "usage: scripts/recordings.sh pack NAME [COMPANION...]"
  local name=$1; shift
  [ -d "$VAL/$name" ] || die "no recording '$name' in $VAL"
  [ ! -e "$VAL/$name/$ARCHIVE" ] || die "$name is packed already"
  local members=() f c
  while IFS= read -r f; do
    is_plain "$VAL/$name/$f" || members+=("$name/$f")
  done < <(find "$VAL/$name" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
  for c in "$@"; do
    [ -d "$VAL/$c" ] && [ "$c" != "$name" ] || die "companion '$c' is not another recording in $VAL"
    members+=("$c")
  done
  [ ${#members[@]} -gt 0 ] || die "$name has nothing to pack"
  local tmp="$VAL/$name/.$ARCHIVE.tmp"
  tar -C "$VAL" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
      -cf - "${members[@]}" | xz -9e -T1 > "$tmp"
  mv "$tmp" "$VAL/$name/$ARCHIVE"
  for f in "${members[@]}"; do rm -rf "${VAL:?}/$f"; done
  echo "recordings: $name packed ($(stat -c %s "$VAL/$name/$ARCHIVE") bytes, ${#members[@]} members)"
}

cmd_list() {
  local d
  for d in "$VAL"/*/; do
    d=${d%/}
    local extra="-"
    if [ -f "$d/$ARCHIVE" ]; then
      extra=$(tar -tJf "$d/$ARCHIVE" | cut -d/ -f1 | sort -u | grep -vx "$(basename "$d")" | paste -sd, -) || true
    fi
    printf '%s\t%s\n' "$(basename "$d")" "${extra:--}"
  done
}

[ $# -ge 1 ] || die "usage: scripts/recordings.sh unpack|open|pack|list ..."
sub=$1; shift
case "$sub" in
  unpack) cmd_unpack "$@" ;;
  open) cmd_open "$@" ;;
  pack) cmd_pack "$@" ;;
  list) cmd_list ;;
  *) die "unknown subcommand '$sub' (unpack, open, pack, list)" ;;
esac
