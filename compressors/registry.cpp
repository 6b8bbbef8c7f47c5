// Scheme registry and the generic parts of Compressor (registry.h, compressor.h).
#include "registry.h"
#include "util/text.h"

#include "error_feedback.h"

#include <algorithm>
#include <mutex>

namespace gcu::compress {

const char* wire_type_name(WireType t) {
  switch (t) {
    case WireType::F32: return "f32";
    case WireType::F16: return "f16";
    case WireType::BF16: return "bf16";
    case WireType::I32: return "i32";
    case WireType::I16: return "i16";
    case WireType::I8: return "i8";
    case WireType::U8: return "u8";
    case WireType::U32: return "u32";
    case WireType::U64: return "u64";
  }
  return "?";
}

const char* collective_name(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::AllReduce: return "all-reduce";
    case CollectiveKind::AllGather: return "all-gather";
    case CollectiveKind::ReduceScatter: return "reduce-scatter";
    case CollectiveKind::Broadcast: return "broadcast";
  }
  return "?";
}

int64_t BucketLayout::numel() const {
  int64_t n = 0;
  for (const auto& s : shapes) {
    int64_t e = 1;
    for (int64_t d : s) e *= d;
    n += e;
  }
  return n;
}

BucketLayout BucketLayout::flat(int64_t n) { return BucketLayout{{{n}}}; }

int64_t Compressor::wire_bytes(const BucketLayout& layout, int world) const {
  int64_t b = 0;
  for (const auto& c : plan(layout, world)) b += c.bytes_per_rank();
  return b;
}

void Compressor::step_with_local(GradBucket bucket, Communicator& comm, float* local) {
  if (local && bucket.numel() > 0) {
    const std::vector<uint8_t> saved = save_state();
    roundtrip(bucket.index, bucket.data, local, *bucket.layout);
    load_state(saved);
  }
  step(bucket, comm);
}

void Compressor::load_state(const std::vector<uint8_t>& state) {
  if (!state.empty())
    throw CompressorError(spec() + ": has no state, but a checkpoint holds " +
                          std::to_string(state.size()) + " bytes for it");
}

Registry& Registry::instance() {
  static Registry r;
  static std::once_flag once;
  std::call_once(once, [] { register_all(r); });
  return r;
}

void Registry::add(SchemeInfo info) {
  for (const auto& s : schemes_) {
    if (s.name == info.name) throw CompressorError("scheme '" + info.name + "' registered twice");
    if (info.facts.baseline && s.facts.baseline == info.facts.baseline)
      throw CompressorError("scheme '" + info.name + "' claims the baseline of '" + s.name + "'");
  }
  schemes_.push_back(std::move(info));
}

void Registry::add_cuda(const std::string& name, Factory cuda) {
  for (auto& s : schemes_)
    if (s.name == name) { s.cuda = std::move(cuda); return; }
  throw CompressorError("CUDA version of unknown scheme '" + name + "'");
}

const SchemeInfo& Registry::find(const std::string& name) const {
  for (const auto& s : schemes_)
    if (s.name == name) return s;
  std::string known;
  for (const auto& s : schemes_) known += (known.empty() ? "" : ", ") + s.name;
  throw CompressorError("unknown compression scheme " + util::quote(name) + " (known: " + known + ")");
}

const SchemeFacts& Registry::facts(const std::string& spec) const {
  static const SchemeFacts kDefaults;
  std::string inner;
  if (parse_ef_spec(spec, &inner)) return kDefaults;
  return find(SchemeArgs::parse(spec).name()).facts;
}

const SchemeInfo& Registry::baseline(Baseline b) const {
  for (const auto& s : schemes_)
    if (s.facts.baseline == b) return s;
  throw CompressorError(std::string("no scheme is registered as the ") +
                        (b == Baseline::FP32 ? "FP32" : "FP16") + " DDP baseline");
}

std::vector<std::string> Registry::recommend_grid() const {
  std::vector<std::string> out;
  for (const auto& s : schemes_) out.insert(out.end(), s.facts.recommend_grid.begin(), s.facts.recommend_grid.end());
  return out;
}

std::vector<std::string> Registry::convergence_specs() const {
  std::vector<std::string> out;
  for (const auto& s : schemes_)
    out.insert(out.end(), s.facts.convergence_specs.begin(), s.facts.convergence_specs.end());
  return out;
}

std::vector<std::string> Registry::cost_grid() const {
  std::vector<std::string> out;
  for (const auto& s : schemes_) out.insert(out.end(), s.facts.cost_grid.begin(), s.facts.cost_grid.end());
  return out;
}

std::string Registry::contention_probe() const {
  for (const auto& s : schemes_)
    if (s.facts.contention_probe) return s.name;
  return "";
}

std::vector<SchemeInfo> Registry::list() const { return schemes_; }

namespace {
std::string no_cuda_message(const std::string& name) {
  return "scheme '" + name + "' has no CUDA implementation registered (CUDA versions come from "
         "gcu_compressors_cuda: a CUDA build whose executable calls "
         "gcu::compress::cuda::register_cuda() at start-up)";
}
}  // namespace

std::unique_ptr<Compressor> make_compressor(const std::string& spec, Device device) {
  check_ef_nesting(spec);
  std::string inner;
  if (parse_ef_spec(spec, &inner)) {  // "ef(<inner spec>)": error feedback around any scheme
    if (device == Device::CUDA) {
      const auto& ef = Registry::instance().ef_cuda();
      if (!ef) throw CompressorError(no_cuda_message("ef"));
      return ef(make_compressor(inner, device));
    }
    return std::make_unique<ErrorFeedback>(make_compressor(inner, device));
  }
  const SchemeArgs args = SchemeArgs::parse(spec);
  const SchemeInfo& info = Registry::instance().find(args.name());
  const Factory& f = device == Device::CUDA ? info.cuda : info.cpu;
  if (!f)
    throw CompressorError(device == Device::CUDA
                              ? no_cuda_message(info.name)
                              : "scheme '" + info.name + "' has no CPU implementation in this build");
  auto c = f(args);
  args.require_all_used(info.params);
  return c;
}

}  // namespace gcu::compress
