#pragma once
// The one definition of a workload's name (a built-in's, a --model NAME): letters, digits,
// '_', '-' or '.', starting with a letter or digit, at most 64 characters. It is the first
// segment of config ids, and goes into lists and NAME=VALUE flags (so no '/', ',' or '=').
// The report schema's config_id pattern (reports/schema/report.schema.json) and
// scripts/plot_report.py's CONFIG_ID spell kConfigIdPattern; a test holds them to it (they
// once allowed only lowercase names, and refused the reports of --model Tiny_LM.v2).
#include <string>

namespace gpubench {

inline constexpr const char* kConfigIdPattern = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}/(cpu|cuda)/[a-z0-9-]+(/[a-z0-9-]+)*$";

bool is_workload_name(const std::string& name);

}  // namespace gpubench
