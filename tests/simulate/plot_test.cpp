// simulate/plot: the gnuplot script (labels with units, legend, title, inline data) and,
// when gnuplot is installed, the PNG and SVG it draws.
#include "simulate/plot.h"

#include "model/profile_json.h"
#include "simulate/error.h"
#include "util/output_file.h"
#include "test_profile.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace gcu::simulate {
namespace {
namespace fs = std::filesystem;

ResultTable sweep_table() {
  RunRequest r;
  r.schemes = {"none", "fp16", "topk:k=0.1"};
  r.sweep = parse_sweep("bandwidth_gbps=1:40:8");
  return run_simulation(model::profile_from_json(test::tiny_profile_json()), r);
}

bool have_gnuplot() { return std::system("gnuplot --version > /dev/null 2>&1") == 0; }

TEST(Plot, ScriptHasLabelsLegendTitleAndData) {
  const std::string g = gnuplot_script(sweep_table(), "out/x.png", "my title");
  EXPECT_NE(g.find("inter-node bandwidth (Gbps)"), std::string::npos);
  EXPECT_NE(g.find("iteration time (ms)"), std::string::npos);
  EXPECT_NE(g.find("speed-up vs FP16 DDP"), std::string::npos);
  EXPECT_NE(g.find("'my title'"), std::string::npos);
  EXPECT_NE(g.find("title 'topk:k=0.1'"), std::string::npos);
  EXPECT_NE(g.find("none (FP32 DDP)"), std::string::npos);
  EXPECT_NE(g.find("$s2 << EOD"), std::string::npos);  // one data block per scheme
  EXPECT_NE(g.find("pngcairo"), std::string::npos);
  EXPECT_EQ(g.find("set logscale x"), std::string::npos);  // 1:40:8 is evenly spaced: a linear axis
  RunRequest doubling;
  doubling.schemes = {"none"};
  doubling.sweep = parse_sweep("bandwidth_gbps=1:64:7:log");  // 1, 2, 4, ... 64: a log axis
  EXPECT_NE(gnuplot_script(run_simulation(model::profile_from_json(test::tiny_profile_json()), doubling), "x.png", "t")
                .find("set logscale x"),
            std::string::npos);
  EXPECT_NE(gnuplot_script(sweep_table(), "x.svg", "t").find("set terminal svg"), std::string::npos);
  EXPECT_THROW(gnuplot_script(sweep_table(), "x.pdf", "t"), SimulateError);
}

TEST(Plot, BarChartWithoutSweep) {
  RunRequest r;
  r.schemes = {"none", "fp16"};
  const auto t = run_simulation(model::profile_from_json(test::tiny_profile_json()), r);
  const std::string g = gnuplot_script(t, "bars.png", "t");
  EXPECT_NE(g.find("with boxes"), std::string::npos);
  EXPECT_NE(g.find("\"fp16\""), std::string::npos);
}

TEST(Plot, GnuplotDrawsPngAndSvg) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  const fs::path d = fs::temp_directory_path() / ("gcu_plot_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  const auto t = sweep_table();
  const PlotFiles f = write_plot(t, (d / "s.png").string(), "title");
  const std::string png = util::read_file(f.image);
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_TRUE(fs::exists(f.script));
  EXPECT_TRUE(fs::exists(f.data));
  const PlotFiles s = write_plot(t, (d / "s.svg").string(), "title");
  EXPECT_NE(util::read_file(s.image).find("<svg"), std::string::npos);
  // only the outputs: no temporary files left
  int n = 0;
  for (const auto& e : fs::directory_iterator(d)) n += e.is_regular_file();
  EXPECT_EQ(n, 4);  // s.png, s.svg, and s.gp + s.dat (shared by both: same stem)
  fs::remove_all(d);
}

// Issue 13: a hostile title (a profile's model name) never runs as code: not when gcu
// plots, not when the saved .gp script is replayed. Each payload would create a marker
// file if gnuplot executed it.
TEST(Plot, HostileTitleIsInertWhenRunAndReplayed) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  const fs::path d = fs::temp_directory_path() / ("gcu_plot_evil_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  const std::string m = (d / "pwned").string();
  const std::string title = "a `touch " + m + "1` b \" `touch " + m + "2` \" ' `touch " + m +
                            "3` ''\nsystem(\"touch " + m + "4\")\r\nprint system('touch " + m +
                            "5')\n@x \\";
  for (const char* image : {"t.png", "b.svg"}) {
    RunRequest r;
    r.schemes = {"none", "fp16"};
    if (std::string(image) == "t.png") r.sweep = parse_sweep("bandwidth_gbps=1:40:3");
    const auto t = run_simulation(model::profile_from_json(test::tiny_profile_json()), r);
    const PlotFiles f = write_plot(t, (d / image).string(), title);
    ASSERT_TRUE(fs::exists(f.image));
    const std::string replay = "cd '" + d.string() + "' && gnuplot '" + f.script + "' > /dev/null 2>&1";
    EXPECT_EQ(std::system(replay.c_str()), 0);
    const std::string g = util::read_file(f.script);
    EXPECT_EQ(g.find("\nsystem("), std::string::npos) << "the newline must not start a command";
  }
  for (int i = 1; i <= 5; ++i) EXPECT_FALSE(fs::exists(m + std::to_string(i))) << "payload " << i << " ran";
  fs::remove_all(d);
}

}  // namespace
}  // namespace gcu::simulate
