#!/usr/bin/env python3
"""scripts/weak_scaling_rules.py: the rules on constructed compute tables (an affine
t = a + b B is predicted exactly by L2 and AF between entries; P1 is exact for t = b B;
LL for a power law), the documented figures on the recorded calibrations
(docs/history/validation-log.md, "Batch sizes"), and bad input refused."""
import json
import os
import subprocess
import sys
import tempfile

SCRIPTS, DATA = sys.argv[1], sys.argv[2]
sys.path.insert(0, SCRIPTS)
import weak_scaling_rules as w  # noqa: E402

affine = {8: 0.01 + 8 * 0.002, 16: 0.01 + 16 * 0.002, 64: 0.01 + 64 * 0.002}
for rule in ("L2", "AF"):
    assert abs(w.predict(rule, affine, 32) - (0.01 + 32 * 0.002)) < 1e-12, rule
    assert abs(w.predict(rule, affine, 128) - (0.01 + 128 * 0.002)) < 1e-12, rule
prop = {8: 0.016, 16: 0.032}
assert abs(w.predict("P1", prop, 64) - 0.128) < 1e-12
assert abs(w.predict("P1", prop, 12) - 0.024) < 1e-12  # from the nearest entry in ratio
power = {8: 8 ** 0.8, 32: 32 ** 0.8}
assert abs(w.predict("LL", power, 128) - 128 ** 0.8) < 1e-9
assert w.predict("L2", {8: 1.0, 16: 0.1}, 64) == 0.0  # never negative

out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "weak_scaling_rules.py")] +
                     sorted(os.path.join(DATA, "weak-scaling", f) for f in os.listdir(os.path.join(DATA, "weak-scaling"))
                            if f.startswith("cnn-")), capture_output=True, text=True, check=True).stdout
rows = [l for l in out.splitlines() if l.startswith("| ") and not l.startswith("| scenario")]
assert len(rows) == 5, out
# the documented CNN figures: L2 interior 4.9%, the smallest 3.5% (P1 16.9%)
assert rows[0].split("|")[2].strip().startswith("4.9%"), rows[0]
assert rows[2].split("|")[2].strip().startswith("3.5%") and rows[2].split("|")[3].strip().startswith("16.9%"), rows[2]

with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "one.json")
    with open(p, "w") as f:
        json.dump({"model": {"compute": [{"batch_size": 8, "forward_s": 1, "backward_s": 2},
                                         {"batch_size": 16, "forward_s": 2, "backward_s": 4}]}}, f)
    r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "weak_scaling_rules.py"), p], capture_output=True, text=True)
    assert r.returncode != 0 and ">= 3 batch sizes" in r.stderr, r
print("weak_scaling_rules: ok")
