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
// finished, so the host clock would time the enqueue only. With set_device_marks(), each
// boundary (begin, before and after each collective, end) records a CUDA event on the
// stream the compressor enqueues on (device_stream()) instead: the communication thread
// never waits, and backward kernels on other streams are not waited for. end_step() then
// returns bytes and collectives only; take_device_times() (after the device work of the
// steps is done, e.g. at the end of an iteration) turns the recorded events into
// encode/collective/decode seconds, as the host clock would have split them.
#pragma once

#include "compressors/compressor.h"

#include <chrono>
#include <utility>
#include <vector>

namespace gcu::trainer {

// Marks on a device stream, resolved later (gpu.h: CUDA events). Ids are indices into
// the marks recorded since the last reset().
class DeviceMarks {
 public:
  virtual ~DeviceMarks() = default;
  // Records a mark on `stream` (cudaStream_t as void*; nullptr = legacy default); no wait.
  virtual int mark(void* stream) = 0;
  // Seconds from mark a to mark b (waits for b to complete).
  virtual double seconds(int a, int b) = 0;
  // Forgets every mark (their events are reused).
  virtual void reset() = 0;
};

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

  void* device_stream() const override { return inner_.device_stream(); }

  // GPU path: time with marks on the device stream (see the file comment); not owned.
  void set_device_marks(DeviceMarks* marks) { marks_ = marks; }

  void begin_step() {
    t_ = {};
    if (marks_) {
      pending_.push_back({marks_->mark(device_stream()), {}, -1});
      return;
    }
    last_ = Clock::now();
  }
  StepTimes end_step() {
    if (marks_) {
      pending_.back().end = marks_->mark(device_stream());
      return t_;  // bytes and collectives; times come from take_device_times()
    }
    const double tail = since(last_);
    if (t_.collectives == 0) t_.encode_s += tail;
    else t_.decode_s += tail;
    return t_;
  }
  // Device times of the steps since the last call (zero without marks): waits for their
  // last mark; then forgets the marks.
  StepTimes take_device_times() {
    StepTimes sum;
    if (!marks_) return sum;
    for (const PendingStep& p : pending_) {
      if (p.end < 0) continue;
      int prev = p.begin;
      for (const auto& [before, after] : p.collectives) {
        sum.encode_s += marks_->seconds(prev, before);
        sum.collective_s += marks_->seconds(before, after);
        prev = after;
      }
      const double tail = marks_->seconds(prev, p.end);
      if (p.collectives.empty()) sum.encode_s += tail;
      else sum.decode_s += tail;
    }
    pending_.clear();
    marks_->reset();
    return sum;
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
    t_.wire_bytes += bytes;
    ++t_.collectives;
    if (marks_ && !pending_.empty()) {
      const int before = marks_->mark(device_stream());
      f();
      pending_.back().collectives.push_back({before, marks_->mark(device_stream())});
      return;
    }
    const auto start = Clock::now();
    t_.encode_s += std::chrono::duration<double>(start - last_).count();
    f();
    last_ = Clock::now();
    t_.collective_s += std::chrono::duration<double>(last_ - start).count();
  }
  struct PendingStep {
    int begin;
    std::vector<std::pair<int, int>> collectives;  // marks before / after each
    int end;
  };
  compress::Communicator& inner_;
  DeviceMarks* marks_ = nullptr;
  std::vector<PendingStep> pending_;
  StepTimes t_;
  Clock::time_point last_ = Clock::now();
};

}  // namespace gcu::trainer
