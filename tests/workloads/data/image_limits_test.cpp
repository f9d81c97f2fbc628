// The limits an image is held to before it is decoded (image_decode.h's ImageLimits, the
// ImageFolder option --max-image-pixels sets): exact at their boundaries, raised and
// lowered by the option, the file-size limit following the pixel limit, and a file that is
// not a regular file refused without waiting on it.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "support/image_files.h"
#include "workloads/data/image_decode.h"
#include "workloads/data/image_folder.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::encode_jpeg;
using test_support::encode_png;
using test_support::write_bytes;

std::string thrown_by(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

class ImageLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpubench-imagelimits-XXXXXX";
    root_ = mkdtemp(pattern);
    image_ = root_ + "/n01/a.jpg";
    fs::create_directories(root_ + "/n01");
    write_bytes(image_, encode_jpeg(20, 10, 50));  // 200 pixels
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string open_with_limit(std::int64_t max_pixels, bool full_check = true) {
    return thrown_by([&] { open_image_folder(root_, {100, 7, 1000, 224, full_check, max_pixels}); });
  }

  std::string root_, image_;
};

TEST(ImageLimits, TheDefaultIsPilsDecompressionBombErrorAndFilesMayBeThreeBytesPerPixelPlusMetadata) {
  EXPECT_EQ(kDefaultMaxImagePixels, 178'956'970) << "2 * PIL.Image.MAX_IMAGE_PIXELS";
  EXPECT_EQ(ImageLimits{}.max_file_bytes(), 536'870'910 + (16 << 20));
  EXPECT_EQ(ImageFolderOptions{}.max_image_pixels, kDefaultMaxImagePixels);
}

TEST_F(ImageLimitsTest, ThePixelLimitIsInclusiveAndTheOptionMovesIt) {
  EXPECT_EQ(open_with_limit(200), "") << "exactly at the limit";
  EXPECT_EQ(open_with_limit(0), "") << "0: the default";
  for (const bool full_check : {true, false}) {
    const std::string refused = open_with_limit(199, full_check);
    EXPECT_NE(refused.find("--data resnet50: image '" + image_ + "' is 20 x 10 pixels (200, 0.0 MiB decoded), over the "
                           "limit of 199 pixels"),
              std::string::npos)
        << refused;
  }
  const std::string bytes = encode_png(20, 10, 0);
  EXPECT_EQ(read_image_size(bytes, "x.png", ImageLimits{200}).width, 20);
  EXPECT_NE(thrown_by([&] { read_image_size(bytes, "x.png", ImageLimits{199}); }).find("image 'x.png' is 20 x 10"),
            std::string::npos);
  EXPECT_NE(thrown_by([&] { decode_image(bytes, "x.png", ImageLimits{199}); }).find("over the limit of 199"),
            std::string::npos);
}

// A config's process reads each sample as the DataLoader asks: an image replaced by a bomb
// after the check is refused there too, from its header, not allocated.
TEST_F(ImageLimitsTest, AnImageReplacedAfterTheCheckIsRefusedWhenTheSampleIsRead) {
  const auto reader = open_image_folder(root_, {100, 7, 1000, 224, true, 200});
  write_bytes(image_, encode_jpeg(21, 10, 50));
  const std::string refused = thrown_by([&] { reader->read_batch(std::vector<std::size_t>{0}); });
  EXPECT_NE(refused.find("image '" + image_ + "' is 21 x 10 pixels"), std::string::npos) << refused;
}

TEST_F(ImageLimitsTest, TheFileSizeLimitFollowsThePixelLimitAndIsExact) {
  const std::string file = root_ + "/n01/b.jpg";
  write_bytes(file, "\xFF\xD8\xFF");
  const std::uintmax_t allowed = 300 + (16 << 20);  // 3 bytes per pixel, plus 16 MiB of metadata
  fs::resize_file(file, allowed);
  EXPECT_EQ(read_image_file(file, ImageLimits{100}).size(), allowed);
  fs::resize_file(file, allowed + 1);
  const std::string refused = thrown_by([&] { read_image_file(file, ImageLimits{100}); });
  EXPECT_NE(refused.find("image '" + file + "' is 16777517 bytes (16.0 MiB), over the limit of 16777516 bytes for an "
                         "image file (3 bytes per pixel of the 100-pixel limit, plus 16 MiB), so it is not read"),
            std::string::npos)
      << refused;
}

TEST_F(ImageLimitsTest, AFifoOrAnEmptyFileNamedLikeAnImageIsRefusedWithoutWaiting) {
  const std::string fifo = root_ + "/n01/pipe.jpg";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(thrown_by([&] { read_image_file(fifo); }).find("cannot read image '" + fifo + "': not a regular file"),
            std::string::npos);
  const std::string empty = root_ + "/n01/empty.png";
  write_bytes(empty, "");
  EXPECT_NE(thrown_by([&] { read_image_file(empty); }).find("image '" + empty + "' cannot be decoded: the file is empty"),
            std::string::npos);
  EXPECT_NE(thrown_by([&] { read_image_file(root_ + "/n01/missing.png"); }).find("No such file"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
