// A profile for a described model on a described system (describe.h).
#include "model/network/describe.h"

#include "compressors/registry.h"
#include "model/profile_json.h"
#include "util/output_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace gcu::model::net {
namespace {

std::string bench_num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

double bench_positive(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || !(v.get<double>() > 0))
    throw NetworkError(where + ": expected a finite number > 0, got " + v.dump().substr(0, 60));
  return v.get<double>();
}

std::string bench_text(const nlohmann::json& o, const char* key, const std::string& label) {
  if (!o.contains(key) || !o[key].is_string())
    throw NetworkError(label + ": /" + key + ": expected a string");
  return o[key].get<std::string>();
}

std::string bench_lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// `name` is this GPU's catalog name or one of its aliases (case-insensitive).
bool bench_is_gpu(const hw::Gpu& gpu, const std::string& name) {
  if (bench_lower(gpu.name) == bench_lower(name)) return true;
  for (const auto& a : gpu.aliases)
    if (bench_lower(a) == bench_lower(name)) return true;
  return false;
}

}  // namespace

CodecBench parse_codec_bench(const std::string& json_text, const std::string& label) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw NetworkError(label + ": not JSON: " + e.what());
  }
  if (!j.is_object() || j.value("schema", "") != "gcu.codec-bench/1")
    throw NetworkError(label + ": /schema: expected \"gcu.codec-bench/1\"");
  CodecBench b;
  b.gpu = bench_text(j, "gpu", label);
  b.device = bench_text(j, "device", label);
  b.source = bench_text(j, "source", label);
  b.memory_bytes_per_s = bench_positive(j.value("memory_bytes_per_s", nlohmann::json()), label + ": /memory_bytes_per_s");
  if (!j.contains("schemes") || !j["schemes"].is_object() || j["schemes"].empty())
    throw NetworkError(label + ": /schemes: expected an object of schemes");
  for (const auto& [spec, v] : j["schemes"].items()) {
    const std::string at = label + ": /schemes/" + spec;
    if (!v.is_object() || !v.contains("elements") || !v.contains("roundtrip_s") || !v["elements"].is_array() ||
        !v["roundtrip_s"].is_array() || v["elements"].size() != v["roundtrip_s"].size() || v["elements"].size() < 2)
      throw NetworkError(at + ": expected {elements: [...], roundtrip_s: [...]} of equal length >= 2");
    // The line through the smallest and the largest size.
    std::vector<std::pair<double, double>> pts;
    for (size_t i = 0; i < v["elements"].size(); ++i)
      pts.emplace_back(bench_positive(v["elements"][i], at + "/elements/" + std::to_string(i)),
                       bench_positive(v["roundtrip_s"][i], at + "/roundtrip_s/" + std::to_string(i)));
    std::sort(pts.begin(), pts.end());
    if (pts.front().first == pts.back().first) throw NetworkError(at + "/elements: expected two distinct sizes");
    CodecBench::Line line;
    line.per_element_s = std::max(0.0, (pts.back().second - pts.front().second) / (pts.back().first - pts.front().first));
    line.fixed_s = std::max(0.0, pts.front().second - line.per_element_s * pts.front().first);
    std::string canonical;
    try {
      canonical = compress::make_compressor(spec)->spec();
    } catch (const compress::CompressorError& e) {
      throw NetworkError(at + ": " + e.what());
    }
    b.schemes[canonical] = line;
  }
  return b;
}

CodecBench load_codec_bench(const std::string& path) {
  std::string t;
  try {
    t = util::read_file(path);
  } catch (const util::FileError& e) {
    throw NetworkError(e.what());
  }
  return parse_codec_bench(t, path);
}

std::map<std::string, CodecFit> codec_fits_on(const CodecBench& bench, const hw::Gpu& gpu,
                                              std::vector<std::string>* notes) {
  const double moved = bench.memory_bytes_per_s / gpu.memory_bytes_per_s;  // per-element time factor
  const bool same = bench_is_gpu(gpu, bench.gpu);
  constexpr double kMemoryEfficiency = 0.8;
  constexpr int64_t kProbe = 1 << 24;
  std::map<std::string, CodecFit> out;
  for (const auto& [spec, line] : bench.schemes) {
    CodecFit f;
    const double per = line.per_element_s * (same ? 1.0 : moved);
    f.encode.fixed_s = f.decode.fixed_s = line.fixed_s / 2;
    f.encode.per_element_s = f.decode.per_element_s = per / 2;
    f.measured_n = kProbe;
    // All-gathered payloads are decoded once per rank: that rank's payload read once.
    const auto c = compress::make_compressor(spec);
    const auto layout = compress::BucketLayout::flat(kProbe);
    bool gathers = false;
    for (const auto& call : c->plan(layout, 2)) gathers |= call.kind == compress::CollectiveKind::AllGather;
    if (gathers) {
      const double wire_per_element = static_cast<double>(c->wire_bytes(layout, 2)) / kProbe;
      f.decode.per_rank_element_s = wire_per_element / (gpu.memory_bytes_per_s * kMemoryEfficiency);
    }
    out[spec] = f;
  }
  if (notes)
    notes->push_back(
        "codec costs: gcu's CUDA kernels measured on one " + bench.device + " (" + bench.source +
        "), a line through the round trip at the measured sizes, split half encode, half decode" +
        (same ? std::string()
              : "; on " + gpu.name + " the per-element part scaled by memory bandwidth (x" + bench_num(moved) +
                    ", an estimate), the per-bucket part kept") +
        "; all-gathered payloads decoded at " + bench_num(100 * kMemoryEfficiency) +
        "% of memory bandwidth per rank (estimate); PowerSGD timed on flat vectors, not the model's matrices");
  return out;
}

Described describe_profile(const Network& n, const SystemSpec& sys, const RooflineOptions& o,
                           const CodecBench& codecs) {
  if (sys.nodes < 1 || sys.gpus_per_node < 1 || sys.nics_per_node < 1)
    throw NetworkError("nodes, GPUs per node and NICs per node must be >= 1");
  Described d;
  d.compute = roofline_compute(n, sys.gpu, o);
  Profile& p = d.profile;
  p.provenance.source = "described: " + n.spec + " on " + std::to_string(sys.nodes) + " x " +
                        std::to_string(sys.gpus_per_node) + " " + sys.gpu.name + " (gcu simulate --model)";
  p.provenance.device = sys.gpu.vendor_name;
  p.provenance.assumptions.push_back("network: " + n.description);
  for (const auto& s : n.notes) p.provenance.assumptions.push_back("network: " + s);
  p.provenance.assumptions.push_back("compute: " + d.compute.basis);
  for (const auto& s : d.compute.assumptions) p.provenance.assumptions.push_back(s);
  p.provenance.assumptions.push_back("gradients: FP32, reduced by DDP with its default buckets (1 MiB, then 25 MiB)");

  Cluster& c = p.cluster;
  c.nodes = sys.nodes;
  c.gpus_per_node = sys.gpus_per_node;
  c.intra.bandwidth_gbps = sys.intra.bandwidth_gbps;
  c.intra.alpha_s = sys.intra.latency_s;
  c.inter.bandwidth_gbps = sys.nic.bandwidth_gbps * sys.nics_per_node;
  c.inter.alpha_s = sys.nic.latency_s;
  // The published study's middle value (1.04-1.1) and the shipped profiles' contention.
  c.gamma_stretch = 1.07;
  c.overlap_contention = 1.3;
  p.provenance.assumptions.push_back(
      "cluster: intra-node " + sys.intra.name + " (" + bench_num(sys.intra.bandwidth_gbps) + " Gbit/s, " +
      bench_num(sys.intra.latency_s * 1e6) + " us), inter-node " + std::to_string(sys.nics_per_node) + " x " + sys.nic.name +
      " per node (" + bench_num(c.inter.bandwidth_gbps) + " Gbit/s, " + bench_num(sys.nic.latency_s * 1e6) +
      " us): the catalog's figures as collective bandwidth and per-step latency, nothing measured");
  p.provenance.assumptions.push_back(
      "interference: backward stretched 1.07 by overlapped communication (the published 1.04-1.1), compression "
      "kernels and backward 1.3x slower side by side (assumed, as in the shipped V100 profiles)");

  p.model.name = n.spec;
  p.model.parameters = n.parameters();
  p.model.tensors = n.tensors_backward();
  p.model.compute.push_back(d.compute.compute);
  p.compressors = codec_fits_on(codecs, sys.gpu, &p.provenance.assumptions);
  p.convergence.source = "none";  // a described model has no convergence of its own
  validate_profile(p);

  d.memory_per_gpu_bytes = ddp_memory_bytes(n, o.precision, o.optimizer);
  if (d.memory_per_gpu_bytes > sys.gpu.memory_bytes)
    d.warnings.push_back("the model states alone (parameters, FP32 gradients, " +
                         std::string(optimizer_name(o.optimizer)) + " state: " +
                         bench_num(d.memory_per_gpu_bytes / (1u << 30)) + " GiB) exceed the " + sys.gpu.name + "'s " +
                         bench_num(sys.gpu.memory_bytes / (1u << 30)) +
                         " GiB: plain DDP cannot train it (sharded data parallelism, ZeRO/FSDP, communicates "
                         "differently)");
  return d;
}

}  // namespace gcu::model::net
