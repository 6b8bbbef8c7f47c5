#!/usr/bin/env python3
"""Counts the numbers a profile's prediction of the iteration time rests on, by part of
the model (docs/model.md, "The prediction path"): what calibrate measured or fitted, not
the model's description (tensor shapes, bucket sizes) nor convergence figures.

    /usr/bin/python3 scripts/profile_params.py [--json] PROFILE...

Parts: compute (forward, backward, optimizer, data per batch size; ready_s per tensor
when measured), links (each level's alpha and bandwidth; each size range's alpha and
beta), contention (gamma_stretch and the interference factors, their host link; in a
gcu.profile/1 file gamma, overlap_contention, comm_contention and its reference link;
allreduce_element_bytes entries), codecs (encode and decode terms per scheme), floors
(the all-reduce and all-gather floors' sizes, seconds and per-element term). Exit 2 with
a message on a file that is not a profile."""
import argparse, json, sys


def count_level(level):
    n = 2  # alpha_s, bandwidth_gbps
    for ranges in (level.get("collectives") or {}).values():
        if isinstance(ranges, dict):  # a curve: one latency, a beta per range
            n += 1 + len(ranges.get("ranges") or [])
        else:
            n += 2 * len(ranges)  # alpha_s, beta per range (its edges are the sweep's sizes)
    return n


def count(p):
    c = {"compute": 0, "links": 0, "contention": 0, "codecs": 0, "floors": 0}
    for e in p["model"].get("compute", []):
        c["compute"] += 4 + len(e.get("ready_s") or [])
    cl = p["cluster"]
    for lv in (cl.get("levels") or {}).values():
        c["links"] += count_level(lv)
    inter = cl.get("interference") or {}
    for key in ("gamma", "overlap_contention", "comm_contention", "gamma_stretch"):
        if key in cl:
            c["contention"] += 1
    for key in ("backward_by_collective", "collective_by_backward", "backward_codec"):
        if key in inter:
            c["contention"] += 1
    for ref in (cl.get("comm_contention_reference"), inter.get("host_link")):
        if ref:
            c["contention"] += count_level(ref)
    c["contention"] += len(cl.get("allreduce_element_bytes") or {})
    for fit in (p.get("compressors") or {}).values():
        c["codecs"] += sum(1 for k in ("fixed_s", "per_element_s", "per_tensor_s") if k in fit.get("encode", {}))
        c["codecs"] += sum(1 for k in ("fixed_s", "per_element_s", "per_rank_element_s", "per_tensor_s")
                           if k in fit.get("decode", {}))
        for fl in ("allreduce_floor", "allgather_floor"):
            if fit.get(fl):
                c["floors"] += len(fit[fl].get("seconds", [])) + 1
    c["total"] = sum(c.values())
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("profiles", nargs="+")
    a = ap.parse_args()
    out = {}
    for path in a.profiles:
        try:
            with open(path) as fh:
                out[path] = count(json.load(fh))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            print("profile_params: %s is not a gcu profile (%s)" % (path, e), file=sys.stderr)
            return 2
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        keys = ["compute", "links", "contention", "codecs", "floors", "total"]
        print("%-50s %s" % ("profile", " ".join("%10s" % k for k in keys)))
        for path, c in out.items():
            print("%-50s %s" % (path[-50:], " ".join("%10d" % c[k] for k in keys)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
