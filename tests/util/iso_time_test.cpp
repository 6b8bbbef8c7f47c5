// ISO 8601 UTC timestamps (util/iso_time.h): the round trip and what is refused.
#include "util/iso_time.h"

#include <gtest/gtest.h>

namespace gcu::util {
namespace {

TEST(IsoTime, RoundTripsAndKnowsTheEpoch) {
  EXPECT_EQ(iso_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(parse_iso_utc("1970-01-01T00:01:40Z"), std::optional<std::time_t>(100));
  const std::time_t t = 1795000000;
  EXPECT_EQ(parse_iso_utc(iso_utc(t)), std::optional<std::time_t>(t));
}

TEST(IsoTime, OtherFormsAreAbsent) {
  for (const char* s : {"", "2026-11-24", "2026-11-24T03:09:04", "2026-11-24T03:09:04Z junk", "yesterday"})
    EXPECT_FALSE(parse_iso_utc(s).has_value()) << s;
  EXPECT_FALSE(parse_iso_utc(std::string(100, '1')).has_value());
}

}  // namespace
}  // namespace gcu::util
