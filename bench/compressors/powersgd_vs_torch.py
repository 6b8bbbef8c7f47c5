#!/usr/bin/python3
"""PowerSGD compression error: gcu's powersgd vs PyTorch's powerSGD_hook, same matrices.

Generates matrices with torch (seed 0, see make_matrices), writes them as one raw float32
file, runs gcu's roundtrip tool (bench/compressors/roundtrip_errors.cpp) on it and
PyTorch's hook (torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook) called on a
bucket holding exactly those matrices (1-process gloo group), for `--steps` steps on the
same gradient (warm start on, error feedback off on both sides, min compression rate 2
on both), and prints the relative error ||C(M) - M||^2 / ||M||^2 per matrix and step.

  /usr/bin/python3 bench/compressors/powersgd_vs_torch.py \
      --tool build/bench/compressors/compressors_roundtrip_errors --rank 4 --steps 10
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd

SHAPES = [(1024, 1024), (512, 4608), (256, 2304), (2048, 512)]


def make_matrices(seed=0, true_rank=16, decay=0.7, noise=0.05):
    """Low-rank plus noise: U diag(decay^k) V^T + noise, except the third one (pure Gaussian)."""
    g = torch.Generator().manual_seed(seed)
    mats = []
    for idx, (m, n) in enumerate(SHAPES):
        if idx == 2:
            mats.append(torch.randn(m, n, generator=g))
            continue
        u = torch.linalg.qr(torch.randn(m, true_rank, generator=g))[0]
        v = torch.linalg.qr(torch.randn(n, true_rank, generator=g))[0]
        s = torch.tensor([decay ** k for k in range(true_rank)])
        low = (u * s) @ v.t()
        e = torch.randn(m, n, generator=g)
        mats.append(low + noise * e * (low.norm() / e.norm()))
    return mats


def rel(approx, exact):
    return float(((approx.double() - exact.double()) ** 2).sum() / (exact.double() ** 2).sum())


class Bucket:
    """What powerSGD_hook reads from a c10d GradBucket: one flat buffer and views of it."""

    def __init__(self, mats):
        self.buf = torch.cat([m.reshape(-1) for m in mats]).clone()
        self.views, off = [], 0
        for m in mats:
            self.views.append(self.buf[off:off + m.numel()].view(m.shape))
            off += m.numel()

    def buffer(self):
        return self.buf

    def index(self):
        return 0

    def gradients(self):
        return self.views

    def is_last(self):
        return True


def torch_errors(mats, rank, steps):
    """Runs the hook itself on a 1-process gloo group (DDP with one process skips hooks)."""
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("gloo", rank=0, world_size=1)
    state = psgd.PowerSGDState(process_group=None, matrix_approximation_rank=rank,
                               start_powerSGD_iter=2, min_compression_rate=2,
                               use_error_feedback=False, warm_start=True)
    out = []
    for it in range(steps + 2):  # the first 2 iterations are plain all-reduce (start_powerSGD_iter)
        b = Bucket(mats)
        res = psgd.powerSGD_hook(state, b).wait()
        res = res[0] if isinstance(res, list) else res
        if it >= 2:
            outs, off = [], 0
            for m in mats:
                outs.append(res[off:off + m.numel()].view(m.shape))
                off += m.numel()
            per = [rel(o, m) for o, m in zip(outs, mats)]
            num = sum(((o.double() - m.double()) ** 2).sum() for o, m in zip(outs, mats))
            den = sum((m.double() ** 2).sum() for m in mats)
            out.append({"step": it - 1, "tensors": per, "bucket": float(num / den)})
    dist.destroy_process_group()
    return out


def gcu_errors(tool, mats, rank, steps):
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        for m in mats:
            f.write(m.contiguous().numpy().astype("<f4").tobytes())
        path = f.name
    try:
        shapes = ",".join(f"{m}x{n}" for m, n in SHAPES)
        res = subprocess.run([tool, "--spec", f"powersgd:rank={rank},min_rate=2", "--shapes", shapes,
                              "--in", path, "--steps", str(steps)], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"gcu tool failed: {res.stderr}")
        return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    finally:
        os.unlink(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True, help="path to compressors_roundtrip_errors")
    ap.add_argument("--rank", type=int, default=4)
    ap.add_argument("--steps", type=int, default=10)
    a = ap.parse_args()
    torch.set_num_threads(1)
    mats = make_matrices()
    g = gcu_errors(a.tool, mats, a.rank, a.steps)
    t = torch_errors(mats, a.rank, a.steps)
    print(f"PowerSGD rank {a.rank}, relative error ||C(M)-M||^2/||M||^2 (warm start, no error feedback)")
    print(f"{'step':>4} {'matrix':>12} {'gcu':>12} {'torch hook':>12} {'gcu/torch':>10}")
    worse = 0
    for s in range(a.steps):
        if s + 1 not in (1, 2, 5, a.steps):
            continue
        rows = [(f"{m}x{n}", g[s]["tensors"][i], t[s]["tensors"][i]) for i, (m, n) in enumerate(SHAPES)]
        rows.append(("bucket", g[s]["bucket"], t[s]["bucket"]))
        for name, ge, te in rows:
            print(f"{s + 1:>4} {name:>12} {ge:>12.6f} {te:>12.6f} {ge / te:>10.4f}")
    last_g, last_t = g[-1]["bucket"], t[-1]["bucket"]
    print(f"after {a.steps} steps: gcu {last_g:.6f} vs torch {last_t:.6f} "
          f"({'no worse' if last_g <= last_t * 1.01 else 'WORSE'} within 1%)")


if __name__ == "__main__":
    main()
