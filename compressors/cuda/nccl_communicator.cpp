// NCCL Communicator for device buffers (nccl_communicator.h): a non-blocking NCCL
// communicator whose waits poll ncclCommGetAsyncError and give up (ncclCommAbort) after
// the timeout, so a dead peer gives a clear error instead of a hang.
#include "nccl_communicator.h"

#include "cuda_check.h"

#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

namespace gcu::cuda {

// Owns every resource: its destructor also runs when the constructor throws.
struct NcclCommunicator::Impl {
  using Clock = std::chrono::steady_clock;
  int rank = 0;
  double timeout_s = 600.0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;   // the communicator's own stream
  cudaStream_t caller = nullptr;   // where compressors enqueue (nullptr = legacy default)
  cudaEvent_t before = nullptr, after = nullptr;
  bool aborted = false;

  ~Impl() {  // no checks: destructors must not throw
    if (comm) {
      if (!aborted && wait_quietly()) {
        ncclCommFinalize(comm);
        if (poll_quietly()) ncclCommDestroy(comm);
        else ncclCommAbort(comm);
      } else if (!aborted) {
        ncclCommAbort(comm);
      }
    }
    if (before) cudaEventDestroy(before);
    if (after) cudaEventDestroy(after);
    if (stream) cudaStreamDestroy(stream);
  }

  [[noreturn]] void fail(const std::string& what, ncclResult_t r, double waited_s) {
    if (comm && !aborted) {
      ncclCommAbort(comm);
      aborted = true;
    }
    std::ostringstream m;
    m.precision(3);
    m << "rank " << rank << ": NCCL " << what;
    if (r == ncclInProgress || r == ncclSuccess)
      m << " made no progress within " << waited_s << " s (timeout " << timeout_s
        << " s): a peer rank may have died or stalled; see the other ranks' logs";
    else
      m << " failed after " << waited_s << " s: " << ncclGetErrorString(r) << " ("
        << (ncclGetLastError(comm) ? ncclGetLastError(comm) : "") << "); a peer rank may have died";
    m << ". The NCCL communicator was aborted.";
    throw CudaError(m.str());
  }
  void check_usable(const char* what) const {
    if (aborted)
      throw CudaError("rank " + std::to_string(rank) + ": NCCL " + what +
                      " on a communicator aborted after an earlier error");
  }
  bool expired(Clock::time_point t0) const {
    return timeout_s > 0 && std::chrono::duration<double>(Clock::now() - t0).count() > timeout_s;
  }
  static double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }
  static void nap() { std::this_thread::sleep_for(std::chrono::microseconds(50)); }

  // Waits until the communicator leaves ncclInProgress (init, enqueue, finalize).
  void poll(const std::string& what) {
    const auto t0 = Clock::now();
    ncclResult_t state = ncclInProgress;
    while (true) {
      const ncclResult_t r = ncclCommGetAsyncError(comm, &state);
      if (r != ncclSuccess) fail(what, r, since(t0));
      if (state == ncclSuccess) return;
      if (state != ncclInProgress) fail(what, state, since(t0));
      if (expired(t0)) fail(what, ncclInProgress, since(t0));
      nap();
    }
  }
  // After an NCCL call on the non-blocking communicator.
  void enqueued(ncclResult_t r, const std::string& what) {
    if (r == ncclInProgress) poll(what);
    else if (r != ncclSuccess) fail(what, r, 0.0);
  }
  // Waits for `s` to drain, polling NCCL's asynchronous error.
  void drain(cudaStream_t s, const std::string& what) {
    const auto t0 = Clock::now();
    while (true) {
      const cudaError_t q = cudaStreamQuery(s);
      if (q == cudaSuccess) return;
      if (q != cudaErrorNotReady) CUDA_CHECK(q);
      ncclResult_t state = ncclSuccess;
      const ncclResult_t r = ncclCommGetAsyncError(comm, &state);
      if (r != ncclSuccess) fail(what, r, since(t0));
      if (state != ncclSuccess && state != ncclInProgress) fail(what, state, since(t0));
      if (expired(t0)) fail(what, ncclInProgress, since(t0));
      nap();
    }
  }
  // Destructor helpers: true when done, false on error or timeout.
  bool wait_quietly() {
    try {
      drain(stream, "shutdown");
      return true;
    } catch (...) {
      return false;
    }
  }
  bool poll_quietly() {
    try {
      poll("finalize");
      return true;
    } catch (...) {
      aborted = true;  // fail() aborted it
      return false;
    }
  }

  // Orders a collective between the caller's queued work and its later work.
  void enter() {
    CUDA_CHECK(cudaEventRecord(before, caller));
    CUDA_CHECK(cudaStreamWaitEvent(stream, before, 0));
  }
  void leave() {
    CUDA_CHECK(cudaEventRecord(after, stream));
    CUDA_CHECK(cudaStreamWaitEvent(caller, after, 0));
  }
};

namespace {
ncclDataType_t nccl_type(compress::WireType t) {
  using compress::WireType;
  switch (t) {
    case WireType::F32: return ncclFloat32;
    case WireType::F16: return ncclFloat16;
    case WireType::BF16: return ncclBfloat16;
    case WireType::I32: return ncclInt32;
    case WireType::I8: return ncclInt8;
    case WireType::U8: return ncclUint8;
    case WireType::U32: return ncclUint32;
    case WireType::U64: return ncclUint64;
    case WireType::I16: break;
  }
  throw compress::CompressorError(std::string("NcclCommunicator: all-reduce of ") +
                                  compress::wire_type_name(t) + " is not supported by NCCL");
}
}  // namespace

std::vector<uint8_t> NcclCommunicator::create_unique_id() {
  static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "NCCL_UNIQUE_ID_BYTES changed");
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  std::vector<uint8_t> bytes(kUniqueIdBytes);
  std::memcpy(bytes.data(), &id, kUniqueIdBytes);
  return bytes;
}

std::string NcclCommunicator::version() {
  int v = 0;
  NCCL_CHECK(ncclGetVersion(&v));
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

NcclCommunicator::NcclCommunicator(int rank, int world_size, const std::vector<uint8_t>& unique_id,
                                   int device, void* caller_stream, double timeout_s)
    : impl_(std::make_unique<Impl>()), rank_(rank), world_(world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw compress::CompressorError("NcclCommunicator: rank " + std::to_string(rank) +
                                    " is not in [0, " + std::to_string(world_size) + ")");
  if (unique_id.size() != static_cast<size_t>(kUniqueIdBytes))
    throw compress::CompressorError("NcclCommunicator: unique id has " + std::to_string(unique_id.size()) +
                                    " bytes, expected " + std::to_string(kUniqueIdBytes));
  impl_->rank = rank;
  impl_->timeout_s = timeout_s;
  CUDA_CHECK(cudaSetDevice(device));
  impl_->caller = static_cast<cudaStream_t>(caller_stream);
  CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&impl_->before, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&impl_->after, cudaEventDisableTiming));
  ncclUniqueId id;
  std::memcpy(&id, unique_id.data(), kUniqueIdBytes);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // every wait is ours: polled, with a timeout
  const ncclResult_t r = ncclCommInitRankConfig(&impl_->comm, world_size, id, rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    if (!impl_->comm) NCCL_CHECK(r);
    impl_->fail("initialisation (ncclCommInitRankConfig of " + std::to_string(world_size) + " ranks)", r, 0.0);
  }
  impl_->poll("initialisation (ncclCommInitRankConfig of " + std::to_string(world_size) + " ranks)");
}

NcclCommunicator::~NcclCommunicator() = default;  // Impl releases everything

void* NcclCommunicator::device_stream() const { return impl_->caller; }
bool NcclCommunicator::aborted() const { return impl_->aborted; }

void NcclCommunicator::all_reduce(void* data, int64_t count, compress::WireType type,
                                  compress::ReduceOp op) {
  const ncclDataType_t t = nccl_type(type);
  if (count == 0) return;  // every rank has the same count: all skip together
  impl_->check_usable("all-reduce");
  impl_->enter();
  impl_->enqueued(ncclAllReduce(data, data, static_cast<size_t>(count), t,
                                op == compress::ReduceOp::Max ? ncclMax : ncclSum, impl_->comm,
                                impl_->stream),
                  "all-reduce");
  impl_->leave();
}

// All-gather and broadcast move bytes: any WireType goes as uint8.
void NcclCommunicator::all_gather(const void* send, void* recv, int64_t count,
                                  compress::WireType type) {
  const size_t bytes = static_cast<size_t>(count * compress::wire_type_bytes(type));
  if (bytes == 0) return;
  impl_->check_usable("all-gather");
  impl_->enter();
  impl_->enqueued(ncclAllGather(send, recv, bytes, ncclUint8, impl_->comm, impl_->stream), "all-gather");
  impl_->leave();
}

void NcclCommunicator::broadcast(void* data, int64_t count, compress::WireType type, int root) {
  if (root < 0 || root >= world_)
    throw compress::CompressorError("NcclCommunicator: broadcast root " + std::to_string(root) +
                                    " is not in [0, " + std::to_string(world_) + ")");
  const size_t bytes = static_cast<size_t>(count * compress::wire_type_bytes(type));
  if (bytes == 0) return;
  impl_->check_usable("broadcast");
  impl_->enter();
  impl_->enqueued(ncclBroadcast(data, data, bytes, ncclUint8, root, impl_->comm, impl_->stream), "broadcast");
  impl_->leave();
}

void NcclCommunicator::synchronize() {
  impl_->check_usable("synchronize");
  impl_->drain(impl_->stream, "collectives");
  impl_->drain(impl_->caller, "work after the collectives");
}

}  // namespace gcu::cuda
