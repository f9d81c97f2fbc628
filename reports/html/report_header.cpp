#include "reports/html/report_header.h"

#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace gpubench {
namespace {

using nlohmann::json;

// SAX events: depth 1 is the report object's own members. Returning false stops the parse.
class CreatedScanner : public json::json_sax_t {
 public:
  std::string created;

  bool key(string_t& name) override {
    wanted_ = depth_ == 1 && name == "created_utc";
    return true;
  }
  bool string(string_t& value) override {
    if (!wanted_) return true;
    created = value;
    return false;  // found: stop reading
  }
  bool start_object(std::size_t) override { return enter(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool end_array() override { return leave(); }
  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  int depth_ = 0;
  bool wanted_ = false;

  bool enter() {
    // A created_utc that is an object or array is no date: stop, leaving it empty.
    if (wanted_) return false;
    ++depth_;
    return true;
  }
  bool leave() {
    --depth_;
    return true;
  }
  bool scalar() {
    if (wanted_) return false;  // a created_utc that is not a string
    return true;
  }
};

}  // namespace

std::string scan_created_utc(const std::string& path) {
  // A regular file only (after links): opening a FIFO, or a link to one, waits for a writer
  // that never comes; the full load that follows names what it is.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  CreatedScanner scanner;
  try {
    json::sax_parse(in, &scanner);
  } catch (const json::exception&) {
    return "";
  }
  return scanner.created;
}

}  // namespace gpubench
