#!/usr/bin/env bash
# `gcu validate --testbed launcher`: the same small grid as validate_loopback.sh (CNN, 2
# ranks, no compression, a few iterations, the shipped CPU profile) started by the user's
# own launcher: Debian's mpirun as a whole-job template, and, as root, the namespace
# testbed driven by a per-rank template (`ip netns exec PFX-r{rank} ...`). A template
# without {cmd} exits 2 and writes nothing. Exit 77 (skip) when mpirun is missing.
set -eu
GCU=$1 PROFILE=$2 DIR=$3 NETBED=$4
rm -rf "$DIR" && mkdir -p "$DIR"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not installed (openmpi-bin)"; exit 77; }
grid=(-p "$PROFILE" --model cnn --schemes none --links unlimited --modes overlap --batch 32 --ranks 2
      --iters 6 --warmup 2 --repeats 1 --no-measure-links --protocol user --data synthetic --no-plots)

check() {  # check OUT: the report says the launcher ran both ranks of the cell and measured it
  jq -e '.testbed.kind == "launcher" and (.cells | length) == 1 and .cells[0].status == "ok"
         and .cells[0].measured.total.median > 0 and (.cells[0].error.total | isinfinite | not)' "$1/validate.json" \
    >/dev/null || { echo "bad report in $1"; jq '.testbed, .cells' "$1/validate.json" | head -40; exit 1; }
  test -s "$1/raw/c0-round0.jsonl.rank1" || { echo "rank 1 wrote no log in $1"; ls "$1/raw"; exit 1; }
}

# Whole job: mpirun starts both ranks; gcu train finds its rank in OMPI_COMM_WORLD_*.
"$GCU" validate "${grid[@]}" --testbed launcher --launcher "mpirun --allow-run-as-root -np {ranks} {cmd}" \
  --out "$DIR/mpirun" 2> "$DIR/mpirun.log" || { cat "$DIR/mpirun.log"; exit 1; }
check "$DIR/mpirun"

# A template without {cmd}: exit 2, the problem named, nothing written.
set +e
"$GCU" validate "${grid[@]}" --testbed launcher --launcher "mpirun -np 2" --out "$DIR/bad" 2> "$DIR/bad.log"
rc=$?
set -e
[ $rc = 2 ] || { echo "a template without {cmd}: exit $rc, expected 2"; cat "$DIR/bad.log"; exit 1; }
grep -q "{cmd}" "$DIR/bad.log" || { echo "the message does not name {cmd}"; cat "$DIR/bad.log"; exit 1; }
[ ! -e "$DIR/bad/validate.json" ] || { echo "a report was written"; exit 1; }

# Per rank, as root: the namespace testbed through a template with {rank}.
if bash "$NETBED" check 2>/dev/null; then
  pfx=gl$$ && pfx=${pfx:0:8}
  trap 'bash "$NETBED" down "$pfx" >/dev/null 2>&1 || true' EXIT
  bash "$NETBED" up "$pfx" 2 unlimited >/dev/null
  "$GCU" validate "${grid[@]}" --testbed launcher --master-addr 10.77.0.1 \
    --launcher "ip netns exec $pfx-r{rank} env GLOO_SOCKET_IFNAME=gcu0 {cmd}" \
    --out "$DIR/per-rank" 2> "$DIR/per-rank.log" || { cat "$DIR/per-rank.log"; exit 1; }
  check "$DIR/per-rank"
else
  echo "per-rank template through the namespace testbed: skipped (not root with ip and tc)"
fi
echo "validate through the launcher: ok"
