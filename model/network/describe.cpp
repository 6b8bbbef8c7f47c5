// A profile for a described model on a described system (describe.h).
#include "model/network/describe.h"

#include "model/network/codec_estimate.h"

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
  if (j.contains("fp32_flops")) b.fp32_flops = bench_positive(j["fp32_flops"], label + ": /fp32_flops");
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
    line.points = pts;
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
  // Each scheme's kernel work at the GPU's catalog rates, at its achieved fraction of
  // memory bandwidth measured in `bench` (codec_estimate.h).
  return codec_fits_from_work(gpu, &bench, notes);
}

namespace {
// The cluster's node shape and its two link levels from the catalog's entries (no
// per-collective fits: nothing was measured on these links).
void system_links(Cluster& c, const SystemSpec& sys, std::vector<std::string>* assumptions) {
  c.nodes = sys.nodes;
  c.gpus_per_node = sys.gpus_per_node;
  c.intra = LinkLevel{};
  c.intra.bandwidth_gbps = sys.intra.bandwidth_gbps;
  c.intra.alpha_s = sys.intra.latency_s;
  c.inter = LinkLevel{};
  c.inter.bandwidth_gbps = sys.nic.bandwidth_gbps * sys.nics_per_node;
  c.inter.alpha_s = sys.nic.latency_s;
  assumptions->push_back(
      "cluster: intra-node " + sys.intra.name + " (" + bench_num(sys.intra.bandwidth_gbps) + " Gbit/s, " +
      bench_num(sys.intra.latency_s * 1e6) + " us), inter-node " + std::to_string(sys.nics_per_node) + " x " +
      sys.nic.name + " per node (" + bench_num(c.inter.bandwidth_gbps) + " Gbit/s, " +
      bench_num(sys.nic.latency_s * 1e6) +
      " us): the catalog's figures as collective bandwidth and per-step latency, nothing measured");
}
}  // namespace

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
  system_links(c, sys, &p.provenance.assumptions);
  // The published study's middle value (1.04-1.1) and the shipped profiles' contention.
  c.gamma_stretch = 1.07;
  c.overlap_contention = 1.3;
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

Described move_profile(const Profile& src, const Network& n, const hw::Gpu& from, const SystemSpec& sys,
                       const MoveOptions& o, const CodecBench& codecs) {
  if (sys.nodes < 1 || sys.gpus_per_node < 1 || sys.nics_per_node < 1)
    throw NetworkError("nodes, GPUs per node and NICs per node must be >= 1");
  const MovedCompute moved = move_compute(src.model, n, from, sys.gpu, o);
  Described d;
  Profile& p = d.profile;
  p = src;
  p.provenance.source = src.provenance.source + "; moved to " + std::to_string(sys.nodes) + " x " +
                        std::to_string(sys.gpus_per_node) + " " + sys.gpu.name + " (gcu simulate -p --gpu)";
  p.provenance.device = sys.gpu.vendor_name;
  // The move's lines first; the source's own, which speak of its GPU and links, after them.
  std::vector<std::string> lines = moved.assumptions;
  Cluster& c = p.cluster;
  system_links(c, sys, &lines);
  // GPU collectives run on their own engine and sum every type natively (NCCL).
  c.comm_contention = 1;
  c.comm_contention_reference.reset();
  c.allreduce_element_bytes.clear();
  lines.push_back("interference: the source profile's factors kept (backward stretch " + bench_num(c.gamma_stretch) +
                  ", codec beside backward " + bench_num(c.overlap_contention) + ")");
  p.model.compute = moved.compute;
  p.compressors = codec_fits_on(codecs, sys.gpu, &lines);
  for (const auto& a : src.provenance.assumptions) lines.push_back(std::string(kSourceLine) + a);
  p.provenance.assumptions = lines;
  validate_profile(p);
  d.compute.compute = p.model.compute.front();
  d.compute.basis = "measured on " + from.name + ", moved to " + sys.gpu.name + " layer by layer (backward x" +
                    bench_num(moved.backward_factor) + ")";
  d.memory_per_gpu_bytes = ddp_memory_bytes(n, o.to_precision, o.roofline.optimizer);
  if (d.memory_per_gpu_bytes > sys.gpu.memory_bytes)
    d.warnings.push_back("the model states alone (" + bench_num(d.memory_per_gpu_bytes / (1u << 30)) +
                         " GiB) exceed the " + sys.gpu.name + "'s " + bench_num(sys.gpu.memory_bytes / (1u << 30)) +
                         " GiB: plain DDP cannot train it");
  return d;
}

}  // namespace gcu::model::net
