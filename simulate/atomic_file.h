// Writing output files safely: the content goes to a temporary file beside the target,
// which is then renamed over it, so a reader never sees a half-written file. Missing
// parent directories are created.
#pragma once

#include "simulate/error.h"

#include <string>
#include <string_view>

namespace gcu::simulate {

// Throws SimulateError "cannot write <path>: <reason>".
void write_file_atomic(const std::string& path, std::string_view content);

// A temporary path beside `path` (same directory, so rename() is atomic).
std::string temp_path_for(const std::string& path);

// Reads a whole file; throws SimulateError "cannot read <path>: <reason>".
std::string read_file(const std::string& path);

}  // namespace gcu::simulate
