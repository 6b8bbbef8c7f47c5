// Checkpoint save and load (checkpoint.h).
#include "trainer/runtime/checkpoint.h"

#include "trainer/runtime/train_options.h"
#include "util/output_file.h"
#include "util/text.h"

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

namespace gcu::trainer {

namespace {

// LibTorch's archive reader trusts the zip directory (sizes, offsets, entry count) and
// allocates what it declares: a mutated checkpoint made it allocate > 2 GB
// (fuzz/findings/checkpoint-oom-libtorch-reader). Checks that the file ends with a zip
// end-of-central-directory record whose directory, entries and entry data lie inside the
// file; returns what is wrong, or "" when the archive is plausible.
std::string zip_structure_problem(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) return "cannot read the file";
  const uint64_t size = d.size();
  auto u16 = [&](uint64_t at) { return uint64_t(uint8_t(d[at])) | uint64_t(uint8_t(d[at + 1])) << 8; };
  auto u32 = [&](uint64_t at) { return u16(at) | u16(at + 2) << 16; };
  auto u64 = [&](uint64_t at) { return u32(at) | u32(at + 4) << 32; };
  if (size < 22) return "too short for a zip archive";
  uint64_t eocd = size;  // the last "PK\5\6" within the 64 KiB comment window
  for (uint64_t i = size - 22 + 1; i-- > 0 && size - i <= 22 + 65535;)
    if (u32(i) == 0x06054b50u) { eocd = i; break; }
  if (eocd == size) return "no zip end-of-central-directory record (truncated or not a checkpoint)";
  uint64_t entries = u16(eocd + 10), cd_size = u32(eocd + 12), cd_off = u32(eocd + 16);
  if (entries == 0xffff || cd_size == 0xffffffffu || cd_off == 0xffffffffu) {  // zip64
    if (eocd < 20 || u32(eocd - 20) != 0x07064b50u) return "zip64 locator missing";
    const uint64_t z = u64(eocd - 20 + 8);
    if (z > eocd - 20 || eocd - 20 - z < 56 || u32(z) != 0x06064b50u) return "zip64 directory record out of the file";
    entries = u64(z + 32);
    cd_size = u64(z + 40);
    cd_off = u64(z + 48);
  }
  if (cd_off > size || cd_size > size - cd_off) return "central directory out of the file";
  if (entries > cd_size / 46) return "entry count larger than the central directory";
  uint64_t at = cd_off;
  for (uint64_t e = 0; e < entries; ++e) {
    if (cd_off + cd_size - at < 46 || u32(at) != 0x02014b50u) return "corrupt central directory entry";
    uint64_t csize = u32(at + 20), usize = u32(at + 24), off = u32(at + 42);
    const uint64_t name_len = u16(at + 28), extra_len = u16(at + 30), comment_len = u16(at + 32);
    const uint64_t next = at + 46 + name_len + extra_len + comment_len;
    if (next > cd_off + cd_size) return "corrupt central directory entry";
    // zip64 extended information (id 1): the 0xffffffff fields, in this order.
    for (uint64_t x = at + 46 + name_len; x + 4 <= at + 46 + name_len + extra_len;) {
      const uint64_t id = u16(x), len = u16(x + 2), end = x + 4 + len;
      if (end > at + 46 + name_len + extra_len) return "corrupt central directory entry";
      if (id == 1) {
        uint64_t f = x + 4;
        for (uint64_t* v : {&usize, &csize, &off})
          if (*v == 0xffffffffu) {
            if (f + 8 > end) return "corrupt zip64 field";
            *v = u64(f);
            f += 8;
          }
      }
      x = end;
    }
    const uint16_t method = static_cast<uint16_t>(u16(at + 10));
    if (off > size || csize > size - off) return "entry data out of the file";
    if (method == 0 && usize != csize) return "stored entry with two sizes";
    if (method != 0 && usize > 1024 * csize + 1024) return "implausible entry size";
    at = next;
  }
  return "";
}
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
  if (const std::string why = zip_structure_problem(file); !why.empty())
    throw TrainError("cannot read checkpoint '" + file + "': not a valid checkpoint archive (" + why + ")");
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
