#!/usr/bin/env python3
"""One table of TTA validation summaries side by side (scripts/validate_tta.py summary
writes them: summary.json for the pilots alone, summary-late.json with the late pilots'
error ratio, summary-pace.json with the pace model): per summary and pilot fraction, with
the measured T_0, the goals of docs/validation-tta.md.

    /usr/bin/python3 scripts/tta_compare.py [--markdown] LABEL=SUMMARY_JSON...

Columns: Kendall tau of the ranking by iterations to target (median and min over targets,
the schemes that reach each), Kendall tau of the TTA ranking in seconds (median and min
over targets x links; only with a timing grid), predicted best within 10% of the measured best,
median |error| of the iterations to target (exp of the median |ln ratio| - 1), decided
reach/never right, false `reaches`, decided share (reaches or never, not uncertain),
80% interval coverage. Exit 2 with a message on a file that is not such a summary."""
import argparse, json, math, os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tta_stats import kendall  # noqa: E402  (the validation's own tau: tied pairs left out)


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def num(x):
    return "-" if x is None else "%.2f" % x


def iteration_taus(cases, f):
    """Kendall tau of predicted against measured iterations, per target, over the schemes
    that reach it and have an estimate."""
    taus = []
    for t in sorted({c["target"] for c in cases}):
        cs = [c for c in cases if c["target"] == t and c.get("t0_source") == "measured" and c.get("pilot_fraction") == f
              and c.get("measured_status") == "reaches" and isinstance(c.get("predicted_iterations"), (int, float))]
        k = kendall([c["predicted_iterations"] for c in cs], [c["measured_iterations"] for c in cs])
        if k is not None:
            taus.append(k)
    return taus


def rows(label, path):
    try:
        with open(path) as fh:
            doc = json.load(fh)
        links, settings, cases = doc.get("links", []), doc["settings"], doc["cases"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("tta_compare: %s is not a validate_tta.py summary (%s)" % (path, e))
    out = []
    for s in settings:
        if s.get("t0_source") != "measured":
            continue
        f = s["pilot_fraction"]
        ls = [l for l in links if l.get("t0_source") == "measured" and l.get("pilot_fraction") == f]
        tau_med = ls[0].get("kendall_tau_median") if ls else None
        tau_min = ls[0].get("kendall_tau_min") if ls else None
        best = ls[0].get("predicted_best_within_10pct") if ls else None
        it_taus = iteration_taus(cases, f)
        med = s.get("median_abs_log_error")
        med = math.exp(med) - 1 if isinstance(med, (int, float)) else None
        n_cases = s.get("cases") or 0
        decided = s.get("decided")
        out.append([label, "%g%%" % (100 * f), num(statistics.median(it_taus) if it_taus else None),
                    num(min(it_taus) if it_taus else None), num(tau_med), num(tau_min), pct(best), pct(med),
                    pct(s.get("decided_right_fraction")), pct(s.get("false_reaches_fraction")),
                    pct(decided / n_cases if n_cases and decided is not None else None), pct(s.get("interval_coverage"))])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", action="store_true", help="a markdown table (default: aligned text)")
    ap.add_argument("summaries", nargs="+", metavar="LABEL=SUMMARY_JSON")
    a = ap.parse_args()
    head = ["summary", "pilot", "tau it med", "tau it min", "tau s med", "tau s min", "best 10%", "median err", "decided right",
            "false reaches", "decided", "coverage"]
    table = []
    for item in a.summaries:
        if "=" not in item:
            sys.exit("tta_compare: give LABEL=SUMMARY_JSON, not %r" % item)
        label, path = item.split("=", 1)
        table += rows(label, path)
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in table:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(str(r[i])) for r in [head] + table) for i in range(len(head))]
        for r in [head] + table:
            print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)))


if __name__ == "__main__":
    sys.exit(main())
