#pragma once
#include <cstdint>
#include <string>

#include <torch/torch.h>

namespace gpubench {

// JPEG and PNG files decoded to RGB: libjpeg-turbo's TurboJPEG API (the SIMD JPEG codec
// that Pillow-SIMD, torchvision.io and DALI's CPU path also build on) and libpng's
// simplified API (torchvision.io's PNG decoder), both from Debian's packages. Grayscale,
// palette, 16-bit and alpha images become 8-bit RGB (PNG alpha is composited onto black;
// Adobe CMYK JPEGs are converted as inverted CMYK).

enum class ImageFormat { Jpeg, Png };

// PIL's decompression-bomb bound: Image.MAX_IMAGE_PIXELS (89,478,485) only warns, twice it
// raises DecompressionBombError. Refusing above the error bound, not the warning, means
// every image torchvision would train on, gpubench trains on. Decoded to 8-bit RGB an image
// at the bound is 512 MiB.
constexpr std::int64_t kDefaultMaxImagePixels = 2 * 89'478'485;

// What one image may cost, decided before its pixels are decoded (a valid 16 MB JPEG can
// say 65000 x 65000: 12.7 GB decoded).
struct ImageLimits {
  std::int64_t max_pixels = kDefaultMaxImagePixels;  // width * height; above it: refused from the header
  // A file is refused unread above the largest allowed image stored raw as 8-bit RGB (3
  // bytes per allowed pixel) plus 16 MiB of metadata (EXIF thumbnails, ICC profiles, XMP):
  // 528 MiB by default. JPEG and PNG compress, so a real image under the pixel limit is
  // smaller; a larger file would only be read whole into memory to be refused (or is a
  // 16-bit PNG of noise near the limit: raise max_pixels for it).
  std::int64_t max_file_bytes() const { return 3 * max_pixels + (std::int64_t{16} << 20); }
};

struct ImageSize {
  int width = 0, height = 0;
  std::int64_t decode_bytes = 0;  // what decode_image holds at its peak: the pixels it makes
};

// The format from a file's first bytes; throws std::runtime_error naming `path` when it
// is neither JPEG nor PNG.
ImageFormat sniff_image_format(const std::string& bytes, const std::string& path);

// A JPEG or PNG file's bytes. Judged before it is read: not a regular file, empty, first
// bytes that are neither signature (only those are read: a 6 GiB `huge.jpg` of anything
// else costs 8 bytes), or larger than limits.max_file_bytes() throws std::runtime_error
// naming `path`, what it is and what was expected.
std::string read_image_file(const std::string& path, const ImageLimits& limits = {});

// Reads only the header: the size, and that the file is an image at all; an image over
// limits.max_pixels throws std::runtime_error naming `path`, its size and the limit.
ImageSize read_image_size(const std::string& bytes, const std::string& path, const ImageLimits& limits = {});

// The whole image as [height, width, 3] uint8, after read_image_size's checks (nothing is
// allocated for an image over the limit). Any decoder error or warning (a truncated or
// corrupt file) throws std::runtime_error naming `path` and the decoder's message, as PIL
// refuses a truncated image; so does too little memory for the pixels.
torch::Tensor decode_image(const std::string& bytes, const std::string& path, const ImageLimits& limits = {});

}  // namespace gpubench
