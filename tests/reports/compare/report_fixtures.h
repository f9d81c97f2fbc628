#pragma once
// Small gpubench reports for compare tests.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/config/errors.h"

namespace gpubench::testing {

// `count` step times (ms), lognormal around `mean_ms` with coefficient of variation `cv`.
inline std::vector<double> step_times(std::uint32_t seed, std::size_t count, double mean_ms, double cv = 0.03) {
  std::mt19937 rng(seed);
  const double sigma = std::sqrt(std::log(1 + cv * cv));
  std::lognormal_distribution<double> noise(std::log(mean_ms) - sigma * sigma / 2, sigma);
  std::vector<double> values(count);
  for (double& v : values) v = noise(rng);
  return values;
}

inline nlohmann::json ok_result(const std::string& config_id, const std::vector<double>& step_ms,
                                int global_batch_size = 256) {
  return {{"config_id", config_id},
          {"status", "ok"},
          {"workload", {{"name", "mlp"}, {"batch_size", global_batch_size}, {"global_batch_size", global_batch_size}}},
          {"samples", {{"step_ms", step_ms}}},
          {"memory", {{"host_peak_rss_bytes", 500000000}}}};
}

inline nlohmann::json failed_result(const std::string& config_id, const std::string& status,
                                    const std::string& reason) {
  return {{"config_id", config_id}, {"status", status}, {"reason", reason}};
}

inline nlohmann::json environment() {
  return {{"cpu_model", "AMD EPYC 7B13"},
          {"cores", 2},
          {"threads", 2},
          {"torch_version", "1.13.0"},
          {"torch_cuda", false},
          {"blas", "openblas"},
          {"cuda",
           {{"available", false}, {"reason", "no driver"}, {"device_count", 0}, {"devices", nlohmann::json::array()}}},
          {"compiler", "GCC 12.2"},
          {"os", "Debian 12"}};
}

inline nlohmann::json report(const std::vector<nlohmann::json>& results, const nlohmann::json& env = environment()) {
  return {{"schema_version", 1}, {"tool", {{"name", "gpubench"}, {"version", "0.1.0"}, {"git_commit", "abc123"}}},
          {"env", env},          {"matrix", {{"spec", "all"}, {"preset", "quick"}}},
          {"results", results},  {"comparisons", nlohmann::json::array()}};
}

// Throws UsageError containing `what`.
template <typename Call>
void expect_usage_error(Call call, const std::string& what) {
  try {
    call();
    ADD_FAILURE() << "no UsageError; expected one containing: " << what;
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(what), std::string::npos) << error.what();
  }
}

// A file under the test temp dir, removed at scope exit.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(::testing::TempDir() + "gpubench_compare_" + name) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace gpubench::testing
