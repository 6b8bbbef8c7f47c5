// In-process process group over threads (local_group.h).
#include "local_group.h"

#include "half.h"

#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

namespace gcu::compress {

namespace {
double load(const void* p, int64_t i, WireType t) {
  switch (t) {
    case WireType::F32: return static_cast<const float*>(p)[i];
    case WireType::F16: return half_to_float(static_cast<const uint16_t*>(p)[i]);
    case WireType::BF16: return bf16_to_float(static_cast<const uint16_t*>(p)[i]);
    case WireType::I32: return static_cast<const int32_t*>(p)[i];
    case WireType::I16: return static_cast<const int16_t*>(p)[i];
    case WireType::I8: return static_cast<const int8_t*>(p)[i];
    case WireType::U8: return static_cast<const uint8_t*>(p)[i];
    case WireType::U32: return static_cast<const uint32_t*>(p)[i];
    case WireType::U64: return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
  }
  return 0;
}
// Integers wrap like NCCL/Gloo sums would (two's complement); floats round once.
void store(void* p, int64_t i, WireType t, double v, int64_t iv) {
  switch (t) {
    case WireType::F32: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case WireType::F16: static_cast<uint16_t*>(p)[i] = float_to_half(static_cast<float>(v)); break;
    case WireType::BF16: static_cast<uint16_t*>(p)[i] = float_to_bf16(static_cast<float>(v)); break;
    case WireType::I32: static_cast<int32_t*>(p)[i] = static_cast<int32_t>(static_cast<uint32_t>(iv)); break;
    case WireType::I16: static_cast<int16_t*>(p)[i] = static_cast<int16_t>(static_cast<uint16_t>(iv)); break;
    case WireType::I8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(static_cast<uint8_t>(iv)); break;
    case WireType::U8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(iv); break;
    case WireType::U32: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(iv); break;
    case WireType::U64: static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(iv); break;
  }
}
bool is_float(WireType t) { return t == WireType::F32 || t == WireType::F16 || t == WireType::BF16; }
int64_t load_int(const void* p, int64_t i, WireType t) {
  if (t == WireType::U64) return static_cast<int64_t>(static_cast<const uint64_t*>(p)[i]);
  return static_cast<int64_t>(load(p, i, t));
}
}  // namespace

class LocalCommunicator final : public Communicator {
 public:
  LocalCommunicator(LocalGroup& g, int rank) : g_(g), rank_(rank) {}
  int rank() const override { return rank_; }
  int world_size() const override { return g_.world_; }

  void all_reduce(void* data, int64_t count, WireType type, ReduceOp op) override {
    const int64_t bytes = count * wire_type_bytes(type);
    std::vector<unsigned char> mine(static_cast<const unsigned char*>(data),
                                    static_cast<const unsigned char*>(data) + bytes);
    publish(mine.data());
    std::vector<unsigned char> out(bytes);
    const bool flt = is_float(type);
    for (int64_t i = 0; i < count; ++i) {
      double acc = 0;
      int64_t iacc = 0;
      for (int r = 0; r < g_.world_; ++r) {
        const void* src = g_.slots_[r];
        if (flt) {
          const double v = load(src, i, type);
          acc = (r == 0) ? v : (op == ReduceOp::Sum ? acc + v : (v > acc ? v : acc));
        } else {
          const int64_t v = load_int(src, i, type);
          iacc = (r == 0) ? v : (op == ReduceOp::Sum ? static_cast<int64_t>(static_cast<uint64_t>(iacc) + static_cast<uint64_t>(v)) : (v > iacc ? v : iacc));
        }
      }
      store(out.data(), i, type, acc, iacc);
    }
    sync();  // everyone has read every slot
    std::memcpy(data, out.data(), bytes);
  }

  void all_gather(const void* send, void* recv, int64_t count, WireType type) override {
    const int64_t bytes = count * wire_type_bytes(type);
    std::vector<unsigned char> mine(static_cast<const unsigned char*>(send),
                                    static_cast<const unsigned char*>(send) + bytes);
    publish(mine.data());
    std::vector<unsigned char> out(bytes * g_.world_);
    for (int r = 0; r < g_.world_; ++r)
      if (bytes) std::memcpy(out.data() + r * bytes, g_.slots_[r], bytes);
    sync();
    if (bytes) std::memcpy(recv, out.data(), out.size());
  }

  void broadcast(void* data, int64_t count, WireType type, int root) override {
    if (root < 0 || root >= g_.world_)
      throw CompressorError("broadcast: root " + std::to_string(root) + " out of range");
    const int64_t bytes = count * wire_type_bytes(type);
    std::vector<unsigned char> mine(static_cast<const unsigned char*>(data),
                                    static_cast<const unsigned char*>(data) + bytes);
    publish(mine.data());
    std::vector<unsigned char> out(static_cast<const unsigned char*>(g_.slots_[root]),
                                   static_cast<const unsigned char*>(g_.slots_[root]) + bytes);
    sync();
    if (bytes) std::memcpy(data, out.data(), bytes);
  }

 private:
  void sync() {
    g_.barrier_->arrive_and_wait();
    if (g_.failed_) throw CompressorError("LocalGroup: another rank failed");
  }
  void publish(const void* p) {
    sync();  // previous collective fully consumed
    g_.slots_[rank_] = p;
    sync();  // all published
  }
  LocalGroup& g_;
  int rank_;
};

LocalGroup::LocalGroup(int world_size)
    : world_(world_size) {
  if (world_size < 1) throw CompressorError("LocalGroup: world size must be >= 1, got " + std::to_string(world_size));
  barrier_ = std::make_unique<std::barrier<>>(world_size);
  slots_.resize(world_size);
}

void LocalGroup::run(const std::function<void(Communicator&)>& fn) {
  failed_ = false;
  std::exception_ptr first;
  std::mutex m;
  std::vector<std::thread> threads;
  for (int r = 0; r < world_; ++r) {
    threads.emplace_back([&, r] {
      LocalCommunicator comm(*this, r);
      try {
        fn(comm);
      } catch (...) {
        {
          std::lock_guard<std::mutex> lk(m);
          if (!first) first = std::current_exception();
        }
        failed_ = true;
        // A failed rank keeps arriving so that the others are released from barriers;
        // they see failed_ and throw. arrive_and_drop removes it from later phases.
        barrier_->arrive_and_drop();
        return;
      }
      barrier_->arrive_and_drop();
    });
  }
  for (auto& t : threads) t.join();
  barrier_ = std::make_unique<std::barrier<>>(world_);  // fresh barrier for the next run()
  if (first) std::rethrow_exception(first);
}

}  // namespace gcu::compress
