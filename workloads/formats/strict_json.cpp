#include "workloads/formats/strict_json.h"

#include <set>
#include <vector>

#include "core/config/errors.h"
#include "workloads/formats/excerpt.h"

namespace gpubench {
namespace {

using nlohmann::json;

// The refusals made in a SAX pass, before any DOM is built. nlohmann's callback parser
// (parse() with a callback) would make them as it builds, but it searches the enclosing
// object for a discarded child after every nested object closes: quadratic in the entries
// of one object (a 200k-entry safetensors header ran for minutes). Here each event costs a
// set insertion, and the DOM is built afterwards by the plain parser, in linear time.
class StrictnessCheck final : public json::json_sax_t {
 public:
  StrictnessCheck(std::size_t max_depth, std::size_t max_array_items, const std::string& what)
      : max_depth_(max_depth), max_array_items_(max_array_items), what_(what) {}

  std::string syntax_error;  // nlohmann's message when the text is not JSON

  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    if (!open_.empty() && open_.back().object && !open_.back().keys.insert(name).second)
      throw UsageError(what_ + ": key " + excerpt(name) + " appears twice in one JSON object: expected each key once");
    return true;
  }
  bool null() override { return item(); }
  bool boolean(bool) override { return item(); }
  bool number_integer(number_integer_t) override { return item(); }
  bool number_unsigned(number_unsigned_t) override { return item(); }
  bool number_float(number_float_t, const string_t&) override { return item(); }
  bool string(string_t&) override { return item(); }
  bool binary(binary_t&) override { return item(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
    syntax_error = error.what();
    return false;
  }

 private:
  struct Open {
    bool object = false;
    std::set<std::string> keys;  // the keys seen so far, in an object
    std::size_t items = 0;       // the values seen so far, in an array
  };
  // One more value in the container that is open (counted in an array).
  bool item() {
    if (!open_.empty() && !open_.back().object && ++open_.back().items > max_array_items_)
      throw UsageError(what_ + ": a JSON array of more than " + std::to_string(max_array_items_) +
                       " items: expected at most " + std::to_string(max_array_items_));
    return true;
  }
  bool open(bool object) {
    item();
    if (open_.size() >= max_depth_)
      throw UsageError(what_ + ": JSON nested deeper than " + std::to_string(max_depth_) + " levels: expected at most " +
                       std::to_string(max_depth_));
    open_.push_back(Open{object, {}});
    return true;
  }
  bool close() {
    if (!open_.empty()) open_.pop_back();
    return true;
  }

  std::size_t max_depth_, max_array_items_;
  const std::string& what_;
  std::vector<Open> open_;
};

UsageError not_json(const std::string& what, std::string detail) {
  // nlohmann's message quotes the bytes it read last: keep it, shortened.
  if (detail.size() > 300) detail = detail.substr(0, 300) + "...";
  return UsageError(what + ": not valid JSON (UTF-8 text expected): " + detail);
}

}  // namespace

nlohmann::json parse_strict_json(std::string_view text, std::size_t max_depth, const std::string& what,
                                 std::size_t max_array_items) {
  // nlohmann's lexer takes a raw NUL as the end of the input, so "{}\0anything" would
  // parse; JSON has no raw NUL anywhere (in a string it must be escaped).
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw UsageError(what + ": not valid JSON (UTF-8 text expected): a NUL byte at offset " + std::to_string(nul));
  // nlohmann skips a UTF-8 byte-order mark; Python's json.loads and the safetensors
  // library refuse one, so it is refused here too.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    throw UsageError(what + ": not valid JSON (UTF-8 text expected): it starts with a byte-order mark");
  StrictnessCheck check(max_depth, max_array_items, what);
  if (!json::sax_parse(text.begin(), text.end(), &check)) throw not_json(what, check.syntax_error);
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& error) {  // the check above has seen the same text parse
    throw not_json(what, error.what());
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
