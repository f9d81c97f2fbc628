// The ImageFolder reader on a small real tree of JPEG and PNG files written here: layout,
// labels, decoding, augmentation, selection, and every refusal naming its file.
#include "workloads/data/image_folder.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "config/errors.h"
#include "support/image_files.h"
#include "workloads/data/image_augment.h"
#include "workloads/data/image_decode.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::encode_jpeg;
using test_support::encode_png;
using test_support::write_bytes;

class ImageFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpubench-imagefolder-XXXXXX";
    root_ = mkdtemp(pattern);
    // Classes in an order their names sort differently from creation: labels follow names.
    make_class("n02", {{"a.JPEG", encode_jpeg(320, 240, 10)}, {"b.png", encode_png(64, 96, 20, 1)}});
    make_class("n01", {{"c.jpg", encode_jpeg(100, 300, 200)}, {"nested/d.PNG", encode_png(250, 250, 90, 4)},
                       {"notes.txt", "not an image, ignored"}});
    make_class("n03", {{"e.jpeg", encode_jpeg(500, 375, 120)}});
  }
  void TearDown() override { fs::remove_all(root_); }

  void make_class(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
    for (const auto& [file, bytes] : files) {
      const fs::path path = fs::path(root_) / name / file;
      fs::create_directories(path.parent_path());
      write_bytes(path.string(), bytes);
    }
  }

  ImageFolderOptions options(std::int64_t samples = 100) const { return {samples, 7, 1000, 224, true}; }

  std::string usage_error(const ImageFolderOptions& o) {
    try {
      open_image_folder(root_, o);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "";
  }

  std::string root_;
};

TEST_F(ImageFolderTest, LabelsFollowSortedClassNamesAndEveryImageBecomesANormalisedCrop) {
  const auto reader = open_image_folder(root_, options());
  ASSERT_EQ(reader->size(), 5u) << "notes.txt is not an image";
  const auto batch = reader->read_batch(std::vector<std::size_t>{0, 1, 2, 3, 4});
  EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{5, 3, 224, 224}));
  EXPECT_EQ(batch.data.dtype(), torch::kFloat32);
  // n01 (c.jpg, nested/d.PNG) = 0, n02 (a.JPEG, b.png) = 1, n03 = 2.
  EXPECT_TRUE(torch::equal(batch.target, torch::tensor({0, 0, 1, 1, 2}, torch::kInt64)));
  // Normalised by ImageNet's mean/std: pixel values 0..255 map into about [-2.2, 2.7].
  EXPECT_GE(batch.data.min().item<double>(), -2.2);
  EXPECT_LE(batch.data.max().item<double>(), 2.7);
  EXPECT_NE(reader->source().find("5 of 5 images, 3 classes"), std::string::npos) << reader->source();
}

TEST_F(ImageFolderTest, AugmentationRepeatsForTheSameSeedAndVisitAndDiffersOnTheNextVisit) {
  const auto first = open_image_folder(root_, options());
  const auto second = open_image_folder(root_, options());
  const std::vector<std::size_t> index{4};
  const auto a = first->read_batch(index).data;
  EXPECT_TRUE(torch::equal(a, second->read_batch(index).data)) << "same seed, same visit";
  EXPECT_FALSE(torch::equal(a, first->read_batch(index).data)) << "a new epoch draws a new crop";
}

TEST_F(ImageFolderTest, ALargerTreeThanThePresetIsSampledEvenlyAcrossClasses) {
  const auto reader = open_image_folder(root_, options(3));
  ASSERT_EQ(reader->size(), 3u);
  const auto labels = reader->read_batch(std::vector<std::size_t>{0, 1, 2}).target;
  EXPECT_TRUE(torch::equal(labels, torch::tensor({0, 1, 2}, torch::kInt64))) << labels;  // files 0, 2, 4 of 5
  EXPECT_NE(reader->source().find("3 of 5 images"), std::string::npos);
}

TEST_F(ImageFolderTest, BadTreesAreRefusedNamingWhatIsWrong) {
  EXPECT_NE(usage_error({100, 7, 2, 224, true}).find("has 3 class folders but the model has 2 outputs"), std::string::npos);
  make_class("n04", {{"readme.txt", "no images here"}});
  EXPECT_NE(usage_error(options()).find("class folder without JPEG or PNG files: '" + root_ + "/n04'"), std::string::npos)
      << usage_error(options());
  fs::remove_all(fs::path(root_) / "n04");
  EXPECT_EQ(usage_error(options()), "") << "a sane tree again";
  const std::string missing = root_ + "/missing";
  try {
    open_image_folder(missing, options());
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("'" + missing + "' is not a directory"), std::string::npos) << error.what();
  }
  const std::string empty = root_ + "/n01/nested";  // holds files, no class folders
  try {
    open_image_folder(empty, options());
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("has no class folders"), std::string::npos) << error.what();
  }
}

TEST_F(ImageFolderTest, CorruptTruncatedAndUnreadableImagesAreRefusedUpFrontNamingTheFile) {
  const std::string corrupt = root_ + "/n03/corrupt.jpg";
  write_bytes(corrupt, "this is not a jpeg at all");
  EXPECT_NE(usage_error(options()).find("image '" + corrupt + "' cannot be decoded"), std::string::npos)
      << usage_error(options());
  const std::string jpeg = encode_jpeg(300, 200, 5);
  write_bytes(corrupt, jpeg.substr(0, jpeg.size() / 2));  // a valid header, half the data
  EXPECT_NE(usage_error(options()).find(corrupt), std::string::npos) << "a full decode finds the truncation";
  EXPECT_EQ(usage_error({100, 7, 1000, 224, false}), "") << "a header-only check (the config's process) does not";
  fs::remove(corrupt);
  if (geteuid() != 0) {  // root reads every file
    const std::string locked = root_ + "/n03/e.jpeg";
    fs::permissions(locked, fs::perms::none);
    EXPECT_NE(usage_error(options()).find(locked), std::string::npos);
  }
}

TEST_F(ImageFolderTest, AFileThatGoesBadMidRunFailsTheReadNamingIt) {
  const auto reader = open_image_folder(root_, options());
  const std::string gone = root_ + "/n03/e.jpeg";
  fs::remove(gone);
  try {
    reader->read_batch(std::vector<std::size_t>{4});
    FAIL() << "read a deleted file";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(gone), std::string::npos) << error.what();
  }
}

TEST(ImageDecode, GreyAndAlphaPngsAndJpegsBecomeRgbOfTheirSize) {
  const auto grey = decode_image(encode_png(7, 5, 0, 1), "grey.png");
  EXPECT_EQ(grey.sizes(), (std::vector<std::int64_t>{5, 7, 3}));
  EXPECT_TRUE(torch::equal(grey.select(2, 0), grey.select(2, 2))) << "grey replicated into R, G, B";
  EXPECT_EQ(decode_image(encode_png(9, 4, 0, 4), "rgba.png").sizes(), (std::vector<std::int64_t>{4, 9, 3}));
  const auto jpeg = decode_image(encode_jpeg(33, 17, 77), "x.jpg");
  EXPECT_EQ(jpeg.sizes(), (std::vector<std::int64_t>{17, 33, 3}));
  EXPECT_NEAR(jpeg.select(2, 2).to(torch::kFloat32).mean().item<double>(), 77, 3) << "blue is the shade, lossy";
  EXPECT_EQ(read_image_size(encode_jpeg(33, 17, 0), "x.jpg").width, 33);
  EXPECT_THROW(sniff_image_format("GIF89a", "x.gif"), std::runtime_error);
}

TEST(ImageAugment, CropBoxesFitTheImageAndExtremeShapesFallBackToTheCentre) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    const CropBox box = random_resized_crop_box(375, 500, rng);
    EXPECT_GE(box.top, 0);
    EXPECT_GE(box.left, 0);
    EXPECT_LE(box.top + box.height, 375);
    EXPECT_LE(box.left + box.width, 500);
    EXPECT_GE(box.height * box.width, 375 * 500 * 0.08 * 0.9) << "at least 8% of the area (rounding)";
  }
  // A 1 x 1000 strip fits no crop of ratio 3/4..4/3 at 8%+ of its area: torchvision's
  // fallback is the centre crop clamped to ratio 4/3.
  const CropBox strip = random_resized_crop_box(1, 1000, rng);
  EXPECT_EQ(strip.height, 1);
  EXPECT_EQ(strip.width, 1);
  EXPECT_EQ(strip.left, (1000 - 1) / 2);
}

}  // namespace
}  // namespace gpubench
