// Parsing of scheme specs such as "topkc:k=0.01,chunk=256" into a name and typed
// parameters. Every parameter must be consumed by the scheme's factory; leftovers are
// reported as unknown, with the parameters the scheme accepts.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace gcu::compress {

class SchemeArgs {
 public:
  // Throws CompressorError on syntax errors ("topk:k", "topk:k=1,k=2", ":k=1").
  static SchemeArgs parse(const std::string& spec);

  const std::string& name() const { return name_; }
  bool has(const std::string& key) const { return kv_.count(key) != 0; }
  // Every key=value as written (does not count as use): the model compares the
  // parameters of two canonical specs with it (model/codec_cost.h).
  const std::map<std::string, std::string>& values() const { return kv_; }
  // Typed getters; throw CompressorError naming the key, the value and the scheme.
  double get_double(const std::string& key, double fallback) const;
  int64_t get_int(const std::string& key, int64_t fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  // Range checks: throw CompressorError "topk: k=1.5 is out of range (0, 1]".
  double get_fraction(const std::string& key, double fallback) const;  // in (0, 1]
  int64_t get_positive_int(const std::string& key, int64_t fallback) const;  // >= 1
  // A random seed: an integer in [0, 2^63), so that spec() prints what parses back
  // (a negative seed printed as a 64-bit unsigned did not re-parse; scheme fuzzer).
  uint64_t get_seed(const std::string& key = "seed") const;
  // Throws if any parameter was never read; `accepted` is listed in the message.
  void require_all_used(const std::string& accepted) const;

 private:
  std::string name_;
  std::map<std::string, std::string> kv_;
  mutable std::set<std::string> used_;
};

// Shortest decimal text that parses back to the same double ("0.01", not "0.010000"):
// how canonical specs print their real-valued parameters.
std::string format_param(double v);

}  // namespace gcu::compress
