// validate/link_gamma.h: the gamma step run through a link, read back, its comm_contention
// solved so that the model's calls take what the step measured beside the backward, and the
// link's cells predicted with both.
#include "validate/link_gamma.h"

#include "calibrate/profile_builder.h"
#include "calibrate/state.h"
#include "simulate/profile_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace gcu::validate {
namespace {

model::Profile cnn_profile() {
  return simulate::load_profile_file(std::string(GCU_SOURCE_DIR) + "/data/profiles/cpu-2rank-cnn.json").profile;
}

Cell cell_on(const std::string& link) {
  Cell c;
  c.model = "cnn";
  c.scheme = "none";
  c.mode = "overlap";
  c.ranks = 2;
  c.batch = cnn_profile().model.compute.front().batch_size;
  c.link = parse_link(link);
  return c;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gcu-link-gamma-" + std::to_string(getpid()) + "-" + name)).string();
}

TEST(LinkGamma, SolvedFactorsMakeTheModelsStepTakeWhatTheStepMeasured) {
  const model::Profile p = cnn_profile();
  LinkGamma g;
  g.bucket_bytes = {1 << 20, 4 << 20};
  g.alone_s = 0.040;
  // The same all-reduces alone took 1.5x the host link's time on this link; beside the
  // backward 1.6x that.
  model::Cluster c = p.cluster;
  c.nodes = 2;
  c.gpus_per_node = 1;
  const model::ClusterCost ref(c);
  double ref_sum = 0;
  for (double b : g.bucket_bytes) ref_sum += ref.cost(compress::CollectiveKind::AllReduce, b).time_s;
  ASSERT_GT(ref_sum, 0);
  g.comm_alone_s = 1.5 * ref_sum;
  g.comm_s = 1.6 * g.comm_alone_s;
  g.overlapped_s = g.alone_s + 0.3 * std::min(g.comm_s, g.alone_s);  // delayed by less than the calls ran beside it
  const model::InterferenceFitResult f = link_interference(g, p, 2);
  EXPECT_FALSE(f.gamma_at_bound);
  EXPECT_GT(f.gamma, 1);
  EXPECT_GT(f.comm_contention, 1);
  EXPECT_LT(f.comm_contention, model::kCommContentionMax);
  EXPECT_NEAR(f.model.comm_end_s, g.comm_s, 1e-6 * g.comm_s);
  EXPECT_NEAR(f.model.backward_end_s, g.overlapped_s, 1e-6 * g.overlapped_s);
  // The calls alone at 1, 1 take what they measured alone (the link's scale).
  model::BesideStep step;
  step.backward_alone_s = 10;  // long enough that every call runs beside it
  step.bucket_bytes = g.bucket_bytes;
  model::BesideCosting costing;
  costing.nodes = 2;
  costing.gpus_per_node = 1;
  costing.calls_scale = 1.5;
  EXPECT_NEAR(model::beside_times(p, step, costing, 1, 1).comm_end_s, g.comm_alone_s, 1e-9);
  // As fast beside the backward as alone: no contention; far slower than any factor explains: the end.
  g.comm_s = g.comm_alone_s;
  EXPECT_DOUBLE_EQ(link_interference(g, p, 2).comm_contention, 1.0);
  g.comm_s = 100 * g.comm_alone_s;
  EXPECT_DOUBLE_EQ(link_interference(g, p, 2).comm_contention, model::kCommContentionMax);
  EXPECT_TRUE(link_interference(g, p, 2).comm_contention_at_bound);
  // Only a factor inside (1, end) is the link's to give; the ends keep the profile's.
  EXPECT_TRUE(link_comm_contention_determined(f.comm_contention));
  EXPECT_FALSE(link_comm_contention_determined(1.0));
  EXPECT_FALSE(link_comm_contention_determined(model::kCommContentionMax));
}

TEST(LinkGamma, ReadsTheStepsStateAndSaysWhyNotWhenItCannot) {
  const model::Profile p = cnn_profile();
  const std::string path = temp_path("state.json");
  calibrate::CalibrationState st;
  st.meta.world = 2;
  calibrate::GammaState gs;
  gs.alone_s = 0.010;
  gs.overlapped_s = 0.014;
  gs.gamma = gs.overlapped_s / gs.alone_s;
  gs.comm_s = 0.008;
  gs.comm_alone_s = 0.004;
  gs.bucket_bytes = {1 << 20};
  st.gamma = gs;
  calibrate::write_state_file(path, st);
  LinkGamma g;
  read_link_gamma(g, path, p, 2);
  ASSERT_TRUE(g.measured) << g.note;
  EXPECT_DOUBLE_EQ(g.gamma, link_interference(g, p, 2).gamma);
  EXPECT_GT(g.gamma, 1.4);  // the 4 ms delay fell inside the 8 ms the all-reduces ran
  EXPECT_DOUBLE_EQ(g.stretch, 1.4);
  EXPECT_GE(g.comm_contention, 1);
  EXPECT_EQ(g.state_path, path);

  // A state without the step (an older kept sweep, say): not measured, and why.
  st.gamma.reset();
  calibrate::write_state_file(path, st);
  read_link_gamma(g, path, p, 2);
  EXPECT_FALSE(g.measured);
  EXPECT_NE(g.note.find("no gamma step"), std::string::npos) << g.note;
  // A step without the all-reduces' time (older states).
  gs.comm_s = 0;
  st.gamma = gs;
  calibrate::write_state_file(path, st);
  read_link_gamma(g, path, p, 2);
  EXPECT_FALSE(g.measured);
  EXPECT_NE(g.note.find("finite and positive"), std::string::npos) << g.note;
  std::remove(path.c_str());
  // No file: not measured, never a throw.
  read_link_gamma(g, path, p, 2);
  EXPECT_FALSE(g.measured);
  EXPECT_NE(g.note.find(path), std::string::npos) << g.note;
}

TEST(LinkGamma, StepArgsSkipEveryStepButGammaAndWriteNoProfile) {
  ValidateOptions o;
  o.gcu = "gcu";
  o.grid.model = "resnet18:classes=10,image=32";
  o.grid.batches = {32};
  o.profile = "p.json";
  const auto a = link_gamma_args(o, "out/links/r4-1gbit.gamma.json");
  const auto at_o = std::find(a.begin(), a.end(), "-o");
  ASSERT_NE(at_o, a.end());
  EXPECT_EQ(*(at_o + 1), "out/links/r4-1gbit.gamma.json");
  EXPECT_NE(std::find(a.begin(), a.end(), "--state-only"), a.end());
  const auto skip = std::find(a.begin(), a.end(), "--skip");
  ASSERT_NE(skip, a.end());
  EXPECT_EQ((skip + 1)->find("gamma"), std::string::npos);
  EXPECT_NE((skip + 1)->find("compute"), std::string::npos);
  EXPECT_EQ(link_gamma_state_path("out", 4, "1gbit"), "out/links/r4-1gbit.gamma.json.state.json");
}

TEST(LinkGamma, TheLinksCellsArePredictedWithItsGammaTheOthersWithTheProfiles) {
  const model::Profile p = cnn_profile();
  const std::vector<Cell> cells = {cell_on("1gbit"), cell_on("200mbit")};
  std::vector<std::unique_ptr<CellPredictor>> preds;
  for (const auto& c : cells) preds.push_back(std::make_unique<CellPredictor>(p, c));
  const double before = at(preds[0]->predict(1.0), Component::Backward);
  std::vector<LinkRate> links(2);
  links[0].link = cells[0].link;
  links[0].ranks = 2;
  links[0].gamma.measured = true;
  links[0].gamma.gamma = 3.0;
  links[0].gamma.comm_contention = 2.0;
  links[1].link = cells[1].link;
  links[1].ranks = 2;  // not measured
  apply_link_gamma(cells, links, preds);
  EXPECT_DOUBLE_EQ(preds[0]->link_gamma(), 3.0);
  EXPECT_DOUBLE_EQ(preds[1]->link_gamma(), 0.0);
  // gamma 3 stretches the backward while its buckets are reduced beside it.
  EXPECT_GT(at(preds[0]->predict(1.0), Component::Backward), before);
  EXPECT_EQ(link_gamma_for(cells[1], links), nullptr);
}

}  // namespace
}  // namespace gcu::validate
