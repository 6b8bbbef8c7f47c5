// `gcu hardware`: the hardware catalog (model/hardware.h, data/hardware/*.json): GPUs,
// intra-node links and NICs with their public figures, as tables, JSON or CSV; one entry
// with its sources by name or alias.
#include "command.h"
#include "model/hardware.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace gcu::cli {
namespace {
namespace hw = gcu::model::hw;

struct HardwareOptions {
  std::string what;     // positional: gpus, links, nics, or an entry's name or alias
  std::string kind;     // --kind: gpus, links or nics ("" = all)
  std::string show;     // --show NAME
  std::string format = "table";
  std::string catalog;  // --catalog DIR ("" = hw::default_catalog_dir())
};

bool is_kind(const std::string& s) { return s == "gpus" || s == "links" || s == "nics"; }

// A number in at most `decimals` decimals without trailing zeros: 989.5, 1200, 0.6.
std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}
std::string tflops(double flops) { return flops > 0 ? num(flops / 1e12, 1) : "-"; }

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A CSV field, quoted when it holds a comma, quote or newline.
std::string csv(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
std::string csv_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

template <class Entry>
int name_width(const std::vector<Entry>& es) {
  int w = 4;
  for (const auto& e : es) w = std::max(w, static_cast<int>(e.name.size()));
  return w;
}

void gpu_table(const std::vector<hw::Gpu>& gs) {
  const int w = name_width(gs);
  std::printf("GPUs (dense peak rates from the vendors' datasheets)\n");
  std::printf("%-*s %13s %13s %13s %13s %9s %8s  %s\n", w, "name", "FP32 TFLOP/s", "TF32 TFLOP/s", "BF16 TFLOP/s",
              "FP16 TFLOP/s", "mem GB/s", "mem GiB", "vendor name");
  for (const auto& g : gs)
    std::printf("%-*s %13s %13s %13s %13s %9s %8s  %s\n", w, g.name.c_str(), tflops(g.fp32_flops).c_str(),
                tflops(g.tf32_flops).c_str(), tflops(g.bf16_flops).c_str(), tflops(g.fp16_flops).c_str(),
                num(g.memory_bytes_per_s / 1e9, 0).c_str(), num(g.memory_bytes / (1024.0 * 1024 * 1024), 0).c_str(),
                g.vendor_name.c_str());
}

void link_table(const char* title, const std::vector<hw::Link>& ls) {
  const int w = name_width(ls);
  std::printf("%s (one direction)\n", title);
  std::printf("%-*s %9s %8s %11s  %s\n", w, "name", "Gbit/s", "GB/s", "latency us", "description");
  for (const auto& l : ls)
    std::printf("%-*s %9s %8s %11s  %s\n", w, l.name.c_str(), num(l.bandwidth_gbps, 2).c_str(),
                num(l.bandwidth_gbps / 8, 2).c_str(), num(l.latency_s * 1e6, 2).c_str(), l.description.c_str());
}

void gpu_csv(const std::vector<hw::Gpu>& gs) {
  std::printf("name,vendor_name,fp32_flops,tf32_flops,bf16_flops,fp16_flops,memory_bytes_per_s,memory_bytes,aliases,source_url\n");
  for (const auto& g : gs)
    std::printf("%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv(g.name).c_str(), csv(g.vendor_name).c_str(),
                csv_num(g.fp32_flops).c_str(), csv_num(g.tf32_flops).c_str(), csv_num(g.bf16_flops).c_str(),
                csv_num(g.fp16_flops).c_str(), csv_num(g.memory_bytes_per_s).c_str(), csv_num(g.memory_bytes).c_str(),
                csv(join(g.aliases, ";")).c_str(), csv(g.sources.front().url).c_str());
}

void link_csv(const std::vector<hw::Link>& ls) {
  std::printf("kind,name,description,bandwidth_gbps,latency_s,aliases,source_url\n");
  for (const auto& l : ls)
    std::printf("%s,%s,%s,%s,%s,%s,%s\n", l.kind == hw::LinkKind::Nic ? "nic" : "intra", csv(l.name).c_str(),
                csv(l.description).c_str(), csv_num(l.bandwidth_gbps).c_str(), csv_num(l.latency_s).c_str(),
                csv(join(l.aliases, ";")).c_str(), csv(l.sources.front().url).c_str());
}

void sources_text(const std::vector<hw::Source>& ss, const std::string& note) {
  if (!note.empty()) std::printf("  %-18s %s\n", "note", note.c_str());
  std::printf("sources:\n");
  for (const auto& s : ss) std::printf("  %s\n    %s\n", s.title.c_str(), s.url.c_str());
}

void show_gpu(const hw::Gpu& g, const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json j = {{"kind", "gpu"}};
    j.update(hw::gpu_to_json(g));
    std::printf("%s\n", j.dump(2).c_str());
  } else if (format == "csv") {
    gpu_csv({g});
  } else {
    std::printf("%s: %s (GPU)\n", g.name.c_str(), g.vendor_name.c_str());
    const auto row = [](const char* k, const std::string& v) { std::printf("  %-18s %s\n", k, v.c_str()); };
    row("aliases", g.aliases.empty() ? "(none)" : join(g.aliases, ", "));
    row("FP32", tflops(g.fp32_flops) + " TFLOP/s");
    row("TF32 tensor", g.tf32_flops > 0 ? tflops(g.tf32_flops) + " TFLOP/s (dense)" : "none");
    row("BF16 tensor", g.bf16_flops > 0 ? tflops(g.bf16_flops) + " TFLOP/s (dense)" : "none");
    row("FP16 tensor", tflops(g.fp16_flops) + " TFLOP/s (dense)");
    row("memory bandwidth", num(g.memory_bytes_per_s / 1e9, 0) + " GB/s");
    row("memory", num(g.memory_bytes / (1024.0 * 1024 * 1024), 1) + " GiB");
    sources_text(g.sources, g.note);
  }
}

void show_link(const hw::Link& l, const std::string& format) {
  const char* kind = l.kind == hw::LinkKind::Nic ? "NIC" : "intra-node link";
  if (format == "json") {
    nlohmann::ordered_json j = {{"kind", l.kind == hw::LinkKind::Nic ? "nic" : "intra_link"}};
    j.update(hw::link_to_json(l));
    std::printf("%s\n", j.dump(2).c_str());
  } else if (format == "csv") {
    link_csv({l});
  } else {
    std::printf("%s: %s (%s)\n", l.name.c_str(), l.description.c_str(), kind);
    const auto row = [](const char* k, const std::string& v) { std::printf("  %-18s %s\n", k, v.c_str()); };
    row("aliases", l.aliases.empty() ? "(none)" : join(l.aliases, ", "));
    row("bandwidth", num(l.bandwidth_gbps, 2) + " Gbit/s = " + num(l.bandwidth_gbps / 8, 2) + " GB/s per direction");
    row("latency", num(l.latency_s * 1e6, 2) + " us");
    sources_text(l.sources, l.note);
  }
}

// One entry by name or alias, in the kind given or in all three.
void run_show(const hw::Catalog& cat, const std::string& name, const std::string& kind, const std::string& format,
              const std::string& dir) {
  try {
    if (kind == "gpus") return show_gpu(cat.gpu(name), format);
    if (kind == "links") return show_link(cat.intra_link(name), format);
    if (kind == "nics") return show_link(cat.nic(name), format);
  } catch (const hw::HardwareError& e) {
    throw UsageError(e.what());
  }
  // No kind given: the first of GPUs, intra-node links and NICs that knows the name.
  try {
    return show_gpu(cat.gpu(name), format);
  } catch (const hw::HardwareError&) {
  }
  try {
    return show_link(cat.intra_link(name), format);
  } catch (const hw::HardwareError&) {
  }
  try {
    return show_link(cat.nic(name), format);
  } catch (const hw::HardwareError&) {
  }
  std::vector<std::string> all;
  for (const auto& g : cat.gpus) all.push_back(g.name);
  for (const auto* list : {&cat.intra_links, &cat.nics})
    for (const auto& l : *list) all.push_back(l.name);
  std::string msg = util::quote(name, 80) + " is not in the hardware catalog (" + dir + "); GPUs: " +
                    hw::known_names(cat.gpus) + "; intra-node links: " + hw::known_names(cat.intra_links) +
                    "; NICs: " + hw::known_names(cat.nics);
  if (const std::string near = util::did_you_mean(name, all); !near.empty()) msg += "; did you mean '" + near + "'?";
  throw UsageError(msg);
}

void run_hardware(HardwareOptions o) {
  if (!o.what.empty()) {
    if (is_kind(o.what) && o.kind.empty()) o.kind = o.what;
    else if (is_kind(o.what)) throw UsageError("give the kind once: '" + o.what + "' and --kind " + o.kind);
    else if (!o.show.empty()) throw UsageError("give the entry once: '" + o.what + "' and --show " + o.show);
    else o.show = o.what;
  }
  const std::string dir = o.catalog.empty() ? hw::default_catalog_dir() : o.catalog;
  hw::Catalog cat;
  try {
    cat = hw::load_catalog(dir);
  } catch (const hw::HardwareError& e) {
    throw UsageError(e.what());
  }
  if (!o.show.empty()) return run_show(cat, o.show, o.kind, o.format, dir);
  const bool gpus = o.kind.empty() || o.kind == "gpus", links = o.kind.empty() || o.kind == "links",
             nics = o.kind.empty() || o.kind == "nics";
  if (o.format == "json") {
    nlohmann::ordered_json j = {{"schema", "gcu.hardware/1"}};
    if (gpus) for (const auto& g : cat.gpus) j["gpus"].push_back(hw::gpu_to_json(g));
    if (links) for (const auto& l : cat.intra_links) j["intra_links"].push_back(hw::link_to_json(l));
    if (nics) for (const auto& l : cat.nics) j["nics"].push_back(hw::link_to_json(l));
    std::printf("%s\n", j.dump(2).c_str());
  } else if (o.format == "csv") {
    // One table per kind; without --kind the tables follow one another, a blank line apart.
    if (gpus) gpu_csv(cat.gpus);
    if (gpus && (links || nics)) std::printf("\n");
    std::vector<hw::Link> ls;
    if (links) ls = cat.intra_links;
    if (nics) ls.insert(ls.end(), cat.nics.begin(), cat.nics.end());
    if (links || nics) link_csv(ls);
  } else {
    if (gpus) gpu_table(cat.gpus);
    if (links) {
      if (gpus) std::printf("\n");
      link_table("Intra-node links, per GPU", cat.intra_links);
    }
    if (nics) {
      if (gpus || links) std::printf("\n");
      link_table("NICs, per port", cat.nics);
    }
    std::printf("\nCatalog: %s. `gcu hardware NAME` shows one entry with its notes and sources.\n", dir.c_str());
  }
}

void setup_hardware(CLI::App& app) {
  auto o = std::make_shared<HardwareOptions>();
  auto* sub = app.add_subcommand(
      "hardware", "List the hardware catalog: GPUs, intra-node links and NICs with their public figures and sources");
  sub->add_option("what", o->what, "gpus, links or nics (one table), or an entry's name or alias (case-insensitive)");
  sub->add_option("--kind", o->kind, "Only this table: gpus, links (intra-node) or nics")
      ->check(CLI::IsMember({"gpus", "links", "nics"}));
  sub->add_option("--show", o->show, "Show one entry with its notes and sources (name or alias)");
  sub->add_option("--format", o->format, "table, json (the catalog files' fields and units) or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  sub->add_option("--catalog", o->catalog,
                  "Catalog folder holding gpus.json, intra_links.json and nics.json (default: $GCU_HARDWARE_DIR, "
                  "else the shipped data/hardware)");
  sub->footer("Units: FLOP/s are dense peaks (no 2:4 sparsity); GB/s = 1e9 bytes/s; GiB = 2^30 bytes;\n"
              "Gbit/s = 1e9 bits/s per direction. Schema and how to add an entry: docs/hardware.md.\n\n"
              "Examples:\n"
              "  gcu hardware                          # GPUs, intra-node links and NICs\n"
              "  gcu hardware gpus --format csv        # one table, for spreadsheets\n"
              "  gcu hardware h100                     # one entry (alias of h100-sxm) with its sources\n"
              "  gcu hardware nics --format json       # for scripts\n"
              "  gcu hardware --catalog ./my-hardware  # your own catalog files");
  sub->callback([o] { run_hardware(*o); });
}

const Registrar reg_hardware{"hardware", 25, &setup_hardware};

}  // namespace
}  // namespace gcu::cli
