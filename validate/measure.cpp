// Trainer log reading and per-component statistics (measure.h).
#include "validate/measure.h"

#include "validate/grid.h"

#include "calibrate/stats.h"
#include "util/output_file.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>

namespace gcu::validate {

namespace {
constexpr const char* kNames[kComponents] = {"forward", "backward", "exposed_comm", "encode", "decode",
                                             "collective", "optimizer", "data", "total"};
constexpr const char* kFields[kComponents] = {"forward_s", "backward_s", "comm_exposed_s", "encode_s",
                                              "decode_s", "collective_s", "optimizer_s", "data_s", "total_s"};
}  // namespace

const char* component_name(Component c) { return kNames[int(c)]; }
const char* trainlog_field(Component c) { return kFields[int(c)]; }

namespace {
// A header's count: an integer in [lo, hi] (a cast of 1e300 to int is undefined behaviour).
int count_of(const nlohmann::json& j, const char* key, int lo, int hi) {
  const auto& v = j.at(key);
  const double x = v.is_number() ? v.get<double>() : std::nan("");
  if (!(x >= lo && x <= hi) || x != std::floor(x))
    throw ValidateError(std::string("'") + key + "' is not an integer in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]: " + v.dump().substr(0, 40));
  return static_cast<int>(x);
}

// A duration or size: a finite number >= 0.
double nonnegative_of(const nlohmann::json& j, const char* key) {
  const auto& v = j.at(key);
  const double x = v.is_number() ? v.get<double>() : std::nan("");
  if (!(std::isfinite(x) && x >= 0))
    throw ValidateError(std::string("'") + key + "' is not a finite number >= 0: " + v.dump().substr(0, 40));
  return x;
}
}  // namespace

TrainLog parse_trainlog(const std::string& text, const std::string& file) {
  using nlohmann::json;
  TrainLog log;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    const std::string where = file + ":" + std::to_string(lineno) + ": ";
    json j;
    try {
      j = json::parse(line);
    } catch (const std::exception& e) {
      throw ValidateError(where + "not JSON: " + e.what());
    }
    // Every field of the wrong type or range is an error naming the file and the line
    // (a log is read back by --reuse from a directory the user names: untrusted input).
    try {
      if (!j.is_object()) throw ValidateError("not a JSON object");
      const std::string type = j.value("type", "");
      if (type == "header") {
        if (j.value("schema", "") != "gcu.trainlog/1")
          throw ValidateError("schema " + j.value("schema", "(none)").substr(0, 60) + ", expected gcu.trainlog/1");
        header = true;
        log.model = j.at("model").get<std::string>();
        log.scheme = j.at("scheme").get<std::string>();
        log.mode = j.at("mode").get<std::string>();
        log.world_size = count_of(j, "world_size", 1, 1 << 20);
        log.batch_per_rank = count_of(j, "batch_per_rank", 1, 1 << 24);
        log.threads = count_of(j, "threads", 0, 1 << 16);
        log.wire_bytes_per_iter = nonnegative_of(j, "wire_bytes_per_iter");
        if (j.contains("gloo_interfaces")) log.gloo_interfaces = j["gloo_interfaces"].dump();
      } else if (type == "iter") {
        if (!j.at("measured").get<bool>()) continue;
        Breakdown b{};
        for (int c = 0; c < kComponents; ++c) b[size_t(c)] = nonnegative_of(j, kFields[c]);
        log.iters.push_back(b);
      } else if (type == "summary") {
        log.complete = true;
      }
    } catch (const ValidateError& e) {
      throw ValidateError(where + e.what());
    } catch (const json::exception& e) {  // a missing field, a field of the wrong type
      throw ValidateError(where + e.what());
    }
  }
  if (!header) throw ValidateError(file + ": no header line (is it a gcu train log?)");
  return log;
}

TrainLog merge_rank_logs(const std::vector<TrainLog>& ranks) {
  if (ranks.empty()) throw ValidateError("merge_rank_logs: no logs");
  const TrainLog& r0 = ranks.front();
  TrainLog out = r0;
  out.rank_logs = int(ranks.size());
  out.iters.clear();
  out.straggler_wait_s.clear();
  for (size_t r = 1; r < ranks.size(); ++r) {
    const TrainLog& l = ranks[r];
    if (l.scheme != r0.scheme || l.mode != r0.mode || l.world_size != r0.world_size ||
        l.batch_per_rank != r0.batch_per_rank)
      throw ValidateError("rank " + std::to_string(r) + "'s log is of another run (" + l.scheme + " " + l.mode +
                          ", " + std::to_string(l.world_size) + " ranks) than rank 0's (" + r0.scheme + " " +
                          r0.mode + ", " + std::to_string(r0.world_size) + " ranks)");
    if (l.iters.size() != r0.iters.size())
      throw ValidateError("rank " + std::to_string(r) + "'s log has " + std::to_string(l.iters.size()) +
                          " measured iterations, rank 0's " + std::to_string(r0.iters.size()));
    out.complete = out.complete && l.complete;
  }
  const auto compute = [](const Breakdown& b) {
    return at(b, Component::Forward) + at(b, Component::Backward) + at(b, Component::Optimizer);
  };
  const double n = static_cast<double>(ranks.size());
  for (size_t k = 0; k < r0.iters.size(); ++k) {
    size_t slow = 0;
    double total = 0, coll = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const Breakdown& b = ranks[r].iters[k];
      if (compute(b) > compute(ranks[slow].iters[k])) slow = r;
      total += at(b, Component::Total);
      coll += at(b, Component::Collective);
    }
    Breakdown m = ranks[slow].iters[k];
    at(m, Component::Total) = total / n;
    out.iters.push_back(m);
    out.straggler_wait_s.push_back(coll / n - at(ranks[slow].iters[k], Component::Collective));
  }
  return out;
}

TrainLog read_run_logs(const std::string& log, int world, std::vector<std::string>* files) {
  const std::string first = log + ".rank0";
  if (world < 2 || !std::filesystem::exists(first)) {
    if (files) files->push_back(log);
    return parse_trainlog(util::read_file(log), log);
  }
  std::vector<TrainLog> ranks;
  for (int r = 0; r < world; ++r) {
    const std::string f = log + ".rank" + std::to_string(r);
    if (files) files->push_back(f);
    ranks.push_back(parse_trainlog(util::read_file(f), f));
  }
  return merge_rank_logs(ranks);
}

Spread spread_of(std::vector<double> v) {
  Spread s;
  s.n = int(v.size());
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  s.median = calibrate::quantile(v, 0.5);
  s.p10 = calibrate::quantile(v, 0.1);
  s.p90 = calibrate::quantile(std::move(v), 0.9);
  return s;
}

}  // namespace gcu::validate
