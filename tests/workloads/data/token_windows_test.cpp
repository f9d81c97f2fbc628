// Random windows of a nanoGPT-style train.bin written here, and the synthetic stream.
#include "workloads/data/token_windows.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/config/errors.h"
#include "workloads/data/synthetic_tokens.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpubench-tokens-XXXXXX";
    dir_ = mkdtemp(pattern);
    path_ = dir_ + "/train.bin";
    std::vector<std::uint16_t> tokens(5000);
    for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::uint16_t>(i % 1000);
    write(tokens);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::vector<std::uint16_t>& tokens, std::size_t extra_bytes = 0) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(tokens.data()), static_cast<std::streamsize>(tokens.size() * 2));
    for (std::size_t i = 0; i < extra_bytes; ++i) out.put('\0');
  }
  std::string usage_error(const std::string& path, TokenWindowOptions options) const {
    try {
      open_token_file(path, options);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "";
  }

  TokenWindowOptions options_{64, 128, 5, 1000, true};
  std::string dir_, path_;
};

TEST_F(TokenFileTest, WindowsAreTheFilesTokensWithTargetsShiftedByOne) {
  const auto reader = open_token_file(path_, options_);
  ASSERT_EQ(reader->size(), 64u);
  const auto batch = reader->read_batch(std::vector<std::size_t>{0, 1, 63});
  EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{3, 128}));
  EXPECT_EQ(batch.data.dtype(), torch::kInt64);
  for (int b = 0; b < 3; ++b) {
    const auto in = batch.data[b], out = batch.target[b];
    EXPECT_TRUE(torch::equal(in.narrow(0, 1, 127), out.narrow(0, 0, 127))) << "targets are inputs shifted by one";
    // The file holds i % 1000 at position i: a window is consecutive ids (mod 1000).
    EXPECT_TRUE(torch::equal((in + 1).remainder(1000), out));
  }
  EXPECT_FALSE(torch::equal(batch.data[0], batch.data[1])) << "windows start at random places";
  EXPECT_TRUE(torch::equal(batch.data, open_token_file(path_, options_)->read_batch(std::vector<std::size_t>{0, 1, 63}).data))
      << "the same seed gives the same windows";
  EXPECT_NE(reader->source().find("token-file:" + path_), std::string::npos);
}

TEST_F(TokenFileTest, BadFilesAreRefusedUpFrontNamingTheFileAndTheProblem) {
  write(std::vector<std::uint16_t>(2000, 1), 1);
  EXPECT_NE(usage_error(path_, options_).find("has 4001 bytes, not a multiple of 2"), std::string::npos);
  write(std::vector<std::uint16_t>(128, 1));
  EXPECT_NE(usage_error(path_, options_).find("holds 128 tokens, fewer than one window of 129"), std::string::npos)
      << usage_error(path_, options_);
  std::vector<std::uint16_t> tokens(3000, 7);
  tokens[2500] = 1000;
  write(tokens);
  EXPECT_NE(usage_error(path_, options_).find("has token id 1000 at token 2500"), std::string::npos)
      << usage_error(path_, options_);
  EXPECT_NE(usage_error(dir_, options_).find("is not a regular file"), std::string::npos);
  EXPECT_NE(usage_error(dir_ + "/missing.bin", options_).find("cannot be opened"), std::string::npos);
  const std::string fifo = dir_ + "/fifo.bin";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(usage_error(fifo, options_).find("is not a regular file"), std::string::npos) << "and does not hang";
}

TEST_F(TokenFileTest, AFileThatShrinksOrHoldsABadIdMidRunFailsTheReadNamingIt) {
  std::vector<std::uint16_t> tokens(3000, 7);
  tokens[1500] = 4000;
  write(tokens);
  TokenWindowOptions unchecked = options_;
  unchecked.full_check = false;  // the config's process: the parent scanned it
  const auto reader = open_token_file(path_, unchecked);
  std::vector<std::size_t> all(64);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  try {
    reader->read_batch(all);  // 64 random windows of 129 over 3000 tokens: some cover token 1500
    FAIL() << "read id 4000 with vocabulary 1000";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("token-file:" + path_ + ": token id 4000 at token 1500"), std::string::npos)
        << error.what();
  }
  ASSERT_EQ(::truncate(path_.c_str(), 1000), 0);
  try {
    reader->read_batch(std::vector<std::size_t>{0});
    FAIL() << "read a truncated mapping";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("'" + path_ + "' shrank during the run"), std::string::npos) << error.what();
  }
}

// A vocabulary over 65536 (Llama 3's 128256) takes 4-byte ids: read as uint32, an id at or
// above the vocabulary refused naming the file, the token and its byte offset.
TEST_F(TokenFileTest, LargeVocabulariesReadUint32IdsAndNameABadOnesOffset) {
  std::vector<std::uint32_t> tokens(3000);
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::uint32_t>(100000 + i % 28000);
  const auto write32 = [&] {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(tokens.data()), static_cast<std::streamsize>(tokens.size() * 4));
  };
  write32();
  TokenWindowOptions wide{16, 64, 3, 128256, true};  // a vocabulary over 65536: 4-byte ids
  wide.data_flag = "--data smol";
  const auto batch = open_token_file(path_, wide)->read_batch(std::vector<std::size_t>{0, 1});
  EXPECT_GE(batch.data.min().item<std::int64_t>(), 100000);
  EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{2, 64}));
  tokens[1234] = 128256;
  write32();
  EXPECT_NE(usage_error(path_, wide).find("--data smol='" + path_ + "' has token id 128256 at token 1234 (byte offset 4936)"),
            std::string::npos)
      << usage_error(path_, wide);
  std::ofstream(path_, std::ios::binary | std::ios::app) << 'x';
  EXPECT_NE(usage_error(path_, wide).find("not a multiple of 4"), std::string::npos) << usage_error(path_, wide);
}

// nanoGPT's uint16 train.bin under a vocabulary over 65536 is read as uint32 ids: the
// refusal says why (an id out of range alone did not), and what the halves would be.
TEST_F(TokenFileTest, AUint16FileUnderAVocabularyOver65536SaysWhyItsIdsAreOutOfRange) {
  TokenWindowOptions wide{16, 64, 3, 128256, true};
  wide.data_flag = "--data smol";
  const std::string why = usage_error(path_, wide);  // SetUp's uint16 ids 0, 1, 2, 3, ...: 65536, 196610, ...
  EXPECT_NE(why.find("--data smol='" + path_ + "' has token id 196610 at token 1 (byte offset 4)"), std::string::npos) << why;
  EXPECT_NE(why.find("ids are read as uint32 (4 bytes each) because the vocabulary (128256) is above 65536, and this one "
                     "reads as the uint16 ids 2 and 3"),
            std::string::npos)
      << why;
}

TEST(SyntheticTokenWindows, GptTwoSizedStreamIsInVocabularySkewedAndRepeatable) {
  const auto tokens = make_skewed_markov_tokens(200000, 50257, 3);
  EXPECT_EQ(tokens, make_skewed_markov_tokens(200000, 50257, 3));
  EXPECT_NE(tokens, make_skewed_markov_tokens(200000, 50257, 4));
  std::int64_t low = 0;
  for (const std::uint32_t id : tokens) {
    ASSERT_LT(id, 50257);
    low += id < 5026 ? 1 : 0;
  }
  // Skewed: far more than a tenth of the stream is in the lowest tenth of the ids.
  EXPECT_GT(low, 200000 / 4);
  const auto reader = synthetic_token_windows(tokens, {32, 1024, 1, 50304, true});
  const auto batch = reader->read_batch(std::vector<std::size_t>{0, 31});
  EXPECT_EQ(batch.target.sizes(), (std::vector<std::int64_t>{2, 1024}));
  EXPECT_NE(reader->source().find("synthetic(seed=1)"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
