// Writing output files safely: the content goes to a temporary file beside the target,
// which is then renamed over it, so a reader never sees a half-written file. Missing
// parent directories are created. Also the error type of the simulate library.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace gcu::simulate {

// A user error in simulate/ (bad sweep syntax, unwritable file, gnuplot missing, ...);
// the message names the offending value.
struct SimulateError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Throws SimulateError "cannot write <path>: <reason>".
void write_file_atomic(const std::string& path, std::string_view content);

// A temporary path beside `path` (same directory, so rename() is atomic).
std::string temp_path_for(const std::string& path);

// Reads a whole file; throws SimulateError "cannot read <path>: <reason>".
std::string read_file(const std::string& path);

}  // namespace gcu::simulate
