// An in-process process group: p ranks as p threads of one process, exchanging through
// shared memory with real barriers. It is a real Communicator (not a mock): tests use it
// to check aggregation semantics with p workers, and `gcu` uses it to simulate p workers
// on one machine (e.g. compression error with p ranks).
//
//   LocalGroup group(4);
//   group.run([&](Communicator& comm) { compressor[comm.rank()]->step(bucket, comm); });
#pragma once

#include "compressor.h"

#include <atomic>
#include <barrier>
#include <memory>
#include <functional>
#include <vector>

namespace gcu::compress {

class LocalGroup {
 public:
  explicit LocalGroup(int world_size);
  int world_size() const { return world_; }
  // Runs fn on world_size threads, one Communicator each; rethrows the first exception
  // (the other ranks are released, not left waiting at a barrier).
  void run(const std::function<void(Communicator&)>& fn);

 private:
  friend class LocalCommunicator;
  int world_;
  std::unique_ptr<std::barrier<>> barrier_;
  std::vector<const void*> slots_;  // per-rank pointer published for the current collective
  std::atomic<bool> failed_{false};
};

}  // namespace gcu::compress
