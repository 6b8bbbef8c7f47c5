#include "compressors/powersgd.h"
#include "compressors/rng.h"
#include "counting_comm.h"
#include "test_data.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gcu::compress;
using namespace gcu::compress::testing;

namespace {
using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

using gcu::compress::testing::gaussian;

// Thin Q factor by Householder QR (a different orthogonalization than the scheme's).
Eigen::MatrixXd orth(const Eigen::MatrixXd& a) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
  return qr.householderQ() * Eigen::MatrixXd::Identity(a.rows(), a.cols());
}

// Reference PowerSGD step on p ranks for one bucket, in double, from the given Q buffer.
std::vector<double> reference(const PowerSgdPlan& pl, const std::vector<std::vector<float>>& in,
                              const std::vector<float>& q) {
  const int p = static_cast<int>(in.size());
  std::vector<double> out(in[0].size());
  for (auto [off, len] : pl.uncompressed)
    for (int64_t i = off; i < off + len; ++i) {
      for (int r = 0; r < p; ++r) out[i] += in[r][i];
      out[i] /= p;
    }
  for (const auto& m : pl.matrices) {
    Eigen::MatrixXd Q0(m.cols, m.rank);
    for (int64_t c = 0; c < m.rank; ++c)
      for (int64_t i = 0; i < m.cols; ++i) Q0(i, c) = q[m.q_offset + c * m.cols + i];
    Q0 = orth(Q0);
    std::vector<Eigen::MatrixXd> M;
    Eigen::MatrixXd P = Eigen::MatrixXd::Zero(m.rows, m.rank);
    for (int r = 0; r < p; ++r) {
      M.push_back(Eigen::Map<const RowMat>(in[r].data() + m.offset, m.rows, m.cols).cast<double>());
      P += M.back() * Q0;
    }
    P = orth(P);
    Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(m.cols, m.rank);
    for (int r = 0; r < p; ++r) Q += M[r].transpose() * P / p;
    const Eigen::MatrixXd A = P * Q.transpose();
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = 0; j < m.cols; ++j) out[m.offset + i * m.cols + j] = A(i, j);
  }
  return out;
}
}  // namespace

TEST(PowerSgd, PlanFollowsPyTorchsCompressionTest) {
  PowerSgdParams prm;
  prm.rank = 2;
  const BucketLayout layout{{{20, 12}, {7}, {8, 3, 2}, {30, 40}, {0, 5}}};
  const auto pl = PowerSgdPlan::of(prm, layout);
  ASSERT_EQ(pl.matrices.size(), 2u);  // 8x6: (8+6)*2*2 = 56 >= 48 -> uncompressed
  EXPECT_EQ(pl.uncompressed_numel, 7 + 48);
  EXPECT_EQ(pl.p_numel, 20 * 2 + 30 * 2);
  EXPECT_EQ(pl.q_numel, 12 * 2 + 40 * 2);
  auto c = make_compressor("powersgd:rank=2");
  EXPECT_EQ(c->wire_bytes(layout, 4), 4 * (55 + (20 + 12) * 2 + (30 + 40) * 2));
  EXPECT_EQ(make_compressor("powersgd:rank=2,min_rate=0.1")->plan(layout, 4)[0].count, 7);
  EXPECT_TRUE(make_compressor("powersgd")->plan(BucketLayout::flat(100), 2).size() == 1);
  EXPECT_TRUE(make_compressor("powersgd")->plan(BucketLayout::flat(0), 2).empty());
}

TEST(PowerSgd, EqualsTheReferenceLowRankApproximationGivenTheSameQ) {
  const int p = 3;
  const BucketLayout layout{{{20, 12}, {7}, {8, 3, 2}, {30, 40}}};
  const int64_t n = layout.numel();
  PowerSgdParams prm;
  prm.rank = 2;
  const auto pl = PowerSgdPlan::of(prm, layout);
  std::vector<std::unique_ptr<Compressor>> comps;
  for (int r = 0; r < p; ++r) comps.push_back(make_compressor("powersgd:rank=2"));
  LocalGroup g(p);
  std::vector<float> q(pl.q_numel);  // documented initial Q of bucket 4, step 0
  const uint64_t key = rng::stream_key(0, 4, 0, ~uint64_t{0});
  for (int64_t j = 0; j < pl.q_numel; ++j) q[j] = rng::normal(key, j);
  for (int stepno = 0; stepno < 2; ++stepno) {
    std::vector<std::vector<float>> in;
    for (int r = 0; r < p; ++r) in.push_back(gaussian(n, 100 * stepno + r));
    const auto want = reference(pl, in, q);
    auto out = in;
    g.run([&](Communicator& c) {
      CountingComm cc(c);
      comps[c.rank()]->step({4, out[c.rank()].data(), &layout}, cc);
      expect_calls_match_plan(cc.calls, comps[c.rank()]->plan(layout, p));
    });
    for (int r = 0; r < p; ++r)
      for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(out[r][i], want[i], 1e-4) << "step " << stepno << " i=" << i;
    // Warm start: the next step starts from the averaged Q, the same on every rank.
    const auto* w0 = static_cast<PowerSgdCompressor*>(comps[0].get())->warm_q(4);
    const auto* w2 = static_cast<PowerSgdCompressor*>(comps[2].get())->warm_q(4);
    ASSERT_TRUE(w0 && w2);
    EXPECT_EQ(*w0, *w2);
    q = *w0;
  }
}

TEST(PowerSgd, ReproducesALowRankMatrixAndZeros) {
  const int64_t rows = 40, cols = 30;
  const auto a = gaussian(rows * 2, 1), b = gaussian(cols * 2, 2);
  std::vector<float> m(rows * cols), out(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m[i * cols + j] = a[2 * i] * b[2 * j] + a[2 * i + 1] * b[2 * j + 1];
  const BucketLayout layout{{{rows, cols}}};
  auto c = make_compressor("powersgd:rank=2");
  c->roundtrip(0, m.data(), out.data(), layout);
  for (int64_t i = 0; i < rows * cols; ++i) ASSERT_NEAR(out[i], m[i], 1e-4);
  std::vector<float> z(rows * cols, 0.0f);
  c->roundtrip(1, z.data(), out.data(), layout);
  EXPECT_EQ(out, z);  // zero columns stay zero: no NaN
}

TEST(PowerSgd, StateRoundTripsAndColdStartRedrawsQ) {
  const BucketLayout layout{{{16, 16}, {4}}};
  const auto x = gaussian(260, 3), y = gaussian(260, 4);
  std::vector<float> o1(260), o2(260);
  auto c = make_compressor("powersgd:rank=2");
  c->roundtrip(0, x.data(), o1.data(), layout);
  auto d = make_compressor("powersgd:rank=2");
  d->load_state(c->save_state());
  c->roundtrip(0, y.data(), o1.data(), layout);
  d->roundtrip(0, y.data(), o2.data(), layout);
  EXPECT_EQ(o1, o2);
  auto bytes = c->save_state();
  bytes.push_back(0);
  EXPECT_THROW(d->load_state(bytes), CompressorError);
  EXPECT_THROW(d->load_state({'x'}), CompressorError);
  auto cold = make_compressor("powersgd:rank=2,warm_start=false");
  cold->roundtrip(0, x.data(), o1.data(), layout);
  EXPECT_EQ(static_cast<PowerSgdCompressor*>(cold.get())->warm_q(0), nullptr);
  const BucketLayout other{{{8, 32}}};  // same bucket index, another layout
  std::vector<float> small(256, 1.0f), so(256);
  EXPECT_THROW(c->roundtrip(0, small.data(), so.data(), other), CompressorError);
}

TEST(PowerSgd, NonFinitePropagatesIdenticallyAndQIsRedrawn) {
  const BucketLayout layout{{{8, 8}, {3}}};
  std::vector<float> a = gaussian(67, 5), b = gaussian(67, 6);
  a[10] = NAN;
  std::vector<std::unique_ptr<Compressor>> comps;
  for (int r = 0; r < 2; ++r) comps.push_back(make_compressor("powersgd:rank=1"));
  std::vector<std::vector<float>> out{a, b};
  LocalGroup g(2);
  g.run([&](Communicator& c) { comps[c.rank()]->step({0, out[c.rank()].data(), &layout}, c); });
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_TRUE(std::isnan(out[0][i]));
    EXPECT_TRUE(std::isnan(out[1][i]));
  }
  EXPECT_FLOAT_EQ(out[0][64], (a[64] + b[64]) / 2);  // the 1-D tensor is unaffected
  EXPECT_EQ(static_cast<PowerSgdCompressor*>(comps[0].get())->warm_q(0), nullptr);
}

TEST(PowerSgd, SpecRoundTripsAndBadParamsThrow) {
  EXPECT_EQ(make_compressor("powersgd")->spec(), "powersgd:rank=4,warm_start=true,min_rate=2");
  EXPECT_EQ(make_compressor("powersgd:min_rate=0.5,warm_start=off,rank=1,seed=7")->spec(),
            "powersgd:rank=1,warm_start=false,min_rate=0.5,seed=7");
  for (const char* bad : {"powersgd:rank=0", "powersgd:min_rate=-1", "powersgd:warm_start=maybe",
                          "powersgd:k=3"})
    EXPECT_THROW(make_compressor(bad), CompressorError) << bad;
  EXPECT_TRUE(make_compressor("powersgd")->traits().stateful);
}

TEST(PowerSgd, LargeMatricesAndManySmallOnesMatchTheReference) {
  // Exercises the row-parallel products (one large matrix) and the across-matrices path.
  for (const BucketLayout& layout : {BucketLayout{{{300, 400}}},
                                     BucketLayout{{{24, 40}, {24, 40}, {24, 40}, {24, 40}, {24, 40},
                                                   {24, 40}, {24, 40}, {24, 40}, {9}}}}) {
    PowerSgdParams prm;
    prm.rank = 5;  // more than one group of four columns
    const auto pl = PowerSgdPlan::of(prm, layout);
    const int64_t n = layout.numel();
    std::vector<std::vector<float>> in{gaussian(n, 77)};
    std::vector<float> q(pl.q_numel);
    const uint64_t key = rng::stream_key(0, 0, 0, ~uint64_t{0});
    for (int64_t j = 0; j < pl.q_numel; ++j) q[j] = rng::normal(key, j);
    const auto want = reference(pl, in, q);
    std::vector<float> out(n);
    make_compressor("powersgd:rank=5")->roundtrip(0, in[0].data(), out.data(), layout);
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(out[i], want[i], 2e-4) << i;
  }
}
