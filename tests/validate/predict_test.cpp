// validate/predict.h: CellPredictor's account of how it got a cell's compute.
#include "validate/predict.h"

#include "validate/report.h"
#include "simulate/profile_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

// A batch size the profile has no compute entry for: the predictor says how the model got
// its compute (model/profile.h compute_for_batch), and the report carries it per cell.
namespace gcu::validate {
TEST(CellPredictor, SaysHowABatchWithoutComputeWasPredicted) {
  model::Profile p =
      simulate::load_profile_file(std::string(GCU_SOURCE_DIR) + "/data/profiles/cpu-2rank-cnn.json").profile;
  ASSERT_FALSE(p.model.compute.empty());
  const int measured = p.model.compute.front().batch_size;
  p.model.compute.resize(1);
  Cell c;
  c.model = "cnn";
  c.scheme = "none";
  c.mode = "overlap";
  c.ranks = 2;
  c.batch = measured;
  c.link = parse_link("unlimited");
  EXPECT_EQ(CellPredictor(p, c).compute_basis(), "");
  c.batch = 2 * measured;
  const CellPredictor twice(p, c);
  EXPECT_EQ(twice.compute_basis(), "batch " + std::to_string(2 * measured) +
                                       " scaled proportionally from the only measured batch " +
                                       std::to_string(measured));
  EXPECT_NEAR(at(twice.predict(0), Component::Forward), 2 * p.model.compute.front().forward_s, 1e-12);

  Report r;
  CellResult cr;
  cr.cell = c;
  cr.ok = true;
  cr.compute_basis = twice.compute_basis();
  r.cells = {cr};
  r.summary = summarize(r.cells);
  const auto j = nlohmann::json::parse(format_json(r));
  EXPECT_EQ(j["cells"][0]["settings"]["compute_basis"], twice.compute_basis());
  EXPECT_NE(format_table(r).find("compute not measured at the cell's batch: " + twice.compute_basis()),
            std::string::npos);
}
}  // namespace gcu::validate
