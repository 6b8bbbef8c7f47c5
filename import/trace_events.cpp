// The streamed reader of trace_events.h: a SAX handler with a stack of the containers it
// is inside, keeping one event's fields at a time.
#include "import/trace_events.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <fstream>
#include <unordered_map>

namespace gcu::import {

const char* event_kind_name(EventKind k) {
  switch (k) {
    case EventKind::Step: return "ProfilerStep";
    case EventKind::DdpForward: return "DistributedDataParallel.forward";
    case EventKind::Autograd: return "autograd node";
    case EventKind::AccumulateGrad: return "AccumulateGrad";
    case EventKind::OptimizerStep: return "Optimizer.step";
    case EventKind::ZeroGrad: return "Optimizer.zero_grad";
    case EventKind::CollectiveLaunch: return "c10d collective";
    case EventKind::CommsInfo: return "record_param_comms";
    case EventKind::CollectiveWork: return "collective work";
    case EventKind::Kernel: return "GPU kernel";
    case EventKind::CommKernel: return "NCCL kernel";
    case EventKind::RuntimeLaunch: return "CUDA launch";
  }
  return "?";
}

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::None: return "none";
    case Collective::AllReduce: return "all-reduce";
    case Collective::AllGather: return "all-gather";
    case Collective::ReduceScatter: return "reduce-scatter";
    case Collective::Broadcast: return "broadcast";
    case Collective::Other: return "other";
  }
  return "?";
}

namespace {

constexpr size_t kKeptNameChars = 160;
constexpr size_t kMaxThreads = 1u << 16;

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// "allreduce", "all_reduce", "_allgather_base", "ncclDevKernel_AllReduce_Sum_f32" -> kind.
Collective collective_from(const std::string& s) {
  std::string t;
  for (char c : s)
    if (c != '_' && c != ':' && c != ' ') t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.find("allreduce") != std::string::npos) return Collective::AllReduce;
  if (t.find("allgather") != std::string::npos) return Collective::AllGather;
  if (t.find("reducescatter") != std::string::npos) return Collective::ReduceScatter;
  if (t.find("broadcast") != std::string::npos) return Collective::Broadcast;
  return Collective::Other;
}

struct Fields {
  std::string name, ph, cat, tid, pid, collective;
  double ts = NAN, dur = 0;
  bool has_ts = false, has_dur = false;
  int64_t correlation = -1, elements = -1;
  int64_t dims_elements = -1;  // the product of args["Input Dims"][0] (older Kineto: the bucket's size)
  void reset() { *this = Fields{}; }
};

// Which kept kind an event is, or false.
bool classify(const Fields& f, TraceEvent* e) {
  const std::string& n = f.name;
  const std::string& c = f.cat;
  if (c == "kernel" || c == "Kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Memcpy" || c == "Memset") {
    if (starts_with(n, "nccl")) {
      e->kind = EventKind::CommKernel;
      e->collective = collective_from(n);
    } else {
      e->kind = EventKind::Kernel;
    }
    return true;
  }
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "Runtime") {
    if (f.correlation < 0) return false;
    if (n.find("Launch") == std::string::npos && n.find("Memcpy") == std::string::npos &&
        n.find("Memset") == std::string::npos)
      return false;
    e->kind = EventKind::RuntimeLaunch;
    return true;
  }
  if (c == "gpu_user_annotation") return false;  // NCCL's annotation over its kernels: the kernels say it
  if (starts_with(n, "ProfilerStep#")) {
    e->kind = EventKind::Step;
  } else if (n == "DistributedDataParallel.forward") {
    e->kind = EventKind::DdpForward;
  } else if (starts_with(n, "autograd::engine::evaluate_function: ")) {
    e->kind = n == "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad" ? EventKind::AccumulateGrad
                                                                                          : EventKind::Autograd;
  } else if (starts_with(n, "Optimizer.step#")) {
    e->kind = EventKind::OptimizerStep;
  } else if (starts_with(n, "Optimizer.zero_grad#")) {
    e->kind = EventKind::ZeroGrad;
  } else if (starts_with(n, "c10d::")) {
    const Collective k = collective_from(n.substr(6));
    if (k == Collective::Other) return false;  // barrier, send, recv, ...
    e->kind = EventKind::CollectiveLaunch;
    e->collective = k;
  } else if (n == "record_param_comms") {
    e->kind = EventKind::CommsInfo;
    e->collective = collective_from(f.collective);
    e->elements = f.elements >= 0 ? f.elements : f.dims_elements;
  } else if (starts_with(n, "nccl:")) {  // ProcessGroupNCCL's own record (CPU side): its input's size
    e->kind = EventKind::CommsInfo;
    e->collective = collective_from(n.substr(5));
    e->elements = f.dims_elements;
  } else if (starts_with(n, "gloo:")) {
    e->kind = EventKind::CollectiveWork;
    e->collective = collective_from(n.substr(5));
  } else {
    return false;
  }
  return true;
}

class Handler : public nlohmann::json_sax<nlohmann::json> {
 public:
  Handler(TraceEvents* out, const ReadOptions& opt, std::istream* in) : out_(out), opt_(opt), in_(in) {}

  bool null() override { return value_none(); }
  bool boolean(bool) override { return value_none(); }
  bool number_integer(number_integer_t v) override { return value_number(static_cast<double>(v), std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value_number(static_cast<double>(v), std::to_string(v)); }
  bool number_float(number_float_t v, const string_t& s) override { return value_number(v, s); }
  bool string(string_t& v) override { return value_string(v); }
  bool binary(binary_t&) override { return value_none(); }
  bool key(string_t& k) override {
    key_ = k.size() > 64 ? k.substr(0, 64) : k;
    return true;
  }
  bool start_object(std::size_t) override {
    Ctx next = Ctx::Skip;
    if (stack_.empty()) {
      next = Ctx::Top;
    } else {
      const Ctx p = stack_.back();
      if (p == Ctx::Events) {
        next = Ctx::Event;
        f_.reset();
      } else if (p == Ctx::Event && key_ == "args") {
        next = Ctx::Args;
      } else if (p == Ctx::Top && key_ == "distributedInfo") {
        next = Ctx::DistInfo;
      } else if (p == Ctx::DevProps && !seen_devprop_) {
        next = Ctx::DevProp;
        seen_devprop_ = true;
      }
    }
    stack_.push_back(next);
    key_.clear();
    return true;
  }
  bool end_object() override {
    const Ctx c = stack_.back();
    stack_.pop_back();
    if (c == Ctx::Event) return finish_event();
    return true;
  }
  bool start_array(std::size_t) override {
    Ctx next = Ctx::Skip;
    if (stack_.empty()) {
      next = Ctx::Events;
      out_->format = "pytorch-legacy";
      saw_events_ = true;
    } else if (stack_.back() == Ctx::Top && key_ == "traceEvents") {
      next = Ctx::Events;
      out_->format = "kineto";
      saw_events_ = true;
    } else if (stack_.back() == Ctx::Top && key_ == "deviceProperties") {
      next = Ctx::DevProps;
    } else if (stack_.back() == Ctx::Args && key_ == "Input Dims") {
      next = Ctx::Dims;
      dims_done_ = false;
    } else if (stack_.back() == Ctx::Dims && !dims_done_) {
      next = Ctx::DimsFirst;
      dims_product_ = 1;
      dims_count_ = 0;
    }
    stack_.push_back(next);
    return true;
  }
  bool end_array() override {
    if (stack_.back() == Ctx::DimsFirst) {
      dims_done_ = true;
      f_.dims_elements = dims_count_ > 0 ? dims_product_ : -1;
    }
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    // At the end of the input (the stream's eofbit set by the parser's reads) it is a cut.
    const bool truncated = in_->eof() || std::string(ex.what()).find("end of input") != std::string::npos;
    throw TraceError(std::string("trace: ") + (truncated ? "truncated JSON" : "not valid JSON") + " at byte " +
                     std::to_string(position) + (truncated ? " (was the file cut short?)" : ""));
  }

  bool saw_events() const { return saw_events_; }

 private:
  enum class Ctx { Top, Events, Event, Args, Dims, DimsFirst, DistInfo, DevProps, DevProp, Skip };

  [[noreturn]] void fail(const std::string& what) { throw TraceError("trace: " + what); }

  bool value_none() {
    if (stack_.empty()) fail("not a Chrome trace (expected a JSON array of events or an object with \"traceEvents\")");
    if (stack_.back() == Ctx::Events) fail("event " + std::to_string(out_->events_read + 1) + " is not a JSON object");
    return true;
  }
  bool value_number(double v, const std::string& text) {
    if (!value_none()) return false;
    switch (stack_.back()) {
      case Ctx::Event:
        if (key_ == "ts") f_.ts = v, f_.has_ts = true;
        else if (key_ == "dur") f_.dur = v, f_.has_dur = true;
        else if (key_ == "tid") f_.tid = text.substr(0, 40);
        else if (key_ == "pid") f_.pid = text.substr(0, 40);
        break;
      case Ctx::Args:
        if (key_ == "correlation") f_.correlation = finite_count(v);
        else if (key_ == "In msg nelems" || key_ == "In msg size") f_.elements = finite_count(v);
        break;
      case Ctx::DimsFirst:
        ++dims_count_;
        if (dims_product_ >= 0) {
          const int64_t d = finite_count(v);
          dims_product_ = d < 0 || (d > 0 && dims_product_ > (int64_t{1} << 50) / d) ? -1 : dims_product_ * d;
        }
        break;
      case Ctx::DistInfo:
        if (key_ == "world_size" && std::isfinite(v) && v >= 1 && v <= 1e7) out_->world_size = static_cast<int>(v);
        break;
      default: break;
    }
    return true;
  }
  bool value_string(const std::string& v) {
    if (!value_none()) return false;
    const std::string s = v.size() > kKeptNameChars ? v.substr(0, kKeptNameChars) : v;
    switch (stack_.back()) {
      case Ctx::Event:
        if (key_ == "name") f_.name = s;
        else if (key_ == "ph") f_.ph = s;
        else if (key_ == "cat") f_.cat = s;
        else if (key_ == "tid") f_.tid = s.substr(0, 40);
        else if (key_ == "pid") f_.pid = s.substr(0, 40);
        break;
      case Ctx::Args:
        if (key_ == "Collective name") f_.collective = s;
        break;
      case Ctx::DistInfo:
        if (key_ == "backend") out_->backend = s.substr(0, 32);
        break;
      case Ctx::DevProp:
        if (key_ == "name") out_->gpu = s.substr(0, 80);
        break;
      default: break;
    }
    return true;
  }
  static int64_t finite_count(double v) {
    return std::isfinite(v) && v >= 0 && v < 9e18 ? static_cast<int64_t>(v) : -1;
  }
  bool finish_event() {
    if (f_.ph != "X") return true;
    ++out_->events_read;
    TraceEvent e;
    if (!classify(f_, &e)) return true;
    const std::string where = "event " + std::to_string(out_->events_read) + " (\"" + f_.name.substr(0, 60) + "\")";
    if (!f_.has_ts || !std::isfinite(f_.ts)) fail(where + " has no finite \"ts\"");
    if (f_.has_dur && (!std::isfinite(f_.dur) || f_.dur < 0)) fail(where + " has a negative or non-finite \"dur\"");
    e.ts_us = f_.ts;
    e.dur_us = f_.dur;
    if (e.correlation < 0) e.correlation = f_.correlation;
    const std::string thread = f_.pid + "/" + f_.tid;
    auto [it, inserted] = thread_ids_.try_emplace(thread, static_cast<int32_t>(out_->threads.size()));
    if (inserted) {
      if (out_->threads.size() >= kMaxThreads) fail("more than " + std::to_string(kMaxThreads) + " threads");
      out_->threads.push_back(thread);
    }
    e.thread = it->second;
    if (static_cast<int64_t>(out_->events.size()) >= opt_.max_events)
      fail("more than " + std::to_string(opt_.max_events) +
           " events of the kinds gcu reads (trace fewer iterations: torch.profiler's schedule active=3 is enough)");
    out_->events.push_back(e);
    return true;
  }

  TraceEvents* out_;
  ReadOptions opt_;
  std::istream* in_;
  std::vector<Ctx> stack_;
  std::string key_;
  Fields f_;
  bool saw_events_ = false, seen_devprop_ = false, dims_done_ = false;
  int64_t dims_product_ = 1, dims_count_ = 0;
  std::unordered_map<std::string, int32_t> thread_ids_;
};

}  // namespace

TraceEvents read_trace(std::istream& in, const ReadOptions& opt) {
  TraceEvents out;
  Handler h(&out, opt, &in);
  try {
    nlohmann::json::sax_parse(in, &h);
  } catch (const nlohmann::json::exception& e) {
    throw TraceError(std::string("trace: not valid JSON: ") + e.what());
  }
  if (!h.saw_events())
    throw TraceError("trace: not a Chrome trace (expected a JSON array of events or an object with a \"traceEvents\" array)");
  return out;
}

TraceEvents read_trace_file(const std::string& path, const ReadOptions& opt) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError("cannot read trace '" + path.substr(0, 200) + "'");
  return read_trace(in, opt);
}

}  // namespace gcu::import
