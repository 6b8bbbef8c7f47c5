// Runtime faults (issue 13, deliverable 6), driven through the real `gcu` binary
// (GCU_EXE): a rank killed at a random moment or stalled mid-bucket (the others stop
// with a clear error well within --timeout; the log and the checkpoints left behind are
// valid and resumable), SIGTERM while checkpoints are being written (the previous one
// stays loadable), truncated or foreign checkpoints and calibrate state files (clear
// error, nothing overwritten), a full disk while writing a log, a profile or a simulate
// output (clear error, the old file intact; needs root for a 64 KiB tmpfs, skipped
// otherwise), and calibrate killed then resumed (same profile as an uninterrupted run).
#include "tests/trainer/runtime/spawn.h"

#include "compressors/registry.h"
#include "trainer/models/registry.h"
#include "trainer/runtime/checkpoint.h"
#include "trainer/runtime/optim.h"
#include "trainer/runtime/train_options.h"

#include <nlohmann/json.hpp>
#include <sys/mount.h>
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace gcu::trainer::testing {
namespace {

namespace fs = std::filesystem;
const char* kTinyCnn = "cnn:c1=4,c2=8,hidden=16";

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Waits until `pred` holds (polling), at most `deadline_s`.
template <class Pred>
bool wait_until(Pred pred, double deadline_s) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!pred()) {
    if (since(t0) > deadline_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// Every line of a JSON-lines log parses; returns the records.
std::vector<nlohmann::json> parse_log(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::stringstream ss(slurp(path));
  std::string line;
  while (std::getline(ss, line)) {
    if (line.empty()) continue;
    out.push_back(nlohmann::json::parse(line));  // throws (fails the test) on a torn line
  }
  return out;
}

int count_type(const std::vector<nlohmann::json>& log, const std::string& type) {
  int n = 0;
  for (const auto& r : log) n += r.value("type", "") == type;
  return n;
}

// Loads a checkpoint written by `gcu train --model <spec> --scheme <scheme>` (default
// optimizer) in this process, as --resume does. Returns the saved state.
TrainState load_train_checkpoint(const std::string& file, const std::string& model, const std::string& scheme,
                                 int64_t world) {
  TrainOptions o;
  auto net = make_net(model);
  OptimizerConfig oc{o.optimizer, o.lr, o.momentum, o.weight_decay, o.schedule,
                     o.warmup_iters, o.step_every, o.step_gamma, o.iters};
  auto opt = make_optimizer(net->parameters(), oc);
  auto comp = compress::make_compressor(scheme);
  TrainState expect;
  expect.scheme = comp->spec();
  expect.world_size = world;
  return load_checkpoint(file, *net, *opt, *comp, expect);
}

std::vector<std::string> rank_cmd(const std::vector<std::string>& extra) {
  std::vector<std::string> cmd{GCU_EXE, "train", "--model", kTinyCnn, "--data", "synthetic",
                               "--threads", "1", "--warmup", "0", "--batch", "8"};
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  return cmd;
}

std::vector<Proc> start_ranks(const TempDir& d, const std::vector<std::string>& extra, int ranks = 2) {
  const std::string port = std::to_string(pick_free_port());
  std::vector<Proc> p;
  for (int r = 0; r < ranks; ++r)
    p.push_back(start(rank_cmd(extra),
                      {{"RANK", std::to_string(r)}, {"WORLD_SIZE", std::to_string(ranks)},
                       {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}},
                      d / ("out" + std::to_string(r))));
  return p;
}

// The log of a rank that stopped on a fault: readable, a header first, iteration records,
// every line whole.
void expect_valid_partial_log(const std::string& path) {
  ASSERT_TRUE(fs::exists(path)) << path << " missing (left as .tmp?)";
  std::vector<nlohmann::json> log;
  ASSERT_NO_THROW(log = parse_log(path)) << slurp(path);
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.front().value("type", ""), "header");
  EXPECT_GE(count_type(log, "iter"), 1);
}

// Rank 1 is SIGKILLed at a random moment while both ranks train (buckets in flight):
// rank 0 stops with a clear error far sooner than --timeout, its log is whole, and both
// ranks' last checkpoints load and resume.
TEST(Faults, RankKilledAtRandomMomentLeavesValidLogAndCheckpoints) {
  TempDir d("faults_kill");
  auto p = start_ranks(d, {"--iters", "100000", "--timeout", "60", "--log", d / "run.jsonl",
                           "--checkpoint", d / "ck", "--checkpoint-every", "3"});
  ASSERT_TRUE(wait_until([&] { return fs::exists(d / "ck.rank1"); }, 60)) << slurp(d / "out0");
  std::mt19937 rng(std::random_device{}());
  std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 400));
  const auto t_kill = std::chrono::steady_clock::now();
  ::kill(p[1].pid, SIGKILL);
  wait_for(p[1], 10);
  const auto r0 = wait_for(p[0], 40);
  const double took = since(t_kill);
  EXPECT_NE(r0.status, -1) << "rank 0 hung";
  EXPECT_NE(r0.status, 0) << r0.output;
  EXPECT_LT(took, 30.0) << "rank 0 took as long as the timeout";
  EXPECT_NE(r0.output.find("rank 1"), std::string::npos) << r0.output;
  expect_valid_partial_log(d / "run.jsonl");
  // Checkpoints: each loads in-process, and a 2-rank resume from them runs.
  int64_t saved = -1;
  for (int r = 0; r < 2; ++r) {
    TrainState s;
    ASSERT_NO_THROW(s = load_train_checkpoint(d / ("ck.rank" + std::to_string(r)), kTinyCnn, "none", 2));
    EXPECT_GE(s.iter, 3);
    EXPECT_EQ(s.iter % 3, 0);
    if (r == 0) saved = s.iter;
  }
  // Rank 1 may have died after rank 0 wrote a newer checkpoint: resume needs matching
  // iterations, so only resume when they agree (the usual case).
  const auto s1 = load_train_checkpoint(d / "ck.rank1", kTinyCnn, "none", 2);
  if (s1.iter == saved) {
    auto q = start_ranks(d, {"--iters", std::to_string(saved + 2), "--timeout", "30", "--checkpoint",
                             d / "ck", "--resume", "--log", d / "resumed.jsonl"});
    const auto a = wait_for(q[0], 60), b = wait_for(q[1], 60);
    EXPECT_EQ(a.status, 0) << a.output;
    EXPECT_EQ(b.status, 0) << b.output;
    const auto log = parse_log(d / "resumed.jsonl");
    EXPECT_EQ(log.back().value("final_iter", -1), saved + 2) << log.back().dump();
  }
}

// Rank 1 stalls mid-run (inside training, rank 0 waits in a bucket's all-reduce): rank 0
// times out after --timeout with a message naming the rank, the bucket and the timeout;
// its log is whole and its checkpoint loads.
TEST(Faults, StalledRankTimesOutAndLeavesValidLogAndCheckpoint) {
  TempDir d("faults_stall");
  auto p = start_ranks(d, {"--iters", "1000", "--timeout", "3", "--stall-at-iter", "5", "--stall-rank",
                           "1", "--log", d / "run.jsonl", "--checkpoint", d / "ck", "--checkpoint-every",
                           "2"});
  const auto r0 = wait_for(p[0], 60);
  ::kill(p[1].pid, SIGKILL);
  wait_for(p[1], 10);
  EXPECT_NE(r0.status, -1) << "rank 0 hung";
  EXPECT_NE(r0.status, 0) << r0.output;
  EXPECT_NE(r0.output.find("rank 1 did not join"), std::string::npos) << r0.output;
  EXPECT_NE(r0.output.find("bucket"), std::string::npos) << r0.output;
  EXPECT_NE(r0.output.find("timeout 3 s"), std::string::npos) << r0.output;
  expect_valid_partial_log(d / "run.jsonl");
  const auto log = parse_log(d / "run.jsonl");
  EXPECT_EQ(count_type(log, "checkpoint"), 2);  // after iterations 2 and 4
  TrainState s;
  ASSERT_NO_THROW(s = load_train_checkpoint(d / "ck.rank0", kTinyCnn, "none", 2));
  EXPECT_EQ(s.iter, 4);
}

// SIGTERM at random moments of a run that checkpoints every iteration (a model large
// enough that writing takes a good share of each iteration): whatever the moment, the
// checkpoint file on disk is a whole one from a completed iteration.
TEST(Faults, SigtermDuringCheckpointWritingKeepsPreviousCheckpointLoadable) {
  const std::string model = "cnn:c1=16,c2=32,hidden=512";  // ~0.8 M parameters, ~10 MB checkpoint
  std::mt19937 rng(std::random_device{}());
  for (int trial = 0; trial < 3; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    TempDir d("faults_sigterm");
    const std::string ck = d / "ck";
    auto p = start({GCU_EXE, "train", "--model", model, "--data", "synthetic", "--threads", "1", "--batch",
                    "4", "--iters", "100000", "--checkpoint", ck, "--checkpoint-every", "1", "--quiet"},
                   {}, d / "out");
    ASSERT_TRUE(wait_until([&] { return fs::exists(ck + ".rank0"); }, 60)) << slurp(d / "out");
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 300));
    ::kill(p.pid, SIGTERM);
    const auto r = wait_for(p, 30);
    EXPECT_NE(r.status, -1) << "did not stop on SIGTERM";
    TrainState s;
    ASSERT_NO_THROW(s = load_train_checkpoint(ck + ".rank0", model, "none", 1)) << r.output;
    EXPECT_GE(s.iter, 1);
  }
}

std::string file_bytes(const std::string& path) { return slurp(path); }

// --resume from a truncated file, a checkpoint of another model, and a file that is not
// a checkpoint: exit code 2, a message naming the file, the file unchanged and no new
// checkpoint written over it.
TEST(Faults, TruncatedOrForeignCheckpointIsRejectedAndNotOverwritten) {
  TempDir d("faults_foreign_ckpt");
  auto train = [&](const std::string& model, const std::string& prefix, std::vector<std::string> extra,
                   const std::string& out) {
    std::vector<std::string> cmd{GCU_EXE, "train", "--model", model, "--data", "synthetic", "--threads", "1",
                                 "--batch", "4", "--checkpoint", prefix, "--quiet"};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    return run(cmd, d / out, 60);
  };
  auto r = train(kTinyCnn, d / "good", {"--iters", "2"}, "o1");
  ASSERT_EQ(r.status, 0) << r.output;
  r = train("cnn:c1=4,c2=8,hidden=32", d / "other", {"--iters", "2"}, "o2");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string good = file_bytes(d / "good.rank0");

  std::ofstream(d / "trunc.rank0", std::ios::binary) << good.substr(0, good.size() / 2);
  fs::copy_file(d / "other.rank0", d / "foreign.rank0");
  fs::copy_file(GCU_SOURCE_DIR "/data/profiles/cpu-2rank-cnn.json", d / "profile.rank0");
  for (const std::string prefix : {"trunc", "foreign", "profile"}) {
    SCOPED_TRACE(prefix);
    const std::string file = d / (prefix + ".rank0");
    const std::string before = file_bytes(file);
    r = train(kTinyCnn, d / prefix, {"--resume", "--iters", "4"}, "o_" + prefix);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(file), std::string::npos) << r.output;
    EXPECT_EQ(file_bytes(file), before) << "the bad checkpoint was overwritten";
  }
}

// ---- calibrate ----------------------------------------------------------------------

std::vector<std::string> calibrate_cmd(const TempDir& d, const std::string& out, std::vector<std::string> extra) {
  std::vector<std::string> cmd{GCU_EXE, "calibrate", "--model", kTinyCnn, "--batch-sizes", "8,16",
                               "--warmup", "1", "--iters", "3", "--schemes", "none,fp16,topk:k=0.1",
                               "--skip", "collectives,codecs,contention,convergence", "--error-snapshots",
                               "2", "--threads", "1", "-o", d / out};
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  return cmd;
}

// A truncated state file and one that is not JSON: --resume stops with a clear error
// naming the file and leaves it (and the profile) alone.
TEST(Faults, TruncatedCalibrateStateIsRejectedAndNotOverwritten) {
  TempDir d("faults_state");
  auto r = run(calibrate_cmd(d, "p.json", {}), d / "o1", 120);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string state = file_bytes(d / "p.json.state.json");
  const std::string profile = file_bytes(d / "p.json");
  ASSERT_FALSE(state.empty());
  for (const std::string& bad : {state.substr(0, state.size() / 2), std::string("\x89PNG garbage")}) {
    std::ofstream(d / "p.json.state.json", std::ios::binary) << bad;
    r = run(calibrate_cmd(d, "p.json", {"--resume"}), d / "o2", 120);
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("p.json.state.json"), std::string::npos) << r.output;
    EXPECT_EQ(file_bytes(d / "p.json.state.json"), bad) << "the state file was overwritten";
    EXPECT_EQ(file_bytes(d / "p.json"), profile) << "the profile was overwritten";
  }
}

// The fields of a profile that do not depend on timing noise, and the measured ones.
struct ProfileFields {
  nlohmann::json fixed, measured;
};
ProfileFields split_profile(const std::string& path) {
  auto j = nlohmann::json::parse(slurp(path));
  ProfileFields f;
  f.fixed["model_tensors"] = j["model"]["tensors"];
  f.fixed["schema"] = j["schema"];
  for (const auto& c : j["model"]["compute"]) {
    f.fixed["batch_sizes"].push_back(c["batch_size"]);
    f.measured["compute"].push_back(c);
  }
  f.measured["cluster"] = j["cluster"];
  f.measured["schemes"] = j.contains("schemes") ? j["schemes"] : nlohmann::json();
  return f;
}

// Calibrate SIGKILLed after its first step, then resumed: the profile has the same
// deterministic fields as an uninterrupted run and measured times within a factor of 3
// (a shared 2-core machine); compression errors (deterministic seeds) within 1e-6.
TEST(Faults, CalibrateKilledAndResumedGivesSameProfileAsUninterrupted) {
  TempDir d("faults_calib_resume");
  auto r = run(calibrate_cmd(d, "full.json", {}), d / "o1", 180);
  ASSERT_EQ(r.status, 0) << r.output;
  auto p = start(calibrate_cmd(d, "part.json", {}), {}, d / "o2");
  const std::string st = d / "part.json.state.json";
  ASSERT_TRUE(wait_until(
      [&] {
        try {
          return fs::exists(st) && nlohmann::json::parse(slurp(st)).contains("compute");
        } catch (const std::exception&) {
          return false;
        }
      },
      120))
      << slurp(d / "o2");
  ::kill(p.pid, SIGKILL);
  wait_for(p, 10);
  r = run(calibrate_cmd(d, "part.json", {"--resume"}), d / "o3", 180);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("resuming"), std::string::npos) << r.output;
  const auto a = split_profile(d / "full.json"), b = split_profile(d / "part.json");
  EXPECT_EQ(a.fixed, b.fixed);
  // Measured compute times: within a factor of 3.
  ASSERT_EQ(a.measured["compute"].size(), b.measured["compute"].size());
  for (size_t i = 0; i < a.measured["compute"].size(); ++i)
    for (const char* k : {"forward_s", "backward_s"}) {
      const double x = a.measured["compute"][i][k], y = b.measured["compute"][i][k];
      EXPECT_LT(std::max(x, y) / std::min(x, y), 3.0) << k << " " << x << " vs " << y;
    }
  // Compression errors come from seeded gradients: equal up to rounding.
  const auto& sa = a.measured["schemes"];
  const auto& sb = b.measured["schemes"];
  ASSERT_EQ(sa.is_object(), sb.is_object());
  if (sa.is_object()) {
    for (auto it = sa.begin(); it != sa.end(); ++it) {
      ASSERT_TRUE(sb.contains(it.key())) << it.key();
      if (it->contains("relative_error") && sb[it.key()].contains("relative_error")) {
        const double x = (*it)["relative_error"], y = sb[it.key()]["relative_error"];
        EXPECT_NEAR(x, y, 1e-6 * std::max(1.0, std::fabs(x))) << it.key();
      }
    }
  }
}

// ---- full disk ----------------------------------------------------------------------

// A 64 KiB tmpfs (root only); `ok` is false, with the reason, when it cannot be mounted.
struct TinyDisk {
  fs::path dir;
  bool ok = false;
  std::string why;
  explicit TinyDisk(const TempDir& d) : dir(d.path / "tiny") {
    fs::create_directories(dir);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64k") != 0) {
      why = std::string("cannot mount a 64 KiB tmpfs (needs root): ") + std::strerror(errno);
      return;
    }
    ok = true;
  }
  ~TinyDisk() {
    if (ok) ::umount2(dir.c_str(), MNT_DETACH);
  }
  std::string operator/(const std::string& n) const { return (dir / n).string(); }
  // Fills the disk, leaving about `keep` bytes free.
  void fill(size_t keep) {
    std::ofstream f(dir / "filler", std::ios::binary);
    const std::string block(1024, 'f');
    while (f.write(block.data(), block.size())) f.flush();
    f.close();
    fs::resize_file(dir / "filler", fs::file_size(dir / "filler") - std::min(keep, fs::file_size(dir / "filler")));
  }
};

std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto n = e.path().filename().string();
    if (n.find(".tmp") != std::string::npos) v.push_back(n);
  }
  return v;
}

// `gcu simulate --json` and `gcu train --log` into a full disk: non-zero exit, a message
// naming the file, the previous file intact, no temporary file left.
TEST(Faults, FullDiskKeepsOldOutputsAndFailsClearly) {
  TempDir d("faults_full");
  TinyDisk disk(d);
  if (!disk.ok) GTEST_SKIP() << disk.why;
  const std::string old = "{\"old\": true}\n";
  std::ofstream(disk / "sim.json") << old;
  std::ofstream(disk / "run.jsonl") << old;
  disk.fill(2048);

  auto r = run({GCU_EXE, "simulate", "-p", GCU_SOURCE_DIR "/data/profiles/v100-resnet50.json", "--sweep",
                "bandwidth_gbps=1:40:40", "--json", disk / "sim.json"},
               d / "o1", 60);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sim.json"), std::string::npos) << r.output;
  EXPECT_EQ(file_bytes(disk / "sim.json"), old);

  r = run({GCU_EXE, "train", "--model", kTinyCnn, "--data", "synthetic", "--threads", "1", "--batch", "4",
           "--iters", "200", "--log", disk / "run.jsonl", "--quiet"},
          d / "o2", 120);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("run.jsonl"), std::string::npos) << r.output;
  EXPECT_EQ(file_bytes(disk / "run.jsonl"), old);
  EXPECT_TRUE(leftovers(disk.dir).empty()) << leftovers(disk.dir).front();
}

// `gcu calibrate -o` (profile and state file) into a full disk.
TEST(Faults, FullDiskWhileWritingCalibratedProfileKeepsOldProfile) {
  TempDir d("faults_full_calib");
  TinyDisk disk(d);
  if (!disk.ok) GTEST_SKIP() << disk.why;
  const std::string old = "{\"old profile\": true}\n";
  std::ofstream(disk / "p.json") << old;
  disk.fill(512);
  auto cmd = calibrate_cmd(d, "unused.json", {"--state", d / "state.json"});
  cmd[cmd.size() - 3] = disk / "p.json";  // -o <file> sits before the extra arguments
  const auto r = run(cmd, d / "o1", 180);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("p.json"), std::string::npos) << r.output;
  EXPECT_EQ(file_bytes(disk / "p.json"), old);
  EXPECT_TRUE(leftovers(disk.dir).empty()) << leftovers(disk.dir).front();
}

}  // namespace
}  // namespace gcu::trainer::testing
