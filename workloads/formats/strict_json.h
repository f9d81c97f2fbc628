#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpubench {

// JSON from an untrusted file (a safetensors header, an index, a config.json), parsed into
// a DOM with two refusals nlohmann's default parse does not make:
// - a key repeated in one object: nlohmann keeps the last copy silently, so two readers
//   (ours and Python's) could disagree about which tensor a name means;
// - nesting deeper than max_depth: none of these formats nests more than a few levels, and
//   a 100 MB header of '[' would otherwise build 100 million nested arrays.
// Text that is not JSON, or not UTF-8 inside strings, is refused too. Time is near-linear in the
// text, also for one object of a million entries (a 100 MB safetensors header of small
// entries parses in seconds). Every refusal is a
// UsageError "WHAT: problem", WHAT naming the file (e.g. "safetensors file 'a.safetensors'").
// `max_array_items`: an array longer than that is refused while the text is read, before a
// DOM holds it (a safetensors shape of 49.5M entries took 2.69 GB and 7.9 s to build, and
// was refused only then for its rank).
nlohmann::json parse_strict_json(std::string_view text, std::size_t max_depth, const std::string& what,
                                 std::size_t max_array_items = SIZE_MAX);

// A JSON integer >= 0 (written without a fraction or exponent), or nothing: 3.0, -1 and
// true are not counts.
std::optional<std::uint64_t> json_count(const nlohmann::json& value);

// A value shown in a message: its JSON text, shortened.
std::string json_excerpt(const nlohmann::json& value);

}  // namespace gpubench
