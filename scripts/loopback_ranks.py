"""Runs a check script's ranks on this machine (loopback, one thread each), for the Gloo
checks scripts/f16_allreduce_check.py and scripts/staggered_collective_check.py.

A check script calls main(rank_main, usage): started as `script.py RANKS` it starts RANKS
copies of itself as `script.py RANK RANKS STORE` (a shared file store in a temporary
directory) and exits with the worst exit code; each copy runs rank_main(rank, world, store).
"""
import os, subprocess, sys, tempfile


def main(rank_main, usage):
    script = os.path.abspath(sys.argv[0])
    if len(sys.argv) == 4:
        rank_main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 2:
        sys.exit(usage)
    world = int(sys.argv[1])
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        procs = [subprocess.Popen([sys.executable, script, str(r), str(world), store], env=env) for r in range(world)]
        sys.exit(max(p.wait() for p in procs))
