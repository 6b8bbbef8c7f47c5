#!/usr/bin/python3
"""Uncompressed iteration time of `gcu train` vs PyTorch DDP, side by side in one run.

Both sides: the same model (the gcu CNN, or ResNet-18, written below layer for layer in
the registration order of trainer/models/), the same fixed synthetic batch per rank, SGD
with momentum, Gloo on 127.0.0.1, the same world size and threads per rank; iteration =
forward + backward (DDP's overlapped all-reduce) + optimizer step. The first --warmup
iterations are discarded; rounds alternate gcu and DDP so drifting machine load hits both.
Prints each side's median iteration time and the ratio gcu / DDP (goal <= 1.0).

torchrun is broken in Debian's python3-torch, so the DDP ranks are started by hand with
RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set.

  bench/trainer/ddp_compare.py --gcu build/cli/gcu --model cnn --batch 64 --ranks 2
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---------------------------------------------------------------- DDP rank (child) ----
def ddp_rank(args):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)

    class Cnn(nn.Module):  # trainer/models/cnn.cpp defaults: c1=16, c2=32, hidden=128
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc1 = nn.Linear(32 * 7 * 7, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return self.fc2(F.relu(self.fc1(x.flatten(1))))

    class Block(nn.Module):  # torchvision BasicBlock
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                                nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return F.relu(y + (self.downsample(x) if self.downsample is not None else x))

    class ResNet18(nn.Module):  # torchvision resnet18 with `channels` inputs
        def __init__(self, channels, classes):
            super().__init__()
            self.conv1 = nn.Conv2d(channels, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            layers, cin = [], 64
            for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                layers.append(nn.Sequential(Block(cin, cout, stride), Block(cout, cout, 1)))
                cin = cout
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.fc = nn.Linear(512, classes)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(args.seed)
    if args.model == "cnn":
        net, shape = Cnn(), (args.batch, 1, 28, 28)
    else:
        net, shape = ResNet18(3, 10), (args.batch, 3, 32, 32)
    model = nn.parallel.DistributedDataParallel(net)  # 25 MiB buckets, 1 MiB first
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(args.seed + rank)
    x = torch.randn(shape, generator=g)
    y = torch.randint(0, 10, (args.batch,), generator=g)
    times = []
    for _ in range(args.iters):
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    if rank == 0:
        with open(args.out, "w") as f:
            json.dump(times, f)
    dist.destroy_process_group()


# ---------------------------------------------------------------- driver ---------------
def run_ddp(args, out):
    port = str(free_port())
    procs = []
    for r in range(args.ranks):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(args.ranks), LOCAL_RANK=str(r),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=port, OMP_NUM_THREADS=str(args.threads))
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--out", out,
               "--model", args.model, "--batch", str(args.batch), "--iters", str(args.iters),
               "--threads", str(args.threads), "--seed", str(args.seed)]
        procs.append(subprocess.Popen(cmd, env=env))
    for p in procs:
        if p.wait() != 0:
            sys.exit("DDP rank failed")
    with open(out) as f:
        return json.load(f)[args.warmup:]


def run_gcu(args, log):
    model = "cnn" if args.model == "cnn" else "resnet18:channels=3,image=32,classes=10"
    cmd = [args.gcu, "launch", "-n", str(args.ranks), "--", args.gcu, "train", "--model", model,
           "--data", "synthetic", "--batch", str(args.batch), "--iters", str(args.iters),
           "--warmup", str(args.warmup), "--threads", str(args.threads), "--lr", "0.01",
           "--scheme", "none", "--mode", "overlap", "--quiet", "--log", log]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(log) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    return [r["total_s"] for r in recs if r["type"] == "iter" and r["measured"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gcu", default="build/cli/gcu")
    ap.add_argument("--model", default="cnn", choices=["cnn", "resnet18"])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--iters", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return ddp_rank(args)
    gcu_t, ddp_t = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            gcu_t += run_gcu(args, os.path.join(tmp, f"gcu{k}.jsonl"))
            ddp_t += run_ddp(args, os.path.join(tmp, f"ddp{k}.json"))
    g, d = statistics.median(gcu_t), statistics.median(ddp_t)
    print(f"model {args.model}, batch {args.batch}/rank, {args.ranks} ranks, {args.threads} thread(s)/rank, "
          f"{args.rounds} rounds x {args.iters - args.warmup} measured iterations")
    print(f"gcu train (Gloo, overlap):  median {g * 1e3:8.2f} ms/iter")
    print(f"PyTorch DDP (Gloo):         median {d * 1e3:8.2f} ms/iter")
    print(f"ratio gcu/DDP: {g / d:.3f}  (goal <= 1.0)")


if __name__ == "__main__":
    main()
