// The measured rate of a testbed link, reported beside the requested one and given to the
// model instead of the nominal rate (--predict-rate measured; with link-fits, the default,
// for the messages below link_fits.h's thresholds): a short sweep of `gcu calibrate`'s
// collectives step alone (16 KiB-32 MiB per rank, every kind) run through the link, the
// all-reduce's sizes from 1 MiB up fitted as a line T = A + B n; the link's per-byte time
// is then beta = B p / (2(p-1)) (ring all-reduce, docs/model.md §1.2) and the rate 8 / beta. This is the rate Gloo's all-reduce gets through the link, tc
// shaping, TCP and the CPU's reduction included: what the trainer's buckets see.
#pragma once

#include "validate/grid.h"
#include "validate/runner.h"
#include "validate/validate.h"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace gcu::validate {

// The link sweep: message sizes (bytes per rank), calibrate's budget for it, idle gap.
inline constexpr int64_t kLinkSweepMinBytes = 16 << 10;
// 32 MiB: an all-gather's sizes count its output, so between 2 ranks the sweep reaches
// 16 MiB sent per rank, a flow as long as a bucket stream of the trainer (such streams
// get less of a shaped link's rate than single calls).
inline constexpr int64_t kLinkSweepMaxBytes = 32 << 20;
inline constexpr int kLinkSweepBudgetS = 60;
inline constexpr int kLinkSweepGapMs = 10;
// Seconds of the point-to-point probe, each way at once (after a 0.5 s warm-up).
inline constexpr double kLinkProbeSeconds = 4.0;

// The sweep's time budget (s) on `link`: 30 s divided by the rate in Gbit/s, between
// kLinkSweepBudgetS and 240 s (60 s from 0.5 Gbit/s up, 150 s at 200 Mbit/s), so that a slow link's
// sweep still reaches its largest sizes (at 200 Mbit/s a 60 s budget stopped it at 4 MiB
// per rank).
int link_sweep_budget_s(const Link& link);

// The rates of a kept sweep (its calibrate state file) into lr, and lr.state_path. Throws
// util::FileError or nlohmann::json::exception on an unreadable or malformed file.
void read_link_sweep(LinkRate& lr, const std::string& state_path);

// backend: gcu calibrate --backend of the sweep (gloo; nccl for GPU ranks).
LinkRate measure_link_rate(const Testbed& bed, const std::string& gcu, int ranks, const Link& link,
                           const std::string& out_dir, int threads, std::ostream& log,
                           const std::string& backend = "gloo");

// What validate keeps of a (ranks, link) goes under one stem, out_dir/links/r<ranks>-<link>:
// the sweep (stem.json.state.json), the gamma step (stem.gamma.*), the probe (stem.probe.*).
std::string link_stem(const std::string& out_dir, int ranks, const std::string& link_name);

// The point-to-point probe (scripts/link_probe.py) through the configured link between
// ranks 0 and 1, `seconds` each way at once; fills lr.probed_* (or lr.probe_note).
// `script`: the probe's path (run by /usr/bin/python3, or python3 from PATH).
void measure_link_probe(LinkRate& lr, const Testbed& bed, const std::string& gcu, const std::string& script,
                        const std::string& out_dir, double seconds, std::ostream& log);
// A kept probe's output (stem.rank0, stem.rank1) into lr; false (and lr.probe_note) when
// missing or malformed.
bool read_link_probe(LinkRate& lr, const std::string& stem);
// Where the probe of (ranks, link) is kept in out_dir: link_stem + ".probe".
std::string link_probe_stem(const std::string& out_dir, int ranks, const std::string& link_name);

// The rate (Gbit/s) of a calibrate state file's all-reduce sweep (sizes >= min_bytes);
// 0 when it has fewer than two usable sizes. Exposed for tests.
double allreduce_rate_gbps(const std::string& state_json_text, double min_bytes = 1 << 20);
// The same for the sweep's all-gather (sizes count the output, nccl-tests style; ring:
// beta = slope p / (p - 1)); 0 when not measured. Reported beside the all-reduce rate:
// Gloo's all-gather between 2 ranks gets ~55% of the all-reduce's rate through a
// tbf-shaped link at 1-4 MiB but the full rate at 100-400 KB.
double allgather_rate_gbps(const std::string& state_json_text, double min_bytes = 1 << 20);

}  // namespace gcu::validate
