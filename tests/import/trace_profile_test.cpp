// The imported model part (import/trace_profile.h): the bucket caps that reproduce DDP's
// buckets, the real traces' parts with --network's tensors, the Kineto trace's part from
// its own bucket sizes, the part combined with a system as gcu simulate reads it, and the
// errors when the network and the trace disagree or nothing gives sizes.
#include "import/trace_profile.h"
#include "model/buckets.h"
#include "model/parts.h"
#include "trace_fixtures.h"

#include <gtest/gtest.h>

#include <sstream>

namespace gcu::import {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(BucketCaps, PyTorchDefaultsWhereTheyReproduce) {
  // 4 gradients of 0.6 MiB: the first bucket closes at 1.2 MiB (2 gradients), the rest in one.
  const DdpCaps c = infer_bucket_caps({0.6 * kMiB, 0.6 * kMiB, 0.6 * kMiB, 0.6 * kMiB}, {2, 2});
  EXPECT_TRUE(c.reproduced);
  EXPECT_EQ(c.first_bucket_bytes, 1 * kMiB);
  EXPECT_EQ(c.bucket_cap_bytes, 25 * kMiB);
}

TEST(BucketCaps, AJobsOwnCapIsFound) {
  // bucket_cap_mb=5: 3 MiB gradients close a bucket every 2.
  const std::vector<double> g(7, 3 * kMiB);
  const DdpCaps c = infer_bucket_caps(g, {1, 2, 2, 2});
  ASSERT_TRUE(c.reproduced) << c.note;
  EXPECT_GT(c.bucket_cap_bytes, 3 * kMiB);
  EXPECT_LE(c.bucket_cap_bytes, 6 * kMiB);
  std::vector<model::BucketTensor> t(7, {static_cast<int64_t>(3 * kMiB / 4), 4});
  EXPECT_EQ(model::assign_ddp_buckets(t, c.first_bucket_bytes, c.bucket_cap_bytes).size(), 4u);
  EXPECT_NE(c.note.find("inferred"), std::string::npos);
}

TEST(BucketCaps, ImpossibleBucketsKeepTheDefaultsAndSaySo) {
  // A small bucket closed while a larger one stayed open: no cap does that.
  const DdpCaps c = infer_bucket_caps({1 * kMiB, 1 * kMiB, 10 * kMiB, 1 * kMiB, 1 * kMiB, 1 * kMiB}, {1, 1, 3, 1});
  EXPECT_FALSE(c.reproduced);
  EXPECT_EQ(c.bucket_cap_bytes, 25 * kMiB);
  EXPECT_NE(c.note.find("no bucket caps reproduce"), std::string::npos);
}

TracedJob cnn_job() { return analyze_trace(read_trace_file(testing::traces_dir() + "cpu-gloo-2rank-cnn.json")); }

ImportOptions options(int batch) {
  ImportOptions o;
  o.trace_label = "trace.json";
  o.batch_size = batch;
  return o;
}

model::Json system_part() {
  return model::parse_json_text(R"({"schema": "gcu.system-part/1", "cluster": {"nodes": 1, "gpus_per_node": 2,
    "levels": {"intra": {"bandwidth_gbps": 1, "alpha_s": 1e-4}, "inter": {"bandwidth_gbps": 1, "alpha_s": 1e-4}}}})");
}

TEST(ImportJob, CnnTraceWithItsTensorListIsAModelPart) {
  const TracedJob job = cnn_job();
  const auto net = model::net::make_network("tensors:" + testing::traces_dir() + "cpu-gloo-2rank-cnn.tensors.csv");
  const Imported im = import_job(job, net, options(32));
  EXPECT_EQ(im.model_part["schema"], "gcu.model-part/1");
  EXPECT_TRUE(im.caps.reproduced);
  EXPECT_EQ(im.caps.first_bucket_bytes, 1 * kMiB);
  EXPECT_EQ(im.caps.bucket_cap_bytes, 25 * kMiB);
  // Combined with a system it reads as a profile, the trace's figures in it.
  const model::Profile p = model::profile_from_json(model::combine_parts(im.model_part, system_part()));
  EXPECT_EQ(p.model.parameters, 1295050);
  EXPECT_EQ(p.model.tensors.size(), 12u);
  EXPECT_EQ(p.model.tensors[3].name, "fc1.weight");
  ASSERT_EQ(p.model.compute.size(), 1u);
  const auto& c = p.model.compute[0];
  EXPECT_EQ(c.batch_size, 32);
  EXPECT_DOUBLE_EQ(c.forward_s, job.median.forward_s);
  EXPECT_DOUBLE_EQ(c.backward_s, job.median.backward_s);
  EXPECT_EQ(c.ready_s, job.median.tensor_ready_s);
  EXPECT_EQ(p.convergence.source, "none");
  // gcu's bucket rule gives the traced buckets: fc2 + fc1 (4 tensors), then the convolutions.
  const auto b = model::plan_buckets(p.model.tensors, model::BucketOptions::from(p.ddp));
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].tensors.size(), 4u);
  EXPECT_EQ(b[1].tensors.size(), 8u);
  // The report says what was measured.
  EXPECT_EQ(im.report["schema"], kTraceImportSchema);
  EXPECT_EQ(im.report["buckets"].size(), 2u);
  EXPECT_EQ(im.report["collectives"].size(), 2u);
  EXPECT_DOUBLE_EQ(im.report["buckets"][0]["bytes"].get<double>(), 4.0 * (10 + 5120 + 512 + 512 * 2048));
}

TEST(ImportJob, KinetoTraceWithoutANetworkHasOneFlatTensorPerBucket) {
  std::istringstream in(testing::kineto_cuda_trace(2));
  const TracedJob job = analyze_trace(read_trace(in));
  const Imported im = import_job(job, std::nullopt, options(8));
  const model::Profile p = model::profile_from_json(model::combine_parts(im.model_part, system_part()));
  ASSERT_EQ(p.model.tensors.size(), 2u);
  EXPECT_EQ(p.model.tensors[0].shape, (std::vector<int64_t>{1000}));
  EXPECT_EQ(p.model.tensors[1].shape, (std::vector<int64_t>{2000}));
  EXPECT_NEAR(p.model.compute[0].ready_s[0], 270e-6, 1e-12);
  EXPECT_EQ(p.provenance.device, "NVIDIA H100 80GB HBM3");
  const auto b = model::plan_buckets(p.model.tensors, model::BucketOptions::from(p.ddp));
  EXPECT_EQ(b.size(), 2u);
  bool says_flat = false;
  for (const auto& a : p.provenance.assumptions) says_flat |= a.find("one flat tensor per traced bucket") != std::string::npos;
  EXPECT_TRUE(says_flat);
}

std::string import_error(const TracedJob& job, const std::optional<model::net::Network>& net) {
  try {
    import_job(job, net, options(32));
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(ImportJob, DisagreementsAndMissingSizesAreNamed) {
  const TracedJob job = cnn_job();
  EXPECT_NE(import_error(job, std::nullopt).find("--network"), std::string::npos);
  EXPECT_NE(import_error(job, model::net::make_network("resnet18")).find("12 gradients"), std::string::npos);
  // A Kineto trace's sizes that the network's tensors do not add up to.
  std::istringstream in(testing::kineto_cuda_trace(1));
  const TracedJob k = analyze_trace(read_trace(in));
  const auto two = model::net::parse_tensor_list("name,shape\na,999\nb,2000\n", "two.csv");
  EXPECT_NE(import_error(k, two).find("bucket 0: the trace's all-reduce carries 1000 elements"), std::string::npos);
  const auto fits = model::net::parse_tensor_list("name,shape\na,10x100\nb,2000\n", "fits.csv");
  EXPECT_EQ(import_error(k, fits), "");
}

}  // namespace
}  // namespace gcu::import
