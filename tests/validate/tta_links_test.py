#!/usr/bin/env python3
"""scripts/tta_links.py on constructed cases: TTA in seconds per link, the predicted-best
pick and what it loses, the one-sided pickers, and bad timing reports. Plain python3
(unittest); argv[1] is the scripts directory."""
import json, math, os, sys, tempfile, unittest

sys.path.insert(0, sys.argv.pop(1))
import tta_links  # noqa: E402
from tta_stats import quant  # noqa: E402


def case(scheme, meas, pred, ms="reaches", ps="reaches", frac=0.1, t0="measured", target="T"):
    return {"scheme": scheme, "measured_status": ms, "measured_iterations": meas, "predicted_status": ps,
            "predicted_iterations": pred, "pilot_fraction": frac, "t0_source": t0, "target": target}


def report(cells, schema="gcu.validate/1"):
    return {"schema": schema, "statistic": "mean", "cells": [
        {"status": "ok", "settings": {"mode": "overlap", "ranks": 2, "batch": 32, "model": "cnn", "scheme": s, "link": l},
         "predicted": {"total": p}, "measured": {"total": {"mean": m, "median": m}}} for (s, l, p, m) in cells]}


class Score(unittest.TestCase):
    def setUp(self):
        # Baseline: 100 iterations. "fast" iterates fast but needs 3x the iterations;
        # "slow" converges like the baseline but iterates slowly at the slow link;
        # "bad" is predicted to reach but never does.
        self.cases = [case("fast", 300, 290), case("good", 105, 120), case("bad", None, 100, ms="never")]
        self.base = {("T", 0.1, "measured"): {"status": "reaches", "iterations": 100, "measured_iterations": 100}}
        self.timing = {
            "fat": {"none": (1.0, 1.1), "fast": (0.5, 0.5), "good": (1.0, 1.0), "bad": (0.9, 0.9)},
            "thin": {"none": (10.0, 9.0), "fast": (1.0, 1.0), "good": (2.0, 2.5), "bad": (0.5, 0.5)},
        }

    def test_tta_is_iterations_times_iteration_time_per_link(self):
        r = tta_links.score(self.cases, self.base, self.timing)[(0.1, "measured")]
        fat = next(s for s in r if s["link"] == "fat")
        rows = {x["scheme"]: x for x in fat["rows"]}
        self.assertAlmostEqual(rows["none"]["measured_s"], 110.0)
        self.assertAlmostEqual(rows["good"]["predicted_s"], 120.0)
        self.assertIsNone(rows["bad"]["measured_s"])
        self.assertEqual(fat["measured_best"], "good")  # 105 s against none's 110 s

    def test_picks_and_losses(self):
        r = {s["link"]: s for s in tta_links.score(self.cases, self.base, self.timing)[(0.1, "measured")]}
        thin = r["thin"]
        # predicted: none 1000, fast 290, good 240, bad 50 -> bad, which never reaches
        self.assertEqual(thin["predicted_best"], "bad")
        self.assertEqual(thin["tta_lost"], math.inf)
        # time alone picks bad too; iterations alone: none and bad tie at 100, the first (none) wins
        self.assertEqual(thin["time_only_pick"], "bad")
        self.assertEqual(thin["iterations_only_pick"], "none")
        self.assertAlmostEqual(thin["iterations_only_lost"], 900 / 262.5 - 1)
        self.assertEqual(thin["measured_best"], "good")
        # attribution: with the measured iterations the predicted times pick good (no loss);
        # with the measured times the predicted iterations still pick bad (never reaches)
        self.assertEqual(thin["measured_iterations_lost"], 0.0)
        self.assertEqual(thin["measured_iteration_time_lost"], math.inf)

    def test_one_seed_pick_is_confirmed_with_every_seed(self):
        # The sequential design: "bad" was piloted with one seed; every seed says never, so
        # the pick moves on to "good" (confirmed only if it too has a "full" prediction).
        cs = [dict(c) for c in self.cases]
        cs[2]["full"] = {"predicted_status": "never", "predicted_iterations": None}
        r = {s["link"]: s for s in tta_links.score(cs, self.base, self.timing)[(0.1, "measured")]}
        self.assertEqual(r["thin"]["confirmed"], ["bad"])
        self.assertEqual(r["thin"]["predicted_best"], "good")
        self.assertAlmostEqual(r["thin"]["tta_lost"], 0.0)
        self.assertNotIn("full", cs[2]["full"])  # the input is not changed
        self.assertEqual(cs[2]["predicted_status"], "reaches")
        # Without the "full" prediction nothing is confirmed.
        r0 = {s["link"]: s for s in tta_links.score(self.cases, self.base, self.timing)[(0.1, "measured")]}
        self.assertEqual(r0["thin"]["confirmed"], [])
        self.assertEqual(r0["thin"]["predicted_best"], "bad")

    def test_confident_before_uncertain(self):
        # "bad" undecided: the TTA pick (as gcu recommend ranks) takes the best confident
        # one (good, 240 s) though bad's point estimate is 50 s; time alone still takes bad.
        cases = [dict(c, predicted_status="uncertain") if c["scheme"] == "bad" else c for c in self.cases]
        r = {s["link"]: s for s in tta_links.score(cases, self.base, self.timing)[(0.1, "measured")]}
        self.assertEqual(r["thin"]["predicted_best"], "good")
        self.assertEqual(r["thin"]["time_only_pick"], "bad")
        # with every scheme undecided, the point estimates decide
        cases = [dict(c, predicted_status="uncertain") for c in self.cases]
        base = {k: dict(v, status="uncertain") for k, v in self.base.items()}
        r = {s["link"]: s for s in tta_links.score(cases, base, self.timing)[(0.1, "measured")]}
        self.assertEqual(r["thin"]["predicted_best"], "bad")

    def test_never_predicted_is_not_picked(self):
        cases = [dict(c, predicted_status="never") if c["scheme"] == "bad" else c for c in self.cases]
        r = {s["link"]: s for s in tta_links.score(cases, self.base, self.timing)[(0.1, "measured")]}
        self.assertEqual(r["thin"]["predicted_best"], "good")
        self.assertEqual(r["thin"]["tta_lost"], 0.0)

    def test_summary_is_finite_json(self):
        res = tta_links.score(self.cases, self.base, self.timing)
        rows, lines = tta_links.summarise(res)
        self.assertEqual(len(rows), 1)
        text = json.dumps(rows, allow_nan=False)  # no inf/nan reaches the JSON
        self.assertIn("never reaches", text)
        self.assertEqual(rows[0]["settings"], 2)
        self.assertTrue(lines[0].startswith("| pilot |"))

    def test_quantile_with_infinity(self):
        self.assertEqual(quant([0.0, math.inf, 1.0], 0.5), 1.0)
        self.assertEqual(quant([0.0, math.inf], 0.5), math.inf)


class LoadTiming(unittest.TestCase):
    def write(self, doc):
        f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(doc, f)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_selects_matching_cells(self):
        p = self.write(report([("none", "1gbit", 0.01, 0.011), ("fp16", "1gbit", 0.008, 0.009)]))
        t = tta_links.load_timing([p], 2, 32, "cnn")
        self.assertEqual(t, {"1gbit": {"none": (0.01, 0.011), "fp16": (0.008, 0.009)}})

    def test_bad_reports_are_clear_errors(self):
        bad = [(self.write({"schema": "gcu.trainlog/1"}), "not a gcu validate report"),
               (self.write(report([("none", "1gbit", 0.01, 0.011)])), "no cell with mode overlap, 4 ranks"),
               (self.write(report([("none", "1gbit", float("nan"), 0.011)])), "no finite positive iteration time"),
               (self.write({"schema": "gcu.validate/1", "cells": {"a": 1}}), "not a list of cell objects")]
        broken = report([("none", "1gbit", 0.01, 0.011)])
        del broken["cells"][0]["measured"]
        bad.append((self.write(broken), "has no predicted and measured total"))
        for path, msg in bad:
            ranks = 4 if "4 ranks" in msg else 2
            with self.assertRaises(tta_links.TimingError) as e:
                tta_links.load_timing([path], ranks, 32, "cnn")
            self.assertIn(msg, str(e.exception))
            self.assertIn(path, str(e.exception))
        with self.assertRaises(tta_links.TimingError) as e:
            tta_links.load_timing(["/nonexistent/validate.json"], 2, 32, "cnn")
        self.assertIn("cannot read", str(e.exception))


if __name__ == "__main__":
    unittest.main()
