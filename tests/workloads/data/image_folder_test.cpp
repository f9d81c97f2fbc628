// The ImageFolder reader on a small real tree of JPEG and PNG files written here: layout,
// labels, decoding, augmentation, selection, and every refusal naming its file; the
// hostile-input audit's (issue 40) decompression bombs and huge files refused before their
// memory is taken, under a memory cap, and every common kind of JPEG and PNG still trained.
#include "workloads/data/image_folder.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/config/errors.h"
#include "support/image_files.h"
#include "workloads/data/image_augment.h"
#include "workloads/data/image_decode.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::encode_jpeg;
using test_support::encode_png;
using test_support::write_bytes;

using Seconds = std::chrono::duration<double>;

// A valid small JPEG whose frame header (SOF0) says width x height, as a 16 MB JPEG of
// 65000 x 65000 does: its data is a 16 x 16 image's, so a decoder that went on past the
// header would allocate the full size and then find the data short.
std::string jpeg_saying(int width, int height) {
  std::string bytes = encode_jpeg(16, 16, 0);
  const auto sof = bytes.find(std::string("\xFF\xC0", 2));  // FF C0, length (2), precision (1), height (2), width (2)
  if (sof == std::string::npos || bytes[sof + 4] != 8) throw std::runtime_error("no baseline SOF0 in the JPEG");
  for (const auto& [at, value] : {std::pair<std::size_t, int>{sof + 5, height}, {sof + 7, width}}) {
    bytes[at] = static_cast<char>(value >> 8);
    bytes[at + 1] = static_cast<char>(value & 0xFF);
  }
  return bytes;
}

std::uint32_t crc32_of(const std::string& bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put_be32(std::string& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>(value >> (24 - 8 * i));
}

// A valid PNG whose IHDR says width x height (its CRC recomputed) over a 1 x 1 grey body,
// as a 1.3 MB PNG of 36000 x 36000 (a deflated plane of zeros) does.
std::string png_saying(std::uint32_t width, std::uint32_t height) {
  std::string bytes = encode_png(1, 1, 0, 1);
  if (bytes.substr(12, 4) != "IHDR") throw std::runtime_error("no IHDR first in the PNG");
  put_be32(bytes, 16, width);
  put_be32(bytes, 20, height);
  put_be32(bytes, 29, crc32_of(bytes.substr(12, 17)));  // over "IHDR" and its 13 bytes
  return bytes;
}

// A PNG through libpng's full API, for what the simplified writer cannot make: 16-bit,
// palette, Adam7-interlaced. `raw` holds `height` rows of samples (16-bit big-endian).
std::string png_with(int width, int height, int bit_depth, int color_type, bool interlaced,
                     const std::vector<std::uint8_t>& raw, const std::vector<png_color>& palette = {}) {
  std::string out;
  std::vector<png_bytep> rows(static_cast<std::size_t>(height));
  for (std::size_t y = 0; y < rows.size(); ++y)
    rows[y] = const_cast<png_bytep>(raw.data() + y * (raw.size() / rows.size()));
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng could not write the test PNG");
  }
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, png_size_t size) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<const char*>(data), size);
      },
      nullptr);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), bit_depth, color_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!palette.empty()) png_set_PLTE(png, info, palette.data(), static_cast<int>(palette.size()));
  png_write_info(png, info);
  png_write_image(png, rows.data());  // every Adam7 pass when interlaced
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

// A JPEG from CMYK pixels (TurboJPEG writes them as an Adobe YCCK file), or a progressive one.
std::string encode_jpeg_from(const std::vector<std::uint8_t>& pixels, int width, int height, int pixel_format, int flags) {
  tjhandle encoder = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  if (tjCompress2(encoder, pixels.data(), width, 0, height, pixel_format, &jpeg, &size, TJSAMP_444, 95, flags) != 0)
    throw std::runtime_error(std::string("tjCompress2: ") + tjGetErrorStr2(encoder));
  std::string bytes(reinterpret_cast<const char*>(jpeg), size);
  tjFree(jpeg);
  tjDestroy(encoder);
  return bytes;
}

// Caps this process's address space at what it maps now plus `extra` bytes, so that taking
// a bomb's decoded size (3.9 or 12.7 GB) or reading a 6 GiB file fails at once here, instead
// of the machine swapping or the kernel killing the test.
void cap_address_space(std::int64_t extra) {
#if defined(__SANITIZE_ADDRESS__)
  return;  // AddressSanitizer reserves terabytes of shadow memory: a cap would fail it, not the test
#endif
  mallopt(M_ARENA_MAX, 2);  // each thread's own malloc arena would reserve 64 MiB of the cap
  std::ifstream statm("/proc/self/statm");
  std::int64_t pages = 0;
  statm >> pages;
  const auto cap = static_cast<rlim_t>(pages * sysconf(_SC_PAGESIZE) + extra);
  const rlimit limit{cap, cap};
  if (setrlimit(RLIMIT_AS, &limit) != 0) std::perror("setrlimit");
}

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

  // For a death test (threadsafe style: gtest re-runs this test alone in a fresh process, as
  // forking one that holds LibTorch's threads is unsafe): runs `check` under a 2 GiB address
  // space cap, removes this process's tree, exits 0 if `check` found no problem, else prints
  // them and exits 1.
  template <typename Check>
  [[noreturn]] void exit_with_problems_under_memory_cap(Check check) {
    cap_address_space(std::int64_t{2} << 30);
    const std::string problems = check();
    std::fprintf(stderr, "%s\n", problems.c_str());
    std::fflush(stderr);
    fs::remove_all(root_);
    std::_Exit(problems.empty() ? 0 : 1);
  }

  // The refusal of both checks (a full decode: the parent's; headers only: a config's own
  // process), each in under a second; what is missing from the message, else "".
  std::string refusal_problems(const std::vector<std::string>& expected) {
    std::string problems;
    for (const bool decode : {true, false}) {
      const auto start = std::chrono::steady_clock::now();
      const std::string error = usage_error({100, 7, 1000, 224, decode});
      const double seconds = Seconds(std::chrono::steady_clock::now() - start).count();
      for (const std::string& part : expected)
        if (error.find(part) == std::string::npos)
          problems += (decode ? "full check" : "header check") + std::string(": '") + part + "' not in: '" + error + "'\n";
      if (seconds > 1) problems += "took " + std::to_string(seconds) + " s\n";
    }
    return problems;
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

// Issue 40: a valid 16.5 MB JPEG of 65000 x 65000 (or a 1.3 MB PNG of 36000 x 36000) was
// decoded in full before anything ran: 12.7 GB (3.9 GB), so a memory cgroup's OOM killer
// ended gpubench, and under `ulimit -v` the allocator's stack trace came without the file's
// name; a config's own header-only check let it through to be decoded mid-run. Now both
// checks refuse it from its header under a 2 GiB cap, naming the file and its size.
TEST_F(ImageFolderTest, ADecompressionBombIsRefusedFromItsHeaderNamingItsSizeBeforeItsPixelsAreAllocated) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_with_problems_under_memory_cap([&] {
                std::string problems;
                const std::string jpeg = root_ + "/n03/bomb.jpg", png = root_ + "/n02/bomb.png";
                write_bytes(jpeg, jpeg_saying(65000, 65000));
                problems += refusal_problems({"image '" + jpeg + "' is 65000 x 65000 pixels (4225000000, 11.8 GiB decoded)",
                                              "over the limit of 178956970 pixels", "--max-image-pixels"});
                fs::remove(jpeg);
                write_bytes(png, png_saying(36000, 36000));
                problems += refusal_problems({"image '" + png + "' is 36000 x 36000 pixels (1296000000, 3.6 GiB decoded)",
                                              "over the limit of 178956970 pixels"});
                return problems;
              }),
              ::testing::ExitedWithCode(0), "");
}

// Issue 40: a 6 GiB file named huge.jpg was read whole before its first bytes were looked
// at. Now a file that is no image is refused after its first 8 bytes, and one that starts
// like a JPEG is refused by its size before it is read (sparse files: no disk used).
TEST_F(ImageFolderTest, AHugeFileIsJudgedByItsFirstBytesAndItsSizeBeforeItIsRead) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_with_problems_under_memory_cap([&] {
                std::string problems;
                const std::string huge = root_ + "/n03/huge.jpg";
                const std::vector<std::pair<std::string, std::string>> cases = {
                    {"", "image '" + huge + "' cannot be decoded: not a JPEG or PNG file"},
                    {"\xFF\xD8\xFF", "image '" + huge + "' is 6442450944 bytes (6.0 GiB), over the limit of 553648126 bytes"}};
                for (const auto& [head, expected] : cases) {
                  write_bytes(huge, head);
                  fs::resize_file(huge, std::uintmax_t{6} << 30);
                  problems += refusal_problems({expected});
                }
                fs::remove(huge);
                return problems;
              }),
              ::testing::ExitedWithCode(0), "");
}

// The audit's "what held", kept: every kind of file torchvision's ImageFolder trains on
// (CMYK, progressive and 1 x 1 JPEGs; 16-bit, palette and interlaced grey+alpha PNGs)
// decodes to RGB of its size and trains.
TEST_F(ImageFolderTest, EveryCommonKindOfJpegAndPngDecodesAndTrains) {
  // Adobe CMYK is stored inverted: R = C * K / 255.
  const std::vector<std::uint8_t> cmyk = [] {
    std::vector<std::uint8_t> pixels;
    for (int i = 0; i < 16 * 16; ++i) pixels.insert(pixels.end(), {200, 100, 50, 128});
    return pixels;
  }();
  const std::string cmyk_jpeg = encode_jpeg_from(cmyk, 16, 16, TJPF_CMYK, 0);
  const auto rgb = decode_image(cmyk_jpeg, "cmyk.jpg");
  EXPECT_EQ(rgb.sizes(), (std::vector<std::int64_t>{16, 16, 3}));
  for (const auto& [channel, expected] : {std::pair<int, double>{0, 200 * 128 / 255}, {1, 100 * 128 / 255}, {2, 50 * 128 / 255}})
    EXPECT_NEAR(rgb.select(2, channel).to(torch::kFloat32).mean().item<double>(), expected, 3) << "channel " << channel;
  const std::string progressive =
      encode_jpeg_from(test_support::gradient_rgb(40, 30, 90), 40, 30, TJPF_RGB, TJFLAG_PROGRESSIVE);
  EXPECT_EQ(decode_image(progressive, "p.jpg").sizes(), (std::vector<std::int64_t>{30, 40, 3}));
  EXPECT_EQ(decode_image(encode_jpeg(1, 1, 77), "one.jpg").sizes(), (std::vector<std::int64_t>{1, 1, 3}));
  // 16-bit RGB: red full, green zero, blue mid (big-endian samples).
  std::vector<std::uint8_t> deep;
  for (int i = 0; i < 6 * 4; ++i) deep.insert(deep.end(), {0xFF, 0xFF, 0, 0, 0x80, 0x80});
  const std::string deep_png = png_with(6, 4, 16, PNG_COLOR_TYPE_RGB, false, deep);
  const auto deep_rgb = decode_image(deep_png, "deep.png");
  EXPECT_EQ(deep_rgb.sizes(), (std::vector<std::int64_t>{4, 6, 3}));
  EXPECT_EQ(deep_rgb[0][0][0].item<int>(), 255);
  EXPECT_EQ(deep_rgb[0][0][1].item<int>(), 0);
  // Palette: indexes 0..2 of three colours.
  const std::vector<png_color> colours = {{255, 0, 0}, {0, 255, 0}, {10, 20, 30}};
  const std::string palette_png = png_with(3, 2, 8, PNG_COLOR_TYPE_PALETTE, false, {0, 1, 2, 2, 1, 0}, colours);
  const auto palette_rgb = decode_image(palette_png, "palette.png");
  EXPECT_TRUE(torch::equal(palette_rgb[0][2], torch::tensor({10, 20, 30}, torch::kUInt8))) << palette_rgb;
  // Interlaced (Adam7) grey + alpha, opaque: grey replicated into R, G and B.
  std::vector<std::uint8_t> grey_alpha;
  for (int i = 0; i < 9 * 9; ++i) grey_alpha.insert(grey_alpha.end(), {static_cast<std::uint8_t>(i), 255});
  const std::string interlaced_png = png_with(9, 9, 8, PNG_COLOR_TYPE_GRAY_ALPHA, true, grey_alpha);
  const auto interlaced = decode_image(interlaced_png, "adam7.png");
  EXPECT_EQ(interlaced.sizes(), (std::vector<std::int64_t>{9, 9, 3}));
  EXPECT_EQ(interlaced[8][8][1].item<int>(), 80);
  make_class("n04", {{"cmyk.jpg", cmyk_jpeg}, {"p.jpg", progressive}, {"one.jpg", encode_jpeg(1, 1, 77)},
                     {"deep.png", deep_png}, {"palette.png", palette_png}, {"adam7.png", interlaced_png}});
  const auto reader = open_image_folder(root_, options());
  ASSERT_EQ(reader->size(), 11u);
  std::vector<std::size_t> all(11);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const auto batch = reader->read_batch(all);
  EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{11, 3, 224, 224}));
  EXPECT_TRUE(torch::isfinite(batch.data).all().item<bool>());
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
