#!/usr/bin/env python3
"""Plots a TTA validation summary (gcu.validate.tta/1, scripts/validate_tta.py): predicted
against measured iterations to target, log-log, one panel per pilot fraction, the y = x
line and +-15% band, each case's 80% interval as a bar; circles are cases gcu calls
`reaches`, triangles `uncertain` (their point estimate). Cases measured or predicted
`never` are counted in the panel's title, not drawn (they have no iterations).

    scripts/plot_tta.py SUMMARY.json OUT.png [--t0 measured|extrapolated]

Writes OUT.png (gnuplot, pngcairo) and OUT.gp / OUT.dat beside it, each through a
temporary file and a rename. Nothing read from the summary reaches the gnuplot script
but numbers; the task name is reduced to [A-Za-z0-9._-]. Needs gnuplot (gnuplot-nox).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print("plot_tta: " + msg, file=sys.stderr)
    sys.exit(2)


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    if os.path.exists(path) and not os.path.isfile(path):
        fail("%s exists and is not a regular file" % path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".plot_tta.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("summary")
    ap.add_argument("out_png")
    ap.add_argument("--t0", default="measured", choices=["measured", "extrapolated"])
    a = ap.parse_args()
    try:
        with open(a.summary) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        fail("cannot read %s: %s" % (a.summary, e))
    if not isinstance(s, dict) or s.get("schema") != "gcu.validate.tta/1" or not isinstance(s.get("cases"), list):
        fail("%s is not a gcu.validate.tta/1 summary" % a.summary)
    if shutil.which("gnuplot") is None:
        fail("gnuplot is missing (apt-get install gnuplot-nox, or scripts/install-deps.sh)")
    fracs = sorted({c.get("pilot_fraction") for c in s["cases"] if finite(c.get("pilot_fraction"))})
    if not fracs:
        fail("%s has no cases with a pilot fraction" % a.summary)
    blocks, titles, lo, hi = [], [], math.inf, 0
    for fr in fracs:
        rows = {"reaches": [], "uncertain": []}
        never = 0
        for c in s["cases"]:
            if c.get("pilot_fraction") != fr or c.get("t0_source") != a.t0:
                continue
            m, p, st = c.get("measured_iterations"), c.get("predicted_iterations"), c.get("predicted_status")
            if c.get("measured_status") != "reaches" or st not in rows or not finite(m) or not finite(p):
                never += 1
                continue
            iv = c.get("interval") if isinstance(c.get("interval"), list) else []
            ilo = iv[0] if len(iv) == 2 and finite(iv[0]) else p
            ihi = iv[1] if len(iv) == 2 and finite(iv[1]) else p
            rows[st].append((m, p, min(ilo, p), max(ihi, p)))
            lo, hi = min(lo, m, ilo), max(hi, m, ihi)
        for st in ("reaches", "uncertain"):
            blocks.append("\n".join("%.6g %.6g %.6g %.6g" % r for r in rows[st]) or "nan nan nan nan")
        n = len(rows["reaches"]) + len(rows["uncertain"])
        titles.append("pilots of %g%%: %d cases drawn, %d never" % (fr * 100, n, never))
    if hi <= 0:
        fail("no case with measured and predicted iterations")
    lo, hi = lo / 1.5, hi * 1.5
    task = re.sub(r"[^A-Za-z0-9._-]", "", str(s.get("task", "task")))[:40] or "task"
    base = os.path.splitext(a.out_png)[0]
    dat, gp = base + ".dat", base + ".gp"
    write_atomic(dat, "\n\n\n".join(blocks) + "\n")
    panels = []
    for k, t in enumerate(titles):
        panels.append(
            "set title '%s'\n"
            "plot x w l lc rgb 'black' t 'y = x', 1.15*x w l dt 2 lc rgb 'gray' t '+-15%%', 0.85*x w l dt 2 lc rgb 'gray' notitle, \\\n"
            "  '%s' index %d u 1:2:3:4 w yerrorbars pt 7 lc rgb '#1f77b4' t 'reaches (80%% interval)', \\\n"
            "  '%s' index %d u 1:2:3:4 w yerrorbars pt 9 lc rgb '#ff7f0e' t 'uncertain (estimate)'\n"
            % (t, os.path.basename(dat), 2 * k, os.path.basename(dat), 2 * k + 1))
    tmp_png = os.path.join(os.path.dirname(os.path.abspath(a.out_png)), ".plot_tta.png.tmp")
    script = ("set terminal pngcairo size %d,520\nset output '%s'\nset logscale xy\n"
              "set xrange [%g:%g]\nset yrange [%g:%g]\nset xlabel 'measured iterations to target'\n"
              "set ylabel 'predicted iterations'\nset key left top\nset grid\n"
              "set multiplot layout 1,%d title 'TTA validation (%s, T_0 %s): predicted vs measured iterations'\n%s"
              "unset multiplot\n" % (560 * len(titles), os.path.basename(tmp_png), lo, hi, lo, hi, len(titles),
                                      task, a.t0, "".join(panels)))
    write_atomic(gp, script)
    r = subprocess.run(["gnuplot", os.path.basename(gp)], cwd=os.path.dirname(os.path.abspath(gp)),
                       capture_output=True, text=True)
    if r.returncode != 0 or not os.path.isfile(tmp_png):
        fail("gnuplot failed: " + r.stderr.strip()[:400])
    os.replace(tmp_png, a.out_png)
    print("plot_tta: wrote %s" % a.out_png)


if __name__ == "__main__":
    main()
