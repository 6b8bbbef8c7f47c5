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
// (fuzz/corpus/checkpoint/regress-oom-libtorch-reader). Checks that the file ends with a zip
// end-of-central-directory record whose directory, entries and entry data lie inside the
// file; returns what is wrong, or "" when the archive is plausible.
std::string zip_structure_problem(std::string_view d) {
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
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t get_u64(std::string_view d, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(d[at + i])) << (8 * i);
  return v;
}
constexpr std::string_view kMagic = "GCUCKPT1";

// The payload of a checkpoint file's bytes, or what is wrong with its header.
std::string_view checked_payload(std::string_view d, std::string& why) {
  if (d.size() < kCheckpointHeaderBytes || d.substr(0, kMagic.size()) != kMagic) {
    why = "no gcu checkpoint header: truncated, or not written by gcu train";
    return {};
  }
  const uint64_t len = get_u64(d, 8), digest = get_u64(d, 16);
  const std::string_view payload = d.substr(kCheckpointHeaderBytes);
  if (len != payload.size()) {
    why = "the header declares " + std::to_string(len) + " bytes of archive, the file holds " +
          std::to_string(payload.size()) + " (truncated or appended to)";
    return {};
  }
  if (checkpoint_digest(payload) != digest) {
    why = "digest mismatch: the file was corrupted or modified after gcu wrote it";
    return {};
  }
  if (why = zip_structure_problem(payload); !why.empty()) return {};
  return payload;
}
}  // namespace

uint64_t checkpoint_digest(std::string_view p) {
  // Four interleaved multiply-xorshift lanes over 8-byte words (~GB/s), then the tail and
  // the length; finalised with a 64-bit avalanche.
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t lane[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
  size_t i = 0;
  auto word = [&](size_t at) { return get_u64(p, at); };
  for (; i + 32 <= p.size(); i += 32)
    for (int l = 0; l < 4; ++l) {
      lane[l] ^= word(i + 8 * l);
      lane[l] *= kMul;
      lane[l] ^= lane[l] >> 29;
    }
  uint64_t h = p.size() * kMul;
  for (uint64_t v : lane) h = (h ^ v) * 0xbf58476d1ce4e5b9ull, h ^= h >> 31;
  for (; i < p.size(); ++i) h = (h ^ uint8_t(p[i])) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

std::string checkpoint_header(std::string_view payload) {
  std::string h(kMagic);
  put_u64(h, payload.size());
  put_u64(h, checkpoint_digest(payload));
  put_u64(h, 0);
  return h;
}

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
    const std::string payload = bytes.str();
    util::AtomicFile out(file);  // temporary file, fsync, rename (util/output_file.h)
    out.write(checkpoint_header(payload));
    out.write(payload);
    out.commit();  // temporary file, fsync, rename (util/output_file.h)
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
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) throw TrainError("cannot read checkpoint '" + file + "': read error");
  }
  std::string why;
  const std::string_view payload = checked_payload(bytes, why);
  if (!why.empty())
    throw TrainError("cannot read checkpoint '" + file + "': not a valid checkpoint archive (" + why + ")");
  TrainState s;
  try {
    torch::serialize::InputArchive root, m, o;
    root.load_from(payload.data(), payload.size());
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
