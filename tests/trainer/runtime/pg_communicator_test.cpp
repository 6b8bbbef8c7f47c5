// Tests for the Gloo Communicator (trainer/runtime/pg_communicator.h): two ranks as two
// threads, each with its own TCPStore client and ProcessGroupGloo on 127.0.0.1.
#include "trainer/runtime/pg_communicator.h"

#include "compressors/half.h"
#include "trainer/runtime/train_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

namespace gcu::trainer {
namespace {

using compress::ReduceOp;
using compress::WireType;

void two_ranks(const std::function<void(PgCommunicator&)>& fn) {
  const int port = pick_free_port();
  std::vector<std::thread> ts;
  std::vector<std::string> errors(2);
  for (int r = 0; r < 2; ++r)
    ts.emplace_back([&, r] {
      try {
        RankInfo info;
        info.rank = r;
        info.world_size = 2;
        info.master_port = port;
        DistContext ctx = init_process_group(info, {20.0, ""});
        PgCommunicator comm(ctx);
        fn(comm);
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

TEST(PgCommunicator, AllReduceEveryWireType) {
  two_ranks([](PgCommunicator& c) {
    const int r = c.rank();
    std::vector<float> f{1.5f + r, -2.0f};
    c.all_reduce(f.data(), 2, WireType::F32, ReduceOp::Sum);
    EXPECT_FLOAT_EQ(f[0], 4.0f);
    EXPECT_FLOAT_EQ(f[1], -4.0f);
    std::vector<uint16_t> h{compress::float_to_half(0.25f + r)};
    c.all_reduce(h.data(), 1, WireType::F16, ReduceOp::Sum);
    EXPECT_FLOAT_EQ(compress::half_to_float(h[0]), 1.5f);
    std::vector<uint16_t> b{compress::float_to_bf16(1.0f + r)};
    c.all_reduce(b.data(), 1, WireType::BF16, ReduceOp::Sum);  // widened path
    EXPECT_FLOAT_EQ(compress::bf16_to_float(b[0]), 3.0f);
    std::vector<int16_t> s{static_cast<int16_t>(r == 0 ? 30000 : 10000)};
    c.all_reduce(s.data(), 1, WireType::I16, ReduceOp::Sum);  // wraps like int16
    EXPECT_EQ(s[0], static_cast<int16_t>(40000 - 65536));
    std::vector<uint32_t> u{r == 0 ? 0x80000000u : 5u};
    c.all_reduce(u.data(), 1, WireType::U32, ReduceOp::Max);  // unsigned compare
    EXPECT_EQ(u[0], 0x80000000u);
    std::vector<int32_t> i{r + 1, -r};
    c.all_reduce(i.data(), 2, WireType::I32, ReduceOp::Max);
    EXPECT_EQ(i[0], 2);
    EXPECT_EQ(i[1], 0);
    std::vector<uint64_t> l{1ull << 40};
    c.all_reduce(l.data(), 1, WireType::U64, ReduceOp::Sum);
    EXPECT_EQ(l[0], 1ull << 41);
  });
}

TEST(PgCommunicator, AllGatherAndBroadcastMoveBytes) {
  two_ranks([](PgCommunicator& c) {
    const int r = c.rank();
    std::vector<uint16_t> mine{static_cast<uint16_t>(10 + r), static_cast<uint16_t>(20 + r), 7};
    std::vector<uint16_t> all(6);
    c.all_gather(mine.data(), all.data(), 3, WireType::BF16);
    EXPECT_EQ(all, (std::vector<uint16_t>{10, 20, 7, 11, 21, 7}));
    std::vector<int8_t> v{static_cast<int8_t>(r ? 5 : -3)};
    c.broadcast(v.data(), 1, WireType::I8, 1);
    EXPECT_EQ(v[0], 5);
    EXPECT_THROW(c.broadcast(v.data(), 1, WireType::I8, 2), compress::CompressorError);
  });
}

}  // namespace
}  // namespace gcu::trainer
