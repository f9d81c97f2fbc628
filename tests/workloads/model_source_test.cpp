// What a --model path names, told before anything reads it: a FIFO (or a link to one) was
// opened to look for a zip signature and blocked forever; a device, an empty folder or a
// legacy torch.save pickle was called "a config.json model" or a config that is not JSON.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "workloads/model_registry.h"
#include "workloads/model_source.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

class ModelSourceTest : public ::testing::Test {
 protected:
  std::string dir = test_support::make_temp_dir("model-source");
  void TearDown() override { fs::remove_all(dir); }

  // register_models' refusal of --model s=PATH (with a classification task when `task`),
  // "" when it accepts. Run aside with a hang guard: a path that blocks the open would
  // otherwise hang the test binary instead of failing it.
  static std::string refusal(const std::string& path, bool task = false) {
    RunSettings settings;
    settings.model_paths["s"] = path;
    if (task) {
      settings.model_inputs["s"] = {3, 8, 8};
      settings.model_classes["s"] = 10;
    }
    auto outcome = std::make_shared<std::promise<std::string>>();
    std::future<std::string> said = outcome->get_future();
    std::thread([outcome, settings] {
      try {
        register_models(settings);
        outcome->set_value("");
      } catch (const UsageError& error) {
        outcome->set_value(error.what());
      } catch (const std::exception& error) {
        outcome->set_value(std::string("not a UsageError: ") + error.what());
      }
    }).detach();  // one still blocked at the bound stays behind; the process exits over it
    if (said.wait_for(std::chrono::seconds(60)) != std::future_status::ready) return "still blocked after 60 s";
    return said.get();
  }
};

#define EXPECT_MENTIONS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(ModelSourceTest, AFifoOrALinkToOneIsRefusedWithoutWaitingOnIt) {
  ASSERT_EQ(::mkfifo((dir + "/f.pt").c_str(), 0600), 0);
  fs::create_symlink(dir + "/f.pt", dir + "/link.pt");
  for (const std::string& path : {dir + "/f.pt", dir + "/link.pt"}) {
    for (const bool task : {false, true}) {
      const std::string why = refusal(path, task);
      EXPECT_MENTIONS(why, "--model s='" + path + "' is a FIFO: expected a TorchScript archive");
    }
  }
}

TEST_F(ModelSourceTest, ADeviceAnEmptyFolderAndALegacyPickleAreNamedForWhatTheyAre) {
  EXPECT_MENTIONS(refusal("/dev/zero", true), "--model s='/dev/zero' is a character device: expected a TorchScript archive");
  fs::create_directories(dir + "/empty");
  for (const bool task : {false, true})
    EXPECT_MENTIONS(refusal(dir + "/empty", task), "--model s='" + dir + "/empty' is a folder without config.json");
  // torch.save(..., _use_new_zipfile_serialization=False): pickle protocol 2, torch's magic number.
  std::ofstream(dir + "/legacy.pt", std::ios::binary) << std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15);
  for (const bool task : {false, true})
    EXPECT_MENTIONS(refusal(dir + "/legacy.pt", task),
                    "--model s='" + dir + "/legacy.pt' is a Python pickle (torch.save's legacy format?)");
  std::ofstream(dir + "/config.json") << "{}";
  EXPECT_MENTIONS(refusal(dir + "/config.json", true), "is a config.json file (a config.json model), not a TorchScript archive");
  EXPECT_MENTIONS(refusal(dir + "/missing"), "is neither a folder holding config.json nor a config.json file");
}

TEST_F(ModelSourceTest, ClassifiesByContentNotByName) {
  std::ofstream(dir + "/model.json", std::ios::binary) << std::string("PK\x03\x04rest", 8);
  EXPECT_EQ(classify_model_path("s", dir + "/model.json"), ModelSource::TorchScriptArchive);
  std::ofstream(dir + "/model.pt") << "{\"model_type\": \"llama\"}";
  EXPECT_EQ(classify_model_path("s", dir + "/model.pt"), ModelSource::ConfigFile);
  std::ofstream(dir + "/config.json") << "{}";
  EXPECT_EQ(classify_model_path("s", dir), ModelSource::ConfigFolder);
}

}  // namespace
}  // namespace gpubench
