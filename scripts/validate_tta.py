#!/usr/bin/env python3
"""TTA validation (scripts/validate_tta.sh; docs/validation-tta.md). Plain python3.

  validate_tta.py targets BASELINE.jsonl T_FULL      -> targets JSON on stdout
  validate_tta.py pilot-length OUT_DIR               -> the longest pilot the protocol needs (iterations)
  validate_tta.py late-branches OUT_DIR              -> "BRANCH ITERATIONS" per target: the late pilots
                                                        (gcu pilot run --branch-at) at T_0/2
  validate_tta.py truth-noise OUT_DIR [--timing VALIDATE_JSON]... [--draws N] [--more-runs DIR]...
                                                     -> OUT_DIR/truth-noise.{json,md}: the goals' ceilings
                                                        under the ground truth's seed noise (tta_noise.py)
  validate_tta.py summary OUT_DIR [--gcu G] [--cap C] [--extrapolation-sigma LO,HI] [--pilot-arg ARG]...
                           [--timing VALIDATE_JSON]... [--pilots PILOTS.jsonl] [--pilot-seeds S1,S2]
                           [--sequential] [--more-runs DIR]... [--suffix S]
                                                     -> OUT_DIR/summary.json, OUT_DIR/table.md
                                                        (+ table-links.md with --timing); with
                                                        --suffix=-late: summary-late.json, ...
With --pilots, the predictions come from separately recorded pilot runs (`gcu pilot run
--iterations` of the longest pilot, same settings and seeds): their eval records carry the
noise scale and relative error measured so far, as a user's pilot would. Without it, a
pilot is the prefix of a ground-truth run, whose run record averages those figures over
the whole run (a leak; every prediction says `figures_over: whole run`).
With --timing, iterations to target are combined with the iteration times of a
`gcu validate` report of the same model, ranks and batch (tta_links.py): time-to-accuracy
in seconds per link, predicted (pilot iterations x the model's iteration time) against
measured (measured iterations x the testbed's measured iteration time).
With --more-runs, the ground truth also takes runs-*.jsonl of further seeds recorded in
another directory (same settings; a scheme and seed recorded twice is refused), e.g. a
5-seed truth for pilots of seeds 1-3 (--pilot-seeds 1,2,3).
With --sequential, the sequential design of `gcu pilot run --sequential` is replayed on
the recorded pilots, per target: the baseline's every seed and each candidate's first
seed; a candidate whose prediction says "more_seeds" gets its next seed, until it does
not, has them all, or its `never` is repeated with one seed more (a replicated `never`).
With --timing, a predicted best that has fewer seeds is confirmed with its every-seed
prediction (tta_links.py). The cost columns count the seeds used.
"""
import argparse, atexit, json, math, os, subprocess, sys, tempfile
from collections import defaultdict

import tta_links, tta_noise
from tta_truth import (PILOT_FRACTIONS, SAME_SETTINGS, complete_runs, curves, ground_truth,  # noqa: F401
                       load, load_targets, longest_pilot, measured, pilot_length, reached_targets, targets)
from tta_stats import kendall, quant


def protocol_reached(out):
    """The targets the protocol directory's baseline reaches, with its T_0 for each."""
    cv = curves(ground_truth(out))
    if "none" not in cv:
        sys.exit("validate_tta.py: %s has no runs of the baseline 'none'" % out)
    reached = reached_targets(cv, load_targets(out))
    if not reached:
        sys.exit("validate_tta.py: the baseline reaches none of the targets in %s" % out)
    return reached


def protocol_pilot_length(out):
    """The longest pilot the protocol directory's targets need (pilot-length)."""
    return longest_pilot(protocol_reached(out))[0]


def late_branches(out):
    """Late pilots the protocol runs (late-branches): per reached target, the branch point
    round(T_0 / 2) and the 10% pilot's length, as "BRANCH ITERATIONS" lines."""
    return sorted({(int(round(t0 / 2)), pilot_length(max(PILOT_FRACTIONS), t0)) for _, t0 in protocol_reached(out)})


def separate_pilots(path, cfg, schemes, seeds, cv):
    """Records of a separately recorded pilot file, checked against the ground truth's settings.
    Returns (records, their iterations, max |loss difference| against the ground truth's prefix)."""
    try:
        recs = load(path)
    except (OSError, ValueError) as e:
        sys.exit("validate_tta.py: --pilots %s: %s" % (path, e))
    pcfg = next((r for r in recs if r.get("type") == "config"), None)
    if pcfg is None:
        sys.exit("validate_tta.py: --pilots %s: no config record (is it a gcu pilot run file?)" % path)
    for k in SAME_SETTINGS:
        if pcfg.get(k) != cfg.get(k):
            sys.exit("validate_tta.py: --pilots %s: %s is %r, the ground truth's is %r" % (path, k, pcfg.get(k), cfg.get(k)))
    have = defaultdict(set)
    for r in recs:
        if r.get("type") == "run":
            have[r["scheme"]].add(r["seed"])
    missing = ["%s seed %s" % (s, x) for s in sorted(schemes) for x in seeds if x not in have.get(s, ())]
    if missing:
        sys.exit("validate_tta.py: --pilots %s: no finished pilot for %s" % (path, ", ".join(missing)))
    recs = [r for r in recs if r["type"] == "config" or
            (r["type"] in ("eval", "run") and r["scheme"] in schemes and r["seed"] in seeds)]
    truth = {(s, x): dict(pts) for s in schemes for x, pts in cv[s].items()}
    diff = 0.0
    branch_at = 0  # late pilots (gcu pilot run --branch-at) follow the baseline to their branch point
    for r in recs:
        if r["type"] == "config":
            branch_at = r.get("branch_at", 0)
        if r["type"] == "eval" and r["loss"] is not None and not branch_at:
            ref = truth.get((r["scheme"], r["seed"]), {}).get(r["iteration"])
            if ref is not None:
                diff = max(diff, abs(ref - r["loss"]))
    return recs, pcfg["iterations"], diff


def write_pilot_file(out, recs, all_seeds, keep):
    """A temporary file (removed on exit) of the config and the records keep(scheme, seed) allows."""
    fd, path = tempfile.mkstemp(prefix=".pilot-runs.", suffix=".jsonl", dir=out)
    atexit.register(os.remove, path)
    with os.fdopen(fd, "w") as f:
        for r in recs:
            if r["type"] == "config":
                r = dict(r, seeds=[x for x in r.get("seeds", all_seeds) if keep(None, x)])
            elif not keep(r.get("scheme"), r.get("seed")):
                continue
            f.write(json.dumps(r) + "\n")
    return path


def truth_noise(out, timing_paths=(), draws=2000, more_runs=()):
    """OUT/truth-noise.json and .md: the ceilings the ground truth's seed noise sets (tta_noise.py)."""
    recs, _ = complete_runs(out, more_runs)
    cv = curves(recs)
    if "none" not in cv:
        sys.exit("validate_tta.py: %s has no runs of the baseline 'none'" % out)
    reached = reached_targets(cv, load_targets(out))
    if not reached:
        sys.exit("validate_tta.py: the baseline reaches none of the targets in %s" % out)
    seeds = {r["seed"] for r in recs if r["type"] == "run"}
    if len(seeds) < 2:
        sys.exit("validate_tta.py: truth-noise needs ground-truth runs of >= 2 seeds, %s has %d" % (out, len(seeds)))
    cfg = next(r for r in recs if r["type"] == "config")
    timing = (tta_links.load_timing(timing_paths, cfg["workers"], cfg["batch_size"], cfg["model"])
              if timing_paths else None)
    doc = tta_noise.analyse(cv, reached, timing, draws)
    doc["timing_reports"] = list(timing_paths)
    write_atomic(os.path.join(out, "truth-noise.json"), json.dumps(doc, indent=1) + "\n")
    lines = tta_noise.table_lines(doc)
    write_atomic(os.path.join(out, "truth-noise.md"), "\n".join(lines) + "\n")
    print("\n".join(lines))


def summary(out, gcu, cap, sigma=None, timing_paths=(), pilot_seeds=None, pilot_args=(), pilots=None,
            sequential=False, more_runs=(), suffix=""):
    recs, done = complete_runs(out, more_runs)
    tg = load_targets(out)
    cv = curves(recs)
    cap_iters = max(r["iterations"] for r in recs if r["type"] == "config")  # the runs' length: CAP x T_FULL
    runs = [r for r in recs if r["type"] == "run"]
    cfg = next(r for r in recs if r["type"] == "config")
    allruns = os.path.join(out, "all-runs.jsonl")
    with open(allruns, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    # The pilots: every seed, or only --pilot-seeds (cheaper pilots; the ground truth keeps
    # every seed).
    all_seeds = sorted({r["seed"] for r in runs})
    pilot_file, pilot_seed_list = allruns, all_seeds
    if pilot_seeds:
        missing = [x for x in pilot_seeds if x not in all_seeds]
        if missing:
            sys.exit("validate_tta.py: --pilot-seeds %s: not among the runs' seeds %s" % (missing, all_seeds))
        pilot_seed_list = sorted(pilot_seeds)
    reached = reached_targets(cv, tg)
    pilot_recs, pilot_max, prefix_diff = recs, None, None
    if pilots:
        pilot_recs, pilot_max, prefix_diff = separate_pilots(pilots, cfg, done, pilot_seed_list, cv)
        need, frac, t = longest_pilot(reached) if reached else (0, 0, None)
        if pilot_max < need:
            sys.exit("validate_tta.py: --pilots %s: %d iterations, the %g%% pilot of %s needs %d "
                     "(validate_tta.py pilot-length %s)" % (pilots, pilot_max, 100 * frac, t["name"], need, out))
    if pilot_seeds or pilots or sequential:
        # The records gcu pilot predict reads; temporary files, removed on exit.
        pilot_file = write_pilot_file(out, pilot_recs, all_seeds, lambda sc, x: x in pilot_seed_list)
    stage_files = []
    if sequential:
        # The sequential design's stages k = 1 .. n-1: the baseline's every seed, each
        # candidate's first k seeds (the last stage, every seed, is pilot_file).
        for k in range(1, len(pilot_seed_list)):
            stage_files.append(write_pilot_file(
                out, pilot_recs, all_seeds,
                lambda sc, x, k=k: x in pilot_seed_list and (sc in (None, "none") or x in pilot_seed_list[:k])))
    cases = []
    baseline_pred = {}  # (target name, pilot fraction, T_0 source) -> gcu's prediction for "none"
    for t, t0 in reached:
        truth = {s: measured(cv[s], t["loss"]) for s in cv}
        for frac in PILOT_FRACTIONS:
            pilot = pilot_length(frac, t0)
            for t0_mode in ("measured", "extrapolated"):
                args = ["--target", repr(t["loss"]), "--pilot-iterations", str(pilot), "--max-multiplier", "100"]
                if sigma:
                    args += ["--extrapolation-sigma", sigma]
                args += list(pilot_args)
                if t0_mode == "measured":
                    args += ["--baseline-iterations", repr(t0)]
                run = lambda f: json.loads(subprocess.run([gcu, "pilot", "predict", f] + args, check=True,
                                                          capture_output=True, text=True).stdout)
                pred = run(pilot_file)
                seeds_used = {s: len(pilot_seed_list) for s in pred}
                full_pred = {}  # cases decided before the last stage: the every-seed prediction
                undecided = set(pred) - {"none"}
                before = {}  # each undecided candidate's prediction with one seed fewer
                for k, f in enumerate(stage_files, start=1):
                    stage = run(f)
                    for s in sorted(undecided):
                        # A `never` that the next seed repeats is replicated: it stops there
                        # (convergence/pilot_sequential.h, sequential_runs_next_seed).
                        replicated = stage[s]["status"] == "never" and before.get(s, {}).get("status") == "never"
                        before[s] = stage[s]
                        if not stage[s].get("more_seeds") or replicated:
                            full_pred[s] = pred[s]
                            pred[s], seeds_used[s] = stage[s], k
                            undecided.discard(s)
                baseline_pred[(t["name"], frac, t0_mode)] = dict(pred["none"], measured_iterations=t0)
                for s, p in pred.items():
                    if s == "none":
                        continue
                    ms, mi = truth[s]
                    # Ground truth is censored at CAP x T_FULL iterations: a predicted
                    # "reaches" beyond that is scored as "never" (within the cap).
                    ps = p["status"]
                    if ps == "reaches" and p["iterations"] and p["iterations"] > cap_iters:
                        ps = "never"
                    # Ground truth is capped at CAP x T_FULL: predictions beyond it count as "never".
                    cases.append({"target": t["name"], "target_loss": t["loss"], "pilot_fraction": frac,
                                  "pilot_iterations": pilot, "t0_source": t0_mode, "baseline_iterations": t0,
                                  "scheme": s, "measured_status": ms, "measured_iterations": mi,
                                  "predicted_status": ps, "model_status": p["status"],
                                  "predicted_iterations": p["iterations"],
                                  "interval": p["interval"], "basis": p["basis"], "evidence": p["evidence"],
                                  "widened": p["widened"], "noise_scale_multiplier": p["noise_scale_multiplier"],
                                  "figures_over": p.get("figures_over"), "pilot_seeds_used": seeds_used[s]})
                    if s in full_pred:  # for tta_links' confirmation of the pick
                        f = full_pred[s]
                        fs = "never" if f["status"] == "reaches" and f["iterations"] and f["iterations"] > cap_iters else f["status"]
                        cases[-1]["full"] = {"predicted_status": fs, "predicted_iterations": f["iterations"],
                                             "pilot_seeds_used": len(pilot_seed_list)}
    groups = defaultdict(list)
    for c in cases:
        groups[(c["pilot_fraction"], c["t0_source"])].append(c)
    # Late pilots among the pilot records (gcu pilot run --branch-at): their own cost per
    # case, the branch gcu pilot predict uses (closest to T_0/2 below T_0) times the seeds
    # the case's pilots used (a late pilot's seeds follow its candidate's).
    late_cfgs = [r for r in pilot_recs if r["type"] == "config" and r.get("branch_at", 0) > 0]

    def late_cost(c):
        below = [r for r in late_cfgs if r["branch_at"] < c["baseline_iterations"]]
        if not below:
            return 0.0
        r = min(below, key=lambda r: abs(r["branch_at"] - c["baseline_iterations"] / 2))
        used = set(pilot_seed_list[:c["pilot_seeds_used"]]) & set(r.get("seeds", pilot_seed_list))
        return r["iterations"] / c["baseline_iterations"] * len(used)

    settings = []
    n_seeds = len(pilot_seed_list)  # the pilots' seeds (the cost)
    for (frac, mode), cs in sorted(groups.items()):
        both = [c for c in cs if c["measured_status"] == "reaches" and c["predicted_iterations"]]
        lr = [math.log(c["predicted_iterations"] / c["measured_iterations"]) for c in both]
        # The cases a user would act on: predicted `reaches` (confident), measured reaching.
        lr_sure = [x for x, c in zip(lr, both) if c["predicted_status"] == "reaches"]
        dec = [c for c in both if c["predicted_status"] == "reaches" and c["interval"]]
        cover = [c["interval"][0] <= c["measured_iterations"] <= c["interval"][1] for c in dec]
        conf = defaultdict(int)
        for c in cs:
            conf["%s->%s" % (c["measured_status"], c["predicted_status"])] += 1
        decided = [c for c in cs if c["predicted_status"] in ("reaches", "never")]
        right = [c for c in decided if c["predicted_status"] == c["measured_status"]]
        false_reach = [c for c in cs if c["predicted_status"] == "reaches" and c["measured_status"] == "never"]
        taus, lost = [], []
        for tname in sorted({c["target"] for c in cs}):
            tc = [c for c in cs if c["target"] == tname]
            rk = [c for c in tc if c["measured_status"] == "reaches" and c["predicted_iterations"]]
            if len(rk) >= 2:
                taus.append(kendall([c["measured_iterations"] for c in rk], [c["predicted_iterations"] for c in rk]))
            pick = [c for c in tc if c["predicted_status"] != "never" and c["predicted_iterations"]]
            reach = [c for c in tc if c["measured_status"] == "reaches"]
            if pick and reach:
                best_pred = min(pick, key=lambda c: c["predicted_iterations"])
                best = min(c["measured_iterations"] for c in reach)
                got = best_pred["measured_iterations"]
                lost.append(None if got is None else got / best - 1)
        settings.append({
            "pilot_fraction": frac, "t0_source": mode, "cases": len(cs), "with_both_numbers": len(both),
            "median_abs_log_error": quant([abs(x) for x in lr], 0.5),
            "p90_abs_log_error": quant([abs(x) for x in lr], 0.9),
            "bias_median_log": quant(lr, 0.5),
            "predicted_reaches_cases": len(lr_sure),
            "median_abs_log_error_predicted_reaches": quant([abs(x) for x in lr_sure], 0.5),
            "p90_abs_log_error_predicted_reaches": quant([abs(x) for x in lr_sure], 0.9),
            "interval_coverage": (sum(cover) / len(cover)) if cover else None, "interval_cases": len(cover),
            "median_interval_width_rel": quant([(c["interval"][1] - c["interval"][0]) / c["predicted_iterations"]
                                                for c in dec], 0.5),
            "confusion": dict(conf),
            "decided_right_fraction": (len(right) / len(decided)) if decided else None, "decided": len(decided),
            "false_reaches_fraction": len(false_reach) / len(cs) if cs else None,
            "kendall_tau_per_target": taus,
            "tta_lost_by_predicted_best": lost,
            # The baseline's seeds plus each candidate's (per target, averaged over the targets).
            "pilot_cost_vs_one_baseline_run": frac * (n_seeds + sum(c["pilot_seeds_used"] for c in cs)
                                                      / max(1, len({c["target"] for c in cs}))),
            # One candidate's own pilots (its seeds, mean over the cases; the baseline's are shared by all).
            "pilot_cost_per_scheme_vs_one_baseline_run": frac * sum(c["pilot_seeds_used"] for c in cs) / max(1, len(cs)),
            "cases_with_more_seeds": sum(c["pilot_seeds_used"] > 1 for c in cs) if sequential else None,
            # The late pilots' own cost per candidate (none: no late pilots among the records).
            "late_pilot_cost_per_scheme_vs_one_baseline_run": (sum(late_cost(c) for c in cs) / max(1, len(cs))
                                                               if late_cfgs else None),
        })
    doc = {"schema": "gcu.validate.tta/1", "task": cfg["task"], "model": cfg["model"],
           "config": {k: cfg[k] for k in ("workers", "batch_size", "lr", "momentum", "eval_samples", "eval_resolution")},
           "seeds": all_seeds, "pilot_seeds": pilot_seed_list, "sequential": sequential, "schemes": sorted({r["scheme"] for r in runs}),
           "targets": tg, "cap_multiplier": cap, "pilot_args": list(pilot_args),
           "pilot_source": ("separate pilot runs: %s (%d iterations)" % (os.path.basename(pilots), pilot_max) if pilots
                            else "prefixes of the ground-truth runs (noise scale and relative error over the whole run)"),
           "pilot_prefix_max_abs_loss_difference": prefix_diff,
           "note": "iterations to target: simulated workers in one process; the rows of settings[] rank schemes by "
                   "iterations (equal iteration times); links[] ranks them by seconds with the iteration times of "
                   "a gcu validate report",
           "settings": settings, "cases": cases}
    link_lines = []
    if timing_paths:
        timing = tta_links.load_timing(timing_paths, cfg["workers"], cfg["batch_size"], cfg["model"])
        result = tta_links.score(cases, baseline_pred, timing)
        if sequential:  # the pilots' cost with the picks confirmed (every link of a target)
            for st in settings:
                key = (st["pilot_fraction"], st["t0_source"])
                per_target = []
                for tname in sorted({c["target"] for c in cases}):
                    conf = {x for r in result.get(key, []) if r["target"] == tname for x in r["confirmed"]}
                    cs = [c for c in cases if (c["pilot_fraction"], c["t0_source"], c["target"]) == key + (tname,)]
                    used = [len(pilot_seed_list) if c["scheme"] in conf else c["pilot_seeds_used"] for c in cs]
                    per_target.append(sum(used) / max(1, len(used)))
                st["pilot_cost_per_scheme_with_confirmed_picks"] = st["pilot_fraction"] * sum(per_target) / max(1, len(per_target))
        doc["timing_reports"] = list(timing_paths)
        doc["links"], link_lines = tta_links.summarise(result)
        link_lines += ["", "Per (target, link), 10% pilots, measured T_0:", ""] + tta_links.detail_lines(result, 0.10, "measured")
        link_lines += ["", "Per (target, link), 3% pilots, measured T_0:", ""] + tta_links.detail_lines(result, 0.03, "measured")
    write_atomic(os.path.join(out, "summary%s.json" % suffix), json.dumps(doc, indent=1) + "\n")
    fmt = lambda v, p="%.3f": "-" if v is None else p % v
    lines = ["| pilot | T_0 | cases | median abs ln err | p90 | bias (median ln) | coverage (n) | median width / estimate | decided right (n) | false reaches | Kendall tau | TTA lost by predicted best | pilot cost / baseline run (all; per scheme) | median / p90 abs ln err, predicted reaches (n) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in settings:
        lines.append("| %d%% | %s | %d | %s | %s | %s | %s (%d) | %s | %s (%d) | %s | %s | %s | %.2f; %.2f%s | %s / %s (%d) |" % (
            round(100 * s["pilot_fraction"]), s["t0_source"], s["cases"], fmt(s["median_abs_log_error"]),
            fmt(s["p90_abs_log_error"]), fmt(s["bias_median_log"], "%+.3f"), fmt(s["interval_coverage"], "%.2f"),
            s["interval_cases"], fmt(s["median_interval_width_rel"], "%.2f"), fmt(s["decided_right_fraction"], "%.2f"), s["decided"],
            fmt(s["false_reaches_fraction"], "%.2f"), ", ".join(fmt(x, "%.2f") for x in s["kendall_tau_per_target"]),
            ", ".join(fmt(x, "%+.0f%%") if x is None else "%+.0f%%" % (100 * x) for x in s["tta_lost_by_predicted_best"]),
            s["pilot_cost_vs_one_baseline_run"], s["pilot_cost_per_scheme_vs_one_baseline_run"],
            ("" if "pilot_cost_per_scheme_with_confirmed_picks" not in s else
             "; %.2f with the picks confirmed" % s["pilot_cost_per_scheme_with_confirmed_picks"]) +
            ("" if s["late_pilot_cost_per_scheme_vs_one_baseline_run"] is None else
             "; late pilots +%.2f per scheme" % s["late_pilot_cost_per_scheme_vs_one_baseline_run"]),
            fmt(s["median_abs_log_error_predicted_reaches"]), fmt(s["p90_abs_log_error_predicted_reaches"]),
            s["predicted_reaches_cases"]))
    write_atomic(os.path.join(out, "table%s.md" % suffix), "\n".join(lines) + "\n")
    print("\n".join(lines))
    if link_lines:
        write_atomic(os.path.join(out, "table-links%s.md" % suffix), "\n".join(link_lines) + "\n")
        print("\nTTA in seconds per link (iteration times from %s):\n" % ", ".join(timing_paths))
        print("\n".join(link_lines))


def write_atomic(path, text):
    """Writes text to path through a temporary file in the same directory, then a rename."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("targets", help="targets JSON from the baseline's runs")
    t.add_argument("baseline")
    t.add_argument("t_full", type=float)
    pl = sub.add_parser("pilot-length", help="the longest pilot (iterations) the protocol's targets need")
    pl.add_argument("out")
    lb = sub.add_parser("late-branches", help="the late pilots (gcu pilot run --branch-at) the protocol runs: "
                                              "'BRANCH ITERATIONS' per target (T_0/2, the 10%% pilot's length)")
    lb.add_argument("out")
    m = sub.add_parser("summary", help="score the predictions of a protocol directory")
    m.add_argument("out")
    m.add_argument("--gcu", default="build/cli/gcu")
    m.add_argument("--cap", type=float, default=2.0)
    m.add_argument("--extrapolation-sigma", default=None, help="LO,HI (gcu pilot predict)")
    m.add_argument("--pilot-arg", action="append", default=[], metavar="ARG",
                   help="passed on to every gcu pilot predict (repeatable; e.g. --pilot-arg=--biased-rule=off)")
    m.add_argument("--timing", action="append", default=[], metavar="VALIDATE_JSON",
                   help="a gcu validate report of the same model, ranks and batch (repeatable)")
    def seed_list(text):
        try:
            return [int(x) for x in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError("seeds are integers separated by commas, got %r" % text)
    m.add_argument("--pilot-seeds", default=None, type=seed_list, metavar="S1,S2",
                   help="predict from the pilots of these seeds only (the ground truth keeps every seed)")
    m.add_argument("--pilots", default=None, metavar="PILOTS_JSONL",
                   help="separately recorded pilot runs (gcu pilot run, same settings and seeds, at least "
                        "pilot-length iterations): predictions use their own running figures")
    m.add_argument("--sequential", action="store_true",
                   help="replay gcu pilot run --sequential: candidates' first seed, every seed only where "
                        "the first says more_seeds")
    def name_suffix(text):
        if not all(ch.isalnum() or ch in "-_." for ch in text) or text.startswith("."):
            raise argparse.ArgumentTypeError("a suffix is letters, digits, '-', '_' or '.', not starting with '.': %r" % text)
        return text
    m.add_argument("--suffix", default="", type=name_suffix, metavar="S",
                   help="write summaryS.json, tableS.md and table-linksS.md (e.g. -late: the late pilots' "
                        "scoring beside the pilots' own)")
    n = sub.add_parser("truth-noise", help="the ceilings the ground truth's own seed noise sets on the goals "
                                           "(one-seed oracle, perfect predictor; no gcu needed)")
    n.add_argument("out")
    n.add_argument("--draws", type=int, default=2000, help="draws of the perfect predictor's truth")
    n.add_argument("--timing", action="append", default=[], metavar="VALIDATE_JSON",
                   help="a gcu validate report of the same model, ranks and batch (repeatable): TTA in seconds per link")
    for p in (m, n):
        p.add_argument("--more-runs", action="append", default=[], metavar="DIR",
                       help="ground-truth runs of further seeds (runs-*.jsonl, the same settings) recorded in "
                            "another directory (repeatable); with summary, --pilot-seeds names the pilots' seeds")
    a = ap.parse_args()
    if a.cmd == "truth-noise" and a.draws < 1:
        ap.error("--draws must be >= 1")
    if a.cmd == "targets":
        json.dump(targets(a.baseline, a.t_full), sys.stdout, indent=1)
    elif a.cmd == "pilot-length":
        print(protocol_pilot_length(a.out))
    elif a.cmd == "late-branches":
        for b, n in late_branches(a.out):
            print(b, n)
    elif a.cmd == "truth-noise":
        try:
            truth_noise(a.out, a.timing, a.draws, a.more_runs)
        except tta_links.TimingError as e:
            sys.exit("validate_tta.py: %s" % e)
    else:
        try:
            summary(a.out, a.gcu, a.cap, a.extrapolation_sigma, a.timing, a.pilot_seeds, a.pilot_arg, a.pilots,
                    a.sequential, a.more_runs, a.suffix)
        except tta_links.TimingError as e:
            sys.exit("validate_tta.py: %s" % e)
