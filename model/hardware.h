// The hardware catalog: GPUs, intra-node links and NICs with public figures, each with its
// source (data/hardware/*.json, docs/hardware.md). Read by `gcu hardware` (list) and by
// `gcu simulate --gpu/--nic/--intra-link` (a system described by name).
//
// Units are in the field names: FLOP/s, bytes/s, bytes, Gbit/s (1e9 bits/s), seconds.
// Figures are dense (no 2:4 sparsity) peak rates from the vendor's datasheet; what a
// kernel reaches is a fraction of them, set where the catalog is used (roofline.h).
//
//   const auto cat = hw::load_catalog(hw::default_catalog_dir());
//   const hw::Gpu& g = cat.gpu("H100");   // case-insensitive, name or alias: h100-sxm
//   const hw::Link& nic = cat.nic("ib-ndr");
#pragma once

#include "model/units.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gcu::model::hw {

// Thrown for a malformed catalog file (names the file and field) and for an unknown name
// (lists the known ones).
struct HardwareError : ModelError {
  using ModelError::ModelError;
};

struct Source {
  std::string title;  // "NVIDIA H100 Tensor Core GPU datasheet"
  std::string url;    // https://...
};

struct Gpu {
  std::string name;                 // "h100-sxm" (lower case, the key users type)
  std::string vendor_name;          // "NVIDIA H100 SXM5 80GB"
  double fp32_flops = 0;            // dense FP32 (non-tensor) FLOP/s
  double tf32_flops = 0;            // dense TF32 tensor FLOP/s (0: none, e.g. V100)
  double bf16_flops = 0;            // dense BF16/FP16 tensor FLOP/s
  double fp16_flops = 0;            // dense FP16 tensor FLOP/s
  double memory_bytes_per_s = 0;    // HBM/GDDR bandwidth
  double memory_bytes = 0;          // capacity
  std::vector<std::string> aliases; // "h100", "H100-SXM5"
  std::vector<Source> sources;      // at least one
  std::string note;                 // how a figure was derived ("sparse halved"); may be empty
  // Optional ("intra_link"): the intra-node link this GPU's usual servers have ("nvlink4"
  // for an H100 SXM, "pcie5" for an H100 PCIe); `gcu simulate --gpu` uses it when
  // --intra-link is not given. Must name an entry of intra_links.json.
  std::string intra_link;
};

enum class LinkKind { IntraNode, Nic };
struct Link {
  std::string name;                 // "nvlink4", "pcie4", "ib-ndr", "eth-100g"
  std::string description;          // "NVLink 4 (H100 SXM): 18 links x 25 GB/s per direction"
  LinkKind kind = LinkKind::IntraNode;
  Gbps bandwidth_gbps = 0;          // per GPU (intra) or per port (NIC), one direction
  Seconds latency_s = 0;            // typical one-way small-message latency
  std::vector<std::string> aliases;
  std::vector<Source> sources;
  std::string note;                 // e.g. "latency_s: an estimate"; may be empty
};

struct Catalog {
  std::vector<Gpu> gpus;
  std::vector<Link> intra_links;
  std::vector<Link> nics;

  // Case-insensitive on names and aliases. Throw HardwareError listing the known names.
  const Gpu& gpu(const std::string& name) const;
  const Link& intra_link(const std::string& name) const;
  const Link& nic(const std::string& name) const;
};

// Reads gpus.json, intra_links.json and nics.json from `dir` (schema gcu.hardware/1,
// docs/hardware.md). Every entry must carry a source and finite positive figures (tf32_flops
// and bf16_flops may be 0: no such tensor path). Errors name the file and the field as a
// JSON pointer: "<dir>/gpus.json: /gpus/3/bf16_flops: expected a number >= 0, got \"x\"".
Catalog load_catalog(const std::string& dir);
// The same from the three files' texts (the fuzz target and tests); errors name them
// "gpus.json", "intra_links.json" and "nics.json".
Catalog parse_catalog(const std::string& gpus_json, const std::string& intra_json, const std::string& nics_json);

// "v100-sxm2, a100-40gb, ..." (names in catalog order, for messages).
// `name` is the entry's name or one of its aliases, ignoring case (how lookups match).
bool answers_to(const Gpu& g, const std::string& name);
// `s` in lower case (ASCII): catalog names are matched this way.
std::string lower_case(std::string s);

std::string known_names(const std::vector<Gpu>& gpus);
std::string known_names(const std::vector<Link>& links);

// An entry as its catalog file writes it (same fields; "note" only when not empty).
nlohmann::ordered_json gpu_to_json(const Gpu& g);
nlohmann::ordered_json link_to_json(const Link& l);

// The catalog directory: $GCU_HARDWARE_DIR when set, else the source tree's data/hardware
// (compiled in), else <dir of the executable>/../share/gcu/hardware.
std::string default_catalog_dir();

}  // namespace gcu::model::hw
