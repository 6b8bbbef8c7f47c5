// Live temporary files, removed by a SIGINT/SIGTERM handler: a file being written by
// AtomicFile (output_file.h) is registered here until it is renamed or removed, so an
// interrupted run leaves no "<name>.tmp.*" behind. The handler unlinks every registered
// path (async-signal-safe: fixed slots, no allocation), restores the previous disposition
// and re-raises the signal, so the process still dies of it (or the previous handler
// runs).
#pragma once

#include <cstddef>
#include <string>

namespace gcu::util {

// Most temporary files alive at once; register_temp() throws std::runtime_error beyond.
inline constexpr size_t kMaxLiveTemps = 64;

// Registers `path` for removal on SIGINT/SIGTERM (installs the handler on first use).
// Returns a slot id for unregister_temp(). Throws std::runtime_error when all slots are
// taken or the path is longer than PATH_MAX.
int register_temp(const std::string& path);
void unregister_temp(int slot);

// Number of registered paths (for tests).
size_t live_temp_count();

}  // namespace gcu::util
