// Communicator over ProcessGroupGloo (pg_communicator.h).
#include "trainer/runtime/pg_communicator.h"

#include "trainer/runtime/gloo_wire.h"
#include "trainer/runtime/train_options.h"

#include <torch/torch.h>

#include <chrono>
#include <cstring>
#include <sstream>

namespace gcu::trainer {

using compress::ReduceOp;
using compress::WireType;

namespace {
at::ScalarType gloo_type(WireType t) {
  switch (t) {
    case WireType::F32: return at::kFloat;
    case WireType::F16: return at::kHalf;
    case WireType::I32: case WireType::U32: return at::kInt;
    case WireType::I8: return at::kChar;
    case WireType::U8: return at::kByte;
    case WireType::U64: return at::kLong;
    case WireType::BF16: return at::kBFloat16;  // widened before use
    case WireType::I16: return at::kShort;      // widened before use
  }
  return at::kByte;
}

torch::Tensor wrap(void* p, int64_t count, at::ScalarType t) {
  return torch::from_blob(p, {count}, torch::TensorOptions().dtype(t));
}

void wait(const c10::intrusive_ptr<c10d::Work>& work) {
  work->wait();
}
}  // namespace

void PgCommunicator::fail(const std::string& op, const std::exception& e) {
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const auto missing = ranks_not_reporting_failure(ctx_);
  std::ostringstream msg;
  msg.precision(3);
  msg << "rank " << rank() << ": ";
  if (!missing.empty()) {
    msg << (missing.size() == 1 ? "rank " : "ranks ");
    for (size_t i = 0; i < missing.size(); ++i) msg << (i ? ", " : "") << missing[i];
    msg << " did not join the " << op << " of " << context_ << " (gave up after " << waited_s
        << " s; timeout " << ctx_.timeout_s << " s): "
        << (missing.size() == 1 ? "it" : "they") << " may have died or stalled; see "
        << (missing.size() == 1 ? "its log" : "their logs");
  } else {
    msg << "the " << op << " of " << context_ << " failed after " << waited_s
        << " s although every rank reported the failure (timeout " << ctx_.timeout_s << " s)";
  }
  std::string cause = e.what();
  if (const auto nl = cause.find('\n'); nl != std::string::npos) cause.resize(nl);
  msg << " (Gloo: " << cause.substr(0, 200) << ")";
  throw DistributedError(msg.str());
}

void PgCommunicator::all_reduce(void* data, int64_t count, WireType type, ReduceOp op) {
  if (count == 0) return;
  started_ = std::chrono::steady_clock::now();
  c10d::AllreduceOptions o;
  o.reduceOp = op == ReduceOp::Sum ? c10d::ReduceOp::SUM : c10d::ReduceOp::MAX;
  try {
    const bool widen = gloo_allreduce_element_bytes(type, op) != compress::wire_type_bytes(type);
    torch::Tensor t = wrap(data, count, gloo_type(type));
    if (type == WireType::U32 && op == ReduceOp::Max) t = wrap(data, count, at::kInt);
    if (!widen) {
      std::vector<at::Tensor> ts{t};
      wait(ctx_.gloo->allreduce(ts, o));
      return;
    }
    torch::Tensor wide;
    if (type == WireType::BF16) wide = t.to(at::kFloat);
    else if (type == WireType::I16) wide = t.to(at::kInt);
    else wide = t.to(at::kLong).bitwise_and(static_cast<int64_t>(0xffffffffLL));  // U32 max: unsigned compare
    std::vector<at::Tensor> ts{wide};
    wait(ctx_.gloo->allreduce(ts, o));
    if (type == WireType::I16) {
      // wrap like a 16-bit sum would
      auto w = wide.bitwise_and(static_cast<int64_t>(0xffff));
      w = torch::where(w >= 32768, w - 65536, w);
      t.copy_(w.to(at::kShort));
    } else {
      t.copy_(wide.to(t.scalar_type()));
    }
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    fail("all-reduce", e);
  }
}

void PgCommunicator::all_gather(const void* send, void* recv, int64_t count, WireType type) {
  const int64_t bytes = count * compress::wire_type_bytes(type);
  if (bytes == 0) return;
  started_ = std::chrono::steady_clock::now();
  try {
    std::vector<at::Tensor> in{wrap(const_cast<void*>(send), bytes, at::kByte)};
    std::vector<std::vector<at::Tensor>> out(1);
    for (int r = 0; r < world_size(); ++r)
      out[0].push_back(wrap(static_cast<unsigned char*>(recv) + r * bytes, bytes, at::kByte));
    wait(ctx_.gloo->allgather(out, in));
  } catch (const std::exception& e) {
    fail("all-gather", e);
  }
}

void PgCommunicator::broadcast(void* data, int64_t count, WireType type, int root) {
  if (root < 0 || root >= world_size())
    throw compress::CompressorError("broadcast: root " + std::to_string(root) +
                                    " out of range for world size " +
                                    std::to_string(world_size()));
  const int64_t bytes = count * compress::wire_type_bytes(type);
  if (bytes == 0) return;
  started_ = std::chrono::steady_clock::now();
  try {
    std::vector<at::Tensor> ts{wrap(data, bytes, at::kByte)};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    wait(ctx_.gloo->broadcast(ts, o));
  } catch (const std::exception& e) {
    fail("broadcast", e);
  }
}

}  // namespace gcu::trainer
