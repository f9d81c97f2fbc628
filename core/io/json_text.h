#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench {

// A report, result or trace as JSON text, never throwing on its strings: a byte that is
// not UTF-8 (a Latin-1 file name in --out, the command line, an OS message) is written
// as U+FFFD instead of losing the whole document to nlohmann's "invalid UTF-8 byte".
inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace gpubench
