// Checkpoint save and load (checkpoint.h).
#include "trainer/runtime/checkpoint.h"

#include "trainer/runtime/train_options.h"
#include "util/output_file.h"
#include "util/text.h"

#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <vector>

namespace gcu::trainer {

namespace {
torch::Tensor bytes_tensor(const std::vector<uint8_t>& v) {
  auto t = torch::empty({static_cast<int64_t>(v.size())}, torch::kUInt8);
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size());
  return t;
}
std::vector<uint8_t> tensor_bytes(const torch::Tensor& t) {
  auto c = t.contiguous();
  const auto* p = c.data_ptr<uint8_t>();
  return {p, p + c.numel()};
}
torch::Tensor string_tensor(const std::string& s) {
  return bytes_tensor(std::vector<uint8_t>(s.begin(), s.end()));
}
std::string tensor_string(const torch::Tensor& t) {
  auto v = tensor_bytes(t);
  return {v.begin(), v.end()};
}
// Parameters and buffers by name, with their shapes.
std::map<std::string, std::vector<int64_t>> tensor_shapes(const torch::nn::Module& model) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto& p : model.named_parameters()) out[p.key()] = p.value().sizes().vec();
  for (const auto& b : model.named_buffers()) out[b.key()] = b.value().sizes().vec();
  return out;
}
std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
}  // namespace

std::string checkpoint_path(const std::string& prefix, int rank) {
  return prefix + ".rank" + std::to_string(rank);
}

void save_checkpoint(const std::string& file, torch::nn::Module& model,
                     torch::optim::Optimizer& optimizer, const compress::Compressor& compressor,
                     const TrainState& s) {
  torch::serialize::OutputArchive root, m, o;
  model.save(m);
  optimizer.save(o);
  root.write("model", m);
  root.write("optimizer", o);
  root.write("compressor", bytes_tensor(compressor.save_state()));
  root.write("iter", torch::tensor(s.iter, torch::kInt64));
  root.write("epoch", torch::tensor(s.epoch, torch::kInt64));
  root.write("batch_in_epoch", torch::tensor(s.batch_in_epoch, torch::kInt64));
  root.write("train_time_s", torch::tensor(s.train_time_s, torch::kFloat64));
  root.write("world_size", torch::tensor(s.world_size, torch::kInt64));
  root.write("scheme", string_tensor(s.scheme));
  try {
    std::ostringstream bytes;
    root.save_to(bytes);
    util::write_file_atomic(file, bytes.str());  // temporary file, fsync, rename (util/output_file.h)
  } catch (const std::exception& e) {
    throw TrainError("cannot write checkpoint '" + file + "': " + util::printable(e.what()));
  }
}

TrainState load_checkpoint(const std::string& file, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer, compress::Compressor& compressor,
                           const TrainState& expect) {
  if (!std::filesystem::exists(file))
    throw TrainError("checkpoint '" + file + "' does not exist (--resume needs the files "
                     "<checkpoint>.rank<r> of a previous run with the same world size)");
  TrainState s;
  try {
    torch::serialize::InputArchive root, m, o;
    root.load_from(file);
    // A fresh tensor per entry: InputArchive::read() into a defined tensor set_()s it,
    // which keeps the old dtype's view (a float64 read into an int64 tensor came back 0).
    auto read = [&root](const char* key) {
      torch::Tensor t;
      root.read(key, t);
      return t;
    };
    s.scheme = tensor_string(read("scheme"));
    s.world_size = read("world_size").item<int64_t>();
    if (s.scheme != expect.scheme)
      throw TrainError("checkpoint '" + file + "' was written with scheme '" + s.scheme +
                       "', this run uses '" + expect.scheme + "'");
    if (s.world_size != expect.world_size)
      throw TrainError("checkpoint '" + file + "' was written with " + std::to_string(s.world_size) +
                       " ranks, this run has " + std::to_string(expect.world_size));
    // Module::load() set_()s each tensor to the stored one, shape included: a checkpoint
    // of another model (other widths) would load "fine" and fail later in training.
    const auto shapes_before = tensor_shapes(model);
    root.read("model", m);
    model.load(m);
    const auto shapes_after = tensor_shapes(model);
    for (const auto& [name, shape] : shapes_before) {
      const auto it = shapes_after.find(name);
      if (it != shapes_after.end() && it->second != shape)
        throw TrainError("checkpoint '" + file + "' holds another model: " + name + " has shape " +
                         shape_text(it->second) + " there, " + shape_text(shape) + " in this run's model");
    }
    root.read("optimizer", o);
    optimizer.load(o);
    compressor.load_state(tensor_bytes(read("compressor")));
    s.iter = read("iter").item<int64_t>();
    s.epoch = read("epoch").item<int64_t>();
    s.batch_in_epoch = read("batch_in_epoch").item<int64_t>();
    s.train_time_s = read("train_time_s").item<double>();
  } catch (const TrainError&) {
    throw;
  } catch (const std::exception& e) {
    throw TrainError("cannot read checkpoint '" + file + "': " + util::printable(e.what()));
  }
  return s;
}

}  // namespace gcu::trainer
