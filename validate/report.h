// The validation report (docs/validate-schema.md): a table on screen, and in the output
// directory validate.txt (the same table), validate.csv (one row per cell), validate.json
// (schema gcu.validate/8) and the plots bandwidth.png (measured mean or median with p10-p90 bars
// over the predicted curves against the link rate) and scatter.png (predicted vs
// measured with the y = x line), each with its gnuplot script (.gp). Every file is
// written to a temporary file and renamed; a target that exists and is not a regular
// file (a directory, a FIFO, a device) is refused.
#pragma once

#include "validate/validate.h"

#include "model/profile.h"

#include <iosfwd>
#include <string>

namespace gcu::validate {

inline constexpr const char* kReportSchema = "gcu.validate/8";

// Throws ValidateError when one of the report's files in `dir` exists as a non-regular file.
void check_output_targets(const std::string& dir);

std::string format_table(const Report& r);
std::string format_csv(const Report& r);
std::string format_json(const Report& r);  // gcu.validate/8

// Writes all of the above (plots unless disabled; a missing gnuplot is a note on `log`).
void write_reports(const Report& r, const model::Profile& profile, std::ostream& log);

}  // namespace gcu::validate
