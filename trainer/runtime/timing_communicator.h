// A Communicator decorator that times the collectives of one compressor step, so that
// encode and decode times come out for every scheme without instrumenting any of them.
//
// For one bucket (begin_step() .. end_step()) with collectives c_1..c_n:
//   collective_s = time inside c_1..c_n (including waiting for slower ranks)
//   encode_s     = time before c_1 + time between collectives (compression work)
//   decode_s     = time after c_n (decompression and averaging)
// A step with no collective counts all its time as encode. Bytes are what this rank
// contributes (count x element size per call, as in CollectiveCall::bytes_per_rank).
// Single-threaded: use one per thread that runs compressor steps.
//
// Device buffers (GPU path): kernels and collectives return before the device has
// finished, so set_sync(synchronize) makes every boundary (begin, before and after each
// collective, end) wait for the device first. The times are then device times, at the
// price of the host waiting at each boundary.
#pragma once

#include "compressors/compressor.h"

#include <chrono>
#include <functional>
#include <utility>

namespace gcu::trainer {

struct StepTimes {
  double encode_s = 0;
  double collective_s = 0;
  double decode_s = 0;
  int64_t wire_bytes = 0;
  int collectives = 0;
  StepTimes& operator+=(const StepTimes& o) {
    encode_s += o.encode_s;
    collective_s += o.collective_s;
    decode_s += o.decode_s;
    wire_bytes += o.wire_bytes;
    collectives += o.collectives;
    return *this;
  }
};

class TimingCommunicator final : public compress::Communicator {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TimingCommunicator(compress::Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }

  void set_sync(std::function<void()> sync) { sync_ = std::move(sync); }

  void begin_step() {
    if (sync_) sync_();
    t_ = {};
    last_ = Clock::now();
  }
  StepTimes end_step() {
    if (sync_) sync_();
    const double tail = since(last_);
    if (t_.collectives == 0) t_.encode_s += tail;
    else t_.decode_s += tail;
    return t_;
  }

  void all_reduce(void* data, int64_t count, compress::WireType type,
                  compress::ReduceOp op) override {
    timed(count * compress::wire_type_bytes(type), [&] { inner_.all_reduce(data, count, type, op); });
  }
  void all_gather(const void* send, void* recv, int64_t count, compress::WireType type) override {
    timed(count * compress::wire_type_bytes(type), [&] { inner_.all_gather(send, recv, count, type); });
  }
  void broadcast(void* data, int64_t count, compress::WireType type, int root) override {
    timed(count * compress::wire_type_bytes(type), [&] { inner_.broadcast(data, count, type, root); });
  }

 private:
  static double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }
  template <class F>
  void timed(int64_t bytes, F&& f) {
    if (sync_) sync_();
    const auto start = Clock::now();
    t_.encode_s += std::chrono::duration<double>(start - last_).count();
    f();
    if (sync_) sync_();
    last_ = Clock::now();
    t_.collective_s += std::chrono::duration<double>(last_ - start).count();
    t_.wire_bytes += bytes;
    ++t_.collectives;
  }
  compress::Communicator& inner_;
  std::function<void()> sync_;
  StepTimes t_;
  Clock::time_point last_ = Clock::now();
};

}  // namespace gcu::trainer
