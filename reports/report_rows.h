#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// One result row as display cells, shared by the table and markdown printers so both
// say the same thing.
struct RowCells {
  std::string config_id, workload, status;
  std::string samples_per_s;   // "1234.5 [1200.1-1250.0]" or "-"
  std::string step_ms;         // median
  std::string utilization;     // "0.137 TF/s, 78% MFU (measured fp32 peak)" or "-"
  std::string phases;          // "data 2% h2d 0% fwd 30% bwd 55% opt 13%"
  std::string loss;            // "2.31 -> 0.52"
  std::string peak_memory;     // device peak where measured, else host RSS
  std::string speedup;         // vs the comparison baseline this row is a candidate of
  std::string note;            // reason for skipped/failed rows, warnings otherwise
  // Short forms for a narrow terminal, and the note as lines (verdict, then each warning).
  std::string short_samples_per_s;  // the median alone
  std::string short_utilization;    // "78.1% MFU", or "0.137 TF/s" without a peak
  std::vector<std::string> notes;
};

RowCells row_cells(const nlohmann::json& row, const nlohmann::json& comparisons);

}  // namespace gpubench
