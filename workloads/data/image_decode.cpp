#include "workloads/data/image_decode.h"

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace gpubench {
namespace {

std::runtime_error bad_image(const std::string& path, const std::string& why) {
  return std::runtime_error("image '" + path + "' cannot be decoded: " + why);
}

const auto* as_bytes(const std::string& bytes) { return reinterpret_cast<const unsigned char*>(bytes.data()); }

struct TurboJpegHandle {
  TurboJpegHandle() : handle(tjInitDecompress()) {
    if (handle == nullptr) throw std::runtime_error("TurboJPEG: tjInitDecompress failed");
  }
  ~TurboJpegHandle() { tjDestroy(handle); }
  tjhandle handle;
};

// One decompressor per thread: DataLoader workers decode concurrently.
tjhandle jpeg_decoder() {
  thread_local TurboJpegHandle decoder;
  return decoder.handle;
}

struct JpegHeader {
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
};

JpegHeader jpeg_header(const std::string& bytes, const std::string& path) {
  JpegHeader header;
  if (tjDecompressHeader3(jpeg_decoder(), as_bytes(bytes), static_cast<unsigned long>(bytes.size()), &header.width,
                          &header.height, &header.subsampling, &header.colorspace) != 0)
    throw bad_image(path, std::string("JPEG header: ") + tjGetErrorStr2(jpeg_decoder()));
  if (header.width <= 0 || header.height <= 0) throw bad_image(path, "JPEG header gives an empty image");
  return header;
}

torch::Tensor decode_jpeg(const std::string& bytes, const std::string& path) {
  const JpegHeader header = jpeg_header(bytes, path);
  const bool cmyk = header.colorspace == TJCS_CMYK || header.colorspace == TJCS_YCCK;
  const int channels = cmyk ? 4 : 3;
  auto pixels = torch::empty({header.height, header.width, channels}, torch::kUInt8);
  // TJFLAG_STOPONWARNING: a truncated file ("premature end of data") is an error, not a grey tail.
  if (tjDecompress2(jpeg_decoder(), as_bytes(bytes), static_cast<unsigned long>(bytes.size()),
                    pixels.data_ptr<std::uint8_t>(), header.width, 0, header.height, cmyk ? TJPF_CMYK : TJPF_RGB,
                    TJFLAG_STOPONWARNING) != 0)
    throw bad_image(path, std::string("JPEG data: ") + tjGetErrorStr2(jpeg_decoder()));
  if (!cmyk) return pixels;
  // Adobe stores CMYK inverted: R = C * K / 255 (libjpeg-turbo's TJCS_CMYK notes).
  const auto cmy = pixels.narrow(2, 0, 3).to(torch::kInt32);
  const auto k = pixels.narrow(2, 3, 1).to(torch::kInt32);
  return (cmy * k).div(255, "floor").to(torch::kUInt8).contiguous();
}

struct PngImage {
  PngImage() { image.version = PNG_IMAGE_VERSION; }
  ~PngImage() { png_image_free(&image); }
  png_image image{};
};

void png_begin(PngImage& png, const std::string& bytes, const std::string& path) {
  if (png_image_begin_read_from_memory(&png.image, bytes.data(), bytes.size()) == 0)
    throw bad_image(path, std::string("PNG header: ") + png.image.message);
  if (png.image.width == 0 || png.image.height == 0) throw bad_image(path, "PNG header gives an empty image");
}

torch::Tensor decode_png(const std::string& bytes, const std::string& path) {
  PngImage png;
  png_begin(png, bytes, path);
  png.image.format = PNG_FORMAT_RGB;
  auto pixels = torch::empty({static_cast<std::int64_t>(png.image.height), static_cast<std::int64_t>(png.image.width), 3},
                             torch::kUInt8);
  if (png_image_finish_read(&png.image, /*background=*/nullptr, pixels.data_ptr<std::uint8_t>(), 0, nullptr) == 0)
    throw bad_image(path, std::string("PNG data: ") + png.image.message);
  // Warnings (an sRGB profile libpng dislikes) are not errors, as for PIL; a bad CRC or a
  // truncated file fails the read above.
  return pixels;
}

}  // namespace

ImageFormat sniff_image_format(const std::string& bytes, const std::string& path) {
  if (bytes.size() >= 3 && as_bytes(bytes)[0] == 0xFF && as_bytes(bytes)[1] == 0xD8 && as_bytes(bytes)[2] == 0xFF)
    return ImageFormat::Jpeg;
  static const unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() >= 8 && std::equal(kPngSignature, kPngSignature + 8, as_bytes(bytes))) return ImageFormat::Png;
  throw bad_image(path, bytes.empty() ? "the file is empty" : "not a JPEG or PNG file (its first bytes are neither's signature)");
}

ImageSize read_image_size(const std::string& bytes, const std::string& path) {
  if (sniff_image_format(bytes, path) == ImageFormat::Jpeg) {
    const JpegHeader header = jpeg_header(bytes, path);
    return {header.width, header.height};
  }
  PngImage png;
  png_begin(png, bytes, path);
  return {static_cast<int>(png.image.width), static_cast<int>(png.image.height)};
}

torch::Tensor decode_image(const std::string& bytes, const std::string& path) {
  return sniff_image_format(bytes, path) == ImageFormat::Jpeg ? decode_jpeg(bytes, path) : decode_png(bytes, path);
}

}  // namespace gpubench
