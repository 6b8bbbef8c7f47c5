// A profile for a described model on a described system: the network (network.h) and
// its compute on the GPU (roofline.h) make the model part; the catalog's GPU, node shape,
// intra-node link and NIC (model/hardware.h) make the cluster; codec costs come from the
// work of gcu's own CUDA kernels at the GPU's rates, each scheme's memory efficiency
// measured on one H100 (data/hardware/codecs-h100.json; codec_estimate.h). Everything it assumes is listed in the profile's
// provenance.assumptions; nothing here is measured on the user's system.
#pragma once

#include "model/hardware.h"
#include "model/network/move.h"
#include "model/network/network.h"
#include "model/network/roofline.h"
#include "model/profile.h"

#include <map>
#include <string>
#include <vector>

namespace gcu::model::net {

struct SystemSpec {
  hw::Gpu gpu;
  int nodes = 1;
  int gpus_per_node = 8;
  hw::Link intra;          // GPU to GPU inside a node
  hw::Link nic;            // node to node
  int nics_per_node = 1;   // the node's inter-node bandwidth = nic x nics_per_node
};

// Measured round trips (compress + decompress, no communication) of gcu's CUDA schemes on
// one GPU at two or more sizes (schema gcu.codec-bench/1, scripts/codec_table.py).
struct CodecBench {
  std::string gpu;                      // catalog name of the GPU it was measured on
  std::string device;                   // as the benchmark printed it
  double memory_bytes_per_s = 0;        // that GPU's peak memory bandwidth
  double fp32_flops = 0;                // its FP32 peak (optional "fp32_flops"; 0: not given)
  std::string source;                   // the file it came from
  struct Line {
    Seconds fixed_s = 0;                // per bucket
    Seconds per_element_s = 0;
    std::vector<std::pair<double, Seconds>> points;  // (elements, round trip) as measured, by size
  };
  std::map<std::string, Line> schemes;  // canonical spec -> round-trip line through the sizes
};
CodecBench parse_codec_bench(const std::string& json_text, const std::string& label);  // throws NetworkError
CodecBench load_codec_bench(const std::string& path);

// Encode and decode fits per scheme on `gpu` from each scheme's CUDA kernel work (bytes,
// launches, GEMM FLOPs: compressors/gpu_work.h) at `gpu`'s catalog rates, with each
// scheme's achieved fraction of memory bandwidth measured in `bench` (codec_estimate.h).
// `notes` gets one line saying what was measured and what is estimated.
std::map<std::string, CodecFit> codec_fits_on(const CodecBench& bench, const hw::Gpu& gpu,
                                              std::vector<std::string>* notes);

struct Described {
  Profile profile;
  RooflineResult compute;
  double memory_per_gpu_bytes = 0;      // DDP's model states per GPU (ddp_memory_bytes)
  std::vector<std::string> warnings;    // e.g. the model states do not fit in the GPU's memory
};
// Throws NetworkError / hw::HardwareError / ModelError (the profile is validated).
Described describe_profile(const Network& n, const SystemSpec& sys, const RooflineOptions& o,
                           const CodecBench& codecs);

// A measured profile moved to a described system: its compute moved layer by layer from
// `from` to sys.gpu (move.h, through `n`, which must have the profile's tensors), the
// cluster from `sys` (as describe_profile), codec costs on sys.gpu (codec_fits_on; the
// profile's own fits were measured on `from`), its buckets, interference factors and
// convergence kept (iterations to target do not depend on the GPU).
// A moved profile's provenance keeps the source's assumption lines, each prefixed with this.
inline constexpr const char* kSourceLine = "source profile: ";
Described move_profile(const Profile& p, const Network& n, const hw::Gpu& from, const SystemSpec& sys,
                       const MoveOptions& o, const CodecBench& codecs);

}  // namespace gcu::model::net
