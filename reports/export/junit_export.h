#pragma once
// `gpubench compare BASE NEW --junit FILE`: the comparison as a JUnit XML report, the
// format CI systems (GitLab, Jenkins, GitHub test-report actions) show per test:
//   one <testsuite> per metric compared, one <testcase> per config (classname
//   "gpubench.compare.<metric>", name the config id);
//   a regression: <failure type="regression"> whose message gives the numbers (change,
//     interval, p-value, both medians with p10-p90 and counts, threshold) and whose body
//     compare's reason;
//   an improvement or no change: a passing case, the numbers in <system-out>;
//   a config not compared (skipped or failed on a side, no values), or on one side only:
//     <skipped message="..."> with the reason;
//   compare's warnings (environment differences) in the suite's <system-err>.
// Every string is escaped for XML, and bytes XML 1.0 cannot carry (control characters, not
// UTF-8) are shown as \xNN, so an untrusted report cannot break the file.
#include <string>
#include <vector>

#include "reports/compare/compare_reports.h"

namespace gpubench {

std::string compare_junit_xml(const CompareResult& result);
std::string compare_junit_xml(const std::vector<const CompareResult*>& results);

// `text` as XML character data or attribute value (both quotes escaped).
std::string xml_escape(const std::string& text);

}  // namespace gpubench
