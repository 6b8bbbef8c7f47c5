// validate/plot.cpp (through write_reports): the bandwidth plot's gnuplot script.
#include "validate/report.h"

#include "simulate/profile_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

// bandwidth.gp: one panel per (per-rank batch, ranks) when the grid has more than one,
// each scheme in one colour across panels, and every cell's own prediction as an open
// circle beside the measured point; a grid of one batch and rank count keeps one plot.
namespace gcu::validate {
TEST(BandwidthPlot, OnePanelPerBatchAndRankCount) {
  const model::Profile p =
      simulate::load_profile_file(std::string(GCU_SOURCE_DIR) + "/data/profiles/cpu-2rank-cnn.json").profile;
  const std::string dir = ::testing::TempDir() + "/gcu_bandwidth_plot";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto cell_at = [&](int batch, const std::string& scheme) {
    CellResult c;
    c.ok = true;
    c.cell.model = "cnn";
    c.cell.scheme = scheme;
    c.cell.mode = "overlap";
    c.cell.ranks = 2;
    c.cell.batch = batch;
    c.cell.link = parse_link("1gbit");
    c.rate_used_gbps = 0.95;
    at(c.predicted, Component::Total) = 0.0123;
    c.measured[size_t(Component::Total)] = Spread{0.012, 0.0125, 0.011, 0.013};
    return c;
  };
  Report r;
  r.options.out_dir = dir;
  r.cells = {cell_at(32, "none"), cell_at(64, "none"), cell_at(64, "fp16")};
  r.summary = summarize(r.cells);
  std::ostringstream log;
  write_reports(r, p, log);
  std::ifstream in(dir + "/bandwidth.gp");
  const std::string gp((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(gp.find("set multiplot layout 1,2"), std::string::npos) << gp.substr(0, 400);
  EXPECT_NE(gp.find("'batch 32 per rank, 2 ranks'"), std::string::npos);
  EXPECT_NE(gp.find("'batch 64 per rank, 2 ranks'"), std::string::npos);
  EXPECT_NE(gp.find("using 1:5 with points pt 6"), std::string::npos);  // the cells' own predictions
  EXPECT_NE(gp.find(" 12.3\n"), std::string::npos);                      // ... in column 5, ms
  // `none` has the same colour in both panels.
  const size_t a = gp.find("title 'none overlap predicted'"), b = gp.find("title 'none overlap predicted'", a + 1);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(gp.substr(gp.rfind(" lc ", a), 6), gp.substr(gp.rfind(" lc ", b), 6));

  r.cells = {cell_at(32, "none")};
  r.summary = summarize(r.cells);
  write_reports(r, p, log);
  std::ifstream in1(dir + "/bandwidth.gp");
  const std::string one((std::istreambuf_iterator<char>(in1)), std::istreambuf_iterator<char>());
  EXPECT_EQ(one.find("multiplot"), std::string::npos);
  EXPECT_NE(one.find("'none overlap b32 r2 predicted'"), std::string::npos);
  std::filesystem::remove_all(dir);
}
}  // namespace gcu::validate
