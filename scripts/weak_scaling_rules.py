#!/usr/bin/env python3
"""Which rule predicts compute at a batch size the profile does not have?
(docs/history/validation-log.md, "Batch sizes".) Reads repeated calibrations of one model,
each with compute at several per-rank batch sizes (gcu.profile/2; `gcu calibrate
--batch-sizes ... --skip <all but compute>`), and scores four rules for forward + backward
at a batch size left out, against the median over the calibrations of what was measured there:
  L2  linear through the two nearest entries (model/profile.h compute_for_batch, gcu's rule)
  P1  proportional to batch from the nearest entry (gcu's rule for a single entry)
  LL  a power law through the two nearest entries
  AF  an affine least-squares line through every remaining entry
Scenarios: leave one out (interior: interpolation; the ends: one step of extrapolation),
and profiles of two entries a and 2a predicting 4a (up) and a/2 (down).

  bash scripts/recordings.sh unpack /tmp/ws cpu-2rank-resnet18-batches   # weak-scaling/ is packed there
  python3 scripts/weak_scaling_rules.py /tmp/ws/weak-scaling/r18-*.json
"""
import json
import math
import statistics as st
import sys

RULES = ["L2", "P1", "LL", "AF"]


def load(paths):
    reps = []
    for f in paths:
        with open(f) as fh:
            p = json.load(fh)
        reps.append({c["batch_size"]: c["forward_s"] + c["backward_s"] for c in p["model"]["compute"]})
    if not reps or any(sorted(r) != sorted(reps[0]) for r in reps) or len(reps[0]) < 3:
        sys.exit("weak_scaling_rules: give calibrations of the same >= 3 batch sizes")
    return reps


def two_nearest(pts, b):
    bs = sorted(pts)
    lo, hi = [x for x in bs if x < b], [x for x in bs if x > b]
    if lo and hi:
        return lo[-1], hi[0]
    return (bs[0], bs[1]) if not lo else (bs[-2], bs[-1])


def predict(rule, pts, b):
    if rule == "P1":
        n = min(pts, key=lambda x: (abs(math.log(x / b)), -x))
        return pts[n] * b / n
    if rule == "AF":
        xs = sorted(pts)
        mx, my = st.mean(xs), st.mean(pts[x] for x in xs)
        slope = sum((x - mx) * (pts[x] - my) for x in xs) / sum((x - mx) ** 2 for x in xs)
        return my + slope * (b - mx)
    a, c = two_nearest(pts, b)
    if rule == "L2":
        return max(0.0, pts[a] + (pts[c] - pts[a]) * (b - a) / (c - a))
    k = math.log(pts[c] / pts[a]) / math.log(c / a)
    return pts[a] * (b / a) ** k


def score(errs):
    return "%4.1f%% (%+5.1f%%)" % (st.median(abs(e) for e in errs) * 100, st.median(errs) * 100)


def main():
    reps = load(sys.argv[1:])
    bs = sorted(reps[0])
    med = {b: st.median(r[b] for r in reps) for b in bs}
    print("%d calibrations; forward + backward per sample (ms), median: %s" %
          (len(reps), " ".join("%d:%.2f" % (b, med[b] / b * 1e3) for b in bs)))
    print("spread between calibrations (max - min) / median: " +
          " ".join("%d:%.0f%%" % (b, (max(r[b] for r in reps) - min(r[b] for r in reps)) / med[b] * 100) for b in bs))
    print("| scenario | " + " | ".join(RULES) + " |  (median |error| (median signed))")
    for name, sel in [("leave one out, interior", lambda b: bs[0] < b < bs[-1]),
                      ("leave one out, the largest", lambda b: b == bs[-1]),
                      ("leave one out, the smallest", lambda b: b == bs[0])]:
        errs = {r: [predict(r, {x: rp[x] for x in bs if x != b}, b) / med[b] - 1
                    for rp in reps for b in bs if sel(b)] for r in RULES}
        print("| %s | %s |" % (name, " | ".join(score(errs[r]) for r in RULES)))
    for name, f in [("entries a, 2a -> 4a", 4), ("entries a, 2a -> a/2", 0.5)]:
        errs = {r: [] for r in RULES[:3]}
        for rp in reps:
            for a in bs:
                t = a * f
                if 2 * a in bs and t in bs:
                    for r in errs:
                        errs[r].append(predict(r, {a: rp[a], 2 * a: rp[2 * a]}, t) / med[t] - 1)
        print("| %s (n %d) | %s | - |" % (name, len(errs["L2"]), " | ".join(score(errs[r]) for r in RULES[:3])))


if __name__ == "__main__":
    main()
