// Chrome-trace JSON of predicted iterations (opens in Perfetto, ui.perfetto.dev, and
// chrome://tracing):
//   {"traceEvents": [{"name": "bucket 0 all-reduce", "ph": "X", "ts": <us>, "dur": <us>,
//                     "pid": <scheme>, "tid": <lane>, "args": {...}}, ...],
//    "displayTimeUnit": "ms", "otherData": {...}}
// One process per scheme (named after it), one thread per lane: compute (forward,
// backward, optimizer), comm (each bucket's collectives), encode, decode. Metadata events
// ("ph": "M") name them.
#pragma once

#include "model/iteration.h"

#include <string>
#include <vector>

namespace gcu::simulate {

// Throws SimulateError when an iteration has no timeline.
std::string chrome_trace_json(const std::vector<model::IterationResult>& iterations,
                              const std::string& title);

}  // namespace gcu::simulate
