// Output formats of a result table (run.h):
//  - human table: aligned columns (sweep value, scheme, iteration ms, speed-up vs FP32 and
//    vs FP16, exposed communication, compression ratio, TTA, model and mode used), with a
//    header naming the setup and notes at the end;
//  - CSV: one row per (point, scheme), header csv_header(), plain numbers in SI units;
//  - JSON: versioned, "schema": "gcu.simulate/1".
#pragma once

#include "simulate/run.h"

#include <string>
#include <vector>

namespace gcu::simulate {

inline constexpr const char* kSimulateSchema = "gcu.simulate/1";

std::string format_table(const ResultTable& t, const std::string& profile_label);
std::vector<std::string> csv_header();
std::string format_csv(const ResultTable& t);
std::string format_json(const ResultTable& t, const std::string& profile_label);

// Small helpers shared by the formatters and the analyses.
std::string fmt_ms(double seconds);             // "312.4"
std::string fmt_ratio(double r);                // "1.23x"
std::string fmt_duration(double seconds);       // "2.41 h", "36.2 min", "12.0 s"
// A TTA cell: "-", "never", "12.0 s", "12.0 s [10.1 s-15.2 s]" (pilot's 80% interval),
// "uncertain 12.0 s [..]".
std::string fmt_tta(const std::optional<model::TtaResult>& t);
std::string fmt_bytes(double bytes);            // "97.5 MiB"
std::string fmt_number(double v);               // shortest round-trip text
// A scheme's short label for tables: its name and first parameter, plus every other
// parameter that differs from the scheme's default ("powersgd:rank=4" for
// "powersgd:rank=4,warm_start=true,min_rate=2"). CSV and JSON keep the canonical spec.
std::string short_label(const std::string& canonical_spec);
// The line tables print under their header: where the convergence figures come from, and
// a warning when they are assumed.
std::string convergence_banner(const std::string& source);
// Why each scheme runs in the mode it does, for tables (requested: "auto", ...).
std::string mode_note(const std::string& requested_mode);

// Left column left-aligned, the others right-aligned; two spaces between columns.
std::string align_columns(const std::vector<std::vector<std::string>>& rows, size_t left_aligned = 1);

}  // namespace gcu::simulate
