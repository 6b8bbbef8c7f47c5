// The hardware catalog (model/hardware.h): the shipped data/hardware loads, every entry has
// a public source and finite positive figures, spot values match the datasheets, lookup
// ignores case and knows aliases, and malformed files fail naming the file and the field.
#include "model/hardware.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>

namespace gcu::model::hw {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kGiB = 1024.0 * 1024 * 1024;

const Catalog& shipped() {
  static const Catalog c = load_catalog(std::string(GCU_SOURCE_DIR) + "/data/hardware");
  return c;
}

TEST(Hardware, ShippedCatalogHasTheEntriesUsersName) {
  const Catalog& c = shipped();
  for (const char* g : {"v100-sxm2", "a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "b200", "l40s", "a10g",
                        "mi300x"})
    EXPECT_EQ(c.gpu(g).name, g);
  for (const char* l : {"pcie3", "pcie4", "pcie5", "nvlink2", "nvlink3", "nvlink4", "nvlink5"})
    EXPECT_EQ(c.intra_link(l).name, l);
  for (const char* n : {"eth-10g", "eth-25g", "eth-40g", "eth-50g", "eth-100g", "eth-200g", "eth-400g", "ib-hdr", "ib-ndr",
                        "ib-xdr"})
    EXPECT_EQ(c.nic(n).name, n);
}

void expect_sources(const std::string& name, const std::vector<Source>& ss) {
  ASSERT_FALSE(ss.empty()) << name;
  for (const auto& s : ss) {
    EXPECT_FALSE(s.title.empty()) << name;
    EXPECT_EQ(s.url.rfind("https://", 0) == 0 || s.url.rfind("http://", 0) == 0, true) << name << ": " << s.url;
  }
}

TEST(Hardware, EveryEntryHasASourceAndFinitePositiveFigures) {
  const Catalog& c = shipped();
  for (const auto& g : c.gpus) {
    expect_sources(g.name, g.sources);
    for (double v : {g.fp32_flops, g.fp16_flops, g.memory_bytes_per_s, g.memory_bytes})
      EXPECT_TRUE(std::isfinite(v) && v > 0) << g.name;
    for (double v : {g.tf32_flops, g.bf16_flops}) EXPECT_TRUE(std::isfinite(v) && v >= 0) << g.name;  // 0: none
    EXPECT_GT(g.fp16_flops, g.fp32_flops) << g.name;  // tensor rates above the FP32 rate
  }
  for (const auto* links : {&c.intra_links, &c.nics})
    for (const auto& l : *links) {
      expect_sources(l.name, l.sources);
      EXPECT_TRUE(std::isfinite(l.bandwidth_gbps) && l.bandwidth_gbps > 0) << l.name;
      EXPECT_TRUE(l.latency_s > 0 && l.latency_s < 1e-4) << l.name;  // microseconds, not seconds
    }
}

TEST(Hardware, SpotValuesFromTheDatasheets) {
  const Catalog& c = shipped();
  const Gpu& h100 = c.gpu("h100-sxm");  // datasheet 1,979 TFLOPS BF16 with sparsity -> dense half
  EXPECT_DOUBLE_EQ(h100.bf16_flops, 989.5e12);
  EXPECT_DOUBLE_EQ(h100.tf32_flops, 494.5e12);
  EXPECT_DOUBLE_EQ(h100.fp32_flops, 67e12);
  EXPECT_DOUBLE_EQ(h100.memory_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.memory_bytes, 80 * kGiB);
  const Gpu& v100 = c.gpu("v100-sxm2");  // no TF32/BF16 on Volta
  EXPECT_EQ(v100.tf32_flops, 0);
  EXPECT_EQ(v100.bf16_flops, 0);
  EXPECT_DOUBLE_EQ(v100.fp16_flops, 125e12);
  EXPECT_DOUBLE_EQ(c.gpu("a100-40gb").tf32_flops, 156e12);
  EXPECT_DOUBLE_EQ(c.gpu("a100-80gb").memory_bytes_per_s, 2039e9);
  EXPECT_DOUBLE_EQ(c.gpu("mi300x").bf16_flops, 1307.4e12);
  // 6 / 12 / 18 links x 25 GB/s per direction; x16 lanes x GT/s x 128/130.
  EXPECT_DOUBLE_EQ(c.intra_link("nvlink2").bandwidth_gbps, 6 * 25 * 8);
  EXPECT_DOUBLE_EQ(c.intra_link("nvlink3").bandwidth_gbps, 12 * 25 * 8);
  EXPECT_DOUBLE_EQ(c.intra_link("nvlink4").bandwidth_gbps, 18 * 25 * 8);
  EXPECT_NEAR(c.intra_link("pcie4").bandwidth_gbps, 16 * 16 * 128.0 / 130, 0.01);
  EXPECT_EQ(c.nic("ib-ndr").bandwidth_gbps, 400);
  EXPECT_EQ(c.nic("eth-100g").bandwidth_gbps, 100);
  EXPECT_EQ(c.intra_link("nvlink4").kind, LinkKind::IntraNode);
  EXPECT_EQ(c.nic("ib-ndr").kind, LinkKind::Nic);
}

TEST(Hardware, LookupIgnoresCaseAndKnowsAliases) {
  const Catalog& c = shipped();
  EXPECT_EQ(c.gpu("H100").name, "h100-sxm");
  EXPECT_EQ(c.gpu("H100-SXM5").name, "h100-sxm");
  EXPECT_EQ(c.gpu("A100-80GB").name, "a100-80gb");
  EXPECT_EQ(c.intra_link("NVLink4").name, "nvlink4");
  EXPECT_EQ(c.nic("NDR").name, "ib-ndr");
}

TEST(Hardware, UnknownNamesListTheKnownOnes) {
  const Catalog& c = shipped();
  try {
    c.gpu("h300");
    FAIL() << "no error";
  } catch (const HardwareError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("unknown GPU 'h300'; known: v100-sxm2, ", 0), 0u) << m;
    EXPECT_NE(m.find("a100-40gb"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'h200'?"), std::string::npos) << m;
  }
  EXPECT_THROW(c.intra_link("ib-ndr"), HardwareError);  // a NIC, not an intra-node link
  EXPECT_THROW(c.nic("nvlink4"), HardwareError);
  EXPECT_THROW(c.gpu(""), HardwareError);
}

// A minimal valid catalog; each malformed case edits one field.
Json gpus_doc() {
  return Json::parse(R"({"schema": "gcu.hardware/1", "gpus": [
    {"name": "g1", "vendor_name": "G One", "fp32_flops": 1e12, "tf32_flops": 0, "bf16_flops": 2e12,
     "fp16_flops": 2e12, "memory_bytes_per_s": 1e11, "memory_bytes": 1e10, "aliases": ["G-ONE"],
     "sources": [{"title": "t", "url": "https://example.org/g1"}]},
    {"name": "g2", "vendor_name": "G Two", "fp32_flops": 1e12, "tf32_flops": 1e12, "bf16_flops": 2e12,
     "fp16_flops": 2e12, "memory_bytes_per_s": 1e11, "memory_bytes": 1e10,
     "sources": [{"title": "t", "url": "http://example.org/g2"}], "note": "n"}]})");
}
Json links_doc(const char* key) {
  Json j = Json::parse(R"({"schema": "gcu.hardware/1", "x": [
    {"name": "l1", "description": "L one", "bandwidth_gbps": 100, "latency_s": 2e-6, "aliases": ["one"],
     "sources": [{"title": "t", "url": "https://example.org/l1"}]}]})");
  j[key] = j["x"];
  j.erase("x");
  return j;
}

// The error of parsing the catalog after `edit`, or "" when it parses.
std::string error_after(const std::function<void(Json& gpus, Json& intra, Json& nics)>& edit) {
  Json g = gpus_doc(), i = links_doc("intra_links"), n = links_doc("nics");
  edit(g, i, n);
  try {
    parse_catalog(g.dump(), i.dump(), n.dump());
  } catch (const HardwareError& e) {
    return e.what();
  }
  return "";
}

TEST(Hardware, MinimalCatalogParses) {
  EXPECT_EQ(error_after([](Json&, Json&, Json&) {}), "");
  const Catalog c = parse_catalog(gpus_doc().dump(), links_doc("intra_links").dump(), links_doc("nics").dump());
  EXPECT_EQ(c.gpu("g-one").name, "g1");
  EXPECT_EQ(c.gpus[1].note, "n");
  EXPECT_EQ(c.nic("ONE").latency_s, 2e-6);
}

TEST(Hardware, MalformedFilesNameTheFileAndField) {
  using E = Json&;
  EXPECT_EQ(error_after([](E g, E, E) { g["gpus"][0]["bf16_flops"] = "NaN"; }),
            "gpus.json: /gpus/0/bf16_flops: expected a number >= 0, got \"NaN\"");
  EXPECT_EQ(error_after([](E, E, E n) { n["nics"][0]["bandwidth_gbps"] = -1; }),
            "nics.json: /nics/0/bandwidth_gbps: expected a number > 0, got -1");
  EXPECT_EQ(error_after([](E g, E, E) { g["gpus"][1]["fp32_flops"] = 0; }),
            "gpus.json: /gpus/1/fp32_flops: expected a number > 0, got 0");
  EXPECT_EQ(error_after([](E g, E, E) { g["schema"] = "gcu.hardware/2"; }),
            "gpus.json: /schema: expected \"gcu.hardware/1\", got \"gcu.hardware/2\"");
  const auto has = [](const std::string& m, const std::string& part) {
    return m.find(part) != std::string::npos ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << m;
  };
  EXPECT_TRUE(has(error_after([](E g, E, E) { g["gpus"][0].erase("sources"); }),
                  "gpus.json: /gpus/0/sources: expected a value (the field is required)"));
  EXPECT_TRUE(has(error_after([](E g, E, E) { g["gpus"][0]["sources"] = Json::array(); }),
                  "gpus.json: /gpus/0/sources: expected a non-empty array"));
  EXPECT_TRUE(has(error_after([](E, E i, E) { i["intra_links"][0]["sources"][0]["url"] = "example.org"; }),
                  "intra_links.json: /intra_links/0/sources/0/url: expected an http:// or https:// URL"));
  EXPECT_TRUE(has(error_after([](E g, E, E) { g["gpus"][1]["name"] = "g1"; }),
                  "gpus.json: /gpus/1/name: expected names and aliases unique in the file (ignoring case), got \"g1\" "
                  "again (first at /gpus/0/name)"));
  EXPECT_TRUE(has(error_after([](E g, E, E) { g["gpus"][1]["aliases"] = {"g-one"}; }),
                  "gpus.json: /gpus/1/aliases/0: expected names and aliases unique"));
  EXPECT_TRUE(has(error_after([](E g, E, E) { g["gpus"][0]["fp32_tflops"] = 1; }),
                  "gpus.json: /gpus/0/fp32_tflops: expected one of the fields name, vendor_name"));
  EXPECT_TRUE(has(error_after([](E g, E, E) { g["gpus"][0]["name"] = "G1"; }), "gpus.json: /gpus/0/name: expected a name"));
  EXPECT_TRUE(has(error_after([](E g, E, E) { g["gpus"][0]["memory_bytes"] = true; }),
                  "gpus.json: /gpus/0/memory_bytes: expected a number > 0, got true"));
  EXPECT_TRUE(has(error_after([](E, E, E n) { n["nics"][0]["latency_s"] = nullptr; }),
                  "nics.json: /nics/0/latency_s: expected a number > 0, got null"));
  EXPECT_TRUE(has(error_after([](E, E, E n) { n["nics"] = Json::object(); }), "nics.json: /nics: expected an array"));
  EXPECT_TRUE(has(error_after([](E, E i, E) { i = Json::array(); }), "intra_links.json: (document): expected an object"));
}

TEST(Hardware, BadJsonTextNamesTheFile) {
  const std::string g = gpus_doc().dump(), i = links_doc("intra_links").dump(), n = links_doc("nics").dump();
  const auto error = [](const std::string& a, const std::string& b, const std::string& c) -> std::string {
    try {
      parse_catalog(a, b, c);
    } catch (const HardwareError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error(g, i, "{").rfind("nics.json: (document): expected valid JSON", 0), 0u);
  std::string overflow = n;
  overflow.replace(overflow.find("100"), 3, "1e999");
  EXPECT_EQ(error(g, i, overflow).rfind("nics.json: /nics/0/bandwidth_gbps: expected a number within the range", 0), 0u)
      << error(g, i, overflow);
  EXPECT_EQ(error(R"({"schema": "gcu.hardware/1", "schema": "x", "gpus": []})", i, n).rfind("gpus.json: /schema", 0), 0u);
}

TEST(Hardware, EntriesRoundTripThroughJson) {
  const Catalog& c = shipped();
  Json g = {{"schema", "gcu.hardware/1"}, {"gpus", Json::array()}};
  Json i = {{"schema", "gcu.hardware/1"}, {"intra_links", Json::array()}};
  Json n = {{"schema", "gcu.hardware/1"}, {"nics", Json::array()}};
  for (const auto& e : c.gpus) g["gpus"].push_back(gpu_to_json(e));
  for (const auto& e : c.intra_links) i["intra_links"].push_back(link_to_json(e));
  for (const auto& e : c.nics) n["nics"].push_back(link_to_json(e));
  const Catalog again = parse_catalog(g.dump(), i.dump(), n.dump());
  ASSERT_EQ(again.gpus.size(), c.gpus.size());
  EXPECT_EQ(gpu_to_json(again.gpus[4]), gpu_to_json(c.gpus[4]));
  EXPECT_EQ(link_to_json(again.nics.back()), link_to_json(c.nics.back()));
}

TEST(Hardware, CatalogDirectory) {
  ::setenv("GCU_HARDWARE_DIR", "/some/where", 1);
  EXPECT_EQ(default_catalog_dir(), "/some/where");
  ::unsetenv("GCU_HARDWARE_DIR");
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(default_catalog_dir()) / "gpus.json"));
  try {
    load_catalog("/nonexistent/hardware");
    FAIL() << "no error";
  } catch (const HardwareError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/hardware/gpus.json: cannot read"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcu::model::hw
