// Relative compression error of a scheme on given tensors, step by step: reads one raw
// little-endian float32 file holding the tensors of a bucket back to back, applies
// roundtrip() `steps` times to the SAME input (so warm-started schemes such as PowerSGD
// refine their Q as they would on a slowly changing gradient) and prints, per step,
// ||C(x) - x||^2 / ||x||^2 for the whole bucket and for each tensor, as JSON lines.
// Used by powersgd_vs_torch.py; needs no LibTorch.
//
//   compressors_roundtrip_errors --spec powersgd:rank=4 --shapes 1024x1024,512x4608 \
//       --in tensors.f32 --steps 10
#include "compressors/registry.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {
std::vector<std::vector<int64_t>> parse_shapes(const std::string& s) {
  std::vector<std::vector<int64_t>> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::vector<int64_t> shape;
    const std::string t = s.substr(pos, comma - pos);
    size_t q = 0;
    while (q < t.size()) {
      size_t x = t.find('x', q);
      if (x == std::string::npos) x = t.size();
      const long long d = std::stoll(t.substr(q, x - q));
      if (d < 0) throw std::invalid_argument("negative dimension in shape '" + t + "'");
      shape.push_back(d);
      q = x + 1;
    }
    out.push_back(shape);
    pos = comma + 1;
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  std::string spec, shapes, in;
  int steps = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--spec") spec = v;
    else if (k == "--shapes") shapes = v;
    else if (k == "--in") in = v;
    else if (k == "--steps") steps = std::atoi(v.c_str());
    else { std::fprintf(stderr, "unknown option %s\n", k.c_str()); return 2; }
  }
  if (spec.empty() || shapes.empty() || in.empty() || steps < 1) {
    std::fprintf(stderr, "usage: %s --spec S --shapes RxC,... --in FILE.f32 [--steps T]\n", argv[0]);
    return 2;
  }
  try {
    gcu::compress::BucketLayout layout{parse_shapes(shapes)};
    const int64_t n = layout.numel();
    std::vector<float> x(n), y(n);
    std::ifstream f(in, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + in);
    f.read(reinterpret_cast<char*>(x.data()), n * 4);
    if (f.gcount() != n * 4 || f.peek() != EOF)
      throw std::runtime_error(in + " does not hold exactly " + std::to_string(n) + " float32 values");
    auto c = gcu::compress::make_compressor(spec);
    for (int s = 1; s <= steps; ++s) {
      c->roundtrip(0, x.data(), y.data(), layout);
      std::printf("{\"step\": %d, \"tensors\": [", s);
      double num_all = 0, den_all = 0;
      int64_t off = 0;
      for (size_t t = 0; t < layout.shapes.size(); ++t) {
        int64_t e = 1;
        for (int64_t d : layout.shapes[t]) e *= d;
        double num = 0, den = 0;
        for (int64_t i = off; i < off + e; ++i) {
          num += (double(y[i]) - x[i]) * (double(y[i]) - x[i]);
          den += double(x[i]) * x[i];
        }
        num_all += num;
        den_all += den;
        std::printf("%s%.9g", t ? ", " : "", den > 0 ? num / den : 0.0);
        off += e;
      }
      std::printf("], \"bucket\": %.9g}\n", den_all > 0 ? num_all / den_all : 0.0);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compressors_roundtrip_errors: %s\n", e.what());
    return 1;
  }
  return 0;
}
