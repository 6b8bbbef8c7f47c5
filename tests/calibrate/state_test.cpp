// Tests of the typed calibration state (calibrate/state.h): every step round trips
// through its JSON form and the state file; a misspelt, missing or mistyped key is an
// error naming the key and the file, never a silent 0.
#include "calibrate/state.h"

#include "calibrate/collective_fit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gcu::calibrate {
namespace {

CalibrationState full_state() {
  CalibrationState s;
  s.meta = {"cnn", {32, 64}, 2, 2, "gloo", 1, "p10"};
  s.skipped = {"codecs qsgd: time budget"};
  ComputeEntryState e{32, 0.01, 0.02, 0.001, 0.1, 0.2, 0.05, 0.018, 0.025, 10, 3, {0.005, 0.019}};
  s.compute = ComputeState{"cnn", 30, {{"fc.bias", {10}}, {"fc.weight", {10, 2}}}, {e}};
  s.gamma = GammaState{1.07, 0.02, 0.0214, 0.1, 0.12, 2, 1.5e6};
  CollectivesState c;
  c.world = 2;
  CollectiveSweep w;
  w.kind = compress::CollectiveKind::AllGather;
  w.note = "n per rank";
  SweepRow r;
  r.bytes = 1024;
  r.count = 256;
  r.time_s = {1e-4, 9e-5, 1.2e-4, 8e-5, 2e-4, 1e-4, 1e-4, 7, 2};
  r.calls = 9;
  r.disturbed = 1;
  w.rows = {r};
  c.sweeps = {w};
  c.idle_gap_s = 0.006;
  s.collectives = c;
  CodecState k;
  k.fit.encode = {1e-5, 2e-9, 6e-6};
  k.fit.decode = {2e-5, 3e-9, 4e-10, 7e-6};
  k.fit.measured_n = 4096;
  k.gathers = true;
  k.encode_geomean_rel = 0.03;
  k.decode_geomean_rel = 0.04;
  k.wire_extra_per_element_s = 1e-9;
  s.codecs = BySpec<CodecState>{{"topk:k=0.01", k}};
  s.errors = BySpec<ErrorState>{{"topk:k=0.01", {0.9, 0.4, 4, 2}}, {"qsgd", {0.2, 0.1, 4, 2}}};
  s.codec_gradients = BySpec<CodecGradientState>{{"topk:k=0.01", {1.5, 0.8, 0.03, 0.002, 0.02, 0.0025, 3, 4}}};
  s.contention = ContentionState{"powersgd:rank=4", 1.2, 1.1, 1.3, 0.002, 0.0026};
  ConvergenceState v;
  v.target = "held-out loss 0.43";
  v.baseline_iterations = 120;
  v.global_batch = 64;
  v.method = "p=2 simulated workers";
  v.schemes = {{"qsgd", {true, 150.0}}, {"signsgd", {false, std::nullopt}}};
  v.constants = {{"variance_scale", 0.7}};
  v.validation.method = "leave one out";
  v.validation.cap = 3;
  v.validation.schemes = {{"qsgd", {"unbiased", 1.25, 1.2, 0.04, std::nullopt}}};
  v.validation.validated = 1;
  v.validation.median_abs_rel_error = 0.04;
  v.validation.max_abs_rel_error = 0.04;
  v.report = "convergence (...)\n";
  s.convergence = v;
  return s;
}

// The message of the StateError `f` throws (fails the test when it throws nothing).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const StateError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no StateError";
  return "";
}

TEST(CalibrationState, EveryStepRoundTripsThroughJson) {
  const CalibrationState s = full_state();
  const Json j = to_json(s);
  const CalibrationState back = state_from_json(j, "mem");
  EXPECT_EQ(to_json(back).dump(), j.dump());
  for (const char* step :
       {"compute", "gamma", "collectives", "codecs", "errors", "codec-gradients", "contention", "convergence"})
    EXPECT_TRUE(back.has(step)) << step;
  // Spot checks of values that a lax reader would lose.
  EXPECT_EQ(back.meta.fit_statistic, "p10");
  EXPECT_EQ(back.compute->entries[0].ready_s, (std::vector<double>{0.005, 0.019}));
  EXPECT_EQ(back.collectives->sweeps[0].kind, compress::CollectiveKind::AllGather);
  EXPECT_EQ(back.collectives->sweeps[0].rows[0].time_s.discarded, 2u);
  EXPECT_EQ(back.collectives->sweeps[0].rows[0].disturbed, 1);
  EXPECT_DOUBLE_EQ(back.codecs->at(0).second.fit.decode.per_rank_element_s, 4e-10);
  EXPECT_DOUBLE_EQ(back.codecs->at(0).second.fit.encode.per_tensor_s, 6e-6);
  EXPECT_DOUBLE_EQ(back.codecs->at(0).second.fit.decode.per_tensor_s, 7e-6);
  EXPECT_DOUBLE_EQ(*back.codecs->at(0).second.wire_extra_per_element_s, 1e-9);
  EXPECT_DOUBLE_EQ(back.codec_gradients->at(0).second.encode_factor, 1.5);
  EXPECT_EQ(back.codec_gradients->at(0).second.snapshots, 4);
  EXPECT_EQ(back.errors->at(1).first, "qsgd");
  EXPECT_FALSE(back.convergence->schemes[1].second.iterations.has_value());
  EXPECT_FALSE(back.convergence->validation.schemes[0].second.agrees.has_value());
  EXPECT_DOUBLE_EQ(*back.convergence->validation.schemes[0].second.rel_error, 0.04);
}

// The collective rows keep the mean (the default fit statistic); a state file written
// before means were kept still reads, and a mean fit of it is a clear error.
TEST(CalibrationState, CollectiveMeanRoundTripsAndItsAbsenceIsAClearFitError) {
  Json j = to_json(full_state());
  auto& row = j["collectives"]["sweeps"][0]["rows"][0];
  EXPECT_DOUBLE_EQ(row.at("mean_w95_s").get<double>(), 1e-4);
  row["mean_w95_s"] = 3e-4;
  EXPECT_DOUBLE_EQ(state_from_json(j, "mem").collectives->sweeps[0].rows[0].time_s.mean_w95, 3e-4);
  row.erase("mean_w95_s");
  const CalibrationState old = state_from_json(j, "old.json");
  CollectiveSweep w = old.collectives->sweeps[0];
  w.rows.push_back(w.rows[0]);
  w.rows[1].bytes = 4096;
  try {
    fit_sweep(w, sweep_fit_options(), "mean");
    ADD_FAILURE() << "a mean fit without means must fail";
  } catch (const FitError& e) {
    EXPECT_NE(std::string(e.what()).find("--fit-statistic median"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(fit_sweep(w, sweep_fit_options(), "median"));
  EXPECT_FALSE(to_json(old)["collectives"]["sweeps"][0]["rows"][0].contains("mean_w95_s"));  // not written as null
}

TEST(CalibrationState, CollectiveIdleGapRoundTripsDefaultsToZeroAndIsChecked) {
  Json j = to_json(full_state());
  EXPECT_DOUBLE_EQ(state_from_json(j, "mem").collectives->idle_gap_s, 0.006);
  j["collectives"].erase("idle_gap_s");
  EXPECT_DOUBLE_EQ(state_from_json(j, "old.json").collectives->idle_gap_s, 0.0);  // back-to-back
  for (double bad : {-0.001, 11.0}) {
    j["collectives"]["idle_gap_s"] = bad;
    try {
      state_from_json(j, "bad.json");
      ADD_FAILURE() << "idle_gap_s " << bad << " must be refused";
    } catch (const StateError& e) {
      EXPECT_NE(std::string(e.what()).find("collectives.idle_gap_s"), std::string::npos) << e.what();
    }
  }
}

TEST(CalibrationState, CollectiveGapKindRoundTripsDefaultsToIdleAndIsChecked) {
  CalibrationState st = full_state();
  EXPECT_EQ(to_json(st)["collectives"]["gap"], "idle");
  st.collectives->busy_gap = true;
  Json j = to_json(st);
  EXPECT_EQ(j["collectives"]["gap"], "busy");
  EXPECT_TRUE(state_from_json(j, "mem").collectives->busy_gap);
  EXPECT_FALSE(state_from_json(j, "mem").collectives->free_running);
  st.collectives->free_running = true;  // free-running calls spend their gap busy
  const Json f = to_json(st);
  EXPECT_EQ(f["collectives"]["gap"], "free-running");
  EXPECT_TRUE(state_from_json(f, "mem").collectives->free_running);
  EXPECT_TRUE(state_from_json(f, "mem").collectives->busy_gap);
  j["collectives"].erase("gap");
  EXPECT_FALSE(state_from_json(j, "old.json").collectives->busy_gap);  // files before the option: asleep
  j["collectives"]["gap"] = "spinning";
  try {
    state_from_json(j, "bad.json");
    ADD_FAILURE() << "gap \"spinning\" must be refused";
  } catch (const StateError& e) {
    EXPECT_NE(std::string(e.what()).find("collectives.gap"), std::string::npos) << e.what();
  }
}

TEST(CalibrationState, FileRoundTripAndAbsentSteps) {
  const auto path = (std::filesystem::temp_directory_path() / "gcu_state_test.json").string();
  CalibrationState s = full_state();
  s.gamma.reset();
  s.convergence.reset();
  write_state_file(path, s);
  const CalibrationState back = read_state_file(path);
  EXPECT_FALSE(back.has("gamma"));
  EXPECT_FALSE(back.has("convergence"));
  EXPECT_TRUE(back.has("compute"));
  EXPECT_EQ(to_json(back).dump(), to_json(s).dump());
  std::filesystem::remove(path);
}

TEST(CalibrationState, MisspeltKeyIsAnErrorNamingKeyAndFile) {
  Json j = to_json(full_state());
  j["gamma"]["alone_spreed"] = j["gamma"]["alone_spread"];
  j["gamma"].erase("alone_spread");
  const std::string msg = error_of([&] { state_from_json(j, "run.json.state.json"); });
  EXPECT_NE(msg.find("run.json.state.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'gamma.alone_spreed'"), std::string::npos) << msg;
  // A misspelt step name is not silently ignored (the step would be re-run or lost).
  Json k = to_json(full_state());
  k["contension"] = k["contention"];
  k.erase("contention");
  EXPECT_NE(error_of([&] { state_from_json(k, "f"); }).find("unknown key 'contension'"), std::string::npos);
  // Deep inside a per-scheme entry and a sweep row.
  Json m = to_json(full_state());
  m["codecs"]["topk:k=0.01"]["decode"]["per_rank_elem_s"] = 1;
  EXPECT_NE(error_of([&] { state_from_json(m, "f"); }).find("'codecs.topk:k=0.01.decode.per_rank_elem_s'"),
            std::string::npos);
}

TEST(CalibrationState, MissingOrMistypedKeyIsAnError) {
  Json j = to_json(full_state());
  j["errors"]["qsgd"].erase("relative_error_ef");
  std::string msg = error_of([&] { state_from_json(j, "s.json"); });
  EXPECT_NE(msg.find("s.json: missing key 'errors.qsgd.relative_error_ef'"), std::string::npos) << msg;
  Json k = to_json(full_state());
  k["collectives"]["sweeps"][0]["rows"][0]["median_s"] = "fast";
  msg = error_of([&] { state_from_json(k, "s.json"); });
  EXPECT_NE(msg.find("'collectives.sweeps[0].rows[0].median_s' has the wrong type"), std::string::npos) << msg;
  Json m = to_json(full_state());
  m["collectives"]["sweeps"][0]["kind"] = "allscatter";
  EXPECT_NE(error_of([&] { state_from_json(m, "s.json"); }).find("unknown collective \"allscatter\""),
            std::string::npos);
  Json n = to_json(full_state());
  n.erase("meta");
  EXPECT_NE(error_of([&] { state_from_json(n, "s.json"); }).find("missing key 'meta'"), std::string::npos);
}

// Found by the calibrate_state fuzzer: an integer key holding 1e300 or -1 reached
// nlohmann's plain cast (undefined behaviour); it is an error naming the key.
TEST(CalibrationState, IntegerKeyOutOfRangeIsAnError) {
  for (const Json bad : {Json(1e300), Json(2.5), Json(int64_t{1} << 40)}) {
    Json j = to_json(full_state());
    j["meta"]["world"] = bad;
    const std::string msg = error_of([&] { state_from_json(j, "s.json"); });
    EXPECT_NE(msg.find("'meta.world' must be an integer in range"), std::string::npos) << bad.dump() << ": " << msg;
  }
}

// Found by the calibrate_state fuzzer: the elements of an integer array (batch sizes,
// tensor shapes) went through the same plain cast.
TEST(CalibrationState, IntegerArrayElementOutOfRangeIsAnError) {
  for (const Json bad : {Json(1e300), Json(-2.5), Json(int64_t{1} << 40)}) {
    Json j = to_json(full_state());
    j["meta"]["batch_sizes"] = Json::array({32, bad});
    const std::string msg = error_of([&] { state_from_json(j, "s.json"); });
    EXPECT_NE(msg.find("'meta.batch_sizes[1]' must be an integer in range"), std::string::npos)
        << bad.dump() << ": " << msg;
  }
}

TEST(CalibrationState, UnreadableOrNonJsonFileNamesTheFile) {
  EXPECT_NE(error_of([] { read_state_file("/nonexistent/gcu.state.json"); }).find("/nonexistent/gcu.state.json"),
            std::string::npos);
  const auto path = (std::filesystem::temp_directory_path() / "gcu_state_bad.json").string();
  std::ofstream(path) << "{\"meta\": ";
  EXPECT_NE(error_of([&] { read_state_file(path); }).find(path + ": not a JSON"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(CalibrationState, ConvergenceStepAsRunConvergenceWritesIt) {
  // run_convergence leaves "schemes" and "constants" null when nothing ran or was fitted.
  Json j = to_json(*full_state().convergence);
  j["schemes"] = nullptr;
  j["constants"] = nullptr;
  const ConvergenceState c = convergence_from_json(j, "f");
  EXPECT_TRUE(c.schemes.empty());
  EXPECT_TRUE(c.constants.empty());
  EXPECT_EQ(c.validation.validated, 1);
  j["schemes"] = {{"qsgd", {{"reaches", true}}}};  // iterations must be present (number or null)
  EXPECT_NE(error_of([&] { convergence_from_json(j, "f"); }).find("missing key 'convergence.schemes.qsgd.iterations'"),
            std::string::npos);
}

// The codec-gradients step's factors must be usable: a factor that is not a positive
// finite number (a hand-edited or corrupt file) is an error naming the key; a state file
// written before the wire-extra split reads with it unknown.
TEST(CalibrationState, CodecGradientFactorsAreCheckedAndWireExtraIsOptional) {
  Json j = to_json(full_state());
  for (const Json bad : {Json(0.0), Json(-1.0), Json(1e9), Json("2")}) {
    Json k = j;
    k["codec_gradients"]["topk:k=0.01"]["encode_factor"] = bad;
    EXPECT_NE(error_of([&] { state_from_json(k, "s.json"); }).find("codec_gradients.topk:k=0.01.encode_factor"),
              std::string::npos)
        << bad.dump();
  }
  Json k = j;
  k["codec_gradients"]["topk:k=0.01"]["fit_decode_s"] = -1.0;
  EXPECT_NE(error_of([&] { state_from_json(k, "s.json"); }).find("fit_decode_s"), std::string::npos);
  Json old = j;
  old["codecs"]["topk:k=0.01"].erase("wire_extra_per_element_s");
  EXPECT_FALSE(state_from_json(old, "s.json").codecs->at(0).second.wire_extra_per_element_s.has_value());
  Json big = j;
  big["codecs"]["topk:k=0.01"]["wire_extra_per_element_s"] = 1.0;  // more than the whole decode
  EXPECT_NE(error_of([&] { state_from_json(big, "s.json"); }).find("wire_extra_per_element_s"), std::string::npos);
  // How many ranks timed at once: kept, absent in older files (rank 0 alone),
  // and not below 1.
  Json four = j;
  four["codec_gradients"]["topk:k=0.01"]["ranks_at_once"] = 4;
  EXPECT_EQ(state_from_json(four, "s.json").codec_gradients->at(0).second.ranks_at_once, 4);
  Json before = j;
  before["codec_gradients"]["topk:k=0.01"].erase("ranks_at_once");
  EXPECT_EQ(state_from_json(before, "s.json").codec_gradients->at(0).second.ranks_at_once, 1);
  Json zero = j;
  zero["codec_gradients"]["topk:k=0.01"]["ranks_at_once"] = 0;
  EXPECT_NE(error_of([&] { state_from_json(zero, "s.json"); }).find("ranks_at_once"), std::string::npos);
}

// A codec's collective floors (wire_types.h, allgather_floor.h): kept through the state,
// absent in older files, and a broken one refused with its key named.
TEST(CalibrationState, CollectiveFloorsRoundTripAreOptionalAndChecked) {
  using Member = std::optional<model::CollectiveFloor> model::CodecFit::*;
  for (const auto& [name, member] : std::vector<std::pair<std::string, Member>>{
           {"allreduce_floor", &model::CodecFit::allreduce_floor},
           {"allgather_floor", &model::CodecFit::allgather_floor}}) {
    SCOPED_TRACE(name);
    CalibrationState s = full_state();
    EXPECT_FALSE((state_from_json(to_json(s), "s.json").codecs->at(0).second.fit.*member).has_value());
    s.codecs->at(0).second.fit.*member = model::CollectiveFloor{4, {16384, 65536}, {0.004, 0.007}, 6e-9, {2e-4, 3e-4}};
    const Json j = to_json(s);
    const auto fit = state_from_json(j, "s.json").codecs->at(0).second.fit;
    const auto& back = fit.*member;
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(fit.allreduce_floor.has_value() + fit.allgather_floor.has_value(), 1);
    EXPECT_EQ(back->world, 4);
    EXPECT_EQ(back->elements, (std::vector<int64_t>{16384, 65536}));
    EXPECT_EQ(back->seconds, (std::vector<double>{0.004, 0.007}));
    EXPECT_DOUBLE_EQ(back->per_element_s, 6e-9);
    EXPECT_EQ(back->se_s, (std::vector<double>{2e-4, 3e-4}));
    for (const auto& [key, bad] : std::vector<std::pair<std::string, Json>>{
             {"world", 1}, {"elements", Json::array({65536, 16384})}, {"seconds", Json::array({0.004})},
             {"seconds", Json::array({0.004, -1.0})}, {"elements", "x"}, {"per_element_s", -1e-9},
             {"se_s", Json::array({2e-4})}, {"se_s", Json::array({2e-4, -1.0})}}) {
      Json k = j;
      k["codecs"]["topk:k=0.01"][name][key] = bad;
      EXPECT_NE(error_of([&] { state_from_json(k, "s.json"); }).find("topk:k=0.01." + name), std::string::npos)
          << key << " = " << bad.dump();
    }
  }
}

}  // namespace
}  // namespace gcu::calibrate

namespace gcu::calibrate {
namespace {

TEST(GammaWhileCommunicating, TheStateKeepsTheDurationAndOlderStatesReadWithout) {
  CalibrationState s;
  s.gamma = GammaState{1.25, 0.2, 0.25, 0.1, 0.1, 3, 4.5e7, 0.1};
  Json j = to_json(s);
  EXPECT_DOUBLE_EQ(state_from_json(j, "x.json").gamma->comm_s, 0.1);
  j["gamma"].erase("comm_s");
  EXPECT_EQ(state_from_json(j, "x.json").gamma->comm_s, 0.0);
}

// The all-reduces alone and their sizes (comm_contention): kept, optional, checked.
TEST(GammaState, KeepsTheAllReducesAloneAndTheirSizes) {
  CalibrationState s;
  s.gamma = GammaState{1.25, 0.2, 0.25, 0.1, 0.1, 2, 3e7, 0.1, 0.06, {1e7, 2e7}};
  Json j = to_json(s);
  const GammaState back = *state_from_json(j, "x.json").gamma;
  EXPECT_DOUBLE_EQ(back.comm_alone_s, 0.06);
  EXPECT_EQ(back.bucket_bytes, (std::vector<double>{1e7, 2e7}));
  j["gamma"].erase("comm_alone_s");
  j["gamma"].erase("bucket_bytes");
  EXPECT_EQ(state_from_json(j, "x.json").gamma->comm_alone_s, 0.0);
  EXPECT_TRUE(state_from_json(j, "x.json").gamma->bucket_bytes.empty());
  j["gamma"]["bucket_bytes"] = {1e7, -5};
  EXPECT_THROW(state_from_json(j, "x.json"), StateError);
  j["gamma"]["bucket_bytes"] = {1e7};
  j["gamma"]["comm_alone_s"] = -1;
  EXPECT_THROW(state_from_json(j, "x.json"), StateError);
}

// Every rank's contention slowdowns: kept, optional for older states, checked.
TEST(ContentionState, KeepsEveryRanksSlowdownsAndOlderStatesReadWithout) {
  CalibrationState s;
  s.contention = ContentionState{"powersgd:rank=4", 2.2, 2.1, 2.3, 0.008, 0.018, {2.0, 2.1, 2.2, 2.3}, {2.4, 2.3, 2.2, 2.1}};
  Json j = to_json(s);
  const ContentionState back = *state_from_json(j, "x.json").contention;
  EXPECT_EQ(back.rank_backward_slowdown, (std::vector<double>{2.0, 2.1, 2.2, 2.3}));
  EXPECT_EQ(back.rank_codec_slowdown, (std::vector<double>{2.4, 2.3, 2.2, 2.1}));
  Json old = j;
  old["contention"].erase("rank_backward_slowdown");
  old["contention"].erase("rank_codec_slowdown");
  EXPECT_TRUE(state_from_json(old, "x.json").contention->rank_codec_slowdown.empty());
  EXPECT_FALSE(to_json(state_from_json(old, "x.json"))["contention"].contains("rank_codec_slowdown"));
  Json one = j;
  one["contention"].erase("rank_codec_slowdown");
  EXPECT_NE(error_of([&] { state_from_json(one, "x.json"); }).find("rank_codec_slowdown"), std::string::npos);
  Json uneven = j;
  uneven["contention"]["rank_codec_slowdown"] = {2.4, 2.3};
  EXPECT_NE(error_of([&] { state_from_json(uneven, "x.json"); }).find("equal length"), std::string::npos);
  Json bad = j;
  bad["contention"]["rank_backward_slowdown"] = {2.0, -1, 2.2, 2.3};
  EXPECT_NE(error_of([&] { state_from_json(bad, "x.json"); }).find("finite positive"), std::string::npos);
}

}  // namespace
}  // namespace gcu::calibrate
