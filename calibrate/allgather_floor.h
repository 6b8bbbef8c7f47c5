// A scheme's all-gathers as a training step enters them.
// The collective sweep times every call after a barrier, all ranks entering together. A
// training loop has no barrier: each rank computes for its own time, then enters, and with
// more ranks than cores the first ranks to leave the call compute on the cores that the
// last still need. At 4 ranks on 2 cores the CNN's signSGD all-gather took 7-8 ms per
// iteration in the trainer against the ~4 ms of the aligned sweep, at every link from
// unlimited to 200 Mbit/s: a floor, which a slow enough link hides.
//
// Measured here through the trainer's own communicator (PgCommunicator) on the launched
// ranks, per bucket size: one aligned warm-up, then `reps` rounds over the sizes in a
// shared random order; before each timed bucket every rank spends gap_s x U(0.5, 1.5) busy
// (its own random stream), then issues the bucket's all-gathers back to back, as the
// trainer does. A bucket's time is its LAST arriving rank's (the smallest over the ranks:
// the others waited for it), the floor per size the mean over rounds (what an iteration
// pays on average). The profile keeps it as `compressors.<spec>.allgather_floor`; the
// model costs the bucket's all-gathers max(link time, floor) (model/scheme_cost.h).
// Collective: every rank calls it with the same arguments.
#pragma once

#include "calibrate/group.h"
#include "model/profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct AllGatherFloor {
  std::optional<model::CollectiveFloor> floor;  // none: no all-gather in the scheme, not Gloo, or 1 rank
  std::string note;      // e.g. "all-gather floor, free-running (4 ranks, ~10 ms busy before each): ..."
};

// `sizes`: bucket elements, increasing; `gap_s`: the compute before each bucket (the
// collective sweep's gap); `reps` timed rounds.
AllGatherFloor measure_allgather_floor(Group& g, const std::string& spec, const std::vector<int64_t>& sizes,
                                       double gap_s, int reps = 15, uint64_t seed = 1);

}  // namespace gcu::calibrate
