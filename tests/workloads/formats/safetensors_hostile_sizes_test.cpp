// Safetensors files whose size works against the reader: a header of hundreds of thousands
// of entries (inside the 100 MB limit) and a file cut while it is open.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <thread>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "workloads/formats/safetensors_bytes.h"
#include "workloads/formats/safetensors_file.h"

namespace gpubench {
namespace {

using namespace test_support;

class SafetensorsHostileSizes : public ::testing::Test {
 protected:
  std::string dir = make_temp_dir("safetensors-sizes");
  void TearDown() override { std::filesystem::remove_all(dir); }
};

// 400,000 zero-size entries, a 24 MB header: each costs a set and a map insertion now; the
// callback parse that was here searched the whole object once per entry (40,000 took 20 s,
// this many would take most of an hour). Not a timing assertion: the bound is a hang guard
// some hundred times what the parse takes on a loaded machine, so that the old, quadratic
// parse fails here instead of running into ctest's timeout.
TEST_F(SafetensorsHostileSizes, AHeaderOfManyEntriesParsesInNearLinearTime) {
  constexpr int kEntries = 400'000;
  std::string header = "{";
  for (int i = 0; i < kEntries; ++i)
    header += (i ? ",\"t" : "\"t") + std::to_string(i) + R"(":{"dtype":"F32","shape":[0],"data_offsets":[0,0]})";
  header += "}";
  const std::string path = dir + "/many.safetensors";
  write_bytes(path, file_bytes(header, {}));
  auto entries = std::make_shared<std::promise<std::size_t>>();
  std::future<std::size_t> parsed = entries->get_future();
  std::thread([entries, path] {
    try {
      entries->set_value(SafetensorsFile(path).entries().size());
    } catch (...) {
      entries->set_exception(std::current_exception());
    }
  }).detach();  // a parse still running at the bound is left behind; the process exits over it
  ASSERT_EQ(parsed.wait_for(std::chrono::seconds(120)), std::future_status::ready)
      << "a " << header.size() << "-byte header of " << kEntries << " entries still parsing after 120 s";
  EXPECT_EQ(parsed.get(), static_cast<std::size_t>(kEntries));
}

// A duplicate among many keys is still found (the check moved out of the DOM's build).
TEST_F(SafetensorsHostileSizes, ARepeatedKeyAmongManyIsRefused) {
  std::string header = "{";
  for (int i = 0; i < 1000; ++i) header += "\"t" + std::to_string(i) + R"(":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)";
  header += R"("t500":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}})";
  const std::string path = dir + "/twice.safetensors";
  write_bytes(path, file_bytes(header, {}));
  try {
    SafetensorsFile file(path);
    ADD_FAILURE() << "a repeated key was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("key 't500' appears twice in one JSON object"), std::string::npos) << error.what();
  }
}

// The file cut under the reader after it was opened (as a download that starts again
// truncates it while a config maps it): reading a tensor past the new end is an error
// naming the file, as token files say, where a copy from the mapping was SIGBUS.
TEST_F(SafetensorsHostileSizes, AFileCutWhileOpenIsAnErrorNamingItNotABusError) {
  const std::string path = dir + "/model.safetensors";
  const std::vector<double> values(256 * 1024, 0.5);  // 1 MiB of F32: pages past the cut
  write_bytes(path, safetensors_bytes({{"head", "F32", {1}, tensor_bytes({1}, torch::kFloat32)},
                                       {"w", "F32", {256, 1024}, tensor_bytes(values, torch::kFloat32)}}));
  const SafetensorsFile file(path);
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
  try {
    file.tensor("w");
    ADD_FAILURE() << "a tensor past the end of the cut file was read";
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("safetensors file '" + path + "' shrank during the run (was "), std::string::npos) << what;
    EXPECT_NE(what.find("now 4096)"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace gpubench
