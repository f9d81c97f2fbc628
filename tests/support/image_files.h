#pragma once
// Real JPEG and PNG files for the ImageFolder tests, written with the same libraries the
// decoder uses (libjpeg-turbo's TurboJPEG, libpng's simplified API).
#include <png.h>
#include <turbojpeg.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench::test_support {

// A width x height RGB gradient whose colour depends on `shade`, so classes differ.
inline std::vector<std::uint8_t> gradient_rgb(int width, int height, int shade) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width * height * 3));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint8_t* p = &pixels[static_cast<std::size_t>((y * width + x) * 3)];
      p[0] = static_cast<std::uint8_t>((x * 255) / std::max(1, width - 1));
      p[1] = static_cast<std::uint8_t>((y * 255) / std::max(1, height - 1));
      p[2] = static_cast<std::uint8_t>(shade);
    }
  return pixels;
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string encode_jpeg(int width, int height, int shade) {
  const std::vector<std::uint8_t> pixels = gradient_rgb(width, height, shade);
  tjhandle encoder = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  if (tjCompress2(encoder, pixels.data(), width, 0, height, TJPF_RGB, &jpeg, &size, TJSAMP_420, 90, 0) != 0)
    throw std::runtime_error(std::string("tjCompress2: ") + tjGetErrorStr2(encoder));
  std::string bytes(reinterpret_cast<const char*>(jpeg), size);
  tjFree(jpeg);
  tjDestroy(encoder);
  return bytes;
}

// A PNG: RGB, or grey (channels 1) or RGBA (channels 4) to cover libpng's conversions.
inline std::string encode_png(int width, int height, int shade, int channels = 3) {
  const std::vector<std::uint8_t> rgb = gradient_rgb(width, height, shade);
  std::vector<std::uint8_t> pixels;
  for (std::size_t i = 0; i < rgb.size(); i += 3) {
    if (channels == 1) pixels.push_back(rgb[i]);
    else pixels.insert(pixels.end(), rgb.begin() + static_cast<std::ptrdiff_t>(i), rgb.begin() + static_cast<std::ptrdiff_t>(i + 3));
    if (channels == 4) pixels.push_back(255);
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = channels == 1 ? PNG_FORMAT_GRAY : channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  png_image_write_get_memory_size(image, size, 0, pixels.data(), 0, nullptr);
  std::string bytes(size, '\0');
  if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, pixels.data(), 0, nullptr))
    throw std::runtime_error(std::string("png_image_write_to_memory: ") + image.message);
  bytes.resize(size);
  return bytes;
}

}  // namespace gpubench::test_support
