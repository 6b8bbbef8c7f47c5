"""The TTA protocol's ground truth (validate_tta.py, tta_noise.py): the recorded runs'
curves, the targets, and iterations to a target per scheme (the mean first crossing over
seeds). Plain python3."""
import glob, json, os, sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def curves(records):
    """scheme -> seed -> [(iteration, loss)]"""
    c = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r["type"] == "eval":
            c[r["scheme"]][r["seed"]].append((r["iteration"], r["loss"]))
    return c


def targets(baseline, t_full):
    c = curves(load(baseline))["none"]
    out = []
    for frac in (0.5, 1.0):
        t = frac * t_full
        vals = [l for s in c.values() for (i, l) in s if abs(i - t) <= 0.05 * t and l is not None]
        out.append({"name": "loss@%g%%" % (100 * frac), "baseline_fraction": frac, "loss": sum(vals) / len(vals)})
    return out


def first_crossing(pts, target):
    prev = None
    for i, l in pts:
        if l is None:
            return None
        if l <= target:
            if prev is None:
                return float(i)
            i0, l0 = prev
            f = (l0 - target) / (l0 - l) if l0 > l else 1.0
            return i0 + f * (i - i0)
        prev = (i, l)
    return None


def mean_crossing(xs):
    """(status, mean iterations) of per-seed crossings (None: that seed did not reach):
    'never' when at most half of the seeds reach within the cap."""
    got = [x for x in xs if x is not None]
    if 2 * len(got) <= len(xs):
        return "never", None
    return "reaches", sum(got) / len(got)


def measured(seeds, target):
    """The truth of one scheme: mean_crossing of its seeds' first crossings of `target`."""
    return mean_crossing([first_crossing(sorted(p), target) for p in seeds.values()])


PILOT_FRACTIONS = (0.03, 0.10)
SAME_SETTINGS = ("task", "model", "workers", "batch_size", "lr", "momentum", "warmup", "eval_resolution",
                 "eval_samples")


def pilot_length(frac, t0):
    return max(2, int(round(frac * t0)))


def ground_truth(out, more_runs=()):
    """The runs-*.jsonl records of OUT and of each --more-runs directory (further seeds of
    the same settings, recorded elsewhere); a (scheme, seed) recorded twice is refused."""
    recs, seen = [], {}
    for d in (out,) + tuple(more_runs):
        files = sorted(glob.glob(os.path.join(d, "runs-*.jsonl")))
        if d != out and not files:
            sys.exit("validate_tta.py: --more-runs %s: no runs-*.jsonl there" % d)
        for f in files:
            try:
                rs = load(f)
            except (OSError, ValueError) as e:
                sys.exit("validate_tta.py: %s: %s" % (f, e))
            for r in rs:
                if r.get("type") == "run":
                    k = (r.get("scheme"), r.get("seed"))
                    if k in seen:
                        sys.exit("validate_tta.py: %s seed %s is in both %s and %s" % (k[0], k[1], seen[k], f))
                    seen[k] = f
            recs += rs
    if not recs:
        sys.exit("validate_tta.py: no runs-*.jsonl in %s" % out)
    return recs


def reached_targets(cv, tg):
    """[(target, the baseline's measured iterations to it)] for the targets it reaches."""
    out = []
    for t in tg:
        st, t0 = measured(cv["none"], t["loss"])
        if st == "reaches":
            out.append((t, t0))
        else:
            print("baseline does not reach", t, file=sys.stderr)
    return out


def longest_pilot(reached):
    """(iterations, fraction, target) of the longest pilot the reached targets need."""
    return max(((pilot_length(f, t0), f, t) for t, t0 in reached for f in PILOT_FRACTIONS), key=lambda x: x[0])


def complete_runs(out, more_runs=()):
    """The ground truth's records of the schemes whose runs all finished (a file still being
    written is left out), and those schemes."""
    recs = ground_truth(out, more_runs)
    cfgs = [r for r in recs if r.get("type") == "config"]
    for c in cfgs[1:]:
        for k in SAME_SETTINGS:
            if c.get(k) != cfgs[0].get(k):
                sys.exit("validate_tta.py: the ground-truth runs differ in %s (%r and %r)" % (k, cfgs[0].get(k), c.get(k)))
    nrun = defaultdict(set)
    for r in recs:
        if r["type"] == "run":
            nrun[r["scheme"]].add(r["seed"])
    if not nrun:
        sys.exit("validate_tta.py: %s: no finished run (no run record in runs-*.jsonl)" % out)
    want = max(len(v) for v in nrun.values())
    done = {s for s, v in nrun.items() if len(v) == want}
    return [r for r in recs if r["type"] == "config" or r["scheme"] in done], done


def load_targets(out):
    path = os.path.join(out, "targets.json")
    try:
        with open(path) as f:
            tg = json.load(f)
        if not (isinstance(tg, list) and all(isinstance(t, dict) and isinstance(t.get("name"), str)
                                             and isinstance(t.get("loss"), (int, float)) for t in tg)):
            raise ValueError("not a list of {name, loss} objects")
        return tg
    except (OSError, ValueError) as e:
        sys.exit("validate_tta.py: %s: %s" % (path, e))
