// Plots through gnuplot. For a sweep: two panels sharing the swept axis, iteration time
// (ms) on top and speed-up against FP16 DDP (or FP32 DDP when fp16 cannot be costed)
// below, one line per scheme; without a sweep: one bar per scheme. Labelled axes with
// units, legend, title.
//
// Next to IMAGE (out/sweep.png) it writes out/sweep.gp, a self-contained gnuplot script
// (the data is inline) that re-creates the image: `gnuplot out/sweep.gp`, and
// out/sweep.dat, the same data as a whitespace-separated table. The terminal follows the
// extension: .png (pngcairo when gnuplot has it, else png) or .svg. The image is written
// to a temporary file and renamed, like every output of gcu.
#pragma once

#include "simulate/run.h"
#include "util/output_file.h"

#include <string>

namespace gcu::simulate {

struct PlotFiles {
  std::string image, script, data;
};

// The .gp text; `outfile` is the default output path written into it.
std::string gnuplot_script(const ResultTable& t, const std::string& outfile, const std::string& title);

// Writes script + data, runs gnuplot (unless run_gnuplot is false; without a shell).
// Throws SimulateError for an unknown extension, or when gnuplot is missing or fails (its
// message included); the script is left in place so the user can run it. All three files
// follow the output-file policy (util/output_file.h) with `out`. Every text in the script
// (title, legends, labels) is a single-quoted gnuplot literal on one line: never code.
PlotFiles write_plot(const ResultTable& t, const std::string& image_path, const std::string& title,
                     bool run_gnuplot = true, const util::OutputOptions& out = {});

}  // namespace gcu::simulate
