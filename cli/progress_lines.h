#pragma once
// What the terminal hears of a matrix as it runs: a line per config that ran (ok or failed),
// cut to the terminal's width, and the skipped configs grouped by reason, each reason said
// once at the end with its count ("112 configs skipped: no CUDA device ..."): a machine
// without a GPU skips most of `--matrix all`, and a line per skipped config buried the rows
// that were measured. The report keeps every row's full reason.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

class ProgressLines {
 public:
  // `width`: the columns a line may take (0: no limit, as when stderr is not a terminal).
  explicit ProgressLines(std::size_t width) : width_(width) {}
  // The line for config `index` of `total` that ran, nothing for a skipped one (counted for
  // summary()).
  std::optional<std::string> row(std::size_t index, std::size_t total, const nlohmann::json& row);
  // One line per skip reason, the most common first: "N configs skipped: REASON (e.g. ID)".
  std::vector<std::string> summary() const;

 private:
  std::string fitted(const std::string& line) const;
  struct Skipped {
    std::size_t count = 0;
    std::string example, reason;  // the first config's id and its reason as written
    std::size_t first_seen = 0;
  };
  std::size_t width_;
  std::map<std::string, Skipped> skipped_;  // by reason, each config's own id in it as {id}
};

}  // namespace gpubench
