// fuzz/pilot_records_fuzz.cpp: `gcu pilot predict`'s reader and model
// (convergence/pilot_predict.cpp, pilot_late.cpp, convergence/progress_fit.cpp) on arbitrary pilot
// records. Input: a first line of options, `key=value` words (target, t0, metric, pilot,
// looks, late, stall, biased, oneseed; each optional, unknown words ignored), then JSON
// lines as `gcu pilot run` writes them (lines that do not parse are skipped, as the CLI
// would refuse them before the model sees them).
// Invariants: bad records are std::invalid_argument or a nlohmann::json exception (the CLI
// turns both into a usage error); every number of the result is finite (nlohmann writes a
// NaN as null: a NaN that reaches a number field is a finding); a status is one of
// reaches / never / uncertain, a `reaches` has positive iterations inside its interval; the
// profile entry built from each row (what --write-profile stores) has finite multipliers.
#include "convergence/pilot_predict.h"
#include "fuzz/fuzz_util.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace {

using Json = nlohmann::ordered_json;

void check_finite(const Json& j, const std::string& where) {
  if (j.is_number_float()) {
    GCU_FUZZ_CHECK(std::isfinite(j.get<double>()), "non-finite number at " + where);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) check_finite(it.value(), where + "." + it.key());
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) check_finite(j[i], where + "[" + std::to_string(i) + "]");
  }
}

// One option word's value as a finite double (absent or unparsable: `fallback`).
double number_of(const std::string& v, double fallback) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  return end != v.c_str() && std::isfinite(x) ? x : fallback;
}

gcu::calibrate::PilotPredictOptions options_of(const std::string& line) {
  gcu::calibrate::PilotPredictOptions o;
  o.target = 1.0;
  o.bootstrap = 8;  // speed: the bootstrap's arithmetic is the same at any count
  std::istringstream words(line);
  std::string w;
  while (words >> w) {
    const auto eq = w.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = w.substr(0, eq), v = w.substr(eq + 1);
    if (k == "target") o.target = number_of(v, 1.0);
    if (k == "t0" && number_of(v, 0) > 0) o.baseline_iterations = number_of(v, 0);  // the CLI: > 0 or absent
    if (k == "metric") o.metric = v == "error" ? "error" : "loss";
    if (k == "pilot") o.pilot_iterations = static_cast<int>(std::fmod(std::fabs(number_of(v, 0)), 1e6));
    if (k == "looks") o.stable_looks = 1 + static_cast<int>(std::fmod(std::fabs(number_of(v, 3)), 5));
    if (k == "late") o.late = v != "0";
    if (k == "stall") o.late_stall = v != "0";
    if (k == "biased") o.biased_rule = v != "0";
    if (k == "oneseed") o.one_seed_term = v != "0";
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [first, rest] = gcu::fuzz::split_first_line(gcu::fuzz::as_string(data, size));
  const auto o = options_of(first);
  std::vector<nlohmann::json> records;
  std::istringstream lines(rest);
  std::string line;
  while (std::getline(lines, line)) {
    auto r = nlohmann::json::parse(line, nullptr, false);
    if (!r.is_discarded()) records.push_back(std::move(r));
  }
  Json out;
  try {
    out = gcu::calibrate::predict_from_pilots(records, o);
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  GCU_FUZZ_CHECK(out.is_object(), out.dump().substr(0, 200));
  for (auto it = out.begin(); it != out.end(); ++it) {
    const Json& t = it.value();
    check_finite(t, it.key());
    const std::string status = t.at("status").get<std::string>();
    GCU_FUZZ_CHECK(status == "reaches" || status == "never" || status == "uncertain", it.key() + ": " + status);
    if (status == "reaches") {
      GCU_FUZZ_CHECK(t.at("iterations").is_number() && t["iterations"].get<double>() > 0,
                     it.key() + ": reaches without positive iterations: " + t.dump().substr(0, 400));
      if (t.at("interval").is_array()) {
        const double lo = t["interval"][0].get<double>(), hi = t["interval"][1].get<double>();
        const double x = t["iterations"].get<double>();
        GCU_FUZZ_CHECK(lo <= x * (1 + 1e-9) && x <= hi * (1 + 1e-9),
                       it.key() + ": iterations outside the interval: " + t.dump().substr(0, 400));
      }
    }
    Json e;
    try {
      e = gcu::calibrate::pilot_profile_entry(t);
    } catch (const std::exception& ex) {
      GCU_FUZZ_CHECK(false, it.key() + ": a predicted row has no profile entry: " + ex.what());
    }
    check_finite(e, it.key() + ".pilot");
  }
  return 0;
}
