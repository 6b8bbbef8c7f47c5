#!/usr/bin/env bash
# Issue 10 deliverable 1: the what-if binaries (model, simulate and their tests/benches)
# must not load the CUDA runtime, cuBLAS or NCCL: gcu_compressors never links
# gcu_compressors_cuda. Usage: no_cuda_link_test.sh BINARY...   (fails naming the culprit)
set -u
status=0
for bin in "$@"; do
  if [ ! -e "$bin" ]; then echo "missing binary: $bin (build it first)"; status=1; continue; fi
  libs=$(ldd "$bin" 2>&1) || { echo "ldd failed on $bin: $libs"; status=1; continue; }
  bad=$(printf '%s\n' "$libs" | grep -E 'libcudart|libcublas|libnccl|libcuda\.so' || true)
  if [ -n "$bad" ]; then
    echo "FAIL: $bin links CUDA libraries:"; printf '%s\n' "$bad"; status=1
  else
    echo "ok: $(basename "$bin") loads no cudart/cuBLAS/NCCL"
  fi
done
exit $status
