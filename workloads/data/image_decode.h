#pragma once
#include <string>

#include <torch/torch.h>

namespace gpubench {

// JPEG and PNG files decoded to RGB: libjpeg-turbo's TurboJPEG API (the SIMD JPEG codec
// that Pillow-SIMD, torchvision.io and DALI's CPU path also build on) and libpng's
// simplified API (torchvision.io's PNG decoder), both from Debian's packages. Grayscale,
// palette, 16-bit and alpha images become 8-bit RGB (PNG alpha is composited onto black;
// Adobe CMYK JPEGs are converted as inverted CMYK).

enum class ImageFormat { Jpeg, Png };

struct ImageSize {
  int width = 0, height = 0;
};

// The format from a file's first bytes; throws std::runtime_error naming `path` when it
// is neither JPEG nor PNG.
ImageFormat sniff_image_format(const std::string& bytes, const std::string& path);

// Reads only the header: the size, and that the file is an image at all.
ImageSize read_image_size(const std::string& bytes, const std::string& path);

// The whole image as [height, width, 3] uint8. Any decoder error or warning (a truncated
// or corrupt file) throws std::runtime_error naming `path` and the decoder's message, as
// PIL refuses a truncated image.
torch::Tensor decode_image(const std::string& bytes, const std::string& path);

}  // namespace gpubench
