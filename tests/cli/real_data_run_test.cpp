// End to end: the standard workloads on real data a user points --data at, a small
// ImageFolder tree of JPEG/PNG files and a nanoGPT train.bin written here, through the
// CLI as a user runs it; and bad data refused before anything is measured.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/image_files.h"
#include "support/mnist_files.h"
#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::run_command;

std::string image_tree() {
  const std::string root = test_support::make_temp_dir("imagefolder");
  for (int c = 0; c < 3; ++c) {
    const std::string folder = root + "/class" + std::to_string(c);
    fs::create_directories(folder);
    for (int i = 0; i < 2; ++i) {
      test_support::write_bytes(folder + "/" + std::to_string(i) + ".jpg", test_support::encode_jpeg(160 + 40 * i, 120, 60 * c));
    }
    test_support::write_bytes(folder + "/extra.png", test_support::encode_png(90, 90, 60 * c));
  }
  return root;
}

std::string token_file(std::size_t tokens) {
  const std::string path = test_support::make_temp_dir("tokens") + "/train.bin";
  std::vector<std::uint16_t> ids(tokens);
  for (std::size_t i = 0; i < tokens; ++i) ids[i] = static_cast<std::uint16_t>((i * 7919) % 50257);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(ids.data()), static_cast<std::streamsize>(tokens * 2));
  return path;
}

nlohmann::json run_ok(const std::string& args, const std::string& id) {
  const std::string out = test_support::make_temp_dir("realdata") + "/report.json";
  const auto result = run_command(std::string(GPUBENCH_EXE) + " " + args + " --out " + out + " --format json --threads 2");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json report = test_support::read_json(out);
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const nlohmann::json* row = test_support::find_row(report, id);
  return row ? *row : nlohmann::json();
}

TEST(RealData, ResNet50TrainsOnAnImageFolderTreeDecodedInLoaderWorkers) {
  const std::string tree = image_tree();
  const nlohmann::json row = run_ok("--matrix resnet50/cpu/fp32 --data resnet50=" + tree +
                                        " --steps 2 --warmup 1 --batch-size 3 --workers 2",
                                    "resnet50/cpu/fp32");
  ASSERT_EQ(row.value("status", ""), "ok") << row.dump();
  EXPECT_EQ(row["workload"]["parameters"], 25557032);
  EXPECT_EQ(row["workload"]["batch_size"], 3);
  EXPECT_EQ(row["workload"]["dataset_samples"], 9);
  EXPECT_NE(row["workload"]["data_source"].get<std::string>().find("image-folder:" + tree + " (9 of 9 images, 3 classes"),
            std::string::npos)
      << row["workload"]["data_source"];
  EXPECT_TRUE(row["checkpoint"]["outputs_equal"].get<bool>());
}

TEST(RealData, Gpt2TrainsOnANanoGptTokenFile) {
  const std::string bin = token_file(40000);
  const nlohmann::json row = run_ok("--matrix gpt2/cpu/fp32 --data gpt2=" + bin + " --steps 1 --warmup 0", "gpt2/cpu/fp32");
  ASSERT_EQ(row.value("status", ""), "ok") << row.dump();
  EXPECT_EQ(row["workload"]["parameters"], 124475904);
  EXPECT_EQ(row["workload"]["batch_size"], 1) << "the CPU batch";
  EXPECT_EQ(row["workload"]["tokens_per_sample"], 1024);
  EXPECT_NE(row["workload"]["data_source"].get<std::string>().find("token-file:" + bin + " (2048 random windows of 1025"),
            std::string::npos)
      << row["workload"]["data_source"];
  EXPECT_NE(row["flops"]["convention"].get<std::string>().find("6 N + 12 L H Q T"), std::string::npos);
  EXPECT_DOUBLE_EQ(row["flops"]["training_per_sample"].get<double>(), 855383040.0 * 1024);
  EXPECT_NEAR(row["throughput"]["tokens_per_s"]["median"].get<double>(),
              1024 * row["throughput"]["samples_per_s"]["median"].get<double>(), 1e-6);
}

// A large IDX file is mapped, and only the preset's share of it converted: a 2.35 GB file
// drove the process to 24 GB, a 300k-image one peaked at 20x its size. Here 2 M images
// (1.6 GB, sparse: no disk) train as the preset's few thousand, in well under 1 GB.
TEST(RealData, ALargeMnistFileIsMappedAndThePresetsShareUsed) {
  const std::string mnist = test_support::mnist_folder(2'000'000, /*sparse=*/true);
  const nlohmann::json row = run_ok("--matrix mlp/cpu/fp32 --data mlp=" + mnist + " --preset quick --steps 1 --warmup 0",
                                    "mlp/cpu/fp32");
  ASSERT_EQ(row.value("status", ""), "ok") << row.dump();
  EXPECT_LT(row["workload"]["dataset_samples"].get<std::int64_t>(), 100000);
  EXPECT_NE(row["workload"]["data_source"].get<std::string>().find(" of 2000000 images)"), std::string::npos)
      << row["workload"]["data_source"];
  EXPECT_LT(row["memory"]["host_peak_rss_bytes"].get<double>(), 1e9) << "the config's process";
  fs::remove_all(mnist);
}

TEST(RealData, BadDataIsRefusedUpFrontNamingTheFile) {
  const std::string tree = image_tree();
  const std::string corrupt = tree + "/class1/broken.jpg";
  const std::string jpeg = test_support::encode_jpeg(200, 200, 1);
  test_support::write_bytes(corrupt, jpeg.substr(0, jpeg.size() / 3));
  const auto images = run_command(std::string(GPUBENCH_EXE) + " --matrix resnet50/cpu/fp32 --data resnet50=" + tree +
                                  " --out /dev/null");
  EXPECT_EQ(images.exit_code, 2) << images.output;
  EXPECT_NE(images.output.find("image '" + corrupt + "' cannot be decoded"), std::string::npos) << images.output;
  EXPECT_EQ(images.output.find("[1/1]"), std::string::npos) << "nothing ran";

  const std::string bin = token_file(2000);  // long enough, with one id past the vocabulary
  {
    std::fstream file(bin, std::ios::in | std::ios::out | std::ios::binary);
    const std::uint16_t bad = 60000;
    file.seekp(2 * 1500);
    file.write(reinterpret_cast<const char*>(&bad), 2);
  }
  const auto tokens = run_command(std::string(GPUBENCH_EXE) + " --matrix gpt2/cpu/fp32 --data " + bin + " --out /dev/null");
  EXPECT_EQ(tokens.exit_code, 2) << tokens.output;
  EXPECT_NE(tokens.output.find("--data gpt2='" + bin + "' has token id 60000 at token 1500 (byte offset 3000): expected "
                               "ids below the vocabulary (50304)"),
            std::string::npos)
      << tokens.output;
  const auto short_file = run_command(std::string(GPUBENCH_EXE) + " --matrix gpt2/cpu/fp32 --data gpt2=" +
                                      token_file(1000) + " --out /dev/null");
  EXPECT_EQ(short_file.exit_code, 2) << short_file.output;
  EXPECT_NE(short_file.output.find("holds 1000 tokens, fewer than one window of 1025"), std::string::npos)
      << short_file.output;
}

// A token file is checked against the windows of the device the config trains on: llama's CPU
// rows train 128 tokens of its GPU rows' 2048, and a 500-token file was refused for the CPU
// row as "fewer than one window of 2049" (issue 61, item 23). The GPU rows, skipped here,
// read nothing.
TEST(RealData, ATokenFileIsCheckedAgainstTheSequenceItsConfigsTrain) {
  const std::string path = test_support::make_temp_dir("tokens") + "/llama.bin";
  std::vector<std::uint32_t> ids(500);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>((i * 7919) % 128000);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(ids.data()), static_cast<std::streamsize>(ids.size() * 4));
  const auto cpu = run_command(std::string(GPUBENCH_EXE) + " --matrix llama/cpu/fp32,llama/cuda/amp-bf16/pinned --data llama=" +
                               path + " --batch-size 2 --list");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_EQ(cpu.output.find("fewer than one window"), std::string::npos) << cpu.output;
  const auto longer = run_command(std::string(GPUBENCH_EXE) + " --matrix llama/cpu/fp32 --seq-len llama=1024 --data llama=" +
                                  path + " --list");
  EXPECT_EQ(longer.exit_code, 2) << longer.output;
  EXPECT_NE(longer.output.find("holds 500 tokens, fewer than one window of 1025"), std::string::npos) << longer.output;
}

}  // namespace
}  // namespace gpubench
