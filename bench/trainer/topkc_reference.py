#!/usr/bin/python3
"""Independent PyTorch reference for sparsified data-parallel SGD on Fashion-MNIST.

Re-implements, without gcu, what `gcu train --model cnn --scheme topkc|topk:k=0.01`
does on 2 ranks (each rank's gradient of its half of the batch, one flat bucket in
reverse parameter order, the compressor's selection and average, SGD with momentum),
to tell apart the behaviour of the algorithm from a bug in the trainer:

  topkc  chunks of 256 elements; the C = ceil(0.01 * m) chunks with the largest norm
         summed over ranks are all-reduced; no error feedback
  topk   each rank keeps its 1% largest |g| (values + indices all-gathered), averaged
  ef-*   the same with error feedback (residual added before compression)
  none   the plain average

  /usr/bin/python3 bench/trainer/topkc_reference.py --scheme topkc --iters 400
Prints the loss every 20 iterations, the test accuracy at the end and which parameters
the chosen chunks belonged to (share of selections per tensor).
"""
import argparse, collections, gzip, math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

D = "/usr/share/datasets/fashion-mnist/"


def idx(name, off):
    with gzip.open(D + name) as f:
        return np.frombuffer(f.read(), np.uint8, offset=off)


class Cnn(nn.Module):
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scheme", default="topkc",
                    choices=["none", "topkc", "topk", "ef-topkc", "ef-topk"])
    ap.add_argument("--iters", type=int, default=400)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--batch", type=int, default=64, help="per rank")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--k", type=float, default=0.01)
    ap.add_argument("--chunk", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    xs = torch.tensor(idx("train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28), dtype=torch.float32) / 255
    ys = torch.tensor(idx("train-labels-idx1-ubyte.gz", 8).astype(np.int64))
    xt = torch.tensor(idx("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28), dtype=torch.float32) / 255
    yt = torch.tensor(idx("t10k-labels-idx1-ubyte.gz", 8).astype(np.int64))
    net = Cnn()
    params = list(net.parameters())
    names = [n for n, _ in net.named_parameters()]
    order = list(reversed(range(len(params))))  # bucket order: reverse registration
    sizes = [params[i].numel() for i in order]
    n = sum(sizes)
    owner = np.repeat([names[i] for i in order], sizes)
    opt = torch.optim.SGD(params, lr=a.lr, momentum=a.momentum)
    m = (n + a.chunk - 1) // a.chunk
    C = max(1, math.ceil(a.k * m * (1 - 1e-12)))
    kk = max(1, math.ceil(a.k * n * (1 - 1e-12)))
    resid = [torch.zeros(n) for _ in range(a.ranks)]
    picked = collections.Counter()
    perm = torch.randperm(len(xs))
    pos = 0
    for it in range(a.iters):
        grads, losses = [], []
        for r in range(a.ranks):
            if pos + a.batch > len(perm):
                perm, pos = torch.randperm(len(xs)), 0
            b = perm[pos:pos + a.batch]
            pos += a.batch
            net.zero_grad()
            loss = F.cross_entropy(net(xs[b]), ys[b])
            loss.backward()
            losses.append(loss.item())
            g = torch.cat([params[i].grad.reshape(-1) for i in order])
            if a.scheme.startswith("ef-"):
                g = g + resid[r]
            grads.append(g)
        if a.scheme == "none":
            avg = sum(grads) / a.ranks
        elif a.scheme.endswith("topkc"):
            pad = m * a.chunk - n
            norms = sum(F.pad(g, (0, pad)).view(m, a.chunk).double().pow(2).sum(1) for g in grads)
            chosen = torch.topk(norms, C).indices
            mask = torch.zeros(m, dtype=torch.bool)
            mask[chosen] = True
            mask = mask.repeat_interleave(a.chunk)[:n]
            for c in chosen.tolist():
                picked[owner[c * a.chunk]] += 1
            avg = sum(g * mask for g in grads) / a.ranks
            for r in range(a.ranks):
                resid[r] = grads[r] * ~mask
        else:  # topk
            avg = torch.zeros(n)
            for r, g in enumerate(grads):
                i = torch.topk(g.abs(), kk).indices
                sel = torch.zeros(n)
                sel[i] = g[i]
                avg += sel / a.ranks
                resid[r] = g - sel
        off = 0
        for i in order:
            p = params[i]
            p.grad = avg[off:off + p.numel()].view_as(p).clone()
            off += p.numel()
        opt.step()
        if it % 20 == 0 or it == a.iters - 1:
            dead = (F.relu(net.fc1(F.max_pool2d(F.relu(net.conv2(F.max_pool2d(F.relu(net.conv1(xt[:500])), 2))), 2).flatten(1))) > 0).any(0).float().mean().item()
            print(f"iter {it:5d} loss {sum(losses) / len(losses):.4f} fc1 units alive {dead:.2f} "
                  f"fc1.bias mean {net.fc1.bias.mean().item():+.3f}")
    with torch.no_grad():
        acc = (net(xt).argmax(1) == yt).float().mean().item()
    print(f"scheme {a.scheme}: test accuracy after {a.iters} iterations {acc:.4f}")
    if picked:
        tot = sum(picked.values())
        print("chosen chunks by tensor: " + ", ".join(f"{k} {v / tot:.0%}" for k, v in picked.most_common()))


if __name__ == "__main__":
    main()
