// The unit parser's table (model/quantity.h): every accepted spelling and its value in
// Gbit/s or seconds, and the spellings that must be refused with the text named.
#include "model/quantity.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace gcu::model {
namespace {

TEST(Quantity, BandwidthTable) {
  const std::vector<std::pair<std::string, double>> table = {
      {"25", 25},            // a plain number keeps today's meaning: Gbit/s
      {"25Gbps", 25},        {"25Gbit/s", 25},      {"25 Gbit/s", 25},  {"25G", 25},
      {"25gbps", 25},        {"25Gb/s", 25},        {"400Mbps", 0.4},   {"100Mb/s", 0.1},
      {"3.2Tbit/s", 3200},   {"1.6Tbps", 1600},     {"800kbps", 0.0008},
      {"300GB/s", 2400},     // NVLink as quoted: bytes, x 8
      {"12.5GB/s", 100},     {"300GBps", 2400},     {"1e2", 100},       {"0.2", 0.2},
  };
  for (const auto& [text, gbps] : table) EXPECT_DOUBLE_EQ(parse_bandwidth_gbps(text), gbps) << text;
}

TEST(Quantity, BandwidthRefused) {
  for (const std::string bad : {"", " 25", "fast", "25Xbps", "25 Gbit/h", "-25Gbps", "0", "0Gbps", "inf", "nan",
                                "1e400", "0x10", "25Gbps extra", "Gbps"}) {
    try {
      parse_bandwidth_gbps(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const QuantityError& e) {
      EXPECT_NE(std::string(e.what()).find("bandwidth"), std::string::npos) << e.what();
    }
  }
}

TEST(Quantity, DurationTable) {
  const std::vector<std::pair<std::string, double>> table = {
      {"420ms", 0.42}, {"420 ms", 0.42}, {"0.42s", 0.42}, {"0.42", 0.42}, {"250us", 250e-6},
      {"250\xC2\xB5s", 250e-6}, {"1.5min", 90}, {"2h", 7200}, {"10ns", 1e-8},
  };
  for (const auto& [text, s] : table) EXPECT_DOUBLE_EQ(parse_duration_s(text), s) << text;
  for (const std::string bad : {"", "ms", "420mss", "-1s", "0", "nan", "1 day"})
    EXPECT_THROW(parse_duration_s(bad), QuantityError) << bad;
}

TEST(Quantity, FormatPicksTheUnit) {
  EXPECT_EQ(format_gbps(25), "25 Gbit/s");
  EXPECT_EQ(format_gbps(3200), "3.2 Tbit/s");
  EXPECT_EQ(format_gbps(0.2), "200 Mbit/s");
}

}  // namespace
}  // namespace gcu::model
