// Helpers of the end-to-end CLI tests: run the built `gcu` (GCU_BINARY) from the source
// tree (GCU_SOURCE_DIR) with a time limit, capturing stdout and stderr together; read a
// whole file.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gcu::cli_test {

struct Result {
  int rc = -1;
  std::string out;  // stdout and stderr
};

// Runs `binary args` from the source tree; `args` is shell text (the tests quote their own
// paths).
inline Result run_binary(const std::string& binary, const std::string& args) {
  const std::string cmd = std::string("cd '") + GCU_SOURCE_DIR + "' && timeout 120 '" + binary + "' " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// The built gcu (GCU_BINARY).
inline Result gcu(const std::string& args) { return run_binary(GCU_BINARY, args); }

// Whether this gcu was built with LibTorch (calibrate, train, pilot).
inline bool have_torch_subcommands() { return gcu("--help").out.find("\n  calibrate ") != std::string::npos; }

inline std::string slurp(const std::filesystem::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace gcu::cli_test
