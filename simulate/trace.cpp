// Chrome-trace output (trace.h).
#include "simulate/trace.h"

#include "simulate/error.h"

#include <nlohmann/json.hpp>

namespace gcu::simulate {
namespace {
using Json = nlohmann::ordered_json;

int lane_tid(model::Lane l) {
  switch (l) {
    case model::Lane::Compute: return 1;
    case model::Lane::Comm: return 2;
    case model::Lane::Encode: return 3;
    case model::Lane::Decode: return 4;
  }
  return 5;
}

Json meta(const char* what, int pid, int tid, const Json& args) {
  Json m;
  m["name"] = what;
  m["ph"] = "M";
  m["pid"] = pid;
  m["tid"] = tid;
  m["args"] = args;
  return m;
}
}  // namespace

std::string chrome_trace_json(const std::vector<model::IterationResult>& iterations, const std::string& title) {
  Json events = Json::array();
  int pid = 0;
  for (const auto& it : iterations) {
    ++pid;
    if (it.timeline.empty())
      throw SimulateError("no timeline was predicted for scheme '" + it.scheme + "'");
    const std::string pname = it.scheme + " (" + model::model_name(it.model) + ", " + model::mode_name(it.mode) +
                              ", " + std::to_string(it.total_s * 1e3).substr(0, 7) + " ms)";
    events.push_back(meta("process_name", pid, 0, {{"name", pname}}));
    events.push_back(meta("process_sort_index", pid, 0, {{"sort_index", pid}}));
    for (auto l : {model::Lane::Compute, model::Lane::Comm, model::Lane::Encode, model::Lane::Decode}) {
      events.push_back(meta("thread_name", pid, lane_tid(l), {{"name", model::lane_name(l)}}));
      events.push_back(meta("thread_sort_index", pid, lane_tid(l), {{"sort_index", lane_tid(l)}}));
    }
    for (const auto& e : it.timeline) {
      Json x;
      x["name"] = e.name;
      x["cat"] = model::lane_name(e.lane);
      x["ph"] = "X";
      x["ts"] = e.start_s * 1e6;
      x["dur"] = e.duration_s * 1e6;
      x["pid"] = pid;
      x["tid"] = lane_tid(e.lane);
      x["args"] = {{"scheme", it.scheme}, {"start_ms", e.start_s * 1e3}, {"duration_ms", e.duration_s * 1e3}};
      events.push_back(std::move(x));
    }
  }
  Json j;
  j["traceEvents"] = std::move(events);
  j["displayTimeUnit"] = "ms";
  j["otherData"] = {{"generator", "gcu simulate --trace"}, {"title", title}};
  return j.dump(1) + "\n";
}

}  // namespace gcu::simulate
