#!/usr/bin/env bash
# scripts/profile_params.py: the parts add up to the total; a constructed profile's count
# by hand (1 batch: 4 compute; 1 level with 2 all-reduce ranges: 2 + 4; gamma and
# comm_contention: 2; one codec with 2 encode and 3 decode terms and a 3-size floor: 5 + 4
# -> 21); a file that is not a profile: exit 2 naming it.
set -eu
PY=$1 SCRIPT=$2 PROFILE=$3 WORK=$4
mkdir -p "$WORK"
"$PY" "$SCRIPT" --json "$PROFILE" > "$WORK/shipped.json"
jq -e 'to_entries[0].value | .total == (.compute + .links + .contention + .codecs + .floors) and .total > 0' \
  "$WORK/shipped.json" > /dev/null || { echo "parts do not add up"; cat "$WORK/shipped.json"; exit 1; }
cat > "$WORK/p.json" <<'J'
{"model": {"compute": [{"batch_size": 8, "forward_s": 1, "backward_s": 2, "optimizer_s": 0, "data_s": 0}]},
 "cluster": {"levels": {"inter": {"alpha_s": 1e-5, "bandwidth_gbps": 1,
   "collectives": {"allreduce": [{"min_bytes": 0, "max_bytes": 1024, "alpha_s": 1e-5, "beta_s_per_byte": 1e-9},
                                 {"min_bytes": 1024, "alpha_s": 2e-5, "beta_s_per_byte": 1e-9}]}}},
             "gamma": 1.1, "comm_contention": 1.5},
 "compressors": {"fp16": {"encode": {"fixed_s": 0, "per_element_s": 1e-9},
                          "decode": {"fixed_s": 0, "per_element_s": 1e-9, "per_rank_element_s": 0},
                          "allreduce_floor": {"world": 2, "elements": [1, 2, 3], "seconds": [1, 2, 3], "per_element_s": 0}}}}
J
"$PY" "$SCRIPT" --json "$WORK/p.json" > "$WORK/p.out"
jq -e '.[] | .compute == 4 and .links == 6 and .contention == 2 and .codecs == 5 and .floors == 4 and .total == 21' \
  "$WORK/p.out" > /dev/null || { echo "constructed profile miscounted"; cat "$WORK/p.out"; exit 1; }
# The same in gcu.profile/2 form: the stretch and two interference factors, 3.
jq '.cluster |= (del(.gamma, .comm_contention) + {gamma_stretch: 1.1, interference: {backward_by_collective: 1.2, collective_by_backward: 1.5}})' \
  "$WORK/p.json" > "$WORK/p2.json"
"$PY" "$SCRIPT" --json "$WORK/p2.json" > "$WORK/p2.out"
jq -e '.[] | .contention == 3 and .total == 22' "$WORK/p2.out" > /dev/null \
  || { echo "gcu.profile/2 interference miscounted"; cat "$WORK/p2.out"; exit 1; }
echo '{"model": 3}' > "$WORK/bad.json"
rc=0; "$PY" "$SCRIPT" "$WORK/bad.json" 2> "$WORK/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q "bad.json is not a gcu profile" "$WORK/bad.err" || { echo "bad input: rc $rc"; cat "$WORK/bad.err"; exit 1; }
echo "profile_params OK"
