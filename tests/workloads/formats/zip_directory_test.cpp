// The zip directory reader on archives Python's zipfile writes (stored, deflated, ZIP64,
// cut short): what each entry declares is read before anything inflates, and an archive
// declaring far more than it holds (a zip bomb in a TorchScript file's clothes) is refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "core/config/errors.h"
#include "core/io/mapped_file.h"
#include "support/run_command.h"
#include "workloads/formats/zip_directory.h"

namespace gpubench {
namespace {

using test_support::run_command;

class ZipDirectoryTest : public ::testing::Test {
 protected:
  std::string dir = test_support::make_temp_dir("zip");
  void TearDown() override { std::filesystem::remove_all(dir); }

  // A zip written by the system Python's zipfile running `body` (with `z` the open ZipFile).
  std::string zip(const std::string& name, const std::string& body) {
    const std::string path = dir + "/" + name;
    const auto made = run_command("python3 -c 'import zipfile\nwith zipfile.ZipFile(\"" + path + "\", \"w\") as z:\n" + body + "'");
    EXPECT_EQ(made.exit_code, 0) << made.output;
    return path;
  }
  static std::vector<ZipEntry> entries(const std::string& path) {
    const MappedFile file(path, "zip");
    return read_zip_directory(file.data(), file.size(), "archive '" + path + "'");
  }
  static std::string refusal(const std::string& path) {
    try {
      const MappedFile file(path, "zip");
      check_declared_sizes(read_zip_directory(file.data(), file.size(), "archive '" + path + "'"), file.size(),
                           "archive '" + path + "'");
    } catch (const UsageError& error) {
      return error.what();
    }
    return "";
  }
};

TEST_F(ZipDirectoryTest, ReadsStoredDeflatedAndZip64Entries) {
  const std::string path = zip("a.zip",
                               "  z.writestr(\"m/data.pkl\", b\"x\" * 100)\n"
                               "  z.writestr(zipfile.ZipInfo(\"m/data/0\"), bytes(5000), compress_type=zipfile.ZIP_DEFLATED)\n"
                               "  with z.open(\"m/big\", \"w\", force_zip64=True) as f: f.write(b\"y\" * 7)\n"
                               "  z.comment = b\"a comment after the end record\"\n");
  const auto found = entries(path);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "m/data.pkl");
  EXPECT_EQ(found[0].method, 0);
  EXPECT_EQ(found[0].uncompressed, 100u);
  EXPECT_EQ(found[1].method, 8);
  EXPECT_EQ(found[1].uncompressed, 5000u);
  EXPECT_LT(found[1].compressed, 5000u);
  EXPECT_EQ(found[2].name, "m/big");
  EXPECT_EQ(found[2].uncompressed, 7u);
  EXPECT_EQ(refusal(path), "");
}

// 256 MiB of zeros deflate to some 250 kB: far more than 16 times the file plus 64 MiB.
TEST_F(ZipDirectoryTest, AnArchiveDeclaringFarMoreThanItHoldsIsRefused) {
  const std::string path = zip("bomb.zip",
                               "  i = zipfile.ZipInfo(\"m/data/0\"); i.compress_type = zipfile.ZIP_DEFLATED\n"
                               "  with z.open(i, \"w\", force_zip64=True) as f:\n"
                               "    for _ in range(256): f.write(bytes(1 << 20))\n");
  const std::string why = refusal(path);
  EXPECT_NE(why.find("archive '" + path + "': its zip entries declare 268435456 bytes once inflated, from a "), std::string::npos) << why;
  EXPECT_NE(why.find("'m/data/0' alone 268435456 from "), std::string::npos) << why;
}

TEST_F(ZipDirectoryTest, AnArchiveCutShortOrNoZipAtAllIsRefused) {
  const std::string whole = zip("whole.zip", "  z.writestr(\"m/data.pkl\", b\"x\" * 1000)\n");
  const auto size = std::filesystem::file_size(whole);
  std::filesystem::copy_file(whole, dir + "/cut.zip");
  std::filesystem::resize_file(dir + "/cut.zip", size / 2);
  std::FILE* text = std::fopen((dir + "/notes.txt").c_str(), "w");
  std::fputs("not an archive\n", text);
  std::fclose(text);
  for (const std::string& path : {dir + "/cut.zip", dir + "/notes.txt"}) {
    try {
      entries(path);
      ADD_FAILURE() << path << " read as a zip";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("no zip end-of-directory record (a file cut short, or not a zip archive)"),
                std::string::npos)
          << error.what();
    }
  }
  // The directory's offset pointing past the file.
  std::string bytes(std::filesystem::file_size(whole), '\0');
  FILE* in = std::fopen(whole.c_str(), "rb");
  ASSERT_EQ(std::fread(bytes.data(), 1, bytes.size(), in), bytes.size());
  std::fclose(in);
  bytes[bytes.size() - 3] = '\x7f';  // the end record's directory offset, its high byte
  FILE* out = std::fopen((dir + "/moved.zip").c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size(), out);
  std::fclose(out);
  EXPECT_THROW(entries(dir + "/moved.zip"), UsageError);
}

}  // namespace
}  // namespace gpubench
