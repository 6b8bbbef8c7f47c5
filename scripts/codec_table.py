#!/usr/bin/python3
# Writes data/hardware/codecs-h100.json from gcu's own CUDA benchmark on one H100
# (data/gpu/h100-2026-11-26/cuda-bench.txt: bench/compressors_cuda, every scheme's
# round trip, compress + decompress without communication, one tensor per bucket, at
# 1,048,576 and 25,600,000 elements). gcu simulate --model SPEC --gpu NAME reads it
# (model/network/describe.h) for the codec costs of a described system.
#   /usr/bin/python3 scripts/codec_table.py
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = "data/gpu/h100-2026-11-26/cuda-bench.txt"


def main():
    text = open(os.path.join(ROOT, BENCH)).read()
    device = text.splitlines()[0]
    peak = float(re.search(r"peak memory bandwidth (\d+) GB/s", device).group(1)) * 1e9
    schemes = {}
    for block in re.split(r"\n(?=n = )", text):
        m = re.match(r"n = (\d+) floats", block)
        if not m:
            continue
        n = int(m.group(1))
        for line in block.splitlines()[2:]:
            parts = line.split()
            if len(parts) < 5 or parts[0] == "moved":
                continue
            schemes.setdefault(parts[0], {"elements": [], "roundtrip_s": []})
            schemes[parts[0]]["elements"].append(n)
            schemes[parts[0]]["roundtrip_s"].append(float(parts[2]) * 1e-3)
    out = {
        "schema": "gcu.codec-bench/1",
        "gpu": "h100-sxm",
        "device": device.split(",")[0].split(": ", 1)[1],
        "memory_bytes_per_s": peak,
        "fp32_flops": 67e12,  # H100 SXM dense FP32 (data/hardware/gpus.json): PowerSGD's GEMMs
        "source": BENCH + " (bench/compressors_cuda: round trip, one tensor per bucket, medians)",
        "schemes": schemes,
    }
    path = os.path.join(ROOT, "data/hardware/codecs-h100.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print("wrote", path, len(schemes), "schemes")


if __name__ == "__main__":
    main()
