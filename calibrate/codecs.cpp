// Compressor costs over a size sweep and errors on real gradients (see codecs.h).
#include "calibrate/codecs.h"

#include "compressors/error_measure.h"
#include "compressors/registry.h"
#include "model/buckets.h"
#include "simulate/whatif.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

namespace gcu::calibrate {

using compress::CollectiveKind;
using compress::WireType;

void LoopbackCommunicator::reset() {
  calls_ = 0;
  inside_s_ = 0;
}
void LoopbackCommunicator::enter() {
  if (dm_) dm_->synchronize();
  cur_enter_ = Clock::now();
  if (calls_ == 0) first_enter_ = cur_enter_;
}
void LoopbackCommunicator::exit() {
  if (dm_) dm_->synchronize();
  last_exit_ = Clock::now();
  inside_s_ += std::chrono::duration<double>(last_exit_ - cur_enter_).count();
  ++calls_;
}
void LoopbackCommunicator::all_reduce(void*, int64_t, WireType, compress::ReduceOp) {
  enter();
  exit();
}
void LoopbackCommunicator::all_gather(const void* send, void* recv, int64_t count, WireType type) {
  enter();
  const size_t bytes = static_cast<size_t>(count * compress::wire_type_bytes(type));
  for (int r = 0; r < world_; ++r) {
    if (dm_)
      dm_->copy(static_cast<char*>(recv) + r * bytes, send, bytes);
    else
      std::memcpy(static_cast<char*>(recv) + r * bytes, send, bytes);
  }
  exit();
}
void LoopbackCommunicator::broadcast(void*, int64_t, WireType, int) {
  enter();
  exit();
}

StepSplit time_one_step(compress::Compressor& c, compress::GradBucket b, LoopbackCommunicator& comm) {
  comm.reset();
  if (comm.device()) comm.device()->synchronize();
  const auto t0 = LoopbackCommunicator::Clock::now();
  c.step(b, comm);
  if (comm.device()) comm.device()->synchronize();
  const auto t1 = LoopbackCommunicator::Clock::now();
  double e, d;
  if (comm.calls() == 0) {
    e = std::chrono::duration<double>(t1 - t0).count();
    d = 0;
  } else {
    const double span = std::chrono::duration<double>(comm.last_exit() - comm.first_enter()).count();
    e = std::chrono::duration<double>(comm.first_enter() - t0).count() + std::max(0.0, span - comm.inside_s());
    d = std::chrono::duration<double>(t1 - comm.last_exit()).count();
  }
  return {std::max(e, 1e-9), std::max(d, 1e-9)};
}

const compress::Registry::DeviceMemory* device_memory(compress::Device d) {
  if (d == compress::Device::CPU) return nullptr;
  const auto* dm = compress::Registry::instance().device_memory();
  if (!dm) throw FitError("codec timing on the GPU: this gcu was built without the CUDA compressors");
  return dm;
}

BucketBuffer::BucketBuffer(const compress::Registry::DeviceMemory* dm, int64_t n) : dm_(dm) {
  if (dm_)
    device_ = static_cast<float*>(dm_->alloc(static_cast<size_t>(n) * sizeof(float)));
  else
    host_.resize(static_cast<size_t>(n));
}
BucketBuffer::~BucketBuffer() {
  if (device_) dm_->release(device_);
}
void BucketBuffer::load(const float* host, int64_t n) {
  if (dm_)
    dm_->copy(device_, host, static_cast<size_t>(n) * sizeof(float));
  else
    std::copy(host, host + n, host_.begin());
}

namespace {

compress::BucketLayout matrix_layout(int64_t n, int columns) {
  compress::BucketLayout l;
  const int64_t c = std::min<int64_t>(n, columns);
  l.shapes.push_back({n / c, c});
  if (n % c) l.shapes.push_back({n % c});
  return l;
}

// `tensors` equal matrices of n / tensors elements (the last takes the remainder).
compress::BucketLayout split_layout(int64_t n, int tensors, int columns) {
  compress::BucketLayout l;
  const int64_t each = n / tensors;
  for (int t = 0; t < tensors; ++t) {
    const int64_t m = t + 1 < tensors ? each : n - each * (tensors - 1);
    for (auto& s : matrix_layout(m, columns).shapes) l.shapes.push_back(s);
  }
  return l;
}

// Times `iters` step() calls (after `warmup`) of a fresh compressor on n elements in
// `tensors` matrices, p ranks.
CodecRow time_step(const std::string& spec, int64_t n, int p, const CodecTimingOptions& opt, int tensors = 1) {
  auto c = compress::make_compressor(spec, opt.device);
  const auto* dm = device_memory(opt.device);
  const auto layout = tensors > 1 ? split_layout(n, tensors, opt.columns) : matrix_layout(n, opt.columns);
  std::vector<float> src(n);
  std::mt19937 gen(1234);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (auto& x : src) x = nd(gen);
  BucketBuffer buf(dm, n);
  LoopbackCommunicator comm(p);
  comm.set_device(dm);
  std::vector<double> enc, dec;
  for (int i = 0; i < opt.warmup + opt.iters; ++i) {
    buf.load(src.data(), n);  // untimed: time_one_step synchronizes before its clock
    const StepSplit t = time_one_step(*c, {0, buf.data(), &layout}, comm);
    enc.push_back(t.encode_s);
    dec.push_back(t.decode_s);
  }
  CodecRow row;
  row.elements = n;
  row.world = p;
  row.encode_s = summarize(enc, opt.warmup);
  row.decode_s = summarize(dec, opt.warmup);
  return row;
}

}  // namespace

std::vector<std::string> default_codec_specs() {
  const auto& registry = compress::Registry::instance();
  std::vector<std::string> wanted;
  for (const auto& s : registry.list()) wanted.push_back(s.name);
  for (const auto& pattern : registry.cost_grid())
    for (auto& s : model::expand_candidates(pattern)) wanted.push_back(std::move(s));
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& s : wanted) {
    try {
      const std::string c = compress::make_compressor(s)->spec();
      if (seen.insert(c).second) out.push_back(s);  // measure_codec records the canonical spec
    } catch (const compress::CompressorError&) {
      // not in this build (or a parameter it does not take): left out
    }
  }
  return out;
}

CodecMeasurement measure_codec(const std::string& spec, const CodecTimingOptions& opt) {
  if (opt.sizes.empty()) throw FitError("codec timing: no sizes");
  CodecMeasurement m;
  {
    auto c = compress::make_compressor(spec, opt.device);
    m.spec = c->spec();
    for (const auto& call : c->plan(matrix_layout(opt.sizes.back(), opt.columns), std::max(2, opt.world)))
      if (call.kind == CollectiveKind::AllGather) m.gathers = true;
  }
  const int p = std::max(2, opt.world);
  std::vector<Point> enc, dec;
  for (int64_t n : opt.sizes) {
    m.rows.push_back(time_step(spec, n, p, opt));
    enc.push_back({double(n), m.rows.back().encode_s.median});
    dec.push_back({double(n), m.rows.back().decode_s.median});
  }
  const LinearFit fe = huber_fit(enc);
  m.fit.encode.fixed_s = fe.intercept;
  m.fit.encode.per_element_s = fe.slope;
  m.encode_quality = fit_quality(relative_errors(fe, enc));

  double per_rank = 0;
  const int64_t nmax = opt.sizes.back();
  if (m.gathers && opt.decode_ranks.size() >= 2) {
    std::vector<Point> byp;
    for (int q : opt.decode_ranks) {
      m.rank_rows.push_back(time_step(spec, nmax, q, opt));
      byp.push_back({double(q), m.rank_rows.back().decode_s.median});
    }
    per_rank = huber_fit(byp).slope / nmax;
  }
  // Per tensor beyond the first: the largest size as opt.tensors matrices against the one
  // matrix of the sweep. Kept when the difference is outside the two medians' own noise
  // (5% of the one-tensor time), else 0: a CPU's per-tensor loop is within it, a GPU's
  // kernel launches per tensor, or PowerSGD's products per matrix, are not.
  if (opt.tensors >= 2 && nmax >= 4 * opt.tensors) {
    m.tensors = opt.tensors;
    m.tensor_row = time_step(spec, nmax, p, opt, opt.tensors);
    const CodecRow& one = m.rows.back();
    auto per_tensor = [&](double many_s, double one_s) {
      const double d = many_s - one_s;
      return d > 0.05 * one_s ? d / (opt.tensors - 1) : 0.0;
    };
    m.fit.encode.per_tensor_s = per_tensor(m.tensor_row.encode_s.median, one.encode_s.median);
    m.fit.decode.per_tensor_s = per_tensor(m.tensor_row.decode_s.median, one.decode_s.median);
  }
  // decode(n, p) = fixed + per_element n + per_rank n p: remove the p term at the sweep's p.
  std::vector<Point> dec_rest;
  for (const auto& pt : dec) dec_rest.push_back({pt.x, std::max(pt.y - per_rank * pt.x * p, pt.y * 0.05)});
  const LinearFit fd = huber_fit(dec_rest);
  m.fit.decode.fixed_s = fd.intercept;
  m.fit.decode.per_element_s = fd.slope;
  m.fit.decode.per_rank_element_s = per_rank;
  std::vector<double> drel;
  for (const auto& pt : dec) {
    const double pred = fd.intercept + fd.slope * pt.x + per_rank * pt.x * p;
    drel.push_back((pred - pt.y) / pt.y);
  }
  m.decode_quality = fit_quality(drel);
  m.fit.measured_n = nmax;
  return m;
}

GradientBuckets gradient_buckets(const GradientSet& g, const model::DdpConfig& ddp, const std::string& what) {
  if (g.snapshots.empty() || g.tensors.empty()) throw FitError(what + ": no gradients collected");
  GradientBuckets b;
  b.buckets = model::plan_buckets(g.tensors, model::BucketOptions::from(ddp));
  b.offset.assign(g.tensors.size() + 1, 0);
  for (size_t i = 0; i < g.tensors.size(); ++i) b.offset[i + 1] = b.offset[i] + g.tensors[i].numel();
  for (const auto& s : g.snapshots)
    if (static_cast<int64_t>(s.size()) != b.offset.back())
      throw FitError(what + ": a gradient snapshot has " + std::to_string(s.size()) + " values, expected " +
                     std::to_string(b.offset.back()));
  return b;
}

void GradientBuckets::gather(const std::vector<float>& snapshot, size_t bi, std::vector<float>& x) const {
  x.clear();
  for (int t : buckets[bi].tensors) x.insert(x.end(), snapshot.begin() + offset[t], snapshot.begin() + offset[t + 1]);
}

ErrorMeasurement measure_error(const std::string& spec, const GradientSet& g,
                               const model::DdpConfig& ddp) {
  const GradientBuckets gb = gradient_buckets(g, ddp, "compression error");
  ErrorMeasurement out;
  out.snapshots = static_cast<int>(g.snapshots.size());
  out.buckets = static_cast<int>(gb.buckets.size());
  compress::ErrorMeter meter(spec);  // B1's definitions (compressors/error_measure.h)
  std::vector<float> x;
  for (const auto& snap : g.snapshots)
    for (size_t bi = 0; bi < gb.buckets.size(); ++bi) {
      gb.gather(snap, bi, x);
      meter.add(x.data(), gb.buckets[bi].layout, static_cast<int64_t>(bi));
    }
  const auto st = meter.stats();
  out.relative_error = st.rel_error;
  out.relative_error_ef = st.rel_error_ef;
  return out;
}

}  // namespace gcu::calibrate
