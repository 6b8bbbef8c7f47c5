// `gcu schemes`: the registered compression schemes, their parameters, collectives and
// exact wire bytes per rank for a model's gradient tensors (by default ResNet-50's; or a
// profile's, a layout, or one flat bucket) on p ranks, as a table or JSON
// (compressors/describe.h does the work).
#include "command.h"
#include "resnet50_layout.h"
#include "compressors/describe.h"
#include "compressors/registry.h"
#include "model/units.h"
#include "simulate/profile_file.h"

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
  int64_t n = -1;        // one flat bucket of n floats (-1: not given)
  int world = 8;
  std::string layout;    // tensor shapes (default: ResNet-50's)
  std::string profile;   // or the tensors of a profile's model
  std::vector<std::string> specs;
  std::string format = "table";
};

// The tensors described: -n, --layout, --profile (at most one), or ResNet-50's.
BucketLayout chosen_layout(const SchemesOptions& o, std::string* what) {
  const int given = (o.n >= 0) + !o.layout.empty() + !o.profile.empty();
  if (given > 1) throw UsageError("give at most one of -n/--numel, --layout and -p/--profile");
  if (o.n >= 0) {
    *what = "one 1-D bucket of " + std::to_string(o.n) + " floats";
    return BucketLayout::flat(o.n);
  }
  if (!o.profile.empty()) {
    model::Profile p;
    try {
      p = simulate::load_profile_file(o.profile).profile;
    } catch (const model::ModelError& e) {
      throw UsageError(e.what());
    }
    BucketLayout l;
    for (const auto& t : p.model.tensors) l.shapes.push_back(t.shape);
    *what = "the " + std::to_string(l.shapes.size()) + " tensors of " + o.profile;
    return l;
  }
  if (!o.layout.empty()) {
    *what = "the layout given";
    return parse_layout(o.layout);
  }
  *what = "ResNet-50's 161 tensors";
  return parse_layout(kResnet50Layout);
}

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

void print_table(const std::vector<SchemeDescription>& ds, int64_t n, int world, const std::string& what) {
  std::printf("Wire bytes per rank for %s (%lld floats) on %d ranks (fp32 all-reduce payload: %lld bytes)\n\n",
              what.c_str(), static_cast<long long>(n), world, static_cast<long long>(4 * n));
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
  BucketLayout layout;
  std::string what;
  try {
    layout = chosen_layout(o, &what);
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
  if (o.format == "json") print_json(ds, layout.numel(), o.world);
  else print_table(ds, layout.numel(), o.world, what);
}

void setup_schemes(CLI::App& app) {
  auto o = std::make_shared<SchemesOptions>();
  auto* sub = app.add_subcommand(
      "schemes", "List the compression schemes: parameters, collectives and exact wire bytes per rank");
  sub->add_option("-n,--numel", o->n, "One 1-D bucket of this many floats instead of a model's tensors")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--layout", o->layout,
                  "Tensor shapes instead, e.g. 2048x1000,1000 (PowerSGD compresses matrices only; default: "
                  "ResNet-50's 161 tensors)");
  sub->add_option("-p,--profile", o->profile, "The tensors of this profile's model instead");
  sub->add_option("-w,--world", o->world, "Number of ranks")->check(positive_count(1'000'000))->capture_default_str();
  sub->add_option("--spec", o->specs, "Scheme specs to describe, ';'-separated (default: every scheme "
                                      "with default parameters), e.g. 'topk:k=0.001;ef(randomk:k=0.01)'")
      ->delimiter(';');
  sub->add_option("--format", o->format, "table, or json for scripts")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  sub->footer("Examples:\n"
              "  gcu schemes                                    # ResNet-50's tensors on 8 ranks\n"
              "  gcu schemes -p data/profiles/v100-bert-base.json --world 64 --spec 'powersgd:rank=4;fp16'\n"
              "  gcu schemes -n 1000000 --format json           # one flat bucket, for scripts");
  sub->callback([o] { run_schemes(*o); });
}

const Registrar reg_schemes{"schemes", 20, &setup_schemes};

}  // namespace
}  // namespace gcu::cli
