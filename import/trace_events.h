// Reading a PyTorch profiler trace (Chrome trace JSON) into the few events gcu needs, in
// bounded memory: the file is parsed as a stream (nlohmann's SAX interface), each event
// is classified when its object closes and dropped unless it is one of the kinds below, so
// a 500 MB trace costs the events kept, never the file. Both formats PyTorch writes:
//  - PyTorch 1.13 without Kineto (Debian's python3-torch): a bare JSON array of
//    {"name", "ph": "X", "ts", "dur", "tid", "pid": "CPU functions", "args": {}};
//  - Kineto (PyTorch 1.13 with Kineto, 2.x): {"traceEvents": [...], "distributedInfo":
//    {"backend", "rank", "world_size"}, ...}, events with "cat" (cpu_op, user_annotation,
//    kernel, cuda_runtime, gpu_user_annotation, ...) and "args" ("correlation",
//    "In msg nelems", "Collective name", ...).
// Only complete events ("ph": "X") are read; times are microseconds as written.
// Untrusted input: every number kept is finite, every string bounded, and the count of
// kept events capped (TraceError past it).
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcu::import {

// A trace that cannot be read or does not describe a DDP job: exit code 2, the message
// names what is missing or malformed.
struct TraceError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class EventKind : uint8_t {
  Step,              // "ProfilerStep#N": one iteration as torch.profiler's schedule stepped it
  DdpForward,        // "DistributedDataParallel.forward"
  Autograd,          // "autograd::engine::evaluate_function: <node>" (a backward node)
  AccumulateGrad,    // ... "torch::autograd::AccumulateGrad": a parameter's gradient is ready
  OptimizerStep,     // "Optimizer.step#<Class>.step"
  ZeroGrad,          // "Optimizer.zero_grad#<Class>.zero_grad"
  CollectiveLaunch,  // "c10d::allreduce_", "c10d::allgather_", ...: a collective entered
  CommsInfo,         // "record_param_comms" (Kineto), or ProcessGroupNCCL's CPU-side "nccl:all_reduce":
                     // the collective's name and elements ("In msg nelems", else "Input Dims")
  CollectiveWork,    // "gloo:all_reduce", "nccl:all_reduce", ...: the collective's work
  Kernel,            // a GPU kernel, memcpy or memset (cat kernel, gpu_memcpy, gpu_memset)
  CommKernel,        // a GPU kernel whose name starts with "nccl"
  RuntimeLaunch,     // a CUDA runtime/driver call that enqueues GPU work (has "correlation")
};
const char* event_kind_name(EventKind k);

enum class Collective : uint8_t { None, AllReduce, AllGather, ReduceScatter, Broadcast, Other };
const char* collective_name(Collective c);  // "all-reduce", ...

struct TraceEvent {
  EventKind kind = EventKind::Autograd;
  Collective collective = Collective::None;
  int32_t thread = 0;        // an index into TraceEvents::threads
  double ts_us = 0;          // start, as written
  double dur_us = 0;         // >= 0
  int64_t correlation = -1;  // kernels and runtime launches: the pair's id
  int64_t elements = -1;     // CommsInfo: "In msg nelems", or the first "Input Dims"' product; -1 unknown
};

struct TraceEvents {
  std::string format;                // "pytorch-legacy" (bare array) | "kineto"
  std::vector<TraceEvent> events;    // kept, in file order
  std::vector<std::string> threads;  // "<pid>/<tid>" of each thread index
  int64_t events_read = 0;           // complete events seen, kept or not
  int world_size = 0;                // distributedInfo.world_size; 0 = not written
  std::string backend;               // distributedInfo.backend ("gloo", "nccl"); "" = not written
  std::string gpu;                   // deviceProperties[0].name; "" = none
};

struct ReadOptions {
  int64_t max_events = 8'000'000;  // kept events; more is a TraceError (trace fewer steps)
};

// Throws TraceError naming the problem: not JSON, truncated (with the byte offset), not a
// Chrome trace (neither an array nor an object with "traceEvents"), a kept event without
// a finite "ts", a negative or non-finite "dur", too many events.
TraceEvents read_trace(std::istream& in, const ReadOptions& opt = {});
TraceEvents read_trace_file(const std::string& path, const ReadOptions& opt = {});

}  // namespace gcu::import
