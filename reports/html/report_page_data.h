#pragma once
// One report as the data of its page (html_page.h renders it): the environment, every row
// (the console table's cells, from report_rows.h, so both say the same, plus the numbers
// the charts draw), the comparisons (what each technique bought) and the ablations per
// recipe, and the loss curves.
#include <nlohmann/json.hpp>
#include <string>

namespace gpubench {

// `report` as loaded by load_report; `name` the path given (shown on the page). Throws
// UsageError naming `name` when a field the page needs has a shape no report has.
nlohmann::json report_page_data(const nlohmann::json& report, const std::string& name);

// The environment as [label, value] rows: GPU, CPU, torch, CUDA, cuDNN, NCCL, ... (shared
// with the comparison page, which shows both sides').
nlohmann::json environment_rows(const nlohmann::json& report);

}  // namespace gpubench
