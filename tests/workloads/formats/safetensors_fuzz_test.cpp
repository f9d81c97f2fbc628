// Random damage to a valid .safetensors file: each damaged file either reads (and then
// every tensor it lists converts) or is refused with UsageError. Never another exception,
// a crash, or a read outside the mapping (the invariants below are what keep reads inside;
// run under valgrind with GPUBENCH_FUZZ_ITERATIONS=300 for the memory side).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "workloads/formats/safetensors_bytes.h"
#include "workloads/formats/safetensors_file.h"

namespace gpubench {
namespace {

using namespace test_support;

std::size_t env_count(const char* name, std::size_t fallback) {
  const char* text = std::getenv(name);
  return text ? std::strtoull(text, nullptr, 10) : fallback;
}

class Mutator {
 public:
  Mutator(Bytes base, std::uint64_t seed) : base_(std::move(base)), random_(seed) {}

  // One damaged copy of the base file; `kind` says how.
  Bytes next(std::string& kind) {
    Bytes bytes = base_;
    const std::size_t header_end = 8 + header_length(bytes);
    switch (pick(7)) {
      case 0:
        kind = "byte flips";
        for (std::size_t n = 1 + pick(4); n > 0; --n) bytes[pick(bytes.size())] ^= std::uint8_t(1 + pick(255));
        break;
      case 1:
        kind = "header byte flips";
        for (std::size_t n = 1 + pick(3); n > 0; --n) bytes[8 + pick(header_end - 8)] ^= std::uint8_t(1 + pick(255));
        break;
      case 2:
        kind = "truncation";
        bytes.resize(pick(bytes.size()));
        break;
      case 3:
        kind = "header length";
        set_header_length(bytes, pick(2) ? header_end - 8 + pick(33) - 16 : random_());
        break;
      case 4:
        kind = "json edit";
        bytes = edit_json(bytes, header_end);
        break;
      case 5:
        kind = "number edit";
        bytes = edit_number(bytes, header_end);
        break;
      default:
        kind = "appended bytes";
        for (std::size_t n = 1 + pick(16); n > 0; --n) bytes.push_back(std::uint8_t(pick(256)));
        break;
    }
    return bytes;
  }

 private:
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(random_); }
  static std::uint64_t header_length(const Bytes& bytes) {
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
    return n;
  }
  static void set_header_length(Bytes& bytes, std::uint64_t n) {
    for (int i = 0; i < 8; ++i) bytes[i] = std::uint8_t(n >> (8 * i));
  }
  // Rebuilds the file around an edited header; usually with the length fixed to match,
  // sometimes not.
  Bytes rebuilt(const Bytes& bytes, std::size_t header_end, const std::string& header) {
    Bytes out = file_bytes(header, Bytes(bytes.begin() + header_end, bytes.end()));
    if (pick(8) == 0) set_header_length(out, header_end - 8);
    return out;
  }
  Bytes edit_json(const Bytes& bytes, std::size_t header_end) {
    std::string header(bytes.begin() + 8, bytes.begin() + header_end);
    static const std::string tokens[] = {"{", "}", "[", "]", "\"", ",", ":", "-", "0", "9", ".", "e", "null",
                                         "\"F32\"", "\"BF16\"", "\"I64\"", "\"BOOL\"", "\"F8_E4M3\"", "\xff", "\\u0000"};
    const std::size_t at = pick(header.size() + 1);
    switch (pick(3)) {
      case 0: header.insert(at, tokens[pick(std::size(tokens))]); break;
      case 1: header.erase(std::min(at, header.size() - 1), 1 + pick(4)); break;
      default: {  // swap one dtype for another: element sizes stop matching the ranges
        const std::size_t found = header.find("\"F", at < header.size() ? at : 0);
        if (found != std::string::npos) header.replace(found, 4, tokens[13 + pick(5)]);
      }
    }
    return rebuilt(bytes, header_end, header);
  }
  Bytes edit_number(const Bytes& bytes, std::size_t header_end) {
    std::string header(bytes.begin() + 8, bytes.begin() + header_end);
    std::vector<std::size_t> digits;
    for (std::size_t i = 0; i < header.size(); ++i)
      if (std::isdigit(static_cast<unsigned char>(header[i])) && (i == 0 || !std::isdigit(static_cast<unsigned char>(header[i - 1]))))
        digits.push_back(i);
    static const std::string numbers[] = {"0", "1", "-1", "3.5", "1e400", "18446744073709551615", "18446744073709551616",
                                          "9223372036854775807", "4611686018427387904", "99999999999", "2", "7"};
    if (!digits.empty()) {
      const std::size_t at = digits[pick(digits.size())];
      std::size_t end = at;
      while (end < header.size() && std::isdigit(static_cast<unsigned char>(header[end]))) ++end;
      header.replace(at, end - at, pick(3) ? std::to_string(pick(80)) : numbers[pick(std::size(numbers))]);
    }
    return rebuilt(bytes, header_end, header);
  }

  Bytes base_;
  std::mt19937_64 random_;
};

// What keeps every read inside the mapping, checked from the outside: each range lies in
// the data section the file's own length field implies.
void expect_ranges_inside(const SafetensorsFile& file, const Bytes& bytes, const std::string& kind) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  const std::uint64_t data_bytes = bytes.size() - 8 - n;
  std::uint64_t covered = 0;
  for (const auto& entry : file.entries()) {
    EXPECT_LE(entry.begin, entry.end) << kind;
    EXPECT_LE(entry.end, data_bytes) << kind;
    covered += entry.end - entry.begin;
  }
  EXPECT_EQ(covered, data_bytes) << kind;  // with no overlaps, the sizes add up to the section
}

// The header parser on a heap copy of exactly the header's bytes (no terminator after
// them): under valgrind a read past the header shows here, where in the mapping it would
// land unseen in the rest of the page.
void expect_header_read_in_bounds(const Bytes& bytes, const std::string& where) {
  if (bytes.size() < 8) return;
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n > bytes.size() - 8) return;
  const auto header = std::make_unique<char[]>(n);
  std::copy(bytes.begin() + 8, bytes.begin() + 8 + n, header.get());
  try {
    parse_safetensors_header(std::string_view(header.get(), n), bytes.size() - 8 - n, "fuzz");
  } catch (const UsageError&) {
  } catch (const std::exception& error) {
    ADD_FAILURE() << where << ": header parse: " << typeid(error).name() << ": " << error.what();
  }
}

TEST(SafetensorsFuzz, DamagedFilesReadOrAreRefusedWithUsageError) {
  const std::string dir = make_temp_dir("safetensors-fuzz");
  const std::string path = dir + "/fuzz.safetensors";
  const Bytes base = safetensors_bytes(mixed_tensors(), {{"format", "pt"}});
  write_bytes(path, base);
  ASSERT_NO_THROW(SafetensorsFile{path});
  const std::size_t iterations = env_count("GPUBENCH_FUZZ_ITERATIONS", 3000);
  const std::uint64_t seed = env_count("GPUBENCH_FUZZ_SEED", 20240611);
  Mutator mutator(base, seed);
  std::map<std::string, std::pair<int, int>> outcomes;  // kind -> (read, refused)
  for (std::size_t i = 0; i < iterations; ++i) {
    std::string kind;
    const Bytes bytes = mutator.next(kind);
    write_bytes(path, bytes);
    const std::string where = kind + " (iteration " + std::to_string(i) + ", seed " + std::to_string(seed) + ")";
    expect_header_read_in_bounds(bytes, where);
    try {
      const SafetensorsFile file(path);
      expect_ranges_inside(file, bytes, where);
      for (const auto& entry : file.entries()) {
        const bool weight = entry.dtype == "F32" || entry.dtype == "BF16" || entry.dtype == "F16";
        if (weight) {
          EXPECT_EQ(file.tensor(entry.name).numel(), entry.numel()) << where;
        } else {
          EXPECT_THROW(file.tensor(entry.name), UsageError) << where;
          try {
            EXPECT_EQ(file.stored_tensor(entry.name).numel(), entry.numel()) << where;
          } catch (const UsageError&) {  // a dtype LibTorch has no plain type for (BOOL, U16, F8...)
          }
        }
      }
      ++outcomes[kind].first;
    } catch (const UsageError&) {
      ++outcomes[kind].second;
    } catch (const std::exception& error) {
      ADD_FAILURE() << where << ": " << typeid(error).name() << ": " << error.what();
    } catch (...) {
      ADD_FAILURE() << where << ": an exception that is not a std::exception";
    }
  }
  int read = 0;
  for (const auto& [kind, counts] : outcomes) {
    std::cout << "  " << kind << ": " << counts.first << " read, " << counts.second << " refused\n";
    read += counts.first;
  }
  std::cout << "  " << iterations << " damaged files, seed " << seed << ": " << read << " read\n";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
