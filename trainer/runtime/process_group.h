// Process-group set-up for the trainer and for calibrate: a TCPStore rendezvous at
// MASTER_ADDR:MASTER_PORT (hosted by rank 0) and a c10d ProcessGroupGloo on it, with one
// timeout for the rendezvous and for every collective. NCCL (GPU builds) goes through
// gcu::cuda::NcclCommunicator, whose unique id travels through the same store.
//
//   auto info = rank_info_from_env();
//   DistContext ctx = init_process_group(info, {.timeout_s = 30});
//   PgCommunicator comm(ctx);                 // pg_communicator.h
//
// Gloo's network interface: $GLOO_SOCKET_IFNAME when set (comma-separated list: one
// Gloo device per interface), else loopback when MASTER_ADDR is a loopback address,
// else the interface that the host name resolves to (as PyTorch does).
#pragma once

#include "trainer/runtime/rendezvous.h"
#include "trainer/torch_compat.h"

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <memory>
#include <string>
#include <vector>

namespace gcu::trainer {

struct ProcessGroupOptions {
  double timeout_s = 60.0;          // rendezvous and per-collective timeout
  std::string socket_ifname;        // overrides $GLOO_SOCKET_IFNAME when set
};

struct DistContext {
  RankInfo info;
  double timeout_s = 60.0;
  std::string gloo_interfaces;                      // what Gloo was bound to (for logs)
  c10::intrusive_ptr<c10d::Store> store;            // the rendezvous store (rank 0 hosts it)
  c10::intrusive_ptr<compat::CollectiveBackend> gloo;  // CPU collectives
  int rank() const { return info.rank; }
  int world_size() const { return info.world_size; }
};

// Collective: every rank of the job calls it. Throws DistributedError naming the
// address, port and timeout when the rendezvous does not complete.
DistContext init_process_group(const RankInfo& info, const ProcessGroupOptions& opt = {});

// After a collective failed: every surviving rank marks itself failed in the store,
// waits up to `wait_s` for the others to do the same, and returns the ranks that did
// not (the ones that died or stalled). Best effort: if the store itself is gone (rank 0
// died), returns {0}.
std::vector<int> ranks_not_reporting_failure(DistContext& ctx, double wait_s = 2.0);

}  // namespace gcu::trainer
