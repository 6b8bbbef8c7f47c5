// glibc's allocator thresholds pinned for the whole process. glibc starts with a 128 KiB
// mmap threshold and raises it dynamically each time a larger mmapped block is freed. A CPU
// training step allocates activations and gradients of 0.1-10 MB every iteration: served
// by mmap, each pays fresh page faults; served from the heap, it does not. Which way a
// process goes depends on the order of its first frees, so ranks of one run differed by 20%
// in forward time (CNN, 2 x 32 on Fashion-MNIST: 2.99 against 3.68 ms), and calibrate and
// training could land on different sides. Pinned (64 MiB mmap threshold, 256 MiB trim
// threshold) every process serves them from the heap: 2.67-2.72 ms on both ranks, run
// after run.
#pragma once

#include <functional>
#include <string>

namespace gcu::util {

// What `pin_malloc_thresholds` does, decided from the environment (`getenv`-like):
// "pinned" unless the user chose: GCU_MALLOC=dynamic (glibc's own policy), or their own
// MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ / GLIBC_TUNABLES with a malloc tunable
// ("user"). Without glibc: "unsupported".
std::string malloc_policy(const std::function<const char*(const char*)>& env);

// Applies the policy of the process environment; returns it ("pinned", "dynamic",
// "user", "unsupported").
std::string pin_malloc_thresholds();

inline constexpr long kPinnedMmapThresholdBytes = 64L << 20;
inline constexpr long kPinnedTrimThresholdBytes = 256L << 20;

}  // namespace gcu::util
