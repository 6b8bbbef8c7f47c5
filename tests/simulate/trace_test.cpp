// simulate/trace: the Chrome-trace JSON parses, has complete ("X") events in
// microseconds for every lane used, and metadata naming schemes and lanes.
#include "simulate/trace.h"

#include "model/profile_json.h"
#include "simulate/error.h"
#include "simulate/run.h"
#include "test_profile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace gcu::simulate {
namespace {

TEST(Trace, ChromeTraceFormat) {
  RunRequest r;
  r.schemes = {"none", "topk:k=0.1"};
  const auto its = predict_timelines(model::profile_from_json(test::tiny_profile_json()), r);
  const auto j = nlohmann::json::parse(chrome_trace_json(its, "tiny"));
  EXPECT_EQ(j["displayTimeUnit"], "ms");
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::set<int> pids;
  std::set<std::string> lanes, procs;
  size_t complete = 0;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name"));
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_GE(e["dur"].get<double>(), 0);
      EXPECT_GE(e["ts"].get<double>(), 0);
      pids.insert(e["pid"].get<int>());
    } else {
      EXPECT_EQ(e["ph"], "M");
      if (e["name"] == "thread_name") lanes.insert(e["args"]["name"].get<std::string>());
      if (e["name"] == "process_name") procs.insert(e["args"]["name"].get<std::string>());
    }
  }
  EXPECT_EQ(pids.size(), 2u);  // one process per scheme
  EXPECT_EQ(lanes, (std::set<std::string>{"compute", "comm", "encode", "decode"}));
  EXPECT_EQ(procs.size(), 2u);
  size_t timeline = 0;
  for (const auto& it : its) timeline += it.timeline.size();
  EXPECT_EQ(complete, timeline);
  // ts/dur are microseconds: the longest event is the iteration's order of magnitude
  double end_us = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X") end_us = std::max(end_us, e["ts"].get<double>() + e["dur"].get<double>());
  EXPECT_NEAR(end_us, its[0].total_s * 1e6, its[0].total_s * 1e6 * 0.5);
}

TEST(Trace, NoTimelineIsAnError) {
  model::IterationResult r;
  r.scheme = "none";
  EXPECT_THROW(chrome_trace_json({r}, "x"), SimulateError);
}

}  // namespace
}  // namespace gcu::simulate
