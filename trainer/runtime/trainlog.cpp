// JSON-lines log and timing summaries (trainlog.h).
#include "trainer/runtime/trainlog.h"

#include "trainer/runtime/train_options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

namespace gcu::trainer {

nlohmann::json to_json(const IterTimes& t) {
  return {{"data_s", t.data_s},         {"forward_s", t.forward_s},
          {"backward_s", t.backward_s}, {"comm_exposed_s", t.comm_exposed_s},
          {"encode_s", t.encode_s},     {"collective_s", t.collective_s},
          {"decode_s", t.decode_s},     {"optimizer_s", t.optimizer_s},
          {"total_s", t.total_s},       {"wire_bytes", t.wire_bytes}};
}

Quantiles quantiles(std::vector<double> v) {
  Quantiles q;
  q.n = static_cast<int64_t>(v.size());
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  auto at = [&](double f) {
    const double pos = f * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  q.median = at(0.5);
  q.p10 = at(0.1);
  q.p90 = at(0.9);
  double s = 0;
  for (double x : v) s += x;
  q.mean = s / static_cast<double>(v.size());
  return q;
}

void TimingSummary::add(const IterTimes& t) {
  data_.push_back(t.data_s);
  forward_.push_back(t.forward_s);
  backward_.push_back(t.backward_s);
  exposed_.push_back(t.comm_exposed_s);
  encode_.push_back(t.encode_s);
  collective_.push_back(t.collective_s);
  decode_.push_back(t.decode_s);
  optimizer_.push_back(t.optimizer_s);
  total_.push_back(t.total_s);
}

nlohmann::json TimingSummary::to_json() const {
  auto q = [](const std::vector<double>& v) {
    const auto x = quantiles(v);
    return nlohmann::json{{"median", x.median}, {"p10", x.p10}, {"p90", x.p90},
                          {"mean", x.mean}, {"n", x.n}};
  };
  return {{"data_s", q(data_)},         {"forward_s", q(forward_)},
          {"backward_s", q(backward_)}, {"comm_exposed_s", q(exposed_)},
          {"encode_s", q(encode_)},     {"collective_s", q(collective_)},
          {"decode_s", q(decode_)},     {"optimizer_s", q(optimizer_)},
          {"total_s", q(total_)}};
}

JsonLinesWriter::JsonLinesWriter(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  if (path_ == "-") {
    out_ = stdout;
    is_stdout_ = true;
    return;
  }
  out_ = std::fopen((path_ + ".tmp").c_str(), "w");
  if (!out_)
    throw TrainError("cannot write log '" + path_ + ".tmp': " + std::strerror(errno));
}

JsonLinesWriter::~JsonLinesWriter() {
  try {
    close();
  } catch (...) {
  }
}

void JsonLinesWriter::write(const nlohmann::json& record) {
  if (!out_) return;
  const std::string line = record.dump() + "\n";
  const bool ok = std::fwrite(line.data(), 1, line.size(), out_) == line.size() && std::fflush(out_) == 0;
  if (!ok && !is_stdout_) fail();  // e.g. a full disk: never rename a torn log over the old one
}

void JsonLinesWriter::fail() {
  const int err = errno;
  std::fclose(out_);
  out_ = nullptr;
  std::remove((path_ + ".tmp").c_str());
  throw TrainError("cannot write log '" + path_ + "': " + std::strerror(err) +
                   " (the previous file, if any, is left unchanged)");
}

void JsonLinesWriter::close() {
  if (!out_) return;
  if (is_stdout_) {
    std::fflush(out_);
    out_ = nullptr;
    return;
  }
  if (std::fflush(out_) != 0 || std::ferror(out_) != 0) fail();
  if (std::fclose(out_) != 0) {
    out_ = nullptr;
    const int err = errno;
    std::remove((path_ + ".tmp").c_str());
    throw TrainError("cannot write log '" + path_ + "': " + std::strerror(err));
  }
  out_ = nullptr;
  std::error_code ec;
  std::filesystem::rename(path_ + ".tmp", path_, ec);
  if (ec) throw TrainError("cannot rename log to '" + path_ + "': " + ec.message());
}

}  // namespace gcu::trainer
