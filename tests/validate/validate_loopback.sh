#!/usr/bin/env bash
# A small `gcu validate` on loopback: CNN, 2 ranks, none and fp16, overlap, a few
# iterations of Fashion-MNIST (`--data`; synthetic when the package is missing) with the
# shipped CPU profile; checks the report's schema (gcu.validate/8) and that every cell's
# errors are finite. ~30-60 s on 2 cores.
set -eu
GCU=$1 PROFILE=$2 DIR=$3
rm -rf "$DIR"
DATA=synthetic
[ -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] && DATA=fashion-mnist
"$GCU" validate --protocol diagnose -p "$PROFILE" --model cnn --schemes "none;fp16" --links unlimited --modes overlap \
  --batch 32 --ranks 2 --iters 6 --warmup 2 --repeats 1 --testbed loopback --no-measure-links \
  --data "$DATA" --out "$DIR" 2> "$DIR.log" || { cat "$DIR.log"; exit 1; }
J=$DIR/validate.json
# The cells trained on what --data asked, and the report says so.
jq -e --arg d "$DATA" '.grid.data == $d' "$J" >/dev/null || { echo "grid.data is not $DATA"; jq .grid "$J"; exit 1; }
grep -q "\"data\":\"$DATA\"" "$DIR"/raw/c0-round0.jsonl.rank0 || { echo "the trainer did not run on $DATA"; exit 1; }
for f in validate.json validate.csv validate.txt; do test -s "$DIR/$f" || { echo "missing $f"; exit 1; }; done
jq -e '.schema == "gcu.validate/8" and (.cells | length) == 2 and .testbed.kind == "loopback"' "$J" >/dev/null \
  || { echo "bad header"; jq . "$J" | head -40; exit 1; }
jq -e '[.cells[] | .status == "ok" and (.error.total | type) == "number" and (.error.total | isinfinite | not)
        and (.predicted.total > 0) and (.measured.total.median > 0) and (.measured.total.p10 <= .measured.total.p90)
        and (.noise_limited | type) == "boolean" and (.involuntary_context_switches | type) == "number"
        and ([.predicted | keys[]] | sort) == ["backward","collective","data","decode","encode","exposed_comm","forward","optimizer","total"]]
       | all' "$J" >/dev/null || { echo "bad cells"; jq '.cells' "$J"; cat "$DIR.log"; exit 1; }
jq -e '.summary.cells == 2 and .summary.ok == 2' "$J" >/dev/null || { echo "bad summary"; exit 1; }
# The machine's speed taken out (one round: the adjusted figures exist and are finite, the
# reference is each round's forward + optimizer, the raw figures are kept beside them).
jq -e '.grid.speed_adjust == "forward" and .summary.speed_adjusted == 2 and (.summary.unadjusted.noise_limited | type) == "number"
       and ([.cells[] | (.round_reference | length) == 1 and .round_reference[0] > 0
             and (.speed_adjustment.error | type) == "number" and .speed_adjustment.value > 0
             and .speed_adjustment.sensitivity_s > 0 and .speed_adjustment.sensitivity_s <= .predicted.total * 1.0001
             and .speed_adjustment.coefficient >= 0 and .speed_adjustment.coefficient <= 2] | all)' "$J" >/dev/null \
  || { echo "bad speed adjustment"; jq '[.cells[] | {round_reference, speed_adjustment}], .summary' "$J"; exit 1; }
# The compute probe (one round: one probe): calibrate's compute step ran among the cells,
# its state kept, and the cells predicted with its forward instead of the profile's.
jq -e '.grid.compute_probes == "on" and .compute_probes.used and (.compute_probes.probes | length) == 1
       and .compute_probes.probes[0].ok and .compute_probes.probes[0].round == 1
       and (.compute_probes.batches[] | select(.batch == 32) | .probes == 1 and .probed.forward_s > 0
            and (.compute_ratio | isinfinite | not))
       and ([.cells[] | .predicted.forward] | all(. > 0))
       and ((.compute_probes.batches[] | select(.batch == 32) | .probed.forward_s) as $f
            | [.cells[] | ((.predicted.forward - $f) | fabs) < 1e-9] | all)' "$J" >/dev/null \
  || { echo "bad compute probes"; jq '.compute_probes, [.cells[].predicted]' "$J"; cat "$DIR.log"; exit 1; }
test -s "$DIR/probes/round0.json.state.json" || { echo "no probe state kept"; exit 1; }
grep -q "compute probe" "$DIR.log" && grep -q "the grid's compute ran" "$DIR.log" \
  || { echo "the log does not report the probe"; cat "$DIR.log"; exit 1; }
# The shipped profile has no calibration state beside it: no calibration-noise interval,
# and the log says why.
jq -e '[.cells[] | .calibration_noise == null] | all' "$J" >/dev/null || { echo "noise interval without a state"; exit 1; }
grep -q "no calibration state at" "$DIR.log" || { echo "no note on the missing state"; cat "$DIR.log"; exit 1; }
# Both ranks' logs merged (each iteration's slowest rank), the wait for it finite.
jq -e '[.cells[] | .rank_logs == 2 and (.logs | length) == 2 and (.straggler_wait.mean | type) == "number"
        and (.straggler_wait.p10 <= .straggler_wait.p90)] | all' "$J" >/dev/null \
  || { echo "bad rank logs"; jq '[.cells[] | {rank_logs, logs, straggler_wait}]' "$J"; exit 1; }
# The calibration's age: the shipped profile's provenance date, the grid's start, their
# difference (a number, or null when the date is not ISO 8601), and a warning when > 1 h.
jq -e '(.profile | has("calibrated")) and (.grid_started | type) == "string"
       and (.calibration_age_s == null or (.calibration_age_s | type) == "number")' "$J" >/dev/null \
  || { echo "bad calibration age"; jq '{profile, grid_started, calibration_age_s}' "$J"; exit 1; }
if jq -e '.calibration_age_s != null and .calibration_age_s > 3600' "$J" >/dev/null; then
  grep -q "warning: the profile was calibrated .* h before this grid" "$DIR.log" || { echo "no stale warning"; cat "$DIR.log"; exit 1; }
fi
test "$(wc -l < "$DIR/validate.csv")" -eq 3 || { echo "csv rows"; exit 1; }
# Per-link gamma: the link's gamma step, as validate runs it after a link's sweep
# (gcu calibrate --state-only, every other step skipped), exits 0 with a state and no
# profile; re-predicting the grid with it kept reports the link's gamma and predicts the
# link's cells with it; --link-gamma off keeps the profile's.
jq -e '.grid.link_gamma == "on" and (.links[0].gamma.measured == false) and (.links[0].gamma.note | length) > 0' "$J" >/dev/null \
  || { echo "bad links[].gamma without a gamma step"; jq '.links, .grid' "$J"; exit 1; }
mkdir -p "$DIR/links"
G=$DIR/links/r2-unlimited.gamma.json
"$GCU" launch -n 2 --master-addr 127.0.0.1 -- "$GCU" calibrate --model cnn --batch-sizes 32 --threads 1 \
  --convergence-schemes - --skip compute,collectives,codecs,errors,codec-gradients,contention,convergence \
  --state-only -o "$G" > "$DIR-gamma.log" 2>&1 || { echo "the gamma step with --state-only failed"; cat "$DIR-gamma.log"; exit 1; }
test ! -e "$G" && jq -e '.gamma.overlapped_s > 0 and .gamma.comm_s > 0' "$G.state.json" >/dev/null \
  || { echo "--state-only wrote a profile, or no gamma step in the state"; ls -l "$DIR/links"; exit 1; }
cp "$J" "$DIR-before.json"
"$GCU" validate --protocol diagnose -p "$PROFILE" --model cnn --schemes "none;fp16" --links unlimited --modes overlap \
  --batch 32 --ranks 2 --iters 6 --warmup 2 --repeats 1 --testbed loopback --no-measure-links \
  --data "$DATA" --out "$DIR" --reuse --no-plots 2> "$DIR-reuse.log" || { cat "$DIR-reuse.log"; exit 1; }
jq -e --slurpfile s "$G.state.json" '.links[0].gamma as $g | $g.measured and $g.gamma >= 1 and $g.comm_contention >= 1
       and $g.comm_contention <= 8 and ($g.overlapped_s - $s[0].gamma.overlapped_s | fabs) < 1e-12' "$J" >/dev/null \
  || { echo "the kept gamma step was not read back"; jq '.links' "$J"; exit 1; }
grep -q "per link (its cells predicted with these" "$DIR/validate.txt" || { echo "the table does not show the link's gamma"; exit 1; }
# The measured step may read no slowdown at all (gamma 1, the shipped profile's): the kept
# state edited to a backward stretched 2x while the all-reduces ran all of it (gamma 2)
# must then change the predicted backward.
jq '.gamma.overlapped_s = 2 * .gamma.alone_s | .gamma.comm_s = .gamma.overlapped_s | .gamma.gamma = 2' \
  "$G.state.json" > "$G.edited" && mv "$G.edited" "$G.state.json"
"$GCU" validate --protocol diagnose -p "$PROFILE" --model cnn --schemes "none;fp16" --links unlimited --modes overlap \
  --batch 32 --ranks 2 --iters 6 --warmup 2 --repeats 1 --testbed loopback --no-measure-links \
  --data "$DATA" --out "$DIR" --reuse --no-plots 2> "$DIR-reuse.log" || { cat "$DIR-reuse.log"; exit 1; }
jq -e --slurpfile b "$DIR-before.json" '(.links[0].gamma.gamma - 2 | fabs) < 1e-9
       and ([.cells[].predicted.backward] != [$b[0].cells[].predicted.backward])' "$J" >/dev/null \
  || { echo "the link's gamma did not change the predicted backward"; jq '.links, [.cells[].predicted]' "$J"; exit 1; }
# The backward beside its buckets follows the link's gamma: predicted again with it off, the
# profile's (the shipped profile's gamma differs from any measured one by more than 1e-9).
"$GCU" validate --protocol diagnose -p "$PROFILE" --model cnn --schemes "none;fp16" --links unlimited --modes overlap \
  --batch 32 --ranks 2 --iters 6 --warmup 2 --repeats 1 --testbed loopback --no-measure-links \
  --data "$DATA" --out "$DIR" --reuse --no-plots --link-gamma off 2> "$DIR-reuse.log" || { cat "$DIR-reuse.log"; exit 1; }
jq -e --slurpfile b "$DIR-before.json" '.grid.link_gamma == "off" and ([.cells[].predicted.total] == [$b[0].cells[].predicted.total])' "$J" >/dev/null \
  || { echo "--link-gamma off does not predict as before"; exit 1; }
# --calibrate-arg reaches gcu calibrate: an out-of-range calls scale stops the calibration,
# and validate fails naming it and the log (nothing measured).
if "$GCU" validate --calibrate --calibrate-arg=--collective-calls-scale --calibrate-arg=0.1 --model cnn \
    --schemes none --links unlimited --modes overlap --batch 32 --ranks 2 --iters 6 --warmup 2 --repeats 1 \
    --testbed loopback --no-measure-links --no-plots --out "$DIR-cal" 2> "$DIR-cal.log"; then
  echo "validate --calibrate with a bad --calibrate-arg succeeded"; exit 1
fi
grep -q "gcu calibrate failed" "$DIR-cal.log" && grep -q "collective-calls-scale must be" "$DIR-cal.log" \
  || { echo "no clear error for the bad calibrate argument"; cat "$DIR-cal.log"; exit 1; }
# A profile whose calibration skipped codec timing for its budget: validate stops before
# running anything, naming the missing fit and what to raise.
jq 'del(.compressors.fp16) | .provenance.assumptions += ["skipped: codecs: time budget"]' "$PROFILE" > "$DIR-nofp16.json"
if "$GCU" validate -p "$DIR-nofp16.json" --model cnn --schemes "none;fp16" --links unlimited --modes overlap \
    --batch 32 --ranks 2 --iters 6 --warmup 2 --repeats 1 --testbed loopback --no-measure-links --no-plots \
    --out "$DIR-nofp16" 2> "$DIR-nofp16.log"; then
  echo "validate with no fp16 fit succeeded"; exit 1
fi
grep -q "no encode/decode cost fit" "$DIR-nofp16.log" && grep -q "skipped codecs for its time budget" "$DIR-nofp16.log" \
  || { echo "no budget hint for the missing fit"; cat "$DIR-nofp16.log"; exit 1; }
test ! -e "$DIR-nofp16/validate.json" || { echo "a report was written"; exit 1; }
# Round drift and --exclude-rounds: two rounds, then the same logs re-predicted without
# the first; the report names the left-out round and each cell keeps one round.
R2="$GCU validate --protocol diagnose -p $PROFILE --model cnn --schemes none --links unlimited --modes overlap --batch 32 --ranks 2
  --iters 6 --warmup 2 --repeats 2 --testbed loopback --no-measure-links --no-plots --no-calibration-noise --out $DIR-r2"
$R2 2> "$DIR-r2.log" || { cat "$DIR-r2.log"; exit 1; }
jq -e '(.compute_probes.probes | map(.round)) == [1, 2] and .compute_probes.batches[0].probes == 2' \
  "$DIR-r2/validate.json" >/dev/null || { echo "not one probe per round"; jq .compute_probes "$DIR-r2/validate.json"; exit 1; }
# --compute-probes off: the profile's compute, and the report says so.
$R2 --reuse --compute-probes off 2> "$DIR-r2-off.log" || { cat "$DIR-r2-off.log"; exit 1; }
jq -e '.compute_probes.used == false and (.compute_probes.note | test("off")) and .grid.compute_probes == "off"' \
  "$DIR-r2/validate.json" >/dev/null || { echo "--compute-probes off not applied"; jq .compute_probes "$DIR-r2/validate.json"; exit 1; }
jq -e '(.summary.round_drift | length) == 2 and ([.summary.round_drift[] | type == "number"] | all)
       and .cells[0].round_ids == [0, 1]' "$DIR-r2/validate.json" >/dev/null \
  || { echo "no round drift"; jq '.summary' "$DIR-r2/validate.json"; exit 1; }
$R2 --reuse --exclude-rounds 1 2> "$DIR-r2-ex.log" || { cat "$DIR-r2-ex.log"; exit 1; }
jq -e '.grid.exclude_rounds == [1] and .summary.round_drift[0] == null and .cells[0].rounds == 1
       and .cells[0].round_ids == [1] and (.compute_probes.probes | map(.round)) == [2]' "$DIR-r2/validate.json" >/dev/null \
  || { echo "--exclude-rounds 1 not applied"; jq '{grid, s: .summary.round_drift, c: .cells[0].round_ids}' "$DIR-r2/validate.json"; exit 1; }
for bad in "--exclude-rounds 1" "--reuse --exclude-rounds 3" "--reuse --exclude-rounds 1,2" \
           "--reuse --error-goal 0" "--reuse --error-goal nan" "--reuse --error-goal -0.05"; do
  if $R2 $bad 2> "$DIR-r2-bad.log"; then echo "validate $bad was accepted"; exit 1; fi
  opt=${bad##*--}; opt=${opt%% *}
  grep -q -- "--$opt" "$DIR-r2-bad.log" || { echo "no clear error for $bad"; cat "$DIR-r2-bad.log"; exit 1; }
done
# The goal check (docs/validation.md §2): --error-goal reaches the report, and within +
# open is the noise-limited count.
$R2 --reuse --error-goal 0.3 2> "$DIR-r2-goal.log" || { cat "$DIR-r2-goal.log"; exit 1; }
jq -e '.grid.error_goal == 0.3 and .summary.goal_check.goal == 0.3
       and (.summary.goal_check | .within + .open) == .summary.noise_limited
       and ([.cells[] | .error_bound | type == "number"] | all)' "$DIR-r2/validate.json" >/dev/null \
  || { echo "--error-goal not applied"; jq '.summary.goal_check' "$DIR-r2/validate.json"; exit 1; }
# The user protocol (the default): one profile, each link at its point-to-point probed
# rate (here loopback's), nothing re-measured: no collective sweep, no gamma step, no
# compute probe, no speed adjustment; the report says so.
U=$DIR-user
"$GCU" validate -p "$PROFILE" --model cnn --schemes none --links unlimited --modes overlap --batch 32 --ranks 2 \
  --iters 6 --warmup 2 --repeats 1 --testbed loopback --no-plots --data "$DATA" --out "$U" 2> "$U.log" \
  || { cat "$U.log"; exit 1; }
jq -e '.grid.protocol == "user" and .grid.predict_rate == "probe" and .grid.link_gamma == "off"
       and .grid.compute_probes == "off" and .grid.speed_adjust == "off" and .compute_probes.used == false
       and .links[0].probed_gbps > 0 and (.links[0].probed_rx_gbps | length) == 2 and .links[0].measured_gbps == null
       and .summary.ok == 1 and (.cells[0].error.total | isfinite)' "$U/validate.json" >/dev/null \
  || { echo "bad user-protocol report"; jq '.grid, .links' "$U/validate.json"; cat "$U.log"; exit 1; }
test ! -e "$U/links/r2-unlimited.json.state.json" || { echo "the user protocol ran a collective sweep"; exit 1; }
grep -q "^protocol user" "$U/validate.txt" && grep -q "probe .* Gbit/s" "$U/validate.txt" \
  || { echo "the table does not state the protocol and the probe"; head -5 "$U/validate.txt"; exit 1; }
if "$GCU" validate -p "$PROFILE" --protocol sideways --out "$U-bad" 2> "$U-bad.log"; then echo "--protocol sideways accepted"; exit 1; fi
grep -q -- "--protocol" "$U-bad.log" || { echo "no clear error for --protocol sideways"; cat "$U-bad.log"; exit 1; }
echo "validate loopback OK"; grep -A3 "^scheme" "$DIR/validate.txt"
