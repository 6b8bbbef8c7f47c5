"""The ground truth's own resolution (issue 12's goals; docs/validation-tta.md "The ground
truth's noise"). Plain python3, no gcu needed.

The protocol's truth is a scheme's iterations to target averaged over a few seeds (three in
the recorded protocols), so it carries seed noise, and every goal stated against it (median
TTA error, Kendall tau of the TTA ranking, the predicted best within 10% of the measured
best) has a ceiling below a perfect score. Two estimates of that ceiling, from the
protocol's own full runs:

- one-seed oracle: each seed's full run "predicts" the truth measured on the other seeds
  (the protocol's statistics, scored the same way: |ln error| over the candidates, Kendall
  tau of TTA in seconds per (target, link), the pick by the least predicted seconds). It is
  what a pilot of 100% with one seed would score: an assumption-free lower reference.
- perfect predictor: each scheme's expected ln iterations known exactly, the truth drawn
  as the mean of N seeds with the pooled seed-to-seed standard deviation of ln iterations
  (N: the protocol's seeds). The expected values are taken as the measured means, whose
  spread already includes noise, so the ranking figures are an upper estimate.

In both, the baseline's prediction is its measured truth (the protocol's measured T_0), and
seconds are iterations times the validate report's measured iteration time (the timing's
own noise is left out: these are the convergence half's ceilings).
"""
import math, random
from collections import defaultdict

from tta_stats import kendall, quant, within
from tta_truth import first_crossing, mean_crossing

SCHEMA = "gcu.validate.tta.noise/1"


def crossings(cv, target):
    """scheme -> seed -> first crossing of `target` (None: not within the run)."""
    return {s: {x: first_crossing(sorted(p), target) for x, p in seeds.items()} for s, seeds in cv.items()}


def truth_of(cross, keep):
    """The protocol's truth (tta_truth.mean_crossing) over the seeds `keep` allows."""
    return mean_crossing([v for x, v in cross.items() if keep(x)])


def _setting(pred, truth, times):
    """One (target, link): Kendall tau of TTA in seconds over the schemes both sides reach,
    and the TTA lost by the pick (least predicted seconds) against the measured best (inf:
    the pick does not reach). pred/truth: scheme -> iterations or None."""
    rows = [s for s in pred if s in times]
    both = [s for s in rows if pred[s] is not None and truth.get(s) is not None]
    tau = kendall([truth[s] * times[s] for s in both], [pred[s] * times[s] for s in both])
    picks = [s for s in rows if pred[s] is not None]
    best = [truth[s] * times[s] for s in rows if truth.get(s) is not None]
    if not picks or not best:
        return tau, None
    p = min(picks, key=lambda s: pred[s] * times[s])
    got = truth.get(p)
    return tau, (math.inf if got is None else got * times[p] / min(best) - 1)


def _score_links(pred, truth, timing, schemes):
    """Every link's Kendall tau and TTA lost (those that are defined), as two lists."""
    taus, lost = [], []
    for link, times in sorted(_links(timing, schemes).items()):
        tau, lo = _setting(pred, truth, times)
        if tau is not None:
            taus.append(tau)
        if lo is not None:
            lost.append(lo)
    return taus, lost


def _links(timing, schemes):
    """{link: {scheme: measured iteration seconds}}; without timing one link of equal times."""
    if not timing:
        return {"equal iteration times": {s: 1.0 for s in schemes}}
    return {l: {s: m for s, (_, m) in t.items()} for l, t in timing.items()}


def one_seed_oracle(cross_by_target, t0_by_target, timing):
    """Each seed's run against the other seeds' truth, per target and link."""
    errs, taus, lost, per_target = [], [], [], []
    for tname, cross in sorted(cross_by_target.items()):
        seeds = sorted({x for c in cross.values() for x in c})
        t_errs, t_taus, t_lost = [], [], []
        for i in seeds:
            pred, truth = {}, {}
            for s, c in cross.items():
                st, it = truth_of(c, lambda x: x != i)
                truth[s] = it if st == "reaches" else None
                pred[s] = c.get(i)
            pred["none"] = truth["none"] = t0_by_target[tname]  # the measured T_0
            t_errs += [abs(math.log(pred[s] / truth[s])) for s in cross
                       if s != "none" and pred[s] is not None and truth[s] is not None]
            taus_i, lost_i = _score_links(pred, truth, timing, cross)
            t_taus += taus_i
            t_lost += lost_i
        per_target.append({"target": tname, "median_abs_log_error": quant(t_errs, 0.5),
                           "kendall_tau_median": quant(t_taus, 0.5), "predicted_best_within_10pct": within(t_lost),
                           "settings": len(t_lost)})
        errs += t_errs
        taus += t_taus
        lost += t_lost
    return {"median_abs_log_error": quant(errs, 0.5), "p90_abs_log_error": quant(errs, 0.9),
            "kendall_tau_median": quant(taus, 0.5), "predicted_best_within_10pct": within(lost),
            "settings": len(lost), "per_target": per_target}


def pooled_log_sd(cross):
    """Pooled seed-to-seed standard deviation of ln iterations over the schemes with >= 2
    seeds that reach (weighted by their degrees of freedom); None without any."""
    ss, df = 0.0, 0
    for c in cross.values():
        xs = [math.log(v) for v in c.values() if v is not None]
        if len(xs) >= 2:
            m = sum(xs) / len(xs)
            ss += sum((x - m) ** 2 for x in xs)
            df += len(xs) - 1
    return math.sqrt(ss / df) if df else None


def perfect_predictor(cross_by_target, t0_by_target, timing, draws=2000, seed=1):
    """The expected values known exactly against an N-seed truth (N: the seeds recorded)."""
    rng = random.Random(seed)
    med_err, med_tau, picks, per_target = [], [], [], []
    sds, mus, ns = {}, {}, {}
    for tname, cross in sorted(cross_by_target.items()):
        ns[tname] = len({x for c in cross.values() for x in c})
        mu = {}
        for s, c in cross.items():
            st, it = truth_of(c, lambda x: True)
            if st == "reaches":
                mu[s] = math.log(it)
        mu["none"] = math.log(t0_by_target[tname])
        mus[tname], sds[tname] = mu, pooled_log_sd(cross)
        per_target.append({"target": tname, "schemes_reaching": len(mu), "seeds": ns[tname], "seed_log_sd": sds[tname]})
    if any(v is None for v in sds.values()):
        return {"seed_log_sd": sds, "draws": 0, "note": "a target has no scheme with two seeds that reach it"}
    by_target = defaultdict(lambda: defaultdict(list))  # target -> statistic -> one value per draw
    for _ in range(draws):
        errs, taus, lost = [], [], []
        for tname, cross in sorted(cross_by_target.items()):
            mu, sd, n = mus[tname], sds[tname], ns[tname]
            truth = {s: (m if s == "none" else m + rng.gauss(0, sd / math.sqrt(n))) for s, m in mu.items()}
            t_errs = [abs(mu[s] - truth[s]) for s in mu if s != "none"]
            pred = {s: math.exp(m) for s, m in mu.items()}
            tr = {s: math.exp(v) for s, v in truth.items()}
            t_taus, t_lost = _score_links(pred, tr, timing, cross)
            by_target[tname]["median_abs_log_error"].append(quant(t_errs, 0.5))
            by_target[tname]["kendall_tau_median"].append(quant(t_taus, 0.5))
            by_target[tname]["predicted_best_within_10pct"].append(within(t_lost))
            errs, taus, lost = errs + t_errs, taus + t_taus, lost + t_lost
        med_err.append(quant(errs, 0.5))
        if taus:
            med_tau.append(quant(taus, 0.5))
        picks.append(within(lost))
    for t in per_target:
        t.update({k: _spread(v) for k, v in by_target[t["target"]].items()})
    return {"seed_log_sd": sds, "draws": draws,
            "median_abs_log_error": _spread(med_err), "kendall_tau_median": _spread(med_tau),
            "predicted_best_within_10pct": _spread(picks), "per_target": per_target}


def _spread(v):
    """Mean and the p10-p90 over the draws (those with a value)."""
    v = [x for x in v if x is not None]
    return None if not v else {"mean": sum(v) / len(v), "p10": quant(v, 0.1), "p90": quant(v, 0.9)}


def analyse(cv, reached, timing=None, draws=2000, seed=1):
    """The document written as truth-noise.json. cv: scheme -> seed -> [(iteration, loss)];
    reached: [(target dict, measured T_0)] (validate_tta.py's reached_targets)."""
    cross = {t["name"]: crossings(cv, t["loss"]) for t, _ in reached}
    t0 = {t["name"]: t0 for t, t0 in reached}
    return {"schema": SCHEMA, "seeds": sorted({x for s in cv.values() for x in s}),
            "links": sorted(_links(timing, cv)), "targets": [t["name"] for t, _ in reached],
            "one_seed_oracle": one_seed_oracle(cross, t0, timing),
            "perfect_predictor": perfect_predictor(cross, t0, timing, draws, seed)}


def table_lines(doc):
    f = lambda v, p="%.2f": "-" if v is None else p % v
    o, p = doc["one_seed_oracle"], doc["perfect_predictor"]
    rng = lambda d, p="%.2f": "-" if not d else "%s (%s-%s)" % (f(d["mean"], p), f(d["p10"], p), f(d["p90"], p))
    lines = ["| estimate | median abs ln err | Kendall tau, median over (target, link) | predicted best within 10% |",
             "|---|---|---|---|",
             "| one-seed oracle (each seed against the others) | %s | %s | %s (%d) |" % (
                 f(o["median_abs_log_error"], "%.3f"), f(o["kendall_tau_median"]), f(o["predicted_best_within_10pct"]),
                 o["settings"]),
             "| perfect predictor against a %d-seed truth (mean, p10-p90 over draws) | %s | %s | %s |" % (
                 len(doc["seeds"]), rng(p.get("median_abs_log_error"), "%.3f"), rng(p.get("kendall_tau_median")),
                 rng(p.get("predicted_best_within_10pct")))]
    lines += ["", "seed-to-seed sd of ln iterations: " + ", ".join(
        "%s %s" % (k, f(v, "%.3f")) for k, v in sorted(p["seed_log_sd"].items()))]
    return lines
