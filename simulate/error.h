// The error type of the simulate library.
#pragma once

#include <stdexcept>

namespace gcu::simulate {

// A user error in simulate/ (bad sweep syntax, gnuplot missing, ...); the message names
// the offending value. Files that cannot be read or written throw util::FileError.
struct SimulateError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace gcu::simulate
