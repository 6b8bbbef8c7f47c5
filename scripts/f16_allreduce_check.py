#!/usr/bin/env python3
"""Per-element extra of Gloo's float16 all-reduce over a float32 all-reduce of the same
bytes, per message size (docs/history/validation-log.md, the 4-rank CNN grid: fp16
-21..-25%).
PyTorch's Gloo, one thread per rank, ranks started here on loopback:

  /usr/bin/python3 scripts/f16_allreduce_check.py 4        # 4 ranks
Prints, per size, the median of 9 calls (5 from 1M elements) of each and the extra in ns
per element. Values 1 + (i mod 256)/256, as calibrate's wire-types step uses.
"""
import time

import loopback_ranks


def rank_main(rank, world, store):
    import torch, torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=world)
    for n in [1 << 16, 206922, 1 << 18, 1 << 20, 1 << 22]:
        x = (torch.arange(n) % 256 / 256.0 + 1).half()
        f = (torch.arange(n // 2) % 256 / 256.0 + 1).float()
        ts, tf = [], []
        for _ in range(9 if n < (1 << 20) else 5):
            y = x.clone(); dist.barrier(); t0 = time.perf_counter(); dist.all_reduce(y); ts.append(time.perf_counter() - t0)
            z = f.clone(); dist.barrier(); t0 = time.perf_counter(); dist.all_reduce(z); tf.append(time.perf_counter() - t0)
        ts.sort(); tf.sort(); m = len(ts) // 2
        if rank == 0:
            print("n %8d  f16 %7.2f ms  f32 (same bytes) %7.2f ms  extra %5.1f ns/element"
                  % (n, ts[m] * 1e3, tf[m] * 1e3, (ts[m] - tf[m]) / n * 1e9), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    loopback_ranks.main(rank_main, "usage: f16_allreduce_check.py RANKS (>= 2)")
