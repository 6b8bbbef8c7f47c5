// `gcu schemes`: the registered compression schemes, their parameters, collectives and
// exact wire bytes per rank for a bucket of n floats (or a layout of tensors) on p ranks,
// as a table or JSON (compressors/describe.h does the work).
#include "command.h"
#include "compressors/describe.h"
#include "compressors/registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace gcu::cli {
namespace {
using namespace gcu::compress;

struct SchemesOptions {
  int64_t n = 25557032;  // ResNet-50's parameter count (data/README.md)
  int world = 8;
  std::string layout;
  std::vector<std::string> specs;
  bool json = false;
};

// %.6g of the ratio, as a number: the JSON keeps six significant digits.
double six_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

nlohmann::ordered_json scheme_json(const SchemeDescription& d) {
  nlohmann::ordered_json calls = nlohmann::ordered_json::array();
  for (const auto& c : d.calls)
    calls.push_back({{"kind", collective_name(c.kind)},
                     {"type", wire_type_name(c.type)},
                     {"count", c.count},
                     {"bytes_per_rank", c.bytes_per_rank()},
                     {"label", c.label}});
  return {{"name", d.name},
          {"spec", d.spec},
          {"params", d.params},
          {"summary", d.summary},
          {"collectives", std::move(calls)},
          {"wire_bytes", d.wire_bytes},
          {"fp32_bytes", d.fp32_bytes},
          {"ratio", six_digits(d.ratio)},
          {"biased", d.traits.biased},
          {"error_feedback", d.traits.error_feedback},
          {"stateful", d.traits.stateful}};
}

void print_json(const std::vector<SchemeDescription>& ds, int64_t n, int world) {
  nlohmann::ordered_json j = {{"numel", n}, {"world_size", world}, {"schemes", nlohmann::ordered_json::array()}};
  for (const auto& d : ds) j["schemes"].push_back(scheme_json(d));
  std::printf("%s\n", j.dump(2).c_str());
}

void print_table(const std::vector<SchemeDescription>& ds, int64_t n, int world) {
  std::printf("Wire bytes per rank for %lld floats on %d ranks (fp32 all-reduce payload: %lld bytes)\n\n",
              static_cast<long long>(n), world, static_cast<long long>(4 * n));
  int w = 4;
  for (const auto& d : ds) w = std::max(w, static_cast<int>(d.spec.size()));
  std::printf("%-*s %14s %9s  %-6s %-3s %-5s  %s\n", w, "spec", "wire_bytes", "ratio", "biased", "ef",
              "state", "collectives");
  for (const auto& d : ds)
    std::printf("%-*s %14lld %8.1fx  %-6s %-3s %-5s  %s\n", w, d.spec.c_str(),
                static_cast<long long>(d.wire_bytes), d.ratio, d.traits.biased ? "yes" : "no",
                d.traits.error_feedback ? "yes" : "no", d.traits.stateful ? "yes" : "no",
                format_calls(d.calls).c_str());
  std::printf("\nParameters (spec syntax name:key=value,...; wrap any spec in ef(...) for error feedback):\n");
  std::vector<std::string> seen;
  for (const auto& d : ds) {
    bool dup = false;
    for (const auto& s : seen) dup = dup || s == d.name;
    if (dup) continue;
    seen.push_back(d.name);
    std::printf("  %-10s %s\n", d.name.c_str(), d.params.empty() ? "(none)" : d.params.c_str());
  }
}

void run_schemes(const SchemesOptions& o) {
  if (o.world < 1) throw UsageError("--world must be >= 1, got " + std::to_string(o.world));
  if (o.n < 0) throw UsageError("-n must be >= 0, got " + std::to_string(o.n));
  BucketLayout layout;
  try {
    layout = o.layout.empty() ? BucketLayout::flat(o.n) : parse_layout(o.layout);
  } catch (const CompressorError& e) {
    throw UsageError(e.what());
  }
  std::vector<SchemeDescription> ds;
  try {
    if (o.specs.empty()) ds = describe_all(layout, o.world);
    for (const auto& s : o.specs) ds.push_back(describe_scheme(s, layout, o.world));
  } catch (const CompressorError& e) {
    throw UsageError(e.what());
  }
  if (o.json) print_json(ds, layout.numel(), o.world);
  else print_table(ds, layout.numel(), o.world);
}

void setup_schemes(CLI::App& app) {
  auto o = std::make_shared<SchemesOptions>();
  auto* sub = app.add_subcommand(
      "schemes", "List the compression schemes: parameters, collectives and exact wire bytes per rank");
  sub->add_option("-n,--numel", o->n, "Bucket size in floats (one 1-D tensor)")->capture_default_str();
  sub->add_option("-p,--world", o->world, "Number of ranks")->capture_default_str();
  sub->add_option("--layout", o->layout,
                  "Tensors instead of -n, e.g. 2048x1000,1000 (PowerSGD compresses matrices only)");
  sub->add_option("--spec", o->specs, "Scheme specs to describe, ';'-separated (default: every scheme "
                                      "with default parameters), e.g. 'topk:k=0.001;ef(randomk:k=0.01)'")
      ->delimiter(';');
  sub->add_flag("--json", o->json, "Print JSON instead of a table");
  sub->callback([o] { run_schemes(*o); });
}

const Registrar reg_schemes{"schemes", 40, &setup_schemes};

}  // namespace
}  // namespace gcu::cli
