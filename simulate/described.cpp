// The profile of a described model on a described system (described.h).
#include "simulate/described.h"

#include "model/hardware.h"
#include "model/network/describe.h"
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
}  // namespace

DescribedProfile describe_from_flags(const DescribeFlags& f) {
  if (f.gpu.empty())
    throw net::NetworkError("--model " + f.model + " needs --gpu NAME (the GPUs it trains on; `gcu hardware` lists them)");
  const std::string dir = f.catalog_dir.empty() ? hw::default_catalog_dir() : f.catalog_dir;
  const hw::Catalog cat = hw::load_catalog(dir);
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

  std::vector<std::string> extra;
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

  const net::Network network = net::make_network(f.model);
  net::RooflineOptions o;
  o.batch_size = f.batch > 0 ? f.batch : network.batch_size;
  o.precision = net::parse_precision(f.precision);
  o.mfu = f.mfu;
  o.optimizer = net::parse_optimizer(f.optimizer);
  o.step_time_s = f.step_time_s;
  const net::CodecBench codecs = net::load_codec_bench(dir + "/codecs-h100.json");
  net::Described d = net::describe_profile(network, sys, o, codecs);

  DescribedProfile out;
  out.loaded.profile = std::move(d.profile);
  out.loaded.path = "described: " + network.spec + " on " + std::to_string(sys.nodes) + " x " +
                    std::to_string(sys.gpus_per_node) + " " + sys.gpu.name;
  for (const auto& a : out.loaded.profile.provenance.assumptions)
    if (a != "compute: " + d.compute.basis) out.assumptions.push_back(a);  // said in the notes, with the figures
  out.assumptions.insert(out.assumptions.end(), extra.begin(), extra.end());
  out.notes = d.warnings;
  out.notes.push_back("compute: " + d.compute.basis + ": forward " + described_num(d.compute.compute.forward_s * 1e3) +
                      " ms, backward " + described_num(d.compute.compute.backward_s * 1e3) + " ms, optimizer " +
                      described_num(d.compute.compute.optimizer_s * 1e3) + " ms at batch " + std::to_string(o.batch_size) +
                      (d.compute.achieved_mfu > 0 ? " (model FLOPs utilisation " + described_num(d.compute.achieved_mfu) + ")"
                                                  : std::string()));
  return out;
}

}  // namespace gcu::simulate
