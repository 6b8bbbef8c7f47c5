// JSON-lines log and timing summaries (trainlog.h).
#include "trainer/runtime/trainlog.h"

#include "trainer/runtime/train_options.h"
#include "util/stats.h"

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
  auto at = [&](double f) { return util::quantile_sorted(v, f); };
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
    is_stdout_ = true;
    return;
  }
  try {
    file_ = std::make_unique<util::AtomicFile>(path_);
  } catch (const util::FileError& e) {
    throw TrainError(std::string("log: ") + e.what());
  }
}

JsonLinesWriter::~JsonLinesWriter() {
  try {
    close();
  } catch (...) {
  }
}

void JsonLinesWriter::write(const nlohmann::json& record) {
  const std::string line = record.dump() + "\n";
  if (is_stdout_) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
    return;
  }
  if (!file_) return;
  try {
    file_->write(line);  // one write(2) per record: nothing buffered in the process
  } catch (const util::FileError& e) {
    file_.reset();
    throw TrainError(std::string("log: ") + e.what());
  }
}

void JsonLinesWriter::close() {
  if (is_stdout_) {
    std::fflush(stdout);
    is_stdout_ = false;
    return;
  }
  if (!file_) return;
  std::unique_ptr<util::AtomicFile> f = std::move(file_);
  try {
    f->commit();
  } catch (const util::FileError& e) {
    throw TrainError(std::string("log: ") + e.what());
  }
}

}  // namespace gcu::trainer
