// trace_profile.h: the model part and the report of an imported trace.
#include "import/trace_profile.h"

#include "model/buckets.h"
#include "model/parts.h"
#include "util/iso_time.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gcu::import {
namespace {

std::string ms(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f ms", s * 1e3);
  return b;
}

std::string mib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g MiB", bytes / model::kMiB);
  return b;
}

bool reproduces(const std::vector<model::Bytes>& bytes, const std::vector<int>& counts, double first, double cap) {
  std::vector<model::BucketTensor> t;
  for (double b : bytes) t.push_back({static_cast<int64_t>(b / 4), 4});
  const auto got = model::assign_ddp_buckets(t, first, cap);
  if (got.size() != counts.size()) return false;
  for (size_t k = 0; k < got.size(); ++k)
    if (static_cast<int>(got[k].size()) != counts[k]) return false;
  return true;
}

}  // namespace

DdpCaps infer_bucket_caps(const std::vector<model::Bytes>& bytes, const std::vector<int>& counts) {
  DdpCaps c;
  const double kFirst = 1 * model::kMiB, kCap = 25 * model::kMiB;
  // Each closed bucket (all but the last) closes at its last gradient: its bytes before that
  // gradient < limit <= its bytes; the last bucket only never closed early: bytes before its
  // last gradient < limit (its own limit: the first bucket's when it is the only one).
  double f_lo = 0, f_hi = INFINITY, c_lo = 0, c_hi = INFINITY;
  size_t at = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    double sum = 0, last = 0;
    for (int i = 0; i < counts[k] && at < bytes.size(); ++i, ++at) sum += last = bytes[at];
    double& lo = k == 0 ? f_lo : c_lo;
    double& hi = k == 0 ? f_hi : c_hi;
    lo = std::max(lo, sum - last);
    if (k + 1 < counts.size()) hi = std::min(hi, sum);
  }
  const auto pick = [](double lo, double hi, double preferred) {
    if (preferred > lo && preferred <= hi) return preferred;
    if (std::isfinite(hi) && hi > lo) return hi;
    return std::floor(lo) + 1;  // only a lower bound (or an empty interval: then not reproduced)
  };
  c.first_bucket_bytes = pick(f_lo, f_hi, kFirst);
  c.bucket_cap_bytes = pick(c_lo, c_hi, kCap);
  c.reproduced = reproduces(bytes, counts, c.first_bucket_bytes, c.bucket_cap_bytes);
  if (!c.reproduced) {
    c.first_bucket_bytes = kFirst;
    c.bucket_cap_bytes = kCap;
    c.note = "no bucket caps reproduce the traced buckets with these gradients in this order (DDP ordered them "
             "otherwise?): PyTorch's defaults (1 MiB, then 25 MiB) kept";
  } else if (c.first_bucket_bytes == kFirst && c.bucket_cap_bytes == kCap) {
    c.note = "the traced buckets are PyTorch's defaults' (1 MiB, then 25 MiB)";
  } else {
    c.note = "bucket caps inferred from the traced buckets: first " + mib(c.first_bucket_bytes) + ", then " +
             mib(c.bucket_cap_bytes) +
             " (the job's bucket_cap_mb, or its gradients became ready in another order than listed)";
  }
  return c;
}

Imported import_job(const TracedJob& job, const std::optional<model::net::Network>& network, const ImportOptions& opt) {
  if (opt.batch_size < 1) throw TraceError("the per-rank batch size must be >= 1");
  const TracedIteration& m = job.median;
  const int gradients = static_cast<int>(m.tensor_ready_s.size());
  int in_buckets = 0;
  for (const TracedBucket& b : m.buckets) in_buckets += b.tensors;
  const bool sized = std::all_of(m.buckets.begin(), m.buckets.end(), [](const TracedBucket& b) { return b.elements > 0; });

  Imported out;
  model::Profile& p = out.profile;
  model::Model& md = p.model;
  model::ComputeEntry ce;
  ce.batch_size = opt.batch_size;
  ce.forward_s = m.forward_s;
  ce.backward_s = m.backward_s;
  ce.optimizer_s = m.optimizer_s;
  ce.data_s = m.data_s;
  std::vector<int> counts;
  for (const TracedBucket& b : m.buckets) counts.push_back(b.tensors);
  std::vector<std::string> lines;

  if (network) {
    md.tensors = network->tensors_backward();
    if (static_cast<int>(md.tensors.size()) != gradients)
      throw TraceError("the traced job has " + std::to_string(gradients) + " gradients per iteration (AccumulateGrad " +
                       "events) but --network '" + network->spec + "' has " + std::to_string(md.tensors.size()) +
                       " parameter tensors: is it the traced model?");
    if (in_buckets != gradients)
      throw TraceError("the traced buckets hold " + std::to_string(in_buckets) + " of " + std::to_string(gradients) +
                       " gradients: some became ready after the last all-reduce launch");
    if (sized) {
      size_t at = 0;
      for (size_t k = 0; k < m.buckets.size(); ++k) {
        int64_t sum = 0;
        for (int i = 0; i < m.buckets[k].tensors; ++i) sum += md.tensors[at++].numel();
        if (sum != m.buckets[k].elements)
          throw TraceError("bucket " + std::to_string(k) + ": the trace's all-reduce carries " +
                           std::to_string(m.buckets[k].elements) + " elements, --network '" + network->spec +
                           "''s tensors in it add up to " + std::to_string(sum) + ": is it the traced model?");
      }
    }
    ce.ready_s = m.tensor_ready_s;
    md.name = opt.name.empty() ? network->description : opt.name;
    lines.push_back("tensors: --network " + network->spec + " (" + network->description + "), in the trace's ready order");
    lines.push_back("gradient ready times: each parameter's AccumulateGrad in the trace");
  } else if (sized) {
    for (size_t k = 0; k < m.buckets.size(); ++k) {
      md.tensors.push_back({"bucket" + std::to_string(k), {m.buckets[k].elements}});
      ce.ready_s.push_back(m.buckets[k].ready_s);
    }
    counts.assign(m.buckets.size(), 1);
    md.name = opt.name.empty() ? "traced DDP job" : opt.name;
    lines.push_back("tensors: one flat tensor per traced bucket (the trace gives sizes, not shapes: schemes that "
                    "reshape gradients, like PowerSGD, see vectors; give --network for the real shapes)");
    lines.push_back("gradient ready times: each bucket's all-reduce launch in the trace");
  } else {
    throw TraceError("the trace gives no tensor sizes (" +
                     std::string(job.format == "pytorch-legacy" ? "PyTorch's profiler without Kineto records none"
                                                                : "no record_param_comms sizes") +
                     "): name the model's tensors with --network SPEC (a family, a preset, or tensors:FILE.csv with "
                     "its parameters in backward order)");
  }
  md.parameters = 0;
  for (const auto& t : md.tensors) md.parameters += t.numel();
  md.compute = {ce};

  std::vector<model::Bytes> bytes;
  for (const auto& t : md.tensors) bytes.push_back(4.0 * static_cast<double>(std::max<int64_t>(t.numel(), 1)));
  out.caps = infer_bucket_caps(bytes, counts);
  p.ddp.first_bucket_bytes = out.caps.first_bucket_bytes;
  p.ddp.bucket_cap_bytes = out.caps.bucket_cap_bytes;
  p.convergence.source = "none";

  const int n = static_cast<int>(job.used.size());
  p.provenance.source = "PyTorch profiler trace " + opt.trace_label + " (gcu profile from-trace)";
  p.provenance.device = job.device == "cuda" ? (job.gpu.empty() ? std::string("CUDA GPU") : job.gpu) : "CPU";
  p.provenance.date = util::iso_utc_now();
  p.provenance.command = opt.command;
  p.provenance.assumptions.push_back("compute: the median of " + std::to_string(n) + " traced iteration" +
                                     (n == 1 ? "" : "s") + " (" + job.format + ", " + job.device +
                                     (job.device == "cuda" ? ", on the GPU's clock" : "") + "): forward " +
                                     ms(m.forward_s) + ", backward " + ms(m.backward_s) + ", optimizer " +
                                     ms(m.optimizer_s) + ", data " + ms(m.data_s));
  p.provenance.assumptions.push_back(
      "backward as measured beside the job's own communication (its slow-down from sharing the device is in it)");
  for (const auto& l : lines) p.provenance.assumptions.push_back(l);
  p.provenance.assumptions.push_back("buckets: " + out.caps.note);
  p.provenance.assumptions.push_back("gradients: FP32, as DDP reduces them");
  out.model_part = model::split_profile(p).model;

  // The report.
  model::Json r;
  r["schema"] = kTraceImportSchema;
  model::Json tr;
  tr["file"] = opt.trace_label;
  tr["format"] = job.format;
  tr["device"] = job.device;
  if (!job.gpu.empty()) tr["gpu"] = job.gpu;
  if (job.world_size > 0) tr["world_size"] = job.world_size;
  if (!job.backend.empty()) tr["backend"] = job.backend;
  tr["iterations_traced"] = job.iterations_traced;
  tr["iterations_used"] = n;
  tr["notes"] = job.notes;
  r["trace"] = tr;
  r["median"] = {{"iteration_s", m.iteration_s}, {"data_s", m.data_s},         {"forward_s", m.forward_s},
                 {"backward_s", m.backward_s},   {"tail_s", m.tail_s},          {"optimizer_s", m.optimizer_s}};
  model::Json bj = model::Json::array();
  size_t at = 0;
  for (const TracedBucket& b : m.buckets) {
    double bb = 0;
    if (network) {
      for (int i = 0; i < b.tensors; ++i) bb += bytes[at++];
    } else if (sized) {
      bb = bytes[at++];
    }
    model::Json e = {{"tensors", b.tensors}, {"ready_s", b.ready_s}};
    if (b.elements >= 0) e["elements"] = b.elements;
    if (bb > 0) e["bytes"] = bb;
    bj.push_back(e);
  }
  r["buckets"] = bj;
  model::Json cj = model::Json::array();
  for (const TracedCollective& c : m.collectives) {
    model::Json e = {{"kind", collective_name(c.kind)}, {"start_s", c.start_s}, {"seconds", c.seconds}};
    if (c.elements >= 0) e["elements"] = c.elements;
    cj.push_back(e);
  }
  r["collectives"] = cj;
  r["ddp"] = {{"first_bucket_bytes", out.caps.first_bucket_bytes},
              {"bucket_cap_bytes", out.caps.bucket_cap_bytes},
              {"reproduced", out.caps.reproduced}};
  out.report = r;
  return out;
}

}  // namespace gcu::import
