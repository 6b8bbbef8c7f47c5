// A traced DDP job (trace_job.h) as the model part of a profile (model/parts.h): the
// model's gradients in ready order, the median iteration's forward, backward, optimizer
// and data time and each gradient's ready time, and the DDP bucket caps that reproduce the
// traced buckets; plus a report of what the trace measured (gcu.trace-import/1: the
// phases, the buckets, every collective as measured), for `gcu profile from-trace`.
//
// The gradients' shapes: from a network (--network: a family, a preset or a tensor list;
// its tensors in backward order must be as many as the trace's gradients, and where the
// trace says each bucket's elements they must add up), or, without one, from the trace's
// own bucket sizes (Kineto's record_param_comms), one flat tensor per bucket. A trace
// that says neither (PyTorch 1.13 without Kineto writes no sizes) is an error that asks
// for --network.
#pragma once

#include "import/trace_job.h"
#include "model/network/network.h"
#include "model/profile.h"
#include "model/profile_json.h"

#include <optional>
#include <string>

namespace gcu::import {

inline constexpr const char* kTraceImportSchema = "gcu.trace-import/1";

struct ImportOptions {
  std::string trace_label;       // the trace's file name, for the provenance
  int batch_size = 0;            // per-rank batch the job ran with (>= 1)
  std::string name;              // the model's name; "" = the network's description or "traced DDP job"
  std::string command;           // the command line, for the provenance
};

struct DdpCaps {
  model::Bytes first_bucket_bytes = 0, bucket_cap_bytes = 0;
  bool reproduced = false;       // gcu's bucket rule with these caps gives the traced buckets
  std::string note;              // how they were chosen
};

// Caps for which DDP's rule (model/buckets.h) closes buckets after the traced counts, the
// PyTorch defaults (1 MiB, 25 MiB) where they do. `bytes` per gradient, in ready order.
DdpCaps infer_bucket_caps(const std::vector<model::Bytes>& bytes, const std::vector<int>& bucket_tensors);

struct Imported {
  model::Profile profile;  // cluster untouched: only the model part is meaningful
  model::Json model_part;  // gcu.model-part/1
  model::Json report;      // gcu.trace-import/1
  DdpCaps caps;
};

// Throws TraceError when the network and the trace disagree or neither gives sizes.
Imported import_job(const TracedJob& job, const std::optional<model::net::Network>& network, const ImportOptions& opt);

}  // namespace gcu::import
