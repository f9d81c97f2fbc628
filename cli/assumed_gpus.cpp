#include "cli/assumed_gpus.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "core/config/errors.h"
#include "core/io/byte_units.h"

namespace gpubench {
namespace {

const char* const kForm = "expected COUNTxSIZE, e.g. 8x80GiB or 4x40GB (a count of 1 or more, a positive size in "
                          "MiB, GiB, TiB, MB, GB or TB)";


double unit_bytes(const std::string& unit) {
  if (unit == "MiB") return 1024.0 * 1024;
  if (unit == "GiB") return kGiB;
  if (unit == "TiB") return kGiB * 1024;
  if (unit == "MB") return 1e6;
  if (unit == "GB") return 1e9;
  if (unit == "TB") return 1e12;
  return 0;
}

}  // namespace

AssumedGpus parse_assumed_gpus(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return UsageError("--assume-gpus '" + text + "': " + why + ": " + kForm);
  };
  const std::size_t x = text.find('x');
  if (x == std::string::npos) throw bad("no 'x' between the count and the size");
  const std::string count = text.substr(0, x), size = text.substr(x + 1);
  if (count.empty() || count.size() > 4 || !std::all_of(count.begin(), count.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    throw bad("the count '" + count + "' is not a whole number of GPUs");
  AssumedGpus gpus;
  gpus.text = text;
  gpus.count = std::stoi(count);
  if (gpus.count < 1 || gpus.count > 1024) throw bad("a count of " + count + " GPUs");
  std::size_t number_end = 0;
  while (number_end < size.size() && (std::isdigit(static_cast<unsigned char>(size[number_end])) || size[number_end] == '.'))
    ++number_end;
  const std::string number = size.substr(0, number_end), unit = size.substr(number_end);
  if (number.empty()) throw bad(size.empty() ? "no size after the 'x'" : "the size '" + size + "' does not start with a number");
  if (unit_bytes(unit) == 0) throw bad("the size '" + size + "' has no unit it knows");
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(number, &used);
    if (used != number.size()) throw std::invalid_argument(number);
  } catch (const std::exception&) {
    throw bad("the size '" + number + "' is not a number");
  }
  gpus.bytes_each = value * unit_bytes(unit);
  if (!(gpus.bytes_each >= 1024.0 * 1024) || !std::isfinite(gpus.bytes_each)) throw bad("a GPU of " + size);
  return gpus;
}

}  // namespace gpubench
