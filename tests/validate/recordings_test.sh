#!/usr/bin/env bash
# scripts/recordings.sh on the shipped recordings and on constructed ones: every canonical
# recording unpacks with its reports and its trainer logs or runs; open gives a complete
# copy of a packed recording and the path itself for an unpacked one; pack then unpack is
# a byte-identical round trip; bad input (a non-empty destination, an unknown name, an
# archive with a member outside its directory, a companion that is not a recording) is
# refused with exit 2 and nothing written.
set -eu
SCRIPT=$1 VAL=$2 WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK"
fail() { echo "recordings_test: $*"; exit 1; }
# The shipped ones: at most ten, each with a report, a checksum line in the manifest.
n=$(find "$VAL" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 10 ] || fail "$n canonical recordings (1..10 expected)"
bash "$SCRIPT" unpack "$WORK/all" > /dev/null
for d in "$VAL"/*/; do
  name=$(basename "$d")
  [ -f "$WORK/all/$name/validate.json" ] || [ -f "$WORK/all/$name/summary.json" ] || fail "$name: no report after unpacking"
  [ -d "$WORK/all/$name/raw" ] || ls "$WORK/all/$name"/*.jsonl > /dev/null 2>&1 || fail "$name: no trainer logs or runs after unpacking"
  grep -q "^| $name |" "$VAL/MANIFEST.md" || fail "$name is not in MANIFEST.md"
done
# open: a packed recording gives a complete temporary copy; an unpacked one itself.
rec=$(find "$VAL" -mindepth 2 -maxdepth 2 -name raw.tar.xz -printf '%h\n' | sort | head -1)
[ -n "$rec" ] || fail "no packed recording"
o=$(bash "$SCRIPT" open "$rec")
[ "$o" != "$rec" ] && diff -rq "$o" "$WORK/all/$(basename "$rec")" > /dev/null || fail "open $rec differs from unpack"
rm -rf "$(dirname "$o")"
[ "$(bash "$SCRIPT" open "$WORK/all/$(basename "$rec")")" = "$WORK/all/$(basename "$rec")" ] || fail "open of an unpacked recording copied it"
# A constructed data/validation: pack with a companion, unpack, compare byte for byte.
V=$WORK/val; mkdir -p "$V/a/raw" "$V/b"
echo '{"cells": []}' > "$V/a/validate.json"; echo "log" > "$V/a/raw/r0.log"; echo "c" > "$V/a/calibrate.log"
head -c 600000 /dev/urandom | base64 > "$V/a/big.json"   # too big to stay plain
echo '{}' > "$V/b/summary.json"; echo '{"t": 1}' > "$V/b/runs.jsonl"
cp -r "$V" "$WORK/orig"
GCU_RECORDINGS=$V bash "$SCRIPT" pack a b > /dev/null
[ -f "$V/a/raw.tar.xz" ] && [ -f "$V/a/validate.json" ] && [ ! -e "$V/a/raw" ] && [ ! -e "$V/a/big.json" ] && [ ! -e "$V/b" ] \
  || fail "pack did not keep the report plain and move the rest and the companion into the archive"
GCU_RECORDINGS=$V bash "$SCRIPT" unpack "$WORK/rt" > /dev/null
diff -r "$WORK/orig" "$WORK/rt" > /dev/null || fail "pack/unpack is not a round trip"
expect2() {  # message, command...
  local msg=$1; shift
  local rc=0; "$@" > "$WORK/out.log" 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q "$msg" "$WORK/out.log" || { cat "$WORK/out.log"; fail "expected exit 2 with '$msg', got $rc"; }
}
expect2 "is not empty" bash "$SCRIPT" unpack "$WORK/rt"
expect2 "no recording 'nope'" env GCU_RECORDINGS="$V" bash "$SCRIPT" unpack "$WORK/x1" nope
[ ! -e "$WORK/x1" ] || fail "a refused unpack left $WORK/x1"
mkdir -p "$V/c"; echo '{}' > "$V/c/validate.json"
expect2 "is not another recording" env GCU_RECORDINGS="$V" bash "$SCRIPT" pack c zz
[ ! -e "$V/c/raw.tar.xz" ] || fail "a refused pack wrote an archive"
expect2 "packed already" env GCU_RECORDINGS="$V" bash "$SCRIPT" pack a
# An archive with a member outside its directory is refused before anything is extracted.
E=$WORK/evil; mkdir -p "$E/x" "$WORK/evil-src/in"; echo '{}' > "$E/x/validate.json"; echo pwned > "$WORK/evil-src/p"
/usr/bin/python3 - "$E/x/raw.tar.xz" "$WORK/evil-src/p" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1], "w:xz") as t:
    t.add(sys.argv[2], arcname="../p")
PY
expect2 "outside its directory" env GCU_RECORDINGS="$E" bash "$SCRIPT" unpack "$WORK/x2"
[ ! -e "$WORK/x2" ] && [ ! -e "$WORK/p" ] || fail "a refused archive wrote files"
echo "recordings OK ($n canonical)"
