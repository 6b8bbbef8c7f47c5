#include "compressors/registry.h"

#include <gtest/gtest.h>

using namespace gcu::compress;

TEST(SchemeArgs, ParsesNameAndParameters) {
  auto a = SchemeArgs::parse("topkc:k=0.01, chunk=256");
  EXPECT_EQ(a.name(), "topkc");
  EXPECT_DOUBLE_EQ(a.get_fraction("k", 1.0), 0.01);
  EXPECT_EQ(a.get_positive_int("chunk", 1), 256);
  EXPECT_NO_THROW(a.require_all_used("k, chunk"));
}

TEST(SchemeArgs, RejectsMalformedSpecs) {
  EXPECT_THROW(SchemeArgs::parse(":k=1"), CompressorError);
  EXPECT_THROW(SchemeArgs::parse("topk:k"), CompressorError);
  EXPECT_THROW(SchemeArgs::parse("topk:k=1,k=2"), CompressorError);
  EXPECT_THROW(SchemeArgs::parse("topk:k=abc").get_double("k", 0), CompressorError);
  EXPECT_THROW(SchemeArgs::parse("topk:k=1.5").get_fraction("k", 0.1), CompressorError);
  EXPECT_THROW(SchemeArgs::parse("topk:chunk=0").get_positive_int("chunk", 1), CompressorError);
}

TEST(Registry, UnknownSchemeNamesTheKnownOnes) {
  try {
    make_compressor("nosuchscheme");
    FAIL() << "expected an error";
  } catch (const CompressorError& e) {
    EXPECT_NE(std::string(e.what()).find("none"), std::string::npos) << e.what();
  }
}

TEST(Registry, UnknownParameterIsAnError) {
  EXPECT_THROW(make_compressor("none:k=0.1"), CompressorError);
}

TEST(Registry, EverySchemeHasACpuFactoryAndARoundTripSpec) {
  for (const auto& s : Registry::instance().list()) {
    ASSERT_TRUE(s.cpu) << s.name;
    auto c = make_compressor(s.name);
    auto again = make_compressor(c->spec());  // canonical spec parses back
    EXPECT_EQ(again->spec(), c->spec()) << s.name;
  }
}

// Scheme facts (registry.h): the baselines are found by role, an error-feedback spec has
// the defaults, every declared grid and convergence spec builds, and a second claim on a
// baseline is refused.
// Found by the scheme fuzzer: thc:seed=-1 printed seed=18446744073709551615, which did
// not parse back. Every seeded scheme takes seeds in [0, 2^63) and prints them as given.
TEST(SchemeArgs, SeedsAreNonNegativeAndRoundTrip) {
  for (const std::string name : {"thc", "powersgd", "qsgd", "terngrad", "dgc", "randomk"}) {
    EXPECT_THROW(make_compressor(name + ":seed=-1"), CompressorError) << name;
    const auto c = make_compressor(name + ":seed=9223372036854775807");
    EXPECT_NE(c->spec().find("seed=9223372036854775807"), std::string::npos) << c->spec();
    EXPECT_EQ(make_compressor(c->spec())->spec(), c->spec());
  }
}

TEST(SchemeFacts, BaselinesAndDefaults) {
  const Registry& r = Registry::instance();
  EXPECT_EQ(r.baseline(Baseline::FP32).name, "none");
  EXPECT_EQ(r.baseline(Baseline::FP16).name, "fp16");
  EXPECT_TRUE(r.facts("none").lossless);
  EXPECT_FALSE(r.facts("fp16").lossless);
  EXPECT_TRUE(r.facts("fp16").negligible_error);
  EXPECT_FALSE(r.facts("ef(fp16)").negligible_error);  // an ef spec has the defaults
  EXPECT_FALSE(r.facts("topk:k=0.1").lossless);
  EXPECT_THROW(r.facts("nosuchscheme"), CompressorError);
}

TEST(SchemeFacts, DeclaredGridsAndSpecsBuild) {
  const Registry& r = Registry::instance();
  EXPECT_FALSE(r.convergence_specs().empty());
  for (const auto& s : r.convergence_specs()) EXPECT_NO_THROW(make_compressor(s)) << s;
  for (const auto& pat : r.recommend_grid()) {
    const std::string name = pat.substr(0, pat.find(':'));
    EXPECT_NO_THROW(r.find(name)) << pat;
  }
  ASSERT_FALSE(r.contention_probe().empty());
  EXPECT_NO_THROW(r.find(r.contention_probe()));
}

TEST(SchemeFacts, ASecondBaselineIsRefused) {
  Registry r;
  const Factory f = [](const SchemeArgs& a) { return Registry::instance().find("none").cpu(a); };
  r.add({.name = "a", .cpu = f, .facts = {.baseline = Baseline::FP32}});
  EXPECT_THROW(r.add({.name = "b", .cpu = f, .facts = {.baseline = Baseline::FP32}}), CompressorError);
  EXPECT_NO_THROW(r.add({.name = "c", .cpu = f, .facts = {.baseline = Baseline::FP16}}));
  EXPECT_EQ(r.baseline(Baseline::FP16).name, "c");
}

// Issue 13: tens of thousands of nested ef( overflowed the stack; now a limit with a
// short message (the spec quoted in at most ~200 bytes).
TEST(Registry, DeepEfNestingIsRefusedWithAShortMessage) {
  EXPECT_NO_THROW(make_compressor("ef(ef(none))"));
  std::string spec;
  for (int i = 0; i < 50000; ++i) spec += "ef(";
  spec += "none" + std::string(50000, ')');
  try {
    make_compressor(spec);
    FAIL() << "no error";
  } catch (const CompressorError& e) {
    EXPECT_NE(std::string(e.what()).find("nested more than 4"), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 400u);
  }
}
