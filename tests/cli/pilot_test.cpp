// `gcu pilot run` then `gcu pilot predict`, end to end on the real CNN and Fashion-MNIST
// (a few iterations): every eval record carries the run's noise scale and relative error
// so far, the last equal to the run record's, and a prediction cut from the run uses the
// pilot's own figures.
#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace gcu::cli_test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

TEST(PilotCli, EvalRecordsCarryTheRunningFiguresAndPredictUsesThem) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "gcu built without LibTorch: no pilot subcommand";
  const fs::path dir = fs::temp_directory_path() / ("gcu_pilot_cli_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string runs = (dir / "runs.jsonl").string();
  const Result r = gcu("pilot run -o '" + runs + "' --schemes 'none;qsgd' --seeds 1 2 --iterations 8 --eval-samples 100");
  ASSERT_EQ(r.rc, 0) << r.out.substr(0, 2000);
  std::istringstream in(slurp(runs));
  std::string line;
  std::map<std::pair<std::string, int>, json> last_eval;
  int evals = 0, runs_seen = 0;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    const std::pair<std::string, int> key{j.value("scheme", ""), j.value("seed", 0)};
    if (j["type"] == "eval") {
      ++evals;
      ASSERT_TRUE(j.contains("b_simple") && j.contains("relative_error")) << line;
      if (j["iteration"].get<int>() == 0) {
        EXPECT_TRUE(j["relative_error"].is_null()) << line;  // nothing measured yet
      } else {
        ASSERT_TRUE(j["relative_error"].is_number()) << line;
        EXPECT_TRUE(std::isfinite(j["relative_error"].get<double>()));
      }
      last_eval[key] = j;
    } else if (j["type"] == "run") {
      ++runs_seen;
      const json& e = last_eval.at(key);
      EXPECT_EQ(e["iteration"], j["iterations"]) << line;
      EXPECT_DOUBLE_EQ(e["relative_error"].get<double>(), j["relative_error"].get<double>()) << line;
      EXPECT_EQ(e["b_simple"], j["b_simple"]) << line;
    }
  }
  EXPECT_EQ(runs_seen, 4);
  EXPECT_GT(evals, 4 * 3);
  EXPECT_GT(last_eval.at({"qsgd:levels=127", 1})["relative_error"].get<double>(), 0.01);  // qsgd changes the gradient
  const Result p = gcu("pilot predict '" + runs + "' --target 1.0 --baseline-iterations 100 --pilot-iterations 4");
  ASSERT_EQ(p.rc, 0) << p.out.substr(0, 2000);
  const json t = json::parse(p.out);
  EXPECT_EQ(t["qsgd:levels=127"]["figures_over"], "pilot") << t.dump();
  EXPECT_EQ(t["qsgd:levels=127"]["pilot_iterations"], 4);
  fs::remove_all(dir);
}

// A late pilot (--branch-at N): every scheme follows the baseline's step to N (the same
// state at N whatever the scheme), then its own for --iterations more; the evaluations
// start at N, the relative error covers the branch only, and the records say where it
// branched. A negative branch point is refused before the output is written.
TEST(PilotCli, LatePilotBranchesFromTheBaselinesState) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "gcu built without LibTorch: no pilot subcommand";
  const fs::path dir = fs::temp_directory_path() / ("gcu_pilot_late_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string runs = (dir / "late.jsonl").string();
  const Result r = gcu("pilot run -o '" + runs + "' --schemes 'none;signsgd' --seeds 1 --branch-at 6 --iterations 4 --eval-samples 100");
  ASSERT_EQ(r.rc, 0) << r.out.substr(0, 2000);
  std::istringstream in(slurp(runs));
  std::string line;
  std::map<std::string, std::map<int, json>> evals;
  std::map<std::string, json> run;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    if (j["type"] == "config") EXPECT_EQ(j["branch_at"], 6) << line;
    if (j["type"] == "eval") evals[j["scheme"]][j["iteration"].get<int>()] = j;
    if (j["type"] == "run") run[j["scheme"]] = j;
  }
  ASSERT_EQ(evals.size(), 2u);
  for (const auto& [spec, ev] : evals) {
    std::set<int> its;
    for (const auto& [i, e] : ev) its.insert(i);
    EXPECT_EQ(its, (std::set<int>{0, 6, 7, 8, 9, 10})) << spec;  // the start, then the branch
    EXPECT_EQ(run.at(spec)["iterations"], 10);
    EXPECT_EQ(run.at(spec)["branch_at"], 6);
  }
  // The same state at the branch point; signSGD's own steps after it.
  EXPECT_DOUBLE_EQ(evals["none"][6]["loss"].get<double>(), evals["signsgd"][6]["loss"].get<double>());
  EXPECT_NE(evals["none"][10]["loss"].get<double>(), evals["signsgd"][10]["loss"].get<double>());
  EXPECT_TRUE(evals["signsgd"][6]["relative_error"].is_null());  // nothing compressed before it
  EXPECT_GT(run["signsgd"]["relative_error"].get<double>(), 0.1);
  const std::string bad = (dir / "bad.jsonl").string();
  const Result b = gcu("pilot run -o '" + bad + "' --schemes 'none' --seeds 1 --branch-at -3 --iterations 2");
  EXPECT_NE(b.rc, 0);
  EXPECT_NE(b.out.find("branch-at"), std::string::npos) << b.out;
  EXPECT_FALSE(fs::exists(bad));
  fs::remove_all(dir);
}

// The sequential design: the baseline runs every seed, each candidate the seeds its
// "sequential" record lists (the first, and more only when the first said so), and
// `gcu pilot predict` reads the file with its unequal seed counts. Bad combinations are
// clear errors.
TEST(PilotCli, SequentialRunsOneSeedFirst) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "gcu built without LibTorch: no pilot subcommand";
  const fs::path dir = fs::temp_directory_path() / ("gcu_pilot_seq_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string runs = (dir / "runs.jsonl").string();
  const std::string common = " --seeds 1,2,3 --iterations 8 --eval-samples 100";
  const Result r = gcu("pilot run -o '" + runs + "' --schemes 'none;qsgd;signsgd' --sequential 0.8" + common);
  ASSERT_EQ(r.rc, 0) << r.out.substr(0, 2000);
  std::istringstream in(slurp(runs));
  std::string line;
  std::map<std::string, std::set<int>> ran;
  std::map<std::string, json> seq;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    if (j["type"] == "config") EXPECT_EQ(j["sequential"]["target"], 0.8) << line;
    if (j["type"] == "run") ran[j["scheme"]].insert(j["seed"].get<int>());
    if (j["type"] == "sequential") seq[j["scheme"]] = j;
  }
  EXPECT_EQ(ran["none"], (std::set<int>{1, 2, 3}));
  ASSERT_EQ(seq.size(), 3u);
  for (const char* s : {"qsgd:levels=127", "signsgd"}) {
    const json& q = seq.at(s);
    const auto listed = q["seeds"].get<std::set<int>>();
    EXPECT_EQ(ran[s], listed) << q.dump();
    EXPECT_TRUE(listed.count(1)) << q.dump();
    EXPECT_EQ(q["more_seeds"].get<bool>(), listed.size() > 1) << q.dump();
    EXPECT_TRUE(q.contains("status_after_first_seed")) << q.dump();
  }
  const Result p = gcu("pilot predict '" + runs + "' --target 0.8");
  ASSERT_EQ(p.rc, 0) << p.out.substr(0, 2000);
  const json t = json::parse(p.out);
  EXPECT_EQ(t["qsgd:levels=127"]["seeds"].get<size_t>(), seq["qsgd:levels=127"]["seeds"].size());
  // Bad combinations.
  const Result nb = gcu("pilot run -o '" + runs + "' --schemes 'fp16;qsgd' --sequential 0.8" + common);
  EXPECT_NE(nb.rc, 0);
  EXPECT_NE(nb.out.find("baseline 'none' is not among the schemes"), std::string::npos) << nb.out;
  const Result ns = gcu("pilot run -o '" + runs + "' --schemes 'none;qsgd' --sequential 0.8 --seeds 1 --iterations 4");
  EXPECT_NE(ns.rc, 0);
  EXPECT_NE(ns.out.find(">= 2 seeds"), std::string::npos) << ns.out;
  const Result nf = gcu("pilot run -o '" + runs + "' --schemes 'none;qsgd' --full-seeds fp16" + common);
  EXPECT_NE(nf.rc, 0);
  EXPECT_NE(nf.out.find("need --sequential"), std::string::npos) << nf.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gcu::cli_test
