// What a DDP job did in each traced iteration (trace_events.h's events -> figures), and the
// median iteration over them. Seconds from the iteration's backward start unless said.
//
// An iteration is a "ProfilerStep#N" span, or, without them, the span from one
// DistributedDataParallel.forward to the next (the last one ends with its optimizer
// step). Inside it:
//   forward   DDP.forward's start to the first backward node (the loss included);
//   backward  the first backward node to the last one's end: compute, measured beside the
//             job's own communication (on a CPU the collectives share its cores);
//   tensor ready  each AccumulateGrad's end (a parameter's gradient is ready), in order;
//   bucket    DDP launches a bucket's collective inside the AccumulateGrad hook of its last
//             gradient, so each collective launched inside an AccumulateGrad closes a bucket
//             of the gradients ready since the previous one; launches from a comm hook's
//             callbacks (PowerSGD's second all-reduce) are not inside one and are not buckets;
//   tail      the last backward node's end to the optimizer step: waiting for the last
//             collectives and copying their results back;
//   optimizer Optimizer.step plus Optimizer.zero_grad;
//   data      the iteration's start to DDP.forward, less zero_grad.
// On a GPU (a trace with CUDA kernels) the phases are read on the GPU's clock: a CPU time
// t maps to the end of the last compute kernel launched at or before t (what the GPU had
// finished of the work issued by then), a span's start to its first kernel's start; the
// collectives as measured are the NCCL kernels. On a CPU the collectives as measured are
// Gloo's work ("gloo:all_reduce") on its own threads.
#pragma once

#include "import/trace_events.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gcu::import {

struct TracedBucket {
  int tensors = 0;          // gradients in the bucket (consecutive in ready order)
  double ready_s = 0;       // its collective's launch, from backward start
  int64_t elements = -1;    // from record_param_comms (Kineto); -1 = the trace does not say
};

struct TracedCollective {
  Collective kind = Collective::AllReduce;
  double start_s = 0;       // from backward start (negative: before it)
  double seconds = 0;       // as measured: Gloo's work span or the NCCL kernel
  int64_t elements = -1;
};

struct TracedIteration {
  double start_us = 0;      // in the trace's clock
  double iteration_s = 0, forward_s = 0, backward_s = 0, tail_s = 0, optimizer_s = 0, data_s = 0;
  std::vector<double> tensor_ready_s;  // one per AccumulateGrad, in order
  std::vector<TracedBucket> buckets;
  std::vector<TracedCollective> collectives;  // every collective's work in the iteration, in order
};

struct TracedJob {
  std::string format;           // TraceEvents::format
  std::string device;           // "cpu" | "cuda"
  std::string gpu;              // deviceProperties' name, "" on a CPU
  int world_size = 0;           // distributedInfo's; 0 = the trace does not say
  std::string backend;          // "gloo" | "nccl" | ""
  int iterations_traced = 0;
  std::vector<TracedIteration> used;  // the iterations with the most common bucket structure
  TracedIteration median;             // per figure and per tensor/bucket/collective position
  std::vector<std::string> notes;     // iterations left out and why
};

// Throws TraceError naming what is missing: no iterations (neither ProfilerStep nor
// DistributedDataParallel.forward: "not a DDP job"), no backward nodes, no AccumulateGrad,
// no collective launched in backward, or no iteration with all of them.
TracedJob analyze_trace(const TraceEvents& events);

}  // namespace gcu::import
