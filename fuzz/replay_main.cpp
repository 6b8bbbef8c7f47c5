// fuzz/replay_main.cpp: runs a libFuzzer target's LLVMFuzzerTestOneInput on every file
// of the folders (or files) given, with the ordinary compiler and no libFuzzer, so the
// default test suite replays the whole corpus and every fixed finding in seconds
// (fuzz/replay.cmake). A crash, an abort from GCU_FUZZ_CHECK or an exception that the
// target does not handle fails the run; the file being replayed is printed first on
// failure. Fuzzing itself (new inputs, sanitizers) is scripts/fuzz.sh.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {
const std::string* g_current = nullptr;

void on_terminate() {
  std::fprintf(stderr, "fuzz replay: uncaught exception on %s\n", g_current ? g_current->c_str() : "?");
  std::abort();
}
}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename() != "README.md") files.push_back(e.path().string());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p.string());
    } else {
      std::fprintf(stderr, "fuzz replay: %s: no such file or folder\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "fuzz replay: no inputs given\n");
    return 2;
  }
  std::sort(files.begin(), files.end());
  std::set_terminate(on_terminate);
  for (const auto& f : files) {
    g_current = &f;
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("fuzz replay: %zu inputs, no finding\n", files.size());
  return 0;
}
