#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "core/config/errors.h"
#include "support/run_command.h"
#include "workloads/data/idx_file.h"
#include "workloads/data/mnist.h"

namespace gpubench {
namespace {

std::vector<std::uint8_t> idx_bytes(std::vector<std::uint32_t> dims, const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> bytes = {0, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
  for (auto d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<std::uint8_t>(d >> shift));
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

void write(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string error_of(const std::string& path) {
  try {
    read_idx_file(path);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

class IdxFiles : public ::testing::Test {
 protected:
  std::string dir = test_support::make_temp_dir("idx");
};

TEST_F(IdxFiles, ReadsDimsAndData) {
  write(dir + "/a", idx_bytes({2, 3}, {1, 2, 3, 4, 5, 6}));
  const IdxArray array = read_idx_file(dir + "/a");
  EXPECT_EQ(array.dims, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(std::vector<std::uint8_t>(array.data(), array.data() + array.elements),
            (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}));
}

TEST_F(IdxFiles, CorruptFilesGiveErrorsNamingFileAndProblem) {
  write(dir + "/missing-data", idx_bytes({2, 3}, {1, 2, 3}));
  EXPECT_NE(error_of(dir + "/missing-data").find("truncated: 3 data bytes, header promises 6"), std::string::npos);
  write(dir + "/trailing", idx_bytes({2}, {1, 2, 3}));
  EXPECT_NE(error_of(dir + "/trailing").find("1 trailing bytes"), std::string::npos);
  write(dir + "/magic", {1, 2, 8, 1, 0, 0, 0, 1, 5});
  EXPECT_NE(error_of(dir + "/magic").find("bad magic"), std::string::npos);
  write(dir + "/type", {0, 0, 0x0D, 1, 0, 0, 0, 1, 5});
  EXPECT_NE(error_of(dir + "/type").find("element type code 13"), std::string::npos);
  write(dir + "/short", {0, 0});
  EXPECT_NE(error_of(dir + "/short").find("truncated"), std::string::npos);
  write(dir + "/header", {0, 0, 8, 3, 0, 0});
  EXPECT_NE(error_of(dir + "/header").find("inside its header"), std::string::npos);
  EXPECT_NE(error_of(dir + "/nope").find("cannot read IDX file"), std::string::npos);
  // Regular files only: a directory, a device that never ends, a FIFO that never answers.
  std::filesystem::create_directory(dir + "/a-directory");
  EXPECT_NE(error_of(dir + "/a-directory").find("it is a directory"), std::string::npos);
  EXPECT_NE(error_of("/dev/zero").find("not a regular file"), std::string::npos);
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  EXPECT_NE(error_of(dir + "/fifo").find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of(dir + "/header").find(dir + "/header"), std::string::npos) << "names the file";
}

TEST_F(IdxFiles, MnistLoaderNormalisesAndChecksConsistency) {
  std::vector<std::uint8_t> pixels(3 * 28 * 28, 0);
  pixels[0] = 255;
  write(dir + "/" + kMnistImagesFile, idx_bytes({3, 28, 28}, pixels));
  write(dir + "/" + kMnistLabelsFile, idx_bytes({3}, {7, 0, 9}));
  const auto data = load_mnist_idx(dir);
  EXPECT_EQ(data.inputs().sizes(), (std::vector<int64_t>{3, 1, 28, 28}));
  EXPECT_NEAR(data.inputs()[0][0][0][0].item<float>(), (1.0 - 0.1307) / 0.3081, 1e-5);
  EXPECT_NEAR(data.inputs()[0][0][0][1].item<float>(), -0.1307 / 0.3081, 1e-5);
  EXPECT_TRUE(torch::equal(data.targets(), torch::tensor({7, 0, 9}, torch::kInt64)));

  write(dir + "/" + kMnistLabelsFile, idx_bytes({2}, {7, 0}));
  EXPECT_THROW(load_mnist_idx(dir), UsageError) << "count mismatch";
  write(dir + "/" + kMnistLabelsFile, idx_bytes({3}, {7, 0, 12}));
  EXPECT_THROW(load_mnist_idx(dir), UsageError) << "label out of range";
  write(dir + "/" + kMnistImagesFile, idx_bytes({3, 28, 27}, std::vector<std::uint8_t>(3 * 28 * 27)));
  EXPECT_THROW(load_mnist_idx(dir), UsageError) << "wrong image shape";
  EXPECT_THROW(load_mnist_idx(dir + "/absent"), UsageError);
}

// The preset's dataset size is honoured: a 300k-image file was used whole, whatever the
// preset.
TEST_F(IdxFiles, MnistLoaderTakesThePresetsShareOfTheFile) {
  write(dir + "/" + kMnistImagesFile, idx_bytes({3, 28, 28}, std::vector<std::uint8_t>(3 * 28 * 28, 9)));
  write(dir + "/" + kMnistLabelsFile, idx_bytes({3}, {7, 0, 9}));
  const auto data = load_mnist_idx(dir, 2);
  EXPECT_EQ(data.inputs().size(0), 2);
  EXPECT_TRUE(torch::equal(data.targets(), torch::tensor({7, 0}, torch::kInt64)));
  EXPECT_NE(data.source().find("(2 of 3 images)"), std::string::npos) << data.source();
  EXPECT_EQ(load_mnist_idx(dir, 10).inputs().size(0), 3);
}

// A file too large to convert is refused before the conversion, naming the file, its size
// and the memory it needs. Sparse files: 40 GB of images that take no disk.
TEST_F(IdxFiles, MnistTooLargeForMemoryIsRefusedUpFront) {
  const std::uint32_t count = 50'000'000;
  const auto sparse = [&](const std::string& name, std::vector<std::uint32_t> dims, std::uint64_t elements) {
    std::vector<std::uint8_t> header = idx_bytes(dims, {});
    write(dir + "/" + name, header);
    std::filesystem::resize_file(dir + "/" + name, header.size() + elements);
  };
  sparse(kMnistImagesFile, {count, 28, 28}, std::uint64_t{count} * 28 * 28);
  sparse(kMnistLabelsFile, {count}, count);
  if (available_memory_bytes() == 0 || available_memory_bytes() / 2 > std::uint64_t{count} * 3144)
    GTEST_SKIP() << "this machine has room for 50 M MNIST images";
  try {
    (void)load_mnist_idx(dir);
    ADD_FAILURE() << "converted 50 M images";
  } catch (const UsageError& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find(kMnistImagesFile), std::string::npos) << text;
    EXPECT_NE(text.find("(39200000016 bytes): its 50000000 images need 149917 MiB as float"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace gpubench
