// Link-rate measurement through the testbed (link_rate.h).
#include "validate/link_rate.h"

#include "simulate/error.h"
#include "util/output_file.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>
#include <vector>

namespace gcu::validate {

double allreduce_rate_gbps(const std::string& text, double min_bytes) {
  const auto st = nlohmann::json::parse(text);
  const auto& col = st.at("collectives");
  const int p = col.at("world").get<int>();
  if (p < 2) return 0;
  std::vector<double> x, y;
  for (const auto& s : col.at("sweeps")) {
    if (s.at("kind").get<std::string>() != "allreduce") continue;
    for (const auto& r : s.at("rows")) {
      const double b = r.at("bytes").get<double>();
      if (b < min_bytes) continue;
      x.push_back(b);
      y.push_back(r.at("median_s").get<double>());
    }
  }
  if (x.size() < 2) return 0;
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= double(x.size());
  my /= double(x.size());
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  if (!(sxx > 0)) return 0;
  const double slope = sxy / sxx;  // s per byte of the per-rank message
  if (!(slope > 0)) return 0;
  const double beta = slope * p / (2.0 * (p - 1));
  return 8.0 / (beta * 1e9);
}

LinkRate measure_link_rate(const Testbed& bed, const std::string& gcu, int ranks, const Link& link,
                           const std::string& out_dir, int threads, std::ostream& log) {
  LinkRate lr;
  lr.link = link;
  lr.ranks = ranks;
  const std::string stem = out_dir + "/links/r" + std::to_string(ranks) + "-" + link.name;
  std::error_code ec;
  std::filesystem::create_directories(out_dir + "/links", ec);
  std::remove((stem + ".json.state.json").c_str());
  std::vector<std::string> a = bed.launch_prefix(gcu, ranks);
  a.insert(a.end(), {gcu, "calibrate", "--model", "cnn", "--skip", "compute,gamma,codecs,errors,contention,convergence",
                     "--min-bytes", "1048576", "--max-bytes", "4194304", "--budget-s", "8", "--collective-gap-ms", "0", "--threads",
                     std::to_string(threads), "-o", stem + ".json"});
  log << "gcu validate: measuring link " << link.name << " (" << ranks << " ranks, all-reduce 1-4 MiB)" << std::flush;
  const ProcessResult r = run_process(a, stem + ".out", 180);
  try {
    lr.measured_gbps = allreduce_rate_gbps(util::read_file(stem + ".json.state.json"));
  } catch (const std::exception& e) {
    lr.note = std::string("not measured: ") + e.what() + " (exit " + std::to_string(r.exit_code) + ", " + stem + ".out)";
  }
  if (lr.measured_gbps > 0)
    log << ": " << lr.measured_gbps << " Gbit/s" << (link.unlimited() ? "" : " (asked " + link.name + ")") << "\n";
  else
    log << ": " << (lr.note.empty() ? "no usable sizes" : lr.note) << "\n";
  return lr;
}

}  // namespace gcu::validate
