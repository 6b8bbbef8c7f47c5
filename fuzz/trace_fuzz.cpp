// fuzz/trace_fuzz.cpp: the PyTorch profiler trace importer of `gcu profile from-trace`
// (import/trace_events.h read streamed, trace_job.h's analysis, trace_profile.h's model
// part from the trace's own bucket sizes). Invariants: bad input is a TraceError (never
// another exception, a crash or a hang); a kept event has a finite start and a finite,
// non-negative length; an analysed job's median figures are finite and >= 0, its buckets
// hold at least one gradient each, and a model part written from it reads back as a
// profile once combined with a system (its numbers finite).
#include "fuzz/fuzz_util.h"
#include "import/trace_events.h"
#include "import/trace_job.h"
#include "import/trace_profile.h"
#include "model/parts.h"
#include "model/profile_json.h"

#include <cmath>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu;
  const std::string text = fuzz::as_string(data, size);
  std::istringstream in(text);
  import::ReadOptions ro;
  ro.max_events = 200000;
  import::TraceEvents ev;
  try {
    ev = import::read_trace(in, ro);
  } catch (const import::TraceError&) {
    return 0;
  }
  for (const auto& e : ev.events)
    GCU_FUZZ_CHECK(std::isfinite(e.ts_us) && std::isfinite(e.dur_us) && e.dur_us >= 0, "kept event");
  import::TracedJob job;
  try {
    job = import::analyze_trace(ev);
  } catch (const import::TraceError&) {
    return 0;
  }
  const auto& m = job.median;
  for (double v : {m.iteration_s, m.forward_s, m.backward_s, m.tail_s, m.optimizer_s, m.data_s})
    GCU_FUZZ_CHECK(std::isfinite(v) && v >= 0, "median phase");
  for (const auto& b : m.buckets) GCU_FUZZ_CHECK(b.tensors >= 1 && std::isfinite(b.ready_s), "bucket");
  import::ImportOptions io;
  io.trace_label = "fuzz.json";
  io.batch_size = 8;
  try {
    const import::Imported im = import::import_job(job, std::nullopt, io);
    model::Json system = model::Json::parse(R"({"schema": "gcu.system-part/1", "cluster": {"nodes": 1,
      "gpus_per_node": 2, "levels": {"intra": {"bandwidth_gbps": 10, "alpha_s": 1e-5}, "inter": {"bandwidth_gbps": 10, "alpha_s": 1e-5}}}})");
    try {
      model::profile_from_json(model::combine_parts(im.model_part, system));
    } catch (const model::ProfileError& e) {
      // A part whose numbers the profile's checks refuse (a zero-length backward, say) is
      // an error, named; it must not be anything else.
      GCU_FUZZ_CHECK(std::string(e.what()).size() > 0, "profile error");
    }
  } catch (const import::TraceError&) {
  }
  return 0;
}
