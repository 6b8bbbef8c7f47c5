#!/usr/bin/env python3
"""A collective entered by free-running ranks costs more than one entered together
(docs/history/validation-log.md). PyTorch's Gloo, one thread per rank, ranks started here
on loopback; per variant 60 timed calls (5 warm-up):

  /usr/bin/python3 scripts/staggered_collective_check.py 4     # 4 ranks

  sleep-*       barrier, 10 ms asleep, call (calibrate's aligned sweep)
  train-*       8-12 ms of compute (this rank's draw), call, no barrier (a training loop)
  barrier-*     8-12 ms of compute, barrier, call
Prints per variant the per-call minimum over the ranks (the last arriving rank's time:
the call's own cost) and the mean over the ranks (with the wait for the last). all-gather:
51,736 bytes per rank (signSGD's on the CNN); all-reduce: 206,922 floats (the CNN's
bucket).
"""
import random, time

import loopback_ranks

AG_BYTES = 51736
AR_FLOATS = 206922


def rank_main(rank, world, store):
    import torch, torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=world)
    a = torch.randn(256, 256)
    rng = random.Random(rank)

    def compute(ms):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < ms / 1e3:
            a.mm(a)

    def allgather():
        x = torch.ones(AG_BYTES, dtype=torch.uint8)
        out = [torch.empty(AG_BYTES, dtype=torch.uint8) for _ in range(world)]
        t0 = time.perf_counter(); dist.all_gather(out, x); return time.perf_counter() - t0

    def allreduce():
        x = torch.ones(AR_FLOATS)
        t0 = time.perf_counter(); dist.all_reduce(x); return time.perf_counter() - t0

    for name in ["sleep-allgather", "train-allgather", "barrier-allgather", "sleep-allreduce", "train-allreduce"]:
        ts = []
        for i in range(65):
            if name.startswith("sleep"):
                dist.barrier(); time.sleep(0.01)
            elif name.startswith("barrier"):
                compute(8 + 4 * rng.random()); dist.barrier()
            else:
                compute(8 + 4 * rng.random())
            t = allgather() if name.endswith("allgather") else allreduce()
            if i >= 5:
                ts.append(t)
        t = torch.tensor(ts, dtype=torch.float64)
        mins = -t; dist.all_reduce(mins, op=dist.ReduceOp.MAX); mins = -mins
        means = t.clone(); dist.all_reduce(means); means /= world
        if rank == 0:
            print("%-18s last arriving rank: median %5.2f ms, mean %5.2f ms | mean over ranks %5.2f ms"
                  % (name, 1e3 * mins.median().item(), 1e3 * mins.mean().item(), 1e3 * means.mean().item()), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    loopback_ranks.main(rank_main, "usage: staggered_collective_check.py RANKS (>= 2)")
