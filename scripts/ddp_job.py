#!/usr/bin/env python3
"""ddp_job.py: a plain PyTorch DDP training job, written the way a user writes one.

It is NOT gcu's trainer: it is the stand-in for "the user's own DDP job" whose PyTorch
profiler trace `gcu profile from-trace TRACE.json` imports (README, job 4), and whose
measured iteration times scripts/trace_rates.sh compares with gcu's predictions.

torch.nn.parallel.DistributedDataParallel over Gloo, synthetic data, SGD with momentum,
optionally one of PyTorch's own DDP comm hooks (fp16_compress_hook, powerSGD_hook).

Ranks are started like torchrun would start them: environment RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT (defaults 0, 1, 127.0.0.1, 29500: one rank alone). Example, two
ranks on loopback:

  for r in 0 1; do RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 \\
    python3 scripts/ddp_job.py --model cnn --iters 10 --json out.json --trace t.json \\
      --tensors t.tensors.csv & done; wait

Phases, identical on every rank: --warmup steps (untimed), --iters timed steps
(time.perf_counter around each full step: zero_grad, forward, backward, optimizer step;
no profiler), then, with --trace, 1 + --trace-steps steps under torch.profiler
(schedule wait=0, warmup=1, active=--trace-steps; every rank profiles, rank 0 exports).
Rank 0 writes --json, --tensors and --trace.
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def die(msg, code=2):
    print(f"ddp_job: {msg}", file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------------------- models
class SmallCNN(nn.Module):
    """Conv net on 3x32x32 inputs, 10 classes, ~1.3M parameters.

    Backward order (reverse of parameters()): fc2, fc1 (4 MiB: closes DDP's 1 MiB first
    bucket), then the convolutions (the second bucket at the default 25 MiB cap)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.conv3 = nn.Conv2d(64, 128, 3, padding=1)
        self.conv4 = nn.Conv2d(128, 128, 3, padding=1)
        self.fc1 = nn.Linear(128 * 4 * 4, 512)
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)   # 16x16
        x = F.max_pool2d(F.relu(self.conv3(x)), 2)   # 8x8
        x = F.max_pool2d(F.relu(self.conv4(x)), 2)   # 4x4
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc2(x)


class SmallTransformer(nn.Module):
    """Token-level encoder: embedding + learned positions + nn.TransformerEncoder + head."""

    def __init__(self, vocab, d_model, heads, layers, seq):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.zeros(seq, d_model))
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos
        return self.head(self.norm(self.encoder(x)))


def build(args):
    """Model, a fixed synthetic batch (inputs, targets) and the loss function."""
    g = torch.Generator().manual_seed(1234 + args.rank)
    if args.model == "cnn":
        model = SmallCNN()
        x = torch.randn(args.batch, 3, 32, 32, generator=g)
        y = torch.randint(0, 10, (args.batch,), generator=g)
        return model, x, y, lambda out, t: F.cross_entropy(out, t)
    model = SmallTransformer(args.vocab, args.d_model, args.heads, args.layers, args.seq)
    x = torch.randint(0, args.vocab, (args.batch, args.seq), generator=g)
    y = torch.randint(0, args.vocab, (args.batch, args.seq), generator=g)
    return model, x, y, lambda out, t: F.cross_entropy(out.reshape(-1, out.shape[-1]),
                                                        t.reshape(-1))


# ---------------------------------------------------------------------------- options
def parse(argv):
    p = argparse.ArgumentParser(
        prog="ddp_job.py",
        description="A plain PyTorch DDP job (Gloo, synthetic data) for gcu's trace import.")
    p.add_argument("--model", choices=["cnn", "transformer"], default="cnn")
    p.add_argument("--batch", type=int, default=32, help="per-rank batch size (default 32)")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    p.add_argument("--iters", type=int, default=10, help="timed steps (default 10)")
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    p.add_argument("--bucket-cap-mb", type=float, default=25.0,
                   help="DDP bucket_cap_mb (default 25)")
    p.add_argument("--hook", choices=["none", "fp16", "powersgd"], default="none",
                   help="PyTorch's own DDP comm hook (default none)")
    p.add_argument("--powersgd-rank", type=int, default=4,
                   help="PowerSGD matrix_approximation_rank (default 4)")
    p.add_argument("--powersgd-start", type=int, default=2,
                   help="PowerSGD start_powerSGD_iter (default 2, the least PyTorch allows)")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--trace", metavar="OUT.json", help="rank 0 writes a profiler trace here")
    p.add_argument("--trace-steps", type=int, default=3,
                   help="active profiled steps (default 3), after 1 profiler warm-up step")
    p.add_argument("--record-shapes", action="store_true",
                   help="torch.profiler record_shapes=True (no effect on the exported args without Kineto)")
    p.add_argument("--tensors", metavar="OUT.csv",
                   help="rank 0 writes the trainable parameters as a gcu tensor list "
                        "(name,shape in backward order)")
    p.add_argument("--json", metavar="OUT.json", help="rank 0 writes the timings here")
    p.add_argument("--script", metavar="OUT.pt",
                   help="write the model as TorchScript (torch.jit.script) and exit: no process group, "
                        "no training (gcu profile from-trace --network torchscript:OUT.pt)")
    # transformer size
    p.add_argument("--layers", type=int, default=2, help="transformer layers (default 2)")
    p.add_argument("--d-model", type=int, default=256, help="transformer width (default 256)")
    p.add_argument("--heads", type=int, default=4, help="attention heads (default 4)")
    p.add_argument("--seq", type=int, default=64, help="sequence length (default 64)")
    p.add_argument("--vocab", type=int, default=1000, help="vocabulary (default 1000)")
    args = p.parse_args(argv)

    for name in ("batch", "iters", "threads", "trace_steps", "powersgd_rank", "layers",
                 "d_model", "heads", "seq", "vocab"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1 (got {getattr(args, name)})")
    if args.warmup < 0:
        p.error(f"--warmup must be >= 0 (got {args.warmup})")
    if not args.bucket_cap_mb > 0:
        p.error(f"--bucket-cap-mb must be > 0 (got {args.bucket_cap_mb})")
    if args.powersgd_start < 2:
        p.error("--powersgd-start must be >= 2 (PyTorch requires it with error feedback "
                "and warm start)")
    if args.d_model % args.heads:
        p.error(f"--d-model {args.d_model} is not a multiple of --heads {args.heads}")
    if args.hook == "powersgd" and args.warmup < args.powersgd_start:
        print(f"ddp_job: warning: --warmup {args.warmup} < --powersgd-start "
              f"{args.powersgd_start}: the first timed steps run PowerSGD's plain "
              "all-reduce phase", file=sys.stderr)

    env = {}
    for key, default in (("RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "127.0.0.1"),
                         ("MASTER_PORT", "29500")):
        env[key] = os.environ.get(key, default)
        os.environ[key] = env[key]
    try:
        args.rank, args.world = int(env["RANK"]), int(env["WORLD_SIZE"])
    except ValueError:
        die(f"RANK={env['RANK']!r} and WORLD_SIZE={env['WORLD_SIZE']!r} must be integers")
    if args.world < 1 or not 0 <= args.rank < args.world:
        die(f"need 0 <= RANK < WORLD_SIZE (got RANK={args.rank}, WORLD_SIZE={args.world})")
    return args


# ---------------------------------------------------------------------------- outputs
def write_tensors(model, path):
    """gcu tensor list: name,shape in backward order (reverse of model.parameters())."""
    rows = [(n, "x".join(str(d) for d in t.shape) or "1")
            for n, t in model.named_parameters() if t.requires_grad]
    with open(path, "w") as f:
        f.write("name,shape\n")
        for n, s in reversed(rows):
            f.write(f"{n},{s}\n")


def main(argv):
    args = parse(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)  # identical initial weights everywhere (DDP broadcasts rank 0's anyway)

    if args.script:
        model, _, _, _ = build(args)
        torch.jit.script(model).save(args.script)
        return
    dist.init_process_group("gloo", rank=args.rank, world_size=args.world)

    model, x, y, loss_fn = build(args)
    n_params = sum(t.numel() for t in model.parameters() if t.requires_grad)
    if args.rank == 0 and args.tensors:
        write_tensors(model, args.tensors)

    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=args.bucket_cap_mb)
    if args.hook == "fp16":
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    elif args.hook == "powersgd":
        from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook
        state = powerSGD_hook.PowerSGDState(
            process_group=None, matrix_approximation_rank=args.powersgd_rank,
            start_powerSGD_iter=args.powersgd_start, use_error_feedback=True,
            warm_start=True)
        ddp.register_comm_hook(state, powerSGD_hook.powerSGD_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=args.momentum)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(ddp(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    dist.barrier()

    times = []
    for _ in range(args.iters):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)

    if args.trace:
        from torch.profiler import ProfilerActivity, profile, schedule
        dist.barrier()

        def ready(prof):
            if args.rank == 0:
                prof.export_chrome_trace(args.trace)

        with profile(activities=[ProfilerActivity.CPU],
                     schedule=schedule(wait=0, warmup=1, active=args.trace_steps),
                     on_trace_ready=ready, record_shapes=args.record_shapes) as prof:
            for _ in range(1 + args.trace_steps):
                step()
                prof.step()

    dist.barrier()
    if args.rank == 0:
        med = statistics.median(times)
        print(f"ddp_job: {args.model} hook={args.hook} world={args.world} batch={args.batch} "
              f"params={n_params}: median {med * 1e3:.2f} ms over {len(times)} steps",
              file=sys.stderr)
        if args.json:
            out = {"model": args.model, "hook": args.hook, "world": args.world,
                   "batch": args.batch, "iterations": times, "median_s": med,
                   "params": n_params, "threads": args.threads,
                   "bucket_cap_mb": args.bucket_cap_mb, "warmup": args.warmup,
                   "torch": torch.__version__}
            if args.hook == "powersgd":
                out["powersgd_rank"] = args.powersgd_rank
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
                f.write("\n")
    # Leave without destroy_process_group: in PyTorch 1.13 it can spin forever after the
    # PowerSGD hook (its future callbacks still hold Gloo's threads). Every rank has passed
    # the barrier above, and rank 0's JSON is written.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
