#include "cli/progress_lines.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/io/printable.h"
#include "reports/report_format.h"

namespace gpubench {

std::string ProgressLines::fitted(const std::string& line) const {
  // Cut by code points, not bytes: a reason can hold UTF-8 (a path, a model's name).
  if (width_ == 0) return line;
  std::vector<std::size_t> starts;  // where each code point begins
  for (std::size_t at = 0; at < line.size(); ++at)
    if ((static_cast<unsigned char>(line[at]) & 0xC0) != 0x80) starts.push_back(at);
  if (starts.size() <= width_) return line;
  return line.substr(0, starts[width_ > 3 ? width_ - 3 : 0]) + "...";
}

std::optional<std::string> ProgressLines::row(std::size_t index, std::size_t total, const nlohmann::json& row) {
  const std::string id = row.value("config_id", "?"), status = row.value("status", "?"), reason = row.value("reason", "");
  if (status == "skipped") {
    // Reasons that name their own config ("... or name llama/cpu/bf16") group as one.
    std::string key = reason;
    for (std::size_t at = key.find(id); !id.empty() && at != std::string::npos; at = key.find(id, at + 4))
      key.replace(at, id.size(), "{id}");
    Skipped& group = skipped_[key];
    if (group.count++ == 0) {
      group.example = id;
      group.reason = reason;
      group.first_seen = skipped_.size();
    }
    return std::nullopt;
  }
  std::string line = fmt::format("[{}/{}] {:<34} {}", index + 1, total, id, status);
  if (row.contains("throughput"))
    line += fmt::format("  {} samples/s  ({:.1f} s)", format_rate(row["throughput"]["samples_per_s"].value("median", 0.0)),
                        row.value("child_wall_s", 0.0));
  if (!reason.empty()) line += "  " + reason;
  return fitted(one_line(line));  // a reason quotes a child
}

std::vector<std::string> ProgressLines::summary() const {
  std::vector<std::pair<std::string, Skipped>> groups(skipped_.begin(), skipped_.end());
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return a.second.count != b.second.count ? a.second.count > b.second.count : a.second.first_seen < b.second.first_seen;
  });
  std::vector<std::string> lines;
  for (const auto& [key, group] : groups)
    lines.push_back(fitted(one_line(group.count == 1 ? fmt::format("1 config skipped: {}: {}", group.example, group.reason)
                                                     : fmt::format("{} configs skipped (e.g. {}): {}", group.count,
                                                                   group.example, group.reason))));
  return lines;
}

}  // namespace gpubench
