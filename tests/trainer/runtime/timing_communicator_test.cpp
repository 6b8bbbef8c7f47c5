// TimingCommunicator's device timing (issue 14 finding 3): with DeviceMarks, no boundary
// waits for the device; the marks recorded at begin, around each collective and at end
// are resolved later into the same encode / collective / decode split as the host clock.
#include "trainer/runtime/timing_communicator.h"

#include <gtest/gtest.h>

#include <vector>

using namespace gcu;
using namespace gcu::trainer;

namespace {
// A fake device clock: mark i completes at times[i] seconds; records the streams used.
class FakeMarks final : public DeviceMarks {
 public:
  explicit FakeMarks(std::vector<double> t) : times(std::move(t)) {}
  int mark(void* stream) override {
    streams.push_back(stream);
    return used++;
  }
  double seconds(int a, int b) override { return times.at(b) - times.at(a); }
  void reset() override { used = 0; }
  std::vector<double> times;
  std::vector<void*> streams;
  int used = 0;
};

class NullComm final : public compress::Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void all_reduce(void*, int64_t, compress::WireType, compress::ReduceOp) override {}
  void all_gather(const void*, void*, int64_t, compress::WireType) override {}
  void broadcast(void*, int64_t, compress::WireType, int) override {}
  void* device_stream() const override { return reinterpret_cast<void*>(0x5); }
};
}  // namespace

TEST(TimingCommunicator, DeviceMarksSplitEncodeCollectiveDecode) {
  NullComm inner;
  TimingCommunicator t(inner);
  // Step 1: begin 0, collective [1, 3], collective [4, 4.5], end 6.
  // Step 2: begin 10, no collective, end 10.25.
  FakeMarks marks({0, 1, 3, 4, 4.5, 6, 10, 10.25});
  t.set_device_marks(&marks);
  t.begin_step();
  t.all_reduce(nullptr, 10, compress::WireType::F32, compress::ReduceOp::Sum);
  t.all_gather(nullptr, nullptr, 4, compress::WireType::U8);
  const StepTimes s1 = t.end_step();
  EXPECT_EQ(s1.wire_bytes, 44);
  EXPECT_EQ(s1.collectives, 2);
  EXPECT_EQ(s1.encode_s, 0);  // times come later, without waiting now
  t.begin_step();
  t.end_step();
  const StepTimes d = t.take_device_times();
  EXPECT_DOUBLE_EQ(d.encode_s, (1 - 0) + (4 - 3) + 0.25);
  EXPECT_DOUBLE_EQ(d.collective_s, (3 - 1) + (4.5 - 4));
  EXPECT_DOUBLE_EQ(d.decode_s, 6 - 4.5);
  EXPECT_EQ(marks.used, 0);  // reset for the next iteration
  for (void* s : marks.streams) EXPECT_EQ(s, reinterpret_cast<void*>(0x5));  // the compressor's stream
  EXPECT_EQ(t.take_device_times().encode_s, 0);
}

TEST(TimingCommunicator, HostClockWithoutMarks) {
  NullComm inner;
  TimingCommunicator t(inner);
  t.begin_step();
  t.all_reduce(nullptr, 3, compress::WireType::F16, compress::ReduceOp::Sum);
  const StepTimes s = t.end_step();
  EXPECT_EQ(s.wire_bytes, 6);
  EXPECT_EQ(s.collectives, 1);
  EXPECT_GE(s.encode_s, 0);
  EXPECT_EQ(t.take_device_times().collective_s, 0);
}
