// glibc's allocator thresholds pinned (malloc_tuning.h).
#include "util/malloc_tuning.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gcu::util {

std::string malloc_policy(const std::function<const char*(const char*)>& env) {
#if defined(__GLIBC__)
  const char* g = env("GCU_MALLOC");
  if (g && std::strcmp(g, "dynamic") == 0) return "dynamic";
  if (env("MALLOC_MMAP_THRESHOLD_") || env("MALLOC_TRIM_THRESHOLD_")) return "user";
  const char* t = env("GLIBC_TUNABLES");
  if (t && std::strstr(t, "glibc.malloc.")) return "user";
  return "pinned";
#else
  (void)env;
  return "unsupported";
#endif
}

std::string pin_malloc_thresholds() {
  const std::string p = malloc_policy([](const char* k) { return std::getenv(k); });
#if defined(__GLIBC__)
  if (p == "pinned") {
    // Setting either threshold also turns glibc's dynamic adjustment off.
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(kPinnedMmapThresholdBytes));
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(kPinnedTrimThresholdBytes));
  }
#endif
  return p;
}

}  // namespace gcu::util
