// Issue 13, hostile input and the output-file policy, end to end through the `gcu`
// binary: each finding of the issue is reproduced and must now give a clear error with
// exit code 2 (or stay inert), never a crash, a shell command run, a clobbered file, an
// inf/NaN with exit 0 or a huge message.
#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace {
namespace fs = std::filesystem;
using nlohmann::json;

using gcu::cli_test::Result;
using gcu::cli_test::gcu;
using gcu::cli_test::have_torch_subcommands;
using gcu::cli_test::slurp;

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

const char* kV100Profile = "data/profiles/v100-resnet50.json";

class Hostile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gcu_hostile_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  json shipped() const { return json::parse(slurp(fs::path(GCU_SOURCE_DIR) / kV100Profile)); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(at(name), std::ios::binary) << text;
    return at(name);
  }
  // An error: exit code 2, "gcu: error:" or the option named, a short valid-UTF-8 message.
  static void expect_clear_error(const Result& r, const std::string& needle) {
    EXPECT_EQ(r.rc, 2) << r.out.substr(0, 2000);
    EXPECT_NE(r.out.find(needle), std::string::npos) << r.out.substr(0, 2000);
    EXPECT_LT(r.out.size(), 2000u) << r.out.substr(0, 2000);
    EXPECT_TRUE(valid_utf8(r.out));
  }
  fs::path dir_;
};

// --- command injection --------------------------------------------------------------
TEST_F(Hostile, ModelNameInPlotTitleNeverRuns) {
  json j = shipped();
  const std::string m = at("pwned");
  j["model"]["name"] = "x`touch " + m + "1` \" `touch " + m + "2` '\nsystem(\"touch " + m +
                       "3\")\nprint system('touch " + m + "4')\n";
  const std::string p = write("evil.json", j.dump());
  const Result r = gcu("simulate -p '" + p + "' --sweep bandwidth_gbps=1:10:3 --plot '" + at("e.png") + "'");
  ASSERT_EQ(r.rc, 0) << r.out;
  ASSERT_TRUE(fs::exists(at("e.png")));
  const std::string replay = "cd '" + dir_.string() + "' && gnuplot e.gp > /dev/null 2>&1";
  EXPECT_EQ(std::system(replay.c_str()), 0);
  for (int i = 1; i <= 4; ++i) EXPECT_FALSE(fs::exists(m + std::to_string(i))) << "payload " << i << " ran";
}

// --- output-file policy ----------------------------------------------------------------
TEST_F(Hostile, OutputToAFifoOrASymlinkIsRefused) {
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);  // never /dev/null itself
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " -o '" + at("fifo") + "'"), "a FIFO");
  EXPECT_TRUE(fs::is_fifo(at("fifo")));
  write("victim", "keep");
  fs::create_symlink(at("victim"), at("link.csv"));
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " --csv '" + at("link.csv") + "'"), "symbolic link");
  EXPECT_TRUE(fs::is_symlink(at("link.csv")));
  EXPECT_EQ(slurp(at("victim")), "keep");
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir_); it != fs::directory_iterator(); ++it) ++n;
  EXPECT_EQ(n, 3u) << "no temporary file left";
}

TEST_F(Hostile, MissingDirectoryIsAnErrorUnlessMkdir) {
  const std::string f = at("no/such/dir/x.csv");
  const Result r = gcu(std::string("simulate -p ") + kV100Profile + " --csv '" + f + "'");
  expect_clear_error(r, "does not exist");
  EXPECT_NE(r.out.find("--mkdir"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(at("no")));
  EXPECT_EQ(gcu(std::string("simulate -p ") + kV100Profile + " --mkdir --csv '" + f + "'").rc, 0);
  EXPECT_TRUE(fs::is_regular_file(f));
  const Result out = gcu(std::string("simulate -p ") + kV100Profile + " --format csv -o -");
  EXPECT_EQ(out.rc, 0);
  EXPECT_EQ(out.out.find("wrote"), std::string::npos) << "'-' is stdout, not a file named '-'";
  EXPECT_FALSE(fs::exists(fs::path(GCU_SOURCE_DIR) / "-"));
}

// calibrate and train (built with LibTorch) follow the same policy, before any work.
TEST_F(Hostile, CalibrateAndTrainRefuseBadTargets) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "this gcu has no calibrate/train (no LibTorch)";
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  expect_clear_error(gcu("calibrate --model cnn -o '" + at("fifo") + "'"), "a FIFO");
  EXPECT_TRUE(fs::is_fifo(at("fifo")));
  expect_clear_error(gcu("calibrate --model cnn -o '" + at("none/p.json") + "'"), "does not exist");
  expect_clear_error(gcu("calibrate --model cnn --allgather-floor sometimes -o '" + at("p.json") + "'"),
                     "--allgather-floor");
  EXPECT_FALSE(fs::exists(at("p.json")));
  write("victim", "keep");
  fs::create_symlink(at("victim"), at("log.jsonl"));
  expect_clear_error(gcu("train --data synthetic --iters 1 --log '" + at("log.jsonl") + "'"), "symbolic link");
  EXPECT_EQ(slurp(at("victim")), "keep");
}

// SIGTERM while a long command writes `target` through a temporary file: the temporary
// file is removed, the target keeps what it had (nothing, or `before`), and the process
// still dies of the signal.
void expect_sigterm_leaves_target(const fs::path& dir, const std::string& target, std::vector<std::string> args,
                                  const char* before) {
  if (before) {
    std::ofstream(target) << before;
  }
  std::vector<char*> argv{const_cast<char*>("gcu")};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    (void)!::freopen("/dev/null", "w", stdout);
    (void)!::freopen("/dev/null", "w", stderr);
    ::execv(GCU_BINARY, argv.data());
    ::_exit(127);
  }
  auto temps = [&] {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().string().find(".tmp.") != std::string::npos;
    return n;
  };
  for (int i = 0; i < 600 && temps() == 0; ++i) ::usleep(50'000);  // up to 30 s
  ::usleep(500'000);                                                 // some records written to it
  const size_t while_running = temps();
  ::kill(pid, SIGTERM);  // before any assertion: never leave the child running
  EXPECT_EQ(while_running, 1u) << "the output's temporary file should exist while the command runs";
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(temps(), 0u);
  if (before) {
    EXPECT_EQ(slurp(target), before);
  } else {
    EXPECT_FALSE(fs::exists(target));
  }
}

TEST_F(Hostile, SigtermDuringTrainLeavesNoTemporaryFile) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "this gcu has no train (no LibTorch)";
  const std::string log = at("run.jsonl");
  expect_sigterm_leaves_target(dir_, log,
                               {"train", "--data", "synthetic", "--iters", "1000000", "--threads", "1", "--quiet",
                                "--log", log},
                               nullptr);
}

// `gcu pilot run` writes its records the same way: an interrupted pilot never leaves a
// prefix that `gcu pilot predict` would read as a finished one, and the earlier file stays.
TEST_F(Hostile, SigtermDuringPilotRunKeepsTheEarlierRecords) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "this gcu has no pilot (no LibTorch)";
  const std::string out = at("pilots.jsonl");
  expect_sigterm_leaves_target(dir_, out,
                               {"pilot", "run", "-o", out, "--schemes", "none", "--seeds", "1", "--iterations",
                                "1000000", "--eval-samples", "50"},
                               "{\"type\":\"earlier\"}\n");
}

// --- crashes ---------------------------------------------------------------------------
TEST_F(Hostile, DeepEfNestingIsALimitNotACrash) {
  std::string spec;
  for (int i = 0; i < 20000; ++i) spec += "ef(";
  spec += "none";
  spec.append(20000, ')');
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " -s '" + spec + "'"), "nested more than");
}

TEST_F(Hostile, SetIndexFarPastTheEndIsRefused) {
  const Result r = gcu(std::string("simulate -p ") + kV100Profile + " --set /model/tensors/0/shape/100000000=1");
  expect_clear_error(r, "an index <= 1");
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " --set model.compute.99999999999999.forward_s=1"),
                     "an index <=");
  // Found by the set fuzzer: an index below a key that does not exist yet (nlohmann would
  // create the array and pad it with nulls up to the index).
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " --set cluster.levels.0.new_key.99999999999=1"),
                     "index 0 of a new array");
}

TEST_F(Hostile, DeepJsonIsALimit) {
  const std::string p = write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  expect_clear_error(gcu("simulate -p '" + p + "'"), "nested at most 64");
}

// --- silent inf / NaN / negatives --------------------------------------------------------
TEST_F(Hostile, ValuesThatWouldOverflowAreRefused) {
  json a = shipped();
  a["compressors"].begin().value()["encode"]["fixed_s"] = 1e308;
  expect_clear_error(gcu("simulate -p '" + write("cost.json", a.dump()) + "'"), "/encode/fixed_s");
  json b = shipped();
  b["cluster"]["levels"]["inter"]["bandwidth_gbps"] = 1e-320;
  expect_clear_error(gcu("simulate -p '" + write("bw.json", b.dump()) + "'"), "/cluster/levels/inter/bandwidth_gbps");
  json c = shipped();
  c["model"]["tensors"][0]["shape"] = {4294967296LL, 4294967296LL, 2147483648LL};  // wraps to negative
  expect_clear_error(gcu("simulate -p '" + write("shape.json", c.dump()) + "'"), "/model/tensors/0/shape");
  c["model"]["tensors"][0]["shape"] = {4294967296LL, 4294967296LL};  // 2^64 wraps to 0
  expect_clear_error(gcu("simulate -p '" + write("shape0.json", c.dump()) + "'"), "/model/tensors/0/shape");
}

TEST_F(Hostile, NonFiniteCommandLineNumbersAreRefused) {
  const Result w = gcu(std::string("simulate ratio -p ") + kV100Profile + " --within inf");
  expect_clear_error(w, "--within");
  EXPECT_EQ(w.out.find("-nan"), std::string::npos) << w.out;
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " --bandwidth nan"), "--bandwidth");
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " --compute-speedup 1e999"), "--compute-speedup");
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " --sweep bandwidth_gbps=1,nan"), "not a finite number");
}

// --- unbounded work ------------------------------------------------------------------------
TEST_F(Hostile, SweepPointsAndCandidatesAreLimited) {
  expect_clear_error(gcu(std::string("simulate -p ") + kV100Profile + " --sweep bandwidth_gbps=1:40:1000000"),
                     "limit of 10000");
  std::string pat = "topk:k={0.1|0.01}";
  for (int i = 0; i < 40; ++i) pat += ",x={1|2}";
  std::string many = "thc:bits={1|2}";
  for (int i = 0; i < 40; ++i) many += ":bits={1|2}";
  expect_clear_error(gcu(std::string("simulate recommend -p ") + kV100Profile + " --candidates '" + many + "'"),
                     "more than 10000");
}

// --- messages --------------------------------------------------------------------------------
TEST_F(Hostile, NumberOverflowNamesFileAndField) {
  std::string text = slurp(fs::path(GCU_SOURCE_DIR) / kV100Profile);
  json j = json::parse(text);
  j["cluster"]["gamma_stretch"] = 1.05;
  text = j.dump();
  const auto pos = text.find("1.05");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 4, "1e999");
  const Result r = gcu("simulate -p '" + write("big.json", text) + "'");
  expect_clear_error(r, "/cluster/gamma_stretch");
  EXPECT_NE(r.out.find("big.json"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1e999"), std::string::npos) << r.out;
}

TEST_F(Hostile, ShortSaneMessages) {
  const Result g = gcu(std::string("simulate -p ") + kV100Profile + " --gpus 0");
  expect_clear_error(g, "--gpus");
  EXPECT_LT(g.out.size(), 300u) << g.out;
  json w = shipped();
  w["cluster"]["nodes"] = 1073741824;  // x 4 GPUs per node wrapped to a negative world size
  const Result r = gcu("simulate -p '" + write("world.json", w.dump()) + "'");
  expect_clear_error(r, "/cluster/nodes");
  EXPECT_EQ(r.out.find("-1"), std::string::npos) << r.out;
  json k = shipped();
  k[std::string(5'000'000, 'k')] = 1;  // unknown key, echoed in at most ~200 bytes
  expect_clear_error(gcu("simulate -p '" + write("key.json", k.dump()) + "'"), "unknown field");
  json u = shipped();
  std::string name;
  for (int i = 0; i < 200; ++i) name += "\xC3\xA9";  // é: any cut must fall between characters
  u["model"]["tensors"][0]["name"] = 7;
  u["model"]["name"] = 8;
  u["provenance"]["device"] = name;
  u["cluster"]["algorithms"] = {name};
  expect_clear_error(gcu("simulate -p '" + write("utf8.json", u.dump()) + "'"), "expected");
}

TEST_F(Hostile, DuplicateKeysAreErrors) {
  std::string text = slurp(fs::path(GCU_SOURCE_DIR) / kV100Profile);
  const auto pos = text.find("\"gamma_stretch\"");
  ASSERT_NE(pos, std::string::npos);
  text.insert(pos, "\"gamma_stretch\": 1.5, ");
  const Result r = gcu("simulate -p '" + write("dup.json", text) + "'");
  expect_clear_error(r, "\"gamma_stretch\" again");
  EXPECT_NE(r.out.find("/cluster/gamma_stretch"), std::string::npos) << r.out;
}

// `gcu pilot predict --profile P --write-profile W`: a profile that is not JSON is a
// clear error; W goes through the output-file policy (a symlink is refused, untouched).
TEST_F(Hostile, PilotPredictProfileIsCheckedAndWrittenAtomically) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "gcu built without LibTorch: no pilot subcommand";
  std::ostringstream rec;
  for (const char* spec : {"none", "qsgd"})
    for (int seed = 1; seed <= 3; ++seed) {
      for (int t = 0; t <= 100; t += 10)
        rec << json{{"type", "eval"}, {"scheme", spec}, {"seed", seed}, {"iteration", t},
                    {"loss", 1.0 / (1 + 0.01 * t) + 0.001 * seed}, {"accuracy", 0.5}}.dump() << "\n";
      rec << json{{"type", "run"}, {"scheme", spec}, {"seed", seed}, {"relative_error", 0.2}}.dump() << "\n";
    }
  const std::string runs = write("runs.jsonl", rec.str());
  const std::string pred = "pilot predict '" + runs + "' --target 0.6 --baseline-iterations 300 ";
  expect_clear_error(gcu(pred + "--profile '" + write("bad.json", "[1, 2") + "' --write-profile '" + at("w.json") + "'"),
                     "not a JSON object");
  EXPECT_FALSE(fs::exists(at("w.json")));
  write("victim", "keep");
  fs::create_symlink(at("victim"), at("link.json"));
  expect_clear_error(gcu(pred + "--profile '" + write("p.json", "{}") + "' --write-profile '" + at("link.json") + "'"),
                     "symbolic link");
  EXPECT_EQ(slurp(at("victim")), "keep");
  const Result ok = gcu(pred + "--profile '" + at("p.json") + "' --write-profile '" + at("w.json") + "'");
  ASSERT_EQ(ok.rc, 0) << ok.out.substr(0, 2000);
  const json w = json::parse(slurp(at("w.json")));
  EXPECT_TRUE(w["convergence"]["schemes"]["qsgd"]["pilot"].contains("status"));
  // Counts that are not integers in [0, 2^31) (casting 1e300 to int is undefined): the
  // record is refused, naming the field; late pilots' records too.
  const auto late = [&](const std::string& cfg, const std::string& eval) {
    return gcu("pilot predict '" + runs + "' '" + write("late.jsonl", cfg + "\n" + eval + "\n") +
               "' --target 0.6 --baseline-iterations 300");
  };
  const std::string ev = R"({"type":"eval","scheme":"qsgd","seed":1,"iteration":160,"loss":0.7,"accuracy":0.5})";
  expect_clear_error(late(R"({"type":"config","branch_at":1e300})", ev), "'branch_at' is not an integer");
  expect_clear_error(late(R"({"type":"config","branch_at":150})",
                          R"({"type":"eval","scheme":"qsgd","seed":1,"iteration":1e300,"loss":0.7,"accuracy":0.5})"),
                     "'iteration' is not an integer");
  expect_clear_error(late(R"({"type":"config","branch_at":150})",
                          R"({"type":"eval","scheme":"qsgd","seed":-2,"iteration":160,"loss":0.7,"accuracy":0.5})"),
                     "'seed' is not an integer");
  EXPECT_EQ(late(R"({"type":"config","branch_at":150})", ev).rc, 0);
}

// `gcu pilot predict --biased-rule`: signSGD (biased, no error feedback) on par with the
// baseline over a pilot that ends above the target is `uncertain` by default, with the
// reason, and `reaches` with the rule off; a bad value is exit 2 naming the option.
TEST_F(Hostile, PilotPredictHoldsBackBiasedSchemesWithoutFeedback) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "gcu built without LibTorch: no pilot subcommand";
  std::ostringstream rec;
  for (const char* spec : {"none", "signsgd", "qsgd"})
    for (int seed = 1; seed <= 3; ++seed) {
      for (int t = 0; t <= 100; t += 10)
        rec << json{{"type", "eval"}, {"scheme", spec}, {"seed", seed}, {"iteration", t},
                    {"loss", 1.0 / (1 + 0.01 * t) + 0.001 * seed}, {"accuracy", 0.5}}.dump() << "\n";
      rec << json{{"type", "run"}, {"scheme", spec}, {"seed", seed}, {"relative_error", 0.2}}.dump() << "\n";
    }
  // The baseline reaches 0.4 at t = 150; the pilot ends at 0.5.
  const std::string pred = "pilot predict '" + write("runs.jsonl", rec.str()) + "' --target 0.4 --baseline-iterations 150";
  const Result on = gcu(pred);
  ASSERT_EQ(on.rc, 0) << on.out.substr(0, 2000);
  const json a = json::parse(on.out);
  EXPECT_EQ(a["signsgd"]["status"], "uncertain") << a["signsgd"].dump();
  EXPECT_NE(a["signsgd"]["evidence"].dump().find("biased scheme without error feedback"), std::string::npos);
  EXPECT_TRUE(a["signsgd"]["iterations"].is_number());  // the estimate stays
  EXPECT_EQ(a["qsgd"]["status"], "reaches") << a["qsgd"].dump();  // unbiased: untouched
  const Result off = gcu(pred + " --biased-rule off");
  ASSERT_EQ(off.rc, 0) << off.out.substr(0, 2000);
  EXPECT_EQ(json::parse(off.out)["signsgd"]["status"], "reaches");
  expect_clear_error(gcu(pred + " --biased-rule maybe"), "--biased-rule");
}

// Numbers no pilot can run or predict with are refused by name, exit 2, before any run or
// output: a NaN target reached the model (every scheme `uncertain`), an infinite learning
// rate "diverged" at iteration 1, a NaN one stopped LibTorch's SGD with a stack trace.
TEST_F(Hostile, PilotNumbersThatCannotBeUsedAreRefusedByName) {
  if (!have_torch_subcommands()) GTEST_SKIP() << "gcu built without LibTorch: no pilot subcommand";
  std::ostringstream rec;
  for (int t = 0; t <= 50; t += 10)
    rec << json{{"type", "eval"}, {"scheme", "none"}, {"seed", 1}, {"iteration", t}, {"loss", 1.0 / (1 + 0.01 * t)},
                {"accuracy", 0.5}}.dump() << "\n";
  const std::string pred = "pilot predict '" + write("runs.jsonl", rec.str()) + "' ";
  expect_clear_error(gcu(pred + "--target nan"), "--target");
  expect_clear_error(gcu(pred + "--target 0.6 --bootstrap 0"), "--bootstrap");
  expect_clear_error(gcu(pred + "--target 0.6 --max-multiplier 1"), "--max-multiplier");
  expect_clear_error(gcu(pred + "--target 0.6 --baseline-iterations inf"), "--baseline-iterations");
  const std::string run = "pilot run --schemes none --seeds 1 --iterations 1 -o '" + at("p.jsonl") + "' ";
  expect_clear_error(gcu(run + "--lr inf"), "--lr");
  expect_clear_error(gcu(run + "--momentum 1.5"), "--momentum");
  expect_clear_error(gcu(run + "--eval-resolution 0"), "--eval-resolution");
  EXPECT_FALSE(fs::exists(at("p.jsonl")));
  // A sequential design's target the baseline already meets (Fashion-MNIST's loss starts
  // near 2.3) is refused once the baseline has run, before any candidate does.
  const Result seq = gcu("pilot run --schemes 'none;qsgd' --seeds 1,2 --iterations 2 --eval-samples 50 --sequential 5 -o '" +
                         at("s.jsonl") + "'");
  expect_clear_error(seq, "already meets the target");
  EXPECT_EQ(seq.out.find("pilot: qsgd"), std::string::npos) << seq.out.substr(0, 2000);
  EXPECT_FALSE(fs::exists(at("s.jsonl")));
}

}  // namespace
