// util/malloc_tuning.h: the policy from the environment, and that pinning keeps a
// training-sized block (8 MB) off mmap while a block above the pinned threshold is still
// mmapped.
#include "util/malloc_tuning.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gcu::util {
namespace {

std::string policy(std::map<std::string, std::string> vars) {
  return malloc_policy([&](const char* k) -> const char* {
    auto it = vars.find(k);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(MallocTuning, PolicyFollowsTheEnvironment) {
#if defined(__GLIBC__)
  EXPECT_EQ(policy({}), "pinned");
  EXPECT_EQ(policy({{"GCU_MALLOC", "dynamic"}}), "dynamic");
  EXPECT_EQ(policy({{"GCU_MALLOC", "something"}}), "pinned");
  EXPECT_EQ(policy({{"MALLOC_MMAP_THRESHOLD_", "131072"}}), "user");
  EXPECT_EQ(policy({{"MALLOC_TRIM_THRESHOLD_", "0"}}), "user");
  EXPECT_EQ(policy({{"GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=4096"}}), "user");
  EXPECT_EQ(policy({{"GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2"}}), "pinned");
#else
  EXPECT_EQ(policy({}), "unsupported");
#endif
}

TEST(MallocTuning, PinnedThresholdKeepsTrainingSizedBlocksOffMmap) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer replaces glibc's malloc: mallinfo2() does not see its blocks (scripts/sanitize.sh)";
#elif defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
  if (std::getenv("GCU_MALLOC") || std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("MALLOC_TRIM_THRESHOLD_") ||
      std::getenv("GLIBC_TUNABLES"))
    GTEST_SKIP() << "the environment sets the allocator's policy";
  ASSERT_EQ(pin_malloc_thresholds(), "pinned");
  const size_t before = mallinfo2().hblks;
  void* mid = std::malloc(8u << 20);  // a large activation: from the heap once pinned
  ASSERT_NE(mid, nullptr);
  std::memset(mid, 1, 8u << 20);
  EXPECT_EQ(mallinfo2().hblks, before);
  void* big = std::malloc(static_cast<size_t>(kPinnedMmapThresholdBytes) + (16u << 20));  // above: mmapped
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(mallinfo2().hblks, before + 1);
  std::free(big);
  std::free(mid);
#else
  GTEST_SKIP() << "needs glibc >= 2.33 (mallinfo2)";
#endif
}

}  // namespace
}  // namespace gcu::util
