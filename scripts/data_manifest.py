#!/usr/bin/env python3
"""Writes data/validation/MANIFEST.md: what each kept recording is (date, the commit
that added it, protocol, errors, checksum) and where the removed ones can be restored
from. Run from the repository root after adding or removing a recording:

    /usr/bin/python3 scripts/data_manifest.py [--removed-at COMMIT NAME...]

The checksum is the SHA-256 of the recording's files (sorted paths, each path and its
bytes; the archive raw.tar.xz is one of them), so a changed recording shows up as a
changed line in the manifest's diff. "Packed with" names the runs its archive holds
besides its own logs (scripts/recordings.sh)."""
import argparse, hashlib, json, os, subprocess, sys, tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VAL = os.path.join(ROOT, "data", "validation")
OUT = os.path.join(VAL, "MANIFEST.md")
REMOVED = os.path.join(VAL, "removed.json")  # {name: commit that still holds it}
# Held out: recorded after the model they score was frozen, scored once; their bounds in the
# tests are never relaxed. Every other recording is "fitted": causes were found on it.
HELD_OUT = {"cpu-2rank-bert-heldout", "cpu-34rank-bert-scaleout", "tta-fashion-mnist-4w"}


def checksum(d):
    h = hashlib.sha256()
    for root, _, files in sorted(os.walk(d)):
        for f in sorted(files):
            p = os.path.join(root, f)
            h.update(os.path.relpath(p, d).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()[:16]


def added_in(d):
    r = subprocess.run(["git", "log", "--diff-filter=A", "--format=%h", "--", os.path.relpath(d, ROOT)],
                       cwd=ROOT, capture_output=True, text=True)
    lines = r.stdout.split()
    return lines[-1] if lines else "uncommitted"


def describe(d):
    """(kind, date, protocol, errors) of one recording."""
    v = os.path.join(d, "validate.json")
    if os.path.exists(v):
        with open(v) as fh:
            j = json.load(fh)
        s = (j.get("summary") or {}).get("unadjusted") or j.get("summary") or {}
        med, mx = s.get("median_abs_error_total_all_ok"), s.get("max_abs_error_total_all_ok")
        errs = f"{100 * med:.1f}% / {100 * mx:.1f}%" if med is not None and mx is not None else "-"
        g = j.get("grid") or {}
        proto = g.get("protocol") or ("diagnose (in-grid: " + str(g.get("predict_rate", "link fits")) + ")")
        kind = "iteration-time grid"
        return kind, (j.get("date") or "")[:10], proto, errs
    if os.path.exists(os.path.join(d, "summary.json")):
        return "TTA protocol", "", "pilots vs full runs", "see docs/validation-tta.md"
    return "supporting data", "", "-", "-"


def companions(d):
    """The recordings packed in d's archive besides d itself, and the archive's size."""
    a = os.path.join(d, "raw.tar.xz")
    if not os.path.exists(a):
        return [], 0
    with tarfile.open(a) as t:
        tops = sorted({m.name.split("/")[0] for m in t.getmembers()} - {os.path.basename(d)})
    return tops, os.path.getsize(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--removed-at", nargs="+", metavar=("COMMIT", "NAME"),
                    help="record NAMEs as removed, restorable from COMMIT")
    a = ap.parse_args()
    removed = {}
    if os.path.exists(REMOVED):
        with open(REMOVED) as fh:
            removed = json.load(fh)
    if a.removed_at:
        commit, names = a.removed_at[0], a.removed_at[1:]
        for n in names:
            removed[n] = commit
    rows = []
    for name in sorted(os.listdir(VAL)):
        d = os.path.join(VAL, name)
        if not os.path.isdir(d):
            continue
        kind, date, proto, errs = describe(d)
        with_, size = companions(d)
        packed = ", ".join(with_) or "-"
        role = "heldout" if name in HELD_OUT else "fitted"
        rows.append(f"| {name} | {role} | {kind} | {date or '-'} | {added_in(d)} | {proto} | {errs} | {packed} | "
                    f"{size / 1e6:.2f} MB | `{checksum(d)}` |")
    lines = ["# Recordings in data/validation", "",
             "Written by `scripts/data_manifest.py`; do not edit by hand. Errors are the median / max",
             "|error| of the mean iteration time over the cells that ran, as `gcu validate` predicted",
             "them when recorded (`summary.unadjusted`). The recorded grids predict each link with",
             "its own fits (the diagnose protocol); docs/accuracy.md gives the figures a user gets.",
             "Each recording keeps its reports plain and its logs, and the runs packed with it, in",
             "raw.tar.xz: `bash scripts/recordings.sh unpack DEST [NAME...]` restores them as recorded.", "",
             "Role: `heldout` recordings were recorded after the model they score was frozen and",
             "scored once (their test bounds are never relaxed); `fitted` ones had causes found on them.", "",
             "| recording | role | kind | date | added in | protocol | median / max | packed with | archive | checksum |",
             "|---|---|---|---|---|---|---|---|---|---|"] + rows
    if removed:
        lines += ["", "## Removed from the tree", "",
                  "Each can be restored with `git checkout COMMIT -- data/validation/NAME`.", "",
                  "| recording | restore from |", "|---|---|"]
        lines += [f"| {n} | {c} |" for n, c in sorted(removed.items())]
    tmp = OUT + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    os.replace(tmp, OUT)
    if a.removed_at:
        tmp = REMOVED + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(removed, fh, indent=1, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, REMOVED)
    print(f"data_manifest: {len(rows)} recordings, {len(removed)} removed -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
