# Per-layer cost estimates of a model's backward pass, used by gen_profiles.py to turn
# ONE published timing (ResNet-50 backward on a V100 at batch 64: 122 ms) into
#   - the backward time of other models and batch sizes (ratio of estimates), and
#   - the time at which each parameter's gradient becomes ready during backward.
#
# Each leaf layer's backward time is a roofline estimate on a V100 (FP32):
#   t = max(flops / PEAK_FLOPS, bytes / PEAK_BYTES_PER_S) / EFFICIENCY + LAUNCH_S * kernels
# flops: 2 * MACs of the weight gradient plus 2 * MACs of the input gradient (the first
# layer of a network needs no input gradient); bytes: activations, gradients and weights
# read and written once. Only RATIOS of these estimates are used: the absolute level is
# pinned to the published 122 ms, so EFFICIENCY only sets the balance between compute-
# and memory-bound layers and the launch overhead.
import torch
from torch import nn

import archs

PEAK_FLOPS = 15.7e12         # V100 SXM2 FP32 peak, FLOP/s
PEAK_BYTES_PER_S = 900e9     # V100 HBM2 peak, bytes/s
EFFICIENCY = 0.6             # fraction of peak reached by cuDNN/cuBLAS/elementwise kernels
LAUNCH_S = 5e-6              # per-kernel launch/tail overhead
F32 = 4                      # bytes per element

LEAVES = (nn.Conv2d, nn.Linear, nn.BatchNorm2d, nn.LayerNorm, nn.Embedding,
          archs.AttentionCore)


def _layer_terms(mod, inp, out, first):
    """Per-sample FLOPs and activation bytes, fixed (weight) bytes, kernels and forward
    MACs per sample of one leaf layer's backward, traced at batch 1."""
    x = inp[0]
    o = out
    if isinstance(mod, nn.Conv2d):
        k = mod.in_channels // mod.groups * mod.kernel_size[0] * mod.kernel_size[1]
        macs = o.numel() * k
        passes = 1 if first else 2  # weight gradient (+ input gradient)
        return 2 * macs * passes, F32 * (x.numel() * passes + o.numel()), F32 * 2 * mod.weight.numel(), 1 + passes, macs
    if isinstance(mod, nn.Linear):
        macs = o.numel() * mod.in_features
        passes = 1 if first else 2
        return 2 * macs * passes, F32 * (x.numel() * passes + o.numel()), F32 * 2 * mod.weight.numel(), 1 + passes, macs
    if isinstance(mod, archs.AttentionCore):
        b, s, h = o.shape
        macs = 2 * b * s * s * h                 # Q K^T and A V
        # backward: two matmuls per forward matmul; softmax gradient and q, k, v traffic
        return 2 * macs * 2, F32 * (4 * b * mod.heads * s * s + 6 * o.numel()), 0, 6, macs
    if isinstance(mod, (nn.BatchNorm2d, nn.LayerNorm)):
        # read x, dy; write dx; + a reduction pass
        return 8 * o.numel(), F32 * 4 * o.numel(), 0, 2, 0
    if isinstance(mod, nn.Embedding):
        # dense gradient of the whole table: zero it, then index-add the rows used
        return 0, F32 * 2 * o.numel(), F32 * mod.weight.numel(), 2, 0
    raise TypeError(type(mod))


def trace_layers(model, example):
    """Runs ONE sample of `example` (batch 1) through `model`; returns the leaf layer calls
    in forward order as dicts {params: [names], flops, act_bytes (per sample), fixed_bytes,
    kernels, macs (per sample)}."""
    names = {id(p): n for n, p in model.named_parameters()}
    calls = []

    def hook(mod, inp, out):
        f, a, w, k, macs = _layer_terms(mod, inp, out, first=len(calls) == 0)
        calls.append({"params": [names[id(p)] for p in mod.parameters(recurse=False)],
                      "flops": f, "act_bytes": a, "fixed_bytes": w, "kernels": k, "macs": macs})

    hs = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, LEAVES)]
    with torch.no_grad():
        model.eval()
        model(example[:1])
    for h in hs:
        h.remove()
    return calls


def layer_seconds(c, batch):
    t = max(c["flops"] * batch / PEAK_FLOPS, (c["act_bytes"] * batch + c["fixed_bytes"]) / PEAK_BYTES_PER_S)
    return t / EFFICIENCY + LAUNCH_S * c["kernels"]


def backward_profile(model, example):
    """Estimated backward seconds (unnormalized), forward MACs, and for each parameter
    name the fraction of backward elapsed when its gradient is ready (the layer that owns
    it has finished its backward). Layers run backward in reverse forward order."""
    calls = trace_layers(model, example)
    batch = example.shape[0]
    for c in calls:
        c["backward_s"] = layer_seconds(c, batch)
    total = sum(c["backward_s"] for c in calls)
    ready_fraction = {}
    elapsed = 0.0
    for c in reversed(calls):
        elapsed += c["backward_s"]
        for n in c["params"]:
            # a parameter used twice (none here) would become ready at its first-done use
            ready_fraction.setdefault(n, elapsed / total)
    macs = sum(c["macs"] for c in calls) * batch
    return total, macs, ready_fraction
