// LibTorch-op baselines (torch_ops.h).
#include "torch_ops.h"

#include <torch/torch.h>

#include <stdexcept>

namespace gcu::bench {

void set_torch_threads(int threads) { torch::set_num_threads(threads); }
int torch_threads() { return torch::get_num_threads(); }

std::function<void()> make_torch_op(const std::string& op, const float* in_ptr, float* out_ptr,
                                    const compress::BucketLayout& layout) {
  const int64_t n = layout.numel();
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  torch::Tensor in = torch::from_blob(const_cast<float*>(in_ptr), {n}, opts);
  torch::Tensor out = torch::from_blob(out_ptr, {n}, opts);
  if (op == "topk") {
    const int64_t k = std::max<int64_t>(1, n / 100);
    return [=]() mutable {
      torch::NoGradGuard ng;
      auto idx = std::get<1>(torch::topk(in.abs(), k, 0, true, false));
      auto vals = in.index_select(0, idx);
      out.zero_();
      out.scatter_(0, idx, vals);
    };
  }
  if (op == "sign") {
    if (n % 8 != 0) throw std::invalid_argument("torch sign baseline: n must be a multiple of 8");
    auto weights = torch::tensor({1, 2, 4, 8, 16, 32, 64, 128}, torch::kUInt8);
    return [=]() mutable {
      torch::NoGradGuard ng;
      auto scale = in.abs().mean();
      auto packed = in.lt(0).to(torch::kUInt8).view({-1, 8}).mul(weights).sum(1, false, torch::kUInt8);
      auto bits = packed.unsqueeze(1).bitwise_and(weights).ne(0).view({-1});
      out.copy_(torch::where(bits, -scale, scale));
    };
  }
  if (op == "qsgd") {
    const double s = 127;
    return [=]() mutable {
      torch::NoGradGuard ng;
      auto norm = in.norm();
      auto level = (in.abs() / norm * s + torch::rand_like(in)).floor_().clamp_max_(s);
      auto code = (level * in.sign()).to(torch::kInt8);
      out.copy_(code.to(torch::kFloat32) * (norm / s));
    };
  }
  if (op == "powersgd") {
    const int64_t rank = 4;
    struct Mat { int64_t off, rows, cols; torch::Tensor q; };
    std::vector<Mat> mats;
    std::vector<std::pair<int64_t, int64_t>> rest;
    int64_t off = 0;
    torch::manual_seed(0);
    for (const auto& shape : layout.shapes) {
      int64_t numel = 1;
      for (int64_t d : shape) numel *= d;
      if (shape.size() >= 2 && numel > 0) {
        const int64_t rows = shape[0], cols = numel / rows;
        mats.push_back({off, rows, cols, torch::randn({cols, std::min({rank, rows, cols})})});
      } else {
        rest.push_back({off, numel});
      }
      off += numel;
    }
    return [=]() mutable {
      torch::NoGradGuard ng;
      for (auto [o, len] : rest) out.narrow(0, o, len).copy_(in.narrow(0, o, len));
      for (auto& m : mats) {  // the hook's sequence, without the collectives
        auto M = in.narrow(0, m.off, m.rows * m.cols).view({m.rows, m.cols});
        auto q = std::get<0>(torch::linalg_qr(m.q));
        auto p = std::get<0>(torch::linalg_qr(M.mm(q)));
        m.q = M.t().mm(p);
        auto dst = out.narrow(0, m.off, m.rows * m.cols).view({m.rows, m.cols});
        torch::mm_out(dst, p, m.q.t());  // the hook's matmul(p, q.t(), out=tensor): no temporary
      }
    };
  }
  throw std::invalid_argument("unknown torch baseline '" + op + "'");
}

}  // namespace gcu::bench
