// validate/grid.h: link parsing, grid expansion, scheme checks, cell order.
#include "validate/grid.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gcu::validate {

TEST(Link, ParsesUnitsAndUnlimited) {
  EXPECT_TRUE(parse_link("unlimited").unlimited());
  EXPECT_TRUE(parse_link("0").unlimited());
  const Link g = parse_link("1gbit");
  EXPECT_DOUBLE_EQ(g.nominal_gbps, 1.0);
  EXPECT_EQ(g.tc_rate, "1000000kbit");
  EXPECT_EQ(g.name, "1gbit");
  const Link m = parse_link("200Mbit");
  EXPECT_DOUBLE_EQ(m.nominal_gbps, 0.2);
  EXPECT_EQ(m.name, "200mbit");
  EXPECT_EQ(m.tc_rate, "200000kbit");
  EXPECT_DOUBLE_EQ(parse_link("0.5").nominal_gbps, 0.5);
}

TEST(Link, RejectsNonsense) {
  EXPECT_THROW(parse_link("fast"), ValidateError);
  EXPECT_THROW(parse_link("10parsecs"), ValidateError);
  EXPECT_THROW(parse_link("-1gbit"), ValidateError);
  EXPECT_THROW(parse_link("1bit"), ValidateError);
}

TEST(Grid, ExpandsEveryCombinationWithCanonicalSchemes) {
  GridSpec g;
  g.schemes = {"none", "powersgd:rank=4"};
  g.links = {parse_link("unlimited"), parse_link("1gbit")};
  g.modes = {"overlap", "after"};
  g.ranks = {2, 4};
  const auto cells = expand_grid(g);
  ASSERT_EQ(cells.size(), 2u * 2 * 2 * 1 * 2);
  EXPECT_EQ(cells[0].scheme, "none");
  EXPECT_EQ(cells.back().scheme.rfind("powersgd:rank=4", 0), 0u);  // canonical, defaults spelled out
  for (size_t i = 0; i < cells.size(); ++i) EXPECT_EQ(cells[i].id, int(i));
}

TEST(Grid, UnknownSchemeFailsBeforeAnythingRuns) {
  GridSpec g;
  g.schemes = {"none", "gzip"};
  try {
    expand_grid(g);
    FAIL() << "no error";
  } catch (const ValidateError& e) {
    EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
  }
  g.schemes = {"none"};
  g.modes = {"sometimes"};
  EXPECT_THROW(expand_grid(g), ValidateError);
  g.modes = {"after"};
  g.ranks = {0};
  EXPECT_THROW(expand_grid(g), ValidateError);
  g.ranks = {65};
  EXPECT_THROW(expand_grid(g), ValidateError);
  g.ranks = {1};  // one GPU: compute and codecs, no link (docs/history/validation-log.md, the H100)
  EXPECT_EQ(expand_grid(g).size(), 1u);
}

TEST(Grid, RoundOrderIsAPermutationThatChangesPerRound) {
  const auto a = round_order(20, 7, 0), b = round_order(20, 7, 1);
  auto s = a;
  std::sort(s.begin(), s.end());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s[size_t(i)], i);
  EXPECT_NE(a, b);
  EXPECT_EQ(a, round_order(20, 7, 0));
}

}  // namespace gcu::validate
