// The profile of a described model on a described system (described.h).
#include "simulate/described.h"

#include "model/hardware.h"
#include "model/network/describe.h"
#include "model/network/move.h"
#include "model/network/network.h"
#include "model/quantity.h"

#include <cstdio>

namespace gcu::simulate {
namespace net = model::net;
namespace hw = model::hw;

namespace {
std::string described_num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

std::string catalog_dir_of(const DescribeFlags& f) {
  return f.catalog_dir.empty() ? hw::default_catalog_dir() : f.catalog_dir;
}

// How a measured compute moves: from --from-precision to --precision when given (else the
// same), at --mfu.
net::MoveOptions move_options_of(const DescribeFlags& f) {
  net::MoveOptions o;
  o.from_precision = net::parse_precision(f.from_precision);
  o.to_precision = f.precision_given ? net::parse_precision(f.precision) : o.from_precision;
  o.roofline.mfu = f.mfu;
  o.roofline.optimizer = net::parse_optimizer(f.optimizer);
  return o;
}

// The described system from the flags: GPU, node shape, intra-node link and NIC.
// `extra` gets a line for each figure the flags replaced or assumed.
net::SystemSpec system_from_flags(const DescribeFlags& f, const hw::Catalog& cat, std::vector<std::string>& extra) {
  net::SystemSpec sys;
  sys.gpu = cat.gpu(f.gpu);

  // Node shape: --gpus-per-node (default 8, or all GPUs when fewer), --nodes or --gpus.
  int per = f.gpus_per_node > 0 ? f.gpus_per_node : (f.gpus > 0 && f.gpus < 8 ? f.gpus : 8);
  int nodes = f.nodes;
  if (f.gpus > 0) {
    if (f.gpus % per != 0)
      throw net::NetworkError("--gpus " + std::to_string(f.gpus) + " is not a whole number of nodes of " +
                              std::to_string(per) + " GPUs (--gpus-per-node)");
    if (nodes > 0 && nodes * per != f.gpus)
      throw net::NetworkError("--gpus " + std::to_string(f.gpus) + " disagrees with --nodes " + std::to_string(nodes) +
                              " x --gpus-per-node " + std::to_string(per));
    nodes = f.gpus / per;
  }
  sys.nodes = nodes > 0 ? nodes : 1;
  sys.gpus_per_node = per;
  sys.nics_per_node = f.nics_per_node;
  if (!f.intra_link.empty()) {
    sys.intra = cat.intra_link(f.intra_link);
  } else if (!sys.gpu.intra_link.empty()) {
    sys.intra = cat.intra_link(sys.gpu.intra_link);
  } else {
    throw net::NetworkError("--gpu " + sys.gpu.name + " names no intra-node link in the catalog: give --intra-link");
  }
  if (f.intra_bandwidth_gbps) {
    sys.intra.bandwidth_gbps = *f.intra_bandwidth_gbps;
    extra.push_back("intra-node bandwidth " + model::format_gbps(*f.intra_bandwidth_gbps) + " (--intra-bandwidth)");
  }
  if (!f.nic.empty()) {
    sys.nic = cat.nic(f.nic);
  } else if (f.bandwidth_gbps) {
    sys.nic.name = "link";
    sys.nic.latency_s = 10e-6;
    extra.push_back("inter-node latency 10 us per step (assumed: --bandwidth without --nic)");
  } else if (sys.nodes > 1) {
    throw net::NetworkError("more than one node needs the network between them: --nic NAME (`gcu hardware nics`) "
                            "or --bandwidth RATE");
  } else {
    sys.nic = cat.intra_link(sys.intra.name);  // one node: no inter-node traffic
  }
  if (f.bandwidth_gbps) {
    sys.nic.bandwidth_gbps = *f.bandwidth_gbps / sys.nics_per_node;
    extra.push_back("inter-node bandwidth " + model::format_gbps(*f.bandwidth_gbps) + " per node (--bandwidth)");
  }

  return sys;
}

// The output's lines from a Described: warnings and the compute's basis as notes, the
// profile's own assumption lines (less the basis and the source profile's) after the flags'.
DescribedProfile finish(net::Described d, const std::string& label, const std::vector<std::string>& extra,
                        int batch) {
  DescribedProfile out;
  out.loaded.profile = std::move(d.profile);
  out.loaded.path = label;
  for (const auto& a : out.loaded.profile.provenance.assumptions)
    if (a != "compute: " + d.compute.basis && a.rfind(net::kSourceLine, 0) != 0) out.assumptions.push_back(a);
  out.assumptions.insert(out.assumptions.end(), extra.begin(), extra.end());
  out.notes = d.warnings;
  const auto& c = d.compute.compute;
  out.notes.push_back("compute: " + d.compute.basis + ": forward " + described_num(c.forward_s * 1e3) +
                      " ms, backward " + described_num(c.backward_s * 1e3) + " ms, optimizer " +
                      described_num(c.optimizer_s * 1e3) + " ms at batch " + std::to_string(batch) +
                      (d.compute.achieved_mfu > 0
                           ? " (model FLOPs utilisation " + described_num(d.compute.achieved_mfu) + ")"
                           : std::string()));
  return out;
}

std::string system_label(const net::SystemSpec& sys) {
  return std::to_string(sys.nodes) + " x " + std::to_string(sys.gpus_per_node) + " " + sys.gpu.name;
}

// The profile's network: --model, else its model's name as a family spec or preset (a
// model calibrated from a TorchScript file or a built-in trainer net has no such name).
net::Network profile_network(const DescribeFlags& f, const model::Profile& p) {
  if (!f.model.empty()) return net::make_network(f.model);
  try {
    return net::make_network(p.model.name);
  } catch (const net::NetworkError& e) {
    throw net::NetworkError("the profile's model '" + p.model.name.substr(0, 80) +
                            "' is not a network gcu can describe: give --model SPEC with its tensors (" + e.what() +
                            ")");
  }
}

}  // namespace

DescribedProfile describe_from_flags(const DescribeFlags& f) {
  if (f.gpu.empty())
    throw net::NetworkError("--model " + f.model + " needs --gpu NAME (the GPUs it trains on; `gcu hardware` lists them)");
  const std::string dir = catalog_dir_of(f);
  const hw::Catalog cat = hw::load_catalog(dir);
  std::vector<std::string> extra;
  const net::SystemSpec sys = system_from_flags(f, cat, extra);
  const net::Network network = net::make_network(f.model);
  net::RooflineOptions o;
  o.batch_size = f.batch > 0 ? f.batch : network.batch_size;
  o.precision = net::parse_precision(f.precision);
  o.mfu = f.mfu;
  o.optimizer = net::parse_optimizer(f.optimizer);
  o.step_time_s = f.step_time_s;
  const net::CodecBench codecs = net::load_codec_bench(dir + "/codecs-h100.json");
  net::Described d = net::describe_profile(network, sys, o, codecs);

  return finish(std::move(d), "described: " + network.spec + " on " + system_label(sys), extra, o.batch_size);
}

DescribedProfile move_from_flags(const LoadedProfile& measured, const DescribeFlags& f) {
  const std::string dir = catalog_dir_of(f);
  const hw::Catalog cat = hw::load_catalog(dir);
  std::vector<std::string> extra;
  const net::SystemSpec sys = system_from_flags(f, cat, extra);
  const model::Profile& p = measured.profile;
  const hw::Gpu& from = f.from_gpu.empty() ? net::gpu_named_in(cat, p.provenance.device) : cat.gpu(f.from_gpu);
  const net::Network network = profile_network(f, p);
  const net::MoveOptions o = move_options_of(f);
  const net::CodecBench codecs = net::load_codec_bench(dir + "/codecs-h100.json");
  net::Described d = net::move_profile(p, network, from, sys, o, codecs);
  extra.push_back("the profile was measured on " + from.name + " (" + (f.from_gpu.empty() ? "its provenance.device"
                                                                                            : "--from-gpu") +
                    ") computing in " + net::precision_name(o.from_precision) + " (--from-precision)");
  return finish(std::move(d), measured.path + " moved to " + system_label(sys), extra,
                p.model.compute.empty() ? 0 : p.model.compute.front().batch_size);
}

DescribedProfile combine_from_flags(const std::string& model_path, const std::string& system_path,
                                    const std::vector<std::string>& overrides, const DescribeFlags& f) {
  CombinedProfile c = load_combined(model_path, system_path, overrides);
  DescribedProfile out;
  out.loaded = std::move(c.loaded);
  if (c.model_device == c.system_device) return out;
  const std::string dir = catalog_dir_of(f);
  const hw::Catalog cat = hw::load_catalog(dir);
  const hw::Gpu* from = nullptr;
  const hw::Gpu* to = nullptr;
  try {
    from = f.from_gpu.empty() ? &net::gpu_named_in(cat, c.model_device) : &cat.gpu(f.from_gpu);
    to = &net::gpu_named_in(cat, c.system_device);
  } catch (const hw::HardwareError&) {
    out.notes.push_back("the model part was measured on '" + c.model_device.substr(0, 80) + "', the system is '" +
                        c.system_device.substr(0, 80) +
                        "': not two GPUs of the catalog, so the compute is used as measured (--from-gpu names the "
                        "model's)");
    return out;
  }
  if (from == to) return out;
  model::Profile& p = out.loaded.profile;
  const net::Network network = profile_network(f, p);
  const net::MovedCompute moved = net::move_compute(p.model, network, *from, *to, move_options_of(f));
  p.model.compute = moved.compute;
  model::validate_profile(p);
  out.assumptions = moved.assumptions;
  out.notes.push_back("compute: the model part's, measured on " + from->name + ", moved to the system's " + to->name +
                      " layer by layer (backward x" + described_num(moved.backward_factor) + ")");
  return out;
}

}  // namespace gcu::simulate
