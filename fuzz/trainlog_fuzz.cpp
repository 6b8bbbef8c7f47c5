// fuzz/trainlog_fuzz.cpp: the trainer-log reader of `gcu validate` (validate/measure.cpp:
// parse_trainlog, merge_rank_logs), which --reuse points at logs in a directory the user
// names. Input: one or more logs separated by a line "--rank--" (one per rank).
// Invariants: a bad log is a ValidateError (the cell is reported failed, the grid goes on);
// a log that parses has counts in range and every component of every iteration finite and
// >= 0; logs of one run merge into finite figures, and anything else is a ValidateError.
#include "fuzz/fuzz_util.h"
#include "validate/grid.h"
#include "validate/measure.h"

#include <cmath>
#include <vector>

namespace {

void check_log(const gcu::validate::TrainLog& t) {
  GCU_FUZZ_CHECK(t.world_size >= 1 && t.batch_per_rank >= 1 && t.threads >= 0, t.scheme.substr(0, 80));
  GCU_FUZZ_CHECK(std::isfinite(t.wire_bytes_per_iter) && t.wire_bytes_per_iter >= 0, "wire bytes");
  for (const auto& b : t.iters)
    for (double x : b) GCU_FUZZ_CHECK(std::isfinite(x) && x >= 0, "a component is " + std::to_string(x));
  for (double w : t.straggler_wait_s) GCU_FUZZ_CHECK(std::isfinite(w), "straggler wait " + std::to_string(w));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = gcu::fuzz::as_string(data, size);
  std::vector<std::string> parts;
  size_t from = 0;
  const std::string sep = "\n--rank--\n";
  for (size_t at; (at = text.find(sep, from)) != std::string::npos && parts.size() < 7; from = at + sep.size())
    parts.push_back(text.substr(from, at - from));
  parts.push_back(text.substr(from));
  std::vector<gcu::validate::TrainLog> logs;
  for (size_t r = 0; r < parts.size(); ++r) {
    try {
      logs.push_back(gcu::validate::parse_trainlog(parts[r], "rank" + std::to_string(r)));
    } catch (const gcu::validate::ValidateError&) {
      return 0;
    }
    check_log(logs.back());
  }
  try {
    check_log(gcu::validate::merge_rank_logs(logs));
  } catch (const gcu::validate::ValidateError&) {
  }
  return 0;
}
