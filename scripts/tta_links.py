"""Time-to-accuracy in seconds per link (docs/validation-tta.md, "End to end").

Iterations to a target do not depend on the link (synchronous data parallelism: the same
arithmetic at any bandwidth), iteration time does. This module joins the TTA protocol's
cases (scripts/validate_tta.py: measured and predicted iterations per scheme, target,
pilot fraction and T_0 source) with a `gcu validate` report (gcu.validate/1) of the same
model, ranks and per-rank batch: per link,

  predicted TTA = predicted iterations (gcu pilot predict) x predicted iteration time (gcu's model)
  measured TTA  = measured iterations (runs to the target) x measured iteration time (the testbed)

and scores, per (target, link), the ranking of the schemes (FP32 and FP16 included: the
question is whether compression pays), the TTA lost by running the predicted-best scheme
(picked as `gcu recommend` ranks: predicted `reaches` before `uncertain`, never-reaching
ones not at all), and two one-sided pickers for comparison: the scheme with the fastest
predicted iteration (what a tool that models time alone picks, whatever its convergence)
and the one with the fewest predicted iterations (convergence alone, same status rule);
and, to tell which half of the prediction loses, the picks with the measured iterations
(and predicted times) and with the measured iteration times (and predicted iterations).
"""
import json, math
from collections import defaultdict

from tta_stats import kendall, quant, within


class TimingError(Exception):
    pass


def load_timing(paths, workers, batch, model, mode="overlap"):
    """validate.json files -> {link: {scheme: (predicted_s, measured_s)}}.

    Only cells that ran (status ok) in `mode` with `workers` ranks, per-rank batch `batch`
    and `model`; a later file's cell replaces an earlier one's. Raises TimingError when a
    file is unreadable, not gcu.validate/1, or has no matching cell."""
    out = defaultdict(dict)
    for path in paths:
        try:
            with open(path) as f:
                v = json.load(f)
        except (OSError, ValueError) as e:
            raise TimingError("%s: cannot read a gcu validate report: %s" % (path, e))
        if not isinstance(v, dict) or not str(v.get("schema", "")).startswith("gcu.validate/"):
            raise TimingError("%s: not a gcu validate report (schema gcu.validate/1)" % path)
        stat = v.get("statistic", "mean")
        stat = stat if stat in ("mean", "median") else "mean"
        cells = v.get("cells")
        if not isinstance(cells, list) or not all(isinstance(c, dict) and isinstance(c.get("settings", {}), dict)
                                                  for c in cells):
            raise TimingError("%s: 'cells' is not a list of cell objects" % path)
        n = 0
        for c in cells:
            s = c.get("settings", {})
            if (c.get("status") != "ok" or s.get("mode") != mode or s.get("ranks") != workers
                    or s.get("batch") != batch or s.get("model") != model):
                continue
            try:
                pred, meas = c["predicted"]["total"], c["measured"]["total"][stat]
            except (KeyError, TypeError):
                raise TimingError("%s: cell %s/%s has no predicted and measured total" % (path, s.get("scheme"), s.get("link")))
            if not (isinstance(pred, (int, float)) and isinstance(meas, (int, float))
                    and math.isfinite(pred) and math.isfinite(meas) and pred > 0 and meas > 0):
                raise TimingError("%s: cell %s/%s has no finite positive iteration time" % (path, s.get("scheme"), s.get("link")))
            out[s["link"]][s["scheme"]] = (pred, meas)
            n += 1
        if n == 0:
            raise TimingError("%s: no cell with mode %s, %d ranks, batch %d and model %s" % (path, mode, workers, batch, model))
    return dict(out)


def _lost(rows, key, confident_first=True):
    """TTA lost by running the scheme that minimises `key` (None: no pick) against the
    measured best; inf when the pick never reaches the target. confident_first: as
    `gcu recommend` ranks by TTA, schemes predicted `reaches` before `uncertain` ones."""
    pick = [r for r in rows if key(r) is not None]
    if confident_first:
        pick = [r for r in pick if r["predicted_status"] == "reaches"] or pick
    best = [r["measured_s"] for r in rows if r["measured_s"] is not None]
    if not pick or not best:
        return None, None
    p = min(pick, key=key)
    got = p["measured_s"]
    return p["scheme"], (math.inf if got is None else got / min(best) - 1)


def score(cases, baseline_pred, timing):
    """Per (pilot fraction, T_0 source): the (target, link) settings and their statistics."""
    groups = defaultdict(list)
    for c in cases:
        groups[(c["pilot_fraction"], c["t0_source"], c["target"])].append(c)
    result = defaultdict(list)
    for (frac, t0, target), cs in sorted(groups.items()):
        base = baseline_pred[(target, frac, t0)]
        entries = [{"scheme": "none", "measured_status": "reaches", "measured_iterations": base["measured_iterations"],
                    "predicted_status": base["status"], "predicted_iterations": base["iterations"]}] + cs
        for link, times in sorted(timing.items()):
            rows, confirmed = _confirmed_rows(entries, times)
            both = [r for r in rows if r["predicted_s"] is not None and r["measured_s"] is not None]
            pick, lost = _lost(rows, lambda r: r["predicted_s"])
            tpick, tlost = _lost(rows, lambda r: r["predicted_iteration_s"], confident_first=False)
            ipick, ilost = _lost(rows, lambda r: r["predicted_iterations"])
            # Attribution: each half of the prediction replaced by its measurement.
            _, mi_lost = _lost(rows, lambda r: None if r["measured_iterations"] is None
                               else r["measured_iterations"] * r["predicted_iteration_s"], confident_first=False)
            _, mt_lost = _lost(rows, lambda r: None if r["predicted_iterations"] is None
                               else r["predicted_iterations"] * r["measured_iteration_s"])
            mbest = min((r for r in rows if r["measured_s"] is not None), key=lambda r: r["measured_s"], default=None)
            result[(frac, t0)].append({
                "target": target, "link": link, "schemes": len(rows),
                "log_errors": [math.log(r["predicted_s"] / r["measured_s"]) for r in both],
                "kendall_tau": kendall([r["measured_s"] for r in both], [r["predicted_s"] for r in both]),
                "measured_best": None if mbest is None else mbest["scheme"],
                "predicted_best": pick, "tta_lost": lost,
                "time_only_pick": tpick, "time_only_lost": tlost,
                "iterations_only_pick": ipick, "iterations_only_lost": ilost,
                "measured_iterations_lost": mi_lost, "measured_iteration_time_lost": mt_lost,
                "confirmed": confirmed, "rows": rows})
    return result


def _rows(entries, times):
    rows = []
    for e in entries:
        if e["scheme"] not in times:
            continue
        pt, mt = times[e["scheme"]]
        pi = e["predicted_iterations"] if e["predicted_status"] != "never" else None
        mi = e["measured_iterations"] if e["measured_status"] == "reaches" else None
        rows.append({"scheme": e["scheme"], "predicted_status": e["predicted_status"],
                     "predicted_iteration_s": pt, "measured_iteration_s": mt,
                     "predicted_iterations": pi, "measured_iterations": mi,
                     "predicted_s": None if pi is None else pi * pt, "measured_s": None if mi is None else mi * mt})
    return rows


def _confirmed_rows(entries, times):
    """The rows of one link. The sequential design's last step: while the predicted best
    was piloted with one seed and a case carries its every-seed prediction ("full"), that
    prediction replaces it (the pick is confirmed with more seeds) and the pick is redone.
    Returns the rows and the schemes confirmed."""
    entries = [dict(e) for e in entries]
    confirmed = []
    while True:
        rows = _rows(entries, times)
        pick, _ = _lost(rows, lambda r: r["predicted_s"])
        e = next((e for e in entries if e["scheme"] == pick and e.get("full")), None)
        if e is None:
            return rows, confirmed
        e.update(e.pop("full"))
        confirmed.append(pick)


def summarise(result):
    """One dict per (pilot fraction, T_0 source) for summary.json, and the markdown lines."""
    out, lines = [], [
        "| pilot | T_0 | settings (target x link) | median abs ln TTA err | p90 | Kendall tau (median; min) | "
        "predicted best within 10% | median TTA lost | time-only pick within 10% | iterations-only pick within 10% | "
        "pick with measured iterations within 10% | pick with measured iteration times within 10% |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    fmt = lambda v, p="%.2f": "-" if v is None else p % v
    for (frac, t0), settings in sorted(result.items()):
        errs = sorted(abs(x) for s in settings for x in s["log_errors"])
        taus = [s["kendall_tau"] for s in settings if s["kendall_tau"] is not None]
        lost = [s["tta_lost"] for s in settings if s["tta_lost"] is not None]
        d = {"pilot_fraction": frac, "t0_source": t0, "settings": len(settings),
             "median_abs_log_tta_error": quant(errs, 0.5),
             "p90_abs_log_tta_error": quant(errs, 0.9),
             "kendall_tau_median": quant(taus, 0.5), "kendall_tau_min": min(taus) if taus else None,
             "predicted_best_within_10pct": within(lost), "median_tta_lost": quant(lost, 0.5),
             "time_only_within_10pct": within([s["time_only_lost"] for s in settings]),
             "iterations_only_within_10pct": within([s["iterations_only_lost"] for s in settings]),
             "measured_iterations_within_10pct": within([s["measured_iterations_lost"] for s in settings]),
             "measured_iteration_time_within_10pct": within([s["measured_iteration_time_lost"] for s in settings]),
             # The sequential design: schemes whose one-seed pick was confirmed with every seed.
             "confirmed_picks_mean": sum(len(s.get("confirmed", [])) for s in settings) / len(settings),
             "per_setting": [{k: v for k, v in s.items() if k != "log_errors"} for s in settings]}
        out.append(d)
        lines.append("| %d%% | %s | %d | %s | %s | %s; %s | %s (%d) | %s | %s | %s | %s | %s |" % (
            round(100 * frac), t0, len(settings), fmt(d["median_abs_log_tta_error"], "%.3f"),
            fmt(d["p90_abs_log_tta_error"], "%.3f"), fmt(d["kendall_tau_median"]), fmt(d["kendall_tau_min"]),
            fmt(d["predicted_best_within_10pct"]), len(lost),
            "-" if d["median_tta_lost"] is None else ("never" if d["median_tta_lost"] == math.inf else "%+.0f%%" % (100 * d["median_tta_lost"])),
            fmt(d["time_only_within_10pct"]), fmt(d["iterations_only_within_10pct"]),
            fmt(d["measured_iterations_within_10pct"]), fmt(d["measured_iteration_time_within_10pct"])))
    for d in out:  # JSON has no infinity: a pick that never reaches the target loses "never reaches"
        for s in [d] + d["per_setting"]:
            for k in ("median_tta_lost", "tta_lost", "time_only_lost", "iterations_only_lost",
                      "measured_iterations_lost", "measured_iteration_time_lost"):
                if s.get(k) == math.inf:
                    s[k] = "never reaches"
    return out, lines


def detail_lines(result, frac, t0):
    """Markdown: one row per (target, link) of one pilot setting."""
    pct = lambda x: "-" if x is None else ("never" if x == math.inf else "%+.0f%%" % (100 * x))
    lines = ["| target | link | measured best | predicted best (lost) | time-only pick (lost) | iterations-only pick (lost) | Kendall tau |",
             "|---|---|---|---|---|---|---|"]
    for s in result.get((frac, t0), []):
        lines.append("| %s | %s | %s | %s (%s) | %s (%s) | %s (%s) | %s |" % (
            s["target"], s["link"], s["measured_best"], s["predicted_best"], pct(s["tta_lost"]),
            s["time_only_pick"], pct(s["time_only_lost"]), s["iterations_only_pick"], pct(s["iterations_only_lost"]),
            "-" if s["kendall_tau"] is None else "%.2f" % s["kendall_tau"]))
    return lines
