#include "workloads/formats/strict_json.h"

#include <set>
#include <vector>

#include "core/config/errors.h"
#include "workloads/formats/excerpt.h"

namespace gpubench {

nlohmann::json parse_strict_json(std::string_view text, std::size_t max_depth, const std::string& what) {
  using Event = nlohmann::json::parse_event_t;
  // One entry per open object or array; the keys seen so far in each open object.
  struct Open {
    bool object = false;
    std::set<std::string> keys;
  };
  std::vector<Open> open;
  const auto on_event = [&](int, Event event, nlohmann::json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (open.size() >= max_depth)
          throw UsageError(what + ": JSON nested deeper than " + std::to_string(max_depth) +
                           " levels: expected at most " + std::to_string(max_depth));
        open.push_back(Open{event == Event::object_start, {}});
        break;
      case Event::object_end:
      case Event::array_end:
        if (!open.empty()) open.pop_back();
        break;
      case Event::key:
        if (!open.empty() && open.back().object && parsed.is_string() &&
            !open.back().keys.insert(parsed.get_ref<const std::string&>()).second)
          throw UsageError(what + ": key " + excerpt(parsed.get_ref<const std::string&>()) +
                           " appears twice in one JSON object: expected each key once");
        break;
      case Event::value:
        break;
    }
    return true;
  };
  // nlohmann's lexer takes a raw NUL as the end of the input, so "{}\0anything" would
  // parse; JSON has no raw NUL anywhere (in a string it must be escaped).
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw UsageError(what + ": not valid JSON (UTF-8 text expected): a NUL byte at offset " + std::to_string(nul));
  // nlohmann skips a UTF-8 byte-order mark; Python's json.loads and the safetensors
  // library refuse one, so it is refused here too.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    throw UsageError(what + ": not valid JSON (UTF-8 text expected): it starts with a byte-order mark");
  try {
    return nlohmann::json::parse(text.begin(), text.end(), on_event);
  } catch (const nlohmann::json::exception& error) {
    // nlohmann's message quotes the bytes it read last: keep it, shortened.
    std::string detail = error.what();
    if (detail.size() > 300) detail = detail.substr(0, 300) + "...";
    throw UsageError(what + ": not valid JSON (UTF-8 text expected): " + detail);
  }
}

std::optional<std::uint64_t> json_count(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  return std::nullopt;
}

std::string json_excerpt(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= 80) return text;
  return text.substr(0, 80) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace gpubench
