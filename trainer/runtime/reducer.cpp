// DDP-like reducer (reducer.h).
#include "trainer/runtime/reducer.h"

#include "trainer/runtime/train_options.h"
#include "trainer/torch_compat.h"

#include "model/buckets.h"

#include <torch/torch.h>

#include <chrono>
#include <cstring>

namespace gcu::trainer {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

ReduceMode parse_reduce_mode(const std::string& s) {
  if (s == "overlap") return ReduceMode::Overlap;
  if (s == "after") return ReduceMode::After;
  throw TrainError("unknown reduction mode '" + s + "' (expected overlap or after)");
}
const char* reduce_mode_name(ReduceMode m) { return m == ReduceMode::Overlap ? "overlap" : "after"; }

std::vector<BucketSpec> assign_buckets(const std::vector<std::vector<int64_t>>& shapes,
                                       int64_t first_bucket_bytes, int64_t bucket_cap_bytes) {
  if (first_bucket_bytes <= 0 || bucket_cap_bytes <= 0)
    throw TrainError("bucket sizes must be > 0 bytes, got first=" +
                     std::to_string(first_bucket_bytes) + " cap=" + std::to_string(bucket_cap_bytes));
  // Gradients become ready in reverse registration order: position k of the ready
  // order is parameter n-1-k.
  const int64_t n = static_cast<int64_t>(shapes.size());
  std::vector<model::BucketTensor> ready;
  for (int64_t k = 0; k < n; ++k) {
    int64_t numel = 1;
    for (auto d : shapes[n - 1 - k]) numel *= d;
    ready.push_back({numel, static_cast<int64_t>(sizeof(float))});
  }
  std::vector<BucketSpec> out;
  for (const auto& members : model::assign_ddp_buckets(ready, static_cast<model::Bytes>(first_bucket_bytes),
                                                       static_cast<model::Bytes>(bucket_cap_bytes))) {
    BucketSpec b;
    for (int k : members) {
      b.offsets.push_back(b.layout.numel());
      b.params.push_back(n - 1 - k);
      b.layout.shapes.push_back(model::bucket_shape(shapes[n - 1 - k]));
    }
    out.push_back(std::move(b));
  }
  return out;
}

Reducer::Reducer(std::vector<torch::Tensor> params, compress::Compressor& compressor,
                 compress::Communicator& comm, ReducerOptions options)
    : params_(std::move(params)), compressor_(compressor), timing_(comm), options_(options) {
  if (options_.device_sync) sync_device = options_.device_sync;
  if (options_.device_marks) timing_.set_device_marks(options_.device_marks);
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& p = params_[i];
    if (p.scalar_type() != torch::kFloat)
      throw TrainError("reducer: parameter " + std::to_string(i) + " is " +
                       std::string(c10::toString(p.scalar_type())) + ", only float32 is supported");
    if (!p.requires_grad() || !p.is_leaf())
      throw TrainError("reducer: parameter " + std::to_string(i) + " is not a leaf that requires grad");
    shapes.push_back(p.sizes().vec());
  }
  buckets_ = assign_buckets(shapes, options_.first_bucket_bytes, options_.bucket_cap_bytes);
  bucket_of_.assign(params_.size(), -1);
  slot_of_.assign(params_.size(), -1);
  const auto opts = params_.empty() ? torch::TensorOptions().dtype(torch::kFloat)
                                    : params_[0].options().requires_grad(false);
  for (size_t b = 0; b < buckets_.size(); ++b) {
    buffers_.push_back(torch::zeros({buckets_[b].numel()}, opts));
    for (size_t s = 0; s < buckets_[b].params.size(); ++s) {
      bucket_of_[buckets_[b].params[s]] = static_cast<int64_t>(b);
      slot_of_[buckets_[b].params[s]] = static_cast<int64_t>(s);
    }
  }
  {
    torch::NoGradGuard ng;
    for (size_t i = 0; i < params_.size(); ++i)  // gradients as bucket views (reducer.h)
      params_[i].mutable_grad() = slot(static_cast<int64_t>(i));
  }
  param_ready_.assign(params_.size(), 0);
  pending_.assign(buckets_.size(), 0);
  bucket_ready_.assign(buckets_.size(), 0);
  if (options_.mode == ReduceMode::Overlap) {
    for (size_t i = 0; i < params_.size(); ++i)
      hooks_.push_back(compat::add_grad_ready_hook(
          params_[i], [this, i] { grad_ready(static_cast<int64_t>(i)); }));
    comm_thread_ = std::thread([this] { comm_loop(); });
  }
}

Reducer::~Reducer() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    armed_ = false;
  }
  cv_.notify_all();
  if (comm_thread_.joinable()) comm_thread_.join();
}

void Reducer::begin_iteration() {
  std::lock_guard<std::mutex> lk(mu_);
  std::fill(param_ready_.begin(), param_ready_.end(), 0);
  std::fill(bucket_ready_.begin(), bucket_ready_.end(), 0);
  for (size_t b = 0; b < buckets_.size(); ++b)
    pending_[b] = static_cast<int64_t>(buckets_[b].params.size());
  next_ = 0;
  times_ = {};
  error_ = nullptr;
  armed_ = true;
}

torch::Tensor Reducer::slot(int64_t i) const {
  const auto& spec = buckets_[bucket_of_[i]];
  return buffers_[bucket_of_[i]]
      .narrow(0, spec.offsets[slot_of_[i]], params_[i].numel())
      .view(params_[i].sizes());
}

bool Reducer::grad_is_view(int64_t i) const {
  const auto& g = params_[i].grad();
  if (!g.defined() || g.numel() == 0) return false;
  const auto& buf = buffers_[bucket_of_[i]];
  const int64_t off = buckets_[bucket_of_[i]].offsets[slot_of_[i]];
  return g.data_ptr() == static_cast<void*>(buf.data_ptr<float>() + off) && g.is_contiguous();
}

void Reducer::zero_grad() {
  torch::NoGradGuard ng;
  for (auto& b : buffers_) b.zero_();
  for (size_t i = 0; i < params_.size(); ++i) {
    if (grad_is_view(static_cast<int64_t>(i))) continue;
    auto& g = params_[i].mutable_grad();
    if (g.defined()) g.zero_();
  }
}

void Reducer::copy_in(int64_t i) {
  if (grad_is_view(i)) return;  // autograd accumulated straight into the bucket
  auto dst = slot(i).view({-1});
  const auto& g = params_[i].grad();
  if (g.defined()) dst.copy_(g.reshape({-1}));
  else dst.zero_();  // unused parameter: contributes zeros, like DDP's find_unused_parameters
}

void Reducer::grad_ready(int64_t i) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!armed_ || param_ready_[i]) return;
    param_ready_[i] = 1;
  }
  torch::NoGradGuard ng;
  copy_in(i);
  const int64_t b = bucket_of_[i];
  bool complete = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    complete = --pending_[b] == 0;
    if (complete) bucket_ready_[b] = 1;
  }
  if (complete) cv_.notify_all();
}

void Reducer::run_bucket(int64_t b) {
  if (on_bucket_start) on_bucket_start(b);
  compress::GradBucket gb;
  gb.index = b;
  gb.data = buffers_[b].data_ptr<float>();
  gb.layout = &buckets_[b].layout;
  const auto t0 = Clock::now();
  timing_.begin_step();
  compressor_.step(gb, timing_);
  times_.steps += timing_.end_step();
  times_.comm_busy_s += since(t0);
}

void Reducer::comm_loop() {
  torch::NoGradGuard ng;
  if (options_.thread_init) {
    try {
      options_.thread_init();
    } catch (...) {
      {
        std::lock_guard<std::mutex> lk(mu_);
        init_error_ = std::current_exception();  // rethrown by every finish_iteration()
      }
      cv_.notify_all();
      return;
    }
  }
  std::unique_lock<std::mutex> lk(mu_);
  while (true) {
    cv_.wait(lk, [&] {
      return stop_ || (armed_ && !error_ && next_ < static_cast<int64_t>(buckets_.size()) &&
                       bucket_ready_[next_]);
    });
    if (stop_) return;
    const int64_t b = next_;
    lk.unlock();
    std::exception_ptr err;
    try {
      run_bucket(b);
    } catch (...) {
      err = std::current_exception();
    }
    lk.lock();
    if (err) error_ = err;
    else ++next_;
    cv_.notify_all();
  }
}

ReduceTimes Reducer::finish_iteration() {
  torch::NoGradGuard ng;
  const auto t0 = Clock::now();
  const int64_t nb = static_cast<int64_t>(buckets_.size());
  if (options_.mode == ReduceMode::After) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      armed_ = false;
    }
    for (size_t i = 0; i < params_.size(); ++i) copy_in(static_cast<int64_t>(i));
    for (int64_t b = 0; b < nb; ++b) run_bucket(b);
  } else {
    // Parameters whose hook did not fire (no gradient this iteration) contribute zeros.
    std::vector<int64_t> missing;
    {
      std::lock_guard<std::mutex> lk(mu_);
      for (size_t i = 0; i < params_.size(); ++i)
        if (!param_ready_[i]) missing.push_back(static_cast<int64_t>(i));
    }
    for (auto i : missing) grad_ready(i);
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return error_ || init_error_ || next_ == nb; });
    if (init_error_) std::rethrow_exception(init_error_);
    armed_ = false;
    if (error_) {
      auto e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }
  if (sync_device) sync_device();
  times_.steps += timing_.take_device_times();  // GPU: event times of this iteration's steps
  times_.exposed_s = since(t0);
  for (size_t i = 0; i < params_.size(); ++i) {
    if (grad_is_view(static_cast<int64_t>(i))) continue;
    // Not the view (set to undefined or replaced since the last iteration): the averaged
    // gradient is in the bucket; make the gradient its view again.
    params_[i].mutable_grad() = slot(static_cast<int64_t>(i));
  }
  return times_;
}

void broadcast_tensors(const std::vector<torch::Tensor>& tensors, compress::Communicator& comm,
                       int root) {
  if (comm.world_size() == 1) return;
  torch::NoGradGuard ng;
  int64_t total = 0;
  for (const auto& t : tensors)
    if (t.defined()) total += t.numel() * static_cast<int64_t>(t.element_size());
  if (total == 0) return;
  std::vector<uint8_t> flat(static_cast<size_t>(total));  // one collective for all
  int64_t off = 0;
  std::vector<torch::Tensor> staged;
  for (const auto& t : tensors) {
    if (!t.defined() || t.numel() == 0) continue;
    auto c = t.contiguous().cpu();
    const int64_t n = c.numel() * static_cast<int64_t>(c.element_size());
    std::memcpy(flat.data() + off, c.data_ptr(), static_cast<size_t>(n));
    off += n;
    staged.push_back(c);
  }
  comm.broadcast(flat.data(), total, compress::WireType::U8, root);
  off = 0;
  size_t k = 0;
  for (const auto& t : tensors) {
    if (!t.defined() || t.numel() == 0) continue;
    auto& c = staged[k++];
    const int64_t n = c.numel() * static_cast<int64_t>(c.element_size());
    std::memcpy(c.data_ptr(), flat.data() + off, static_cast<size_t>(n));
    off += n;
    if (!c.is_same(t)) t.copy_(c);
  }
}

void broadcast_module_state(torch::nn::Module& module, compress::Communicator& comm, int root) {
  auto all = module.parameters();
  for (auto& b : module.buffers()) all.push_back(b);
  broadcast_tensors(all, comm, root);
}

}  // namespace gcu::trainer
