// Trainer log reading and per-component statistics (measure.h).
#include "validate/measure.h"

#include "validate/grid.h"

#include "calibrate/stats.h"

#include <nlohmann/json.hpp>

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
    json j;
    try {
      j = json::parse(line);
    } catch (const std::exception& e) {
      throw ValidateError(file + ":" + std::to_string(lineno) + ": not JSON: " + e.what());
    }
    const std::string type = j.value("type", "");
    if (type == "header") {
      if (j.value("schema", "") != "gcu.trainlog/1")
        throw ValidateError(file + ": schema " + j.value("schema", "(none)") + ", expected gcu.trainlog/1");
      header = true;
      log.model = j.at("model").get<std::string>();
      log.scheme = j.at("scheme").get<std::string>();
      log.mode = j.at("mode").get<std::string>();
      log.world_size = j.at("world_size").get<int>();
      log.batch_per_rank = j.at("batch_per_rank").get<int>();
      log.threads = j.at("threads").get<int>();
      log.wire_bytes_per_iter = j.at("wire_bytes_per_iter").get<double>();
      if (j.contains("gloo_interfaces")) log.gloo_interfaces = j["gloo_interfaces"].dump();
    } else if (type == "iter") {
      if (!j.at("measured").get<bool>()) continue;
      Breakdown b{};
      for (int c = 0; c < kComponents; ++c) b[size_t(c)] = j.at(kFields[c]).get<double>();
      log.iters.push_back(b);
    } else if (type == "summary") {
      log.complete = true;
    }
  }
  if (!header) throw ValidateError(file + ": no header line (is it a gcu train log?)");
  return log;
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
