// The streamed trace reader (import/trace_events.h): both formats PyTorch writes, the
// events kept and dropped, and a clear TraceError for everything that is not a trace.
#include "import/trace_events.h"
#include "trace_fixtures.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace gcu::import {
namespace {

TraceEvents read_text(const std::string& text, ReadOptions opt = {}) {
  std::istringstream in(text);
  return read_trace(in, opt);
}

std::map<EventKind, int> kinds(const TraceEvents& t) {
  std::map<EventKind, int> n;
  for (const auto& e : t.events) ++n[e.kind];
  return n;
}

std::string error_of(const std::string& text, ReadOptions opt = {}) {
  try {
    read_text(text, opt);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceEvents, ReadsPyTorch113LegacyTraceKeepingOnlyWhatItNeeds) {
  const TraceEvents t = read_trace_file(testing::traces_dir() + "cpu-gloo-2rank-cnn.json");
  EXPECT_EQ(t.format, "pytorch-legacy");
  // Counted independently from the file: every complete event, and the kinds by name.
  const auto all = nlohmann::json::parse(testing::slurp(testing::traces_dir() + "cpu-gloo-2rank-cnn.json"));
  std::map<std::string, int> by_name;
  for (const auto& e : all) ++by_name[e["name"].get<std::string>()];
  EXPECT_EQ(t.events_read, static_cast<int64_t>(all.size()));
  const auto n = kinds(t);
  EXPECT_EQ(n.at(EventKind::Step), 3);
  EXPECT_EQ(n.at(EventKind::DdpForward), by_name["DistributedDataParallel.forward"]);
  EXPECT_EQ(n.at(EventKind::AccumulateGrad),
            by_name["autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"]);
  EXPECT_EQ(n.at(EventKind::AccumulateGrad), 3 * 12);
  EXPECT_EQ(n.at(EventKind::CollectiveLaunch), by_name["c10d::allreduce_"]);
  EXPECT_EQ(n.at(EventKind::CollectiveWork), by_name["gloo:all_reduce"]);
  EXPECT_EQ(n.count(EventKind::Kernel), 0u);
  EXPECT_LT(t.events.size(), all.size() / 4);  // aten:: ops are dropped
  EXPECT_EQ(t.world_size, 0);                  // a legacy trace does not say
  for (const auto& e : t.events)
    if (e.kind == EventKind::CollectiveLaunch || e.kind == EventKind::CollectiveWork)
      EXPECT_EQ(e.collective, Collective::AllReduce);
}

TEST(TraceEvents, ReadsKinetoTraceWithGpuKernelsAndCommsSizes) {
  const TraceEvents t = read_text(testing::kineto_cuda_trace(1));
  EXPECT_EQ(t.format, "kineto");
  EXPECT_EQ(t.world_size, 8);
  EXPECT_EQ(t.backend, "nccl");
  EXPECT_EQ(t.gpu, "NVIDIA H100 80GB HBM3");
  const auto n = kinds(t);
  EXPECT_EQ(n.at(EventKind::Kernel), 6);
  EXPECT_EQ(n.at(EventKind::CommKernel), 2);
  EXPECT_EQ(n.at(EventKind::RuntimeLaunch), 8);
  EXPECT_EQ(n.at(EventKind::CommsInfo), 2);
  std::vector<int64_t> elements;
  for (const auto& e : t.events) {
    if (e.kind == EventKind::CommsInfo) elements.push_back(e.elements);
    if (e.kind == EventKind::Kernel || e.kind == EventKind::RuntimeLaunch) EXPECT_GE(e.correlation, 1);
  }
  EXPECT_EQ(elements, (std::vector<int64_t>{1000, 2000}));
  EXPECT_EQ(t.events_read, 26);  // complete events only: the flow event ("ph": "f") is not one
}

TEST(TraceEvents, OlderKinetoSizesComeFromNcclsInputDims) {
  // PyTorch 2.0's ProcessGroupNCCL records its input's shape, not "In msg nelems"; the
  // GPU-side annotation of the same name is not read (its kernels say it).
  const TraceEvents t = read_text(R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 5, "dur": 2,
     "args": {"Input Dims": [[10, 100], [], [7]]}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 6, "dur": 1,
     "args": {"Input Dims": [[], [], []]}},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "nccl:all_reduce", "pid": 0, "tid": 7, "ts": 9, "dur": 4}]})");
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].kind, EventKind::CommsInfo);
  EXPECT_EQ(t.events[0].collective, Collective::AllReduce);
  EXPECT_EQ(t.events[0].elements, 1000);
  EXPECT_EQ(t.events[1].elements, -1);  // an empty first shape says nothing
}

TEST(TraceEvents, MalformedInputIsATraceErrorNamingTheProblem) {
  const std::string good = testing::slurp(testing::traces_dir() + "cpu-gloo-2rank-cnn.json");
  EXPECT_NE(error_of(good.substr(0, good.size() / 2)).find("truncated JSON at byte"), std::string::npos);
  EXPECT_NE(error_of("{\"traceEvents\": [}").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("").find("truncated"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "gcu.profile/2", "model": {}})").find("not a Chrome trace"), std::string::npos);
  EXPECT_NE(error_of("42").find("not a Chrome trace"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("event 1 is not a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"([{"ph": "X", "name": "ProfilerStep#1", "ts": "soon", "dur": 3}])").find("no finite \"ts\""),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"ph": "X", "name": "ProfilerStep#1", "ts": 1, "dur": -3}])").find("negative"),
            std::string::npos);
  ReadOptions few;
  few.max_events = 10;
  EXPECT_NE(error_of(good, few).find("more than 10 events"), std::string::npos);
  // Events gcu does not read may be odd; they are skipped, not refused.
  EXPECT_EQ(error_of(R"([{"ph": "X", "name": "aten::mm", "ts": "?"}, {"ph": "i", "name": "x"}])"), "");
}

TEST(TraceEvents, KeepsTheEventsOfAManyEventTraceNotTheFile) {
  // 200,000 events of which 2 are kept: what is held is the kept events.
  std::string text = "[";
  for (int i = 0; i < 200000; ++i)
    text += R"({"ph": "X", "name": "aten::add_", "ts": )" + std::to_string(i) + R"(, "dur": 1, "tid": 1, "pid": 1, "args": {"Input Dims": [[64, 64], [64, 64]]}},)";
  text += R"({"ph": "X", "name": "DistributedDataParallel.forward", "ts": 1, "dur": 2, "tid": 1, "pid": 1},)";
  text += R"({"ph": "X", "name": "c10d::allreduce_", "ts": 3, "dur": 2, "tid": 1, "pid": 1}])";
  const TraceEvents t = read_text(text);
  EXPECT_EQ(t.events_read, 200002);
  EXPECT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.threads.size(), 1u);
}

}  // namespace
}  // namespace gcu::import
