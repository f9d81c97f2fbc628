#pragma once
// Two reports, or two folders of runs, as the data of their page: for every metric
// `gpubench compare` knows, what compare decides (its own result, compare_report_sets),
// and the values each side's distribution is made of, so the page draws both sides next
// to the shift, its interval and the verdict. Nothing here tests anything itself.
#include <nlohmann/json.hpp>

#include "reports/compare/compare_reports.h"

namespace gpubench {

// `options.metric` is the metric the verdict line leads with (compare's default,
// samples_per_s, unless given): its errors are thrown as compare throws them (UsageError:
// nothing to compare, unpaired runs, ...). Another metric that cannot be compared (no
// CUDA memory on a CPU report) is listed with compare's reason instead.
nlohmann::json compare_page_data(const ReportSet& base, const ReportSet& next, const CompareOptions& options);

}  // namespace gpubench
