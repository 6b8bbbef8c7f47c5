// util/text and util/json_pointer: quoted user text is short, one line and valid UTF-8
// (never cut inside a character); pointers escape '~' and '/'.
#include "util/json_pointer.h"
#include "util/text.h"

#include <gtest/gtest.h>

namespace gcu::util {
namespace {

TEST(Text, QuotesAtMost200BytesOfAHugeString) {
  const std::string huge(50'000'000, 'k');
  const std::string q = quote(huge);
  EXPECT_LT(q.size(), 260u);
  EXPECT_NE(q.find("(50000000 bytes)"), std::string::npos) << q;
}

TEST(Text, CutsAtACharacterBoundary) {
  std::string s;
  for (int i = 0; i < 100; ++i) s += "\xC3\xA9";  // é, 2 bytes each
  s += "x";  // 201 bytes: the cut falls on byte 200 at the latest
  const std::string p = printable(s, 7);  // 7 bytes would split the 4th é
  EXPECT_EQ(p.substr(0, 6), "\xC3\xA9\xC3\xA9\xC3\xA9");
  EXPECT_EQ(p.substr(6, 4), "... ") << p;
  EXPECT_EQ(utf8_prefix("\xE2\x82\xAC\xE2\x82\xAC", 4), 3u);  // € is 3 bytes
}

TEST(Text, ControlAndInvalidBytesAreEscaped) {
  EXPECT_EQ(printable("a\nb\tc\x01"), "a\\nb\\tc\\x01");
  EXPECT_EQ(printable("bad \xFF\xC3"), "bad \\xFF\\xC3");
  EXPECT_EQ(quote("ok"), "\"ok\"");
}

TEST(JsonPointer, EscapesAndConvertsDottedPaths) {
  EXPECT_EQ(pointer_child("/compressors", "a/b~c"), "/compressors/a~1b~0c");
  EXPECT_EQ(pointer_child("/model/tensors", size_t{3}), "/model/tensors/3");
  EXPECT_EQ(dotted_to_pointer("cluster.levels.inter"), "/cluster/levels/inter");
  EXPECT_EQ(dotted_to_pointer("/already/a/pointer"), "/already/a/pointer");
  EXPECT_EQ(dotted_to_pointer("a..b"), "");
}

}  // namespace
}  // namespace gcu::util

TEST(DidYouMean, SuggestsTheNearestCloseCandidateOnly) {
  const std::vector<std::string> subs = {"crossover", "ratio", "trade", "recommend"};
  EXPECT_EQ(gcu::util::did_you_mean("recomend", subs), "recommend");   // a deletion
  EXPECT_EQ(gcu::util::did_you_mean("crosover", subs), "crossover");
  EXPECT_EQ(gcu::util::did_you_mean("rtaio", subs), "ratio");          // a swap of neighbours
  EXPECT_EQ(gcu::util::did_you_mean("traed", subs), "trade");
  EXPECT_EQ(gcu::util::did_you_mean("recommend", subs), "recommend");  // exact
  EXPECT_EQ(gcu::util::did_you_mean("zzzzzz", subs), "");
  EXPECT_EQ(gcu::util::did_you_mean("rat", {"ratio"}), "");            // 2 edits on a short word: too far
  EXPECT_EQ(gcu::util::did_you_mean("", subs), "");
  EXPECT_EQ(gcu::util::did_you_mean("x", {}), "");
}
