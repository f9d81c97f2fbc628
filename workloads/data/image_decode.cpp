#include "workloads/data/image_decode.h"

#include <fcntl.h>
#include <png.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

namespace gpubench {
namespace {

std::runtime_error bad_image(const std::string& path, const std::string& why) {
  return std::runtime_error("image '" + path + "' cannot be decoded: " + why);
}

std::string human_bytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), bytes >= (1 << 30) ? "%.1f GiB" : "%.1f MiB", bytes / (bytes >= (1 << 30) ? 1 << 30 : 1 << 20));
  return text;
}

const auto* as_bytes(const std::string& bytes) { return reinterpret_cast<const unsigned char*>(bytes.data()); }

// Decided from the header, before a byte of pixels is allocated: a 16 MB JPEG that says
// 65000 x 65000 would take 12.7 GB, and the kernel, not an error message, would end the run.
void check_pixels(std::int64_t width, std::int64_t height, const std::string& path, const ImageLimits& limits) {
  const std::int64_t pixels = width * height;
  if (pixels <= limits.max_pixels) return;
  throw std::runtime_error("image '" + path + "' is " + std::to_string(width) + " x " + std::to_string(height) +
                           " pixels (" + std::to_string(pixels) + ", " + human_bytes(3.0 * static_cast<double>(pixels)) +
                           " decoded), over the limit of " + std::to_string(limits.max_pixels) +
                           " pixels (PIL refuses a decompression bomb there too): expected a smaller image, or a "
                           "higher --max-image-pixels");
}

// The pixels' memory; too little of it is this file's error, named, not an allocator's
// stack trace (under `ulimit -v` or a memory cgroup).
torch::Tensor allocate_pixels(std::int64_t height, std::int64_t width, std::int64_t channels, const std::string& path) {
  const std::string what = "no memory for its " + std::to_string(width) + " x " + std::to_string(height) + " pixels (" +
                           human_bytes(static_cast<double>(height * width * channels)) + ")";
  try {
    return torch::empty({height, width, channels}, torch::kUInt8);
  } catch (const std::bad_alloc&) {
    throw bad_image(path, what);
  } catch (const c10::Error& error) {
    const std::string reason = error.what_without_backtrace();
    throw bad_image(path, what + ": " + reason.substr(0, reason.find('\n')));
  }
}

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
  bool cmyk() const { return colorspace == TJCS_CMYK || colorspace == TJCS_YCCK; }
};

JpegHeader jpeg_header(const std::string& bytes, const std::string& path, const ImageLimits& limits) {
  JpegHeader header;
  if (tjDecompressHeader3(jpeg_decoder(), as_bytes(bytes), static_cast<unsigned long>(bytes.size()), &header.width,
                          &header.height, &header.subsampling, &header.colorspace) != 0)
    throw bad_image(path, std::string("JPEG header: ") + tjGetErrorStr2(jpeg_decoder()));
  if (header.width <= 0 || header.height <= 0) throw bad_image(path, "JPEG header gives an empty image");
  check_pixels(header.width, header.height, path, limits);
  return header;
}

// Adobe stores CMYK inverted: R = C * K / 255 (libjpeg-turbo's TJCS_CMYK notes). A plain
// loop: tensor arithmetic in int32 would hold 28 bytes per pixel at once.
torch::Tensor inverted_cmyk_to_rgb(const torch::Tensor& cmyk, const std::string& path) {
  auto rgb = allocate_pixels(cmyk.size(0), cmyk.size(1), 3, path);
  const std::uint8_t* in = cmyk.data_ptr<std::uint8_t>();
  std::uint8_t* out = rgb.data_ptr<std::uint8_t>();
  for (std::int64_t i = 0, n = cmyk.size(0) * cmyk.size(1); i < n; ++i, in += 4, out += 3)
    for (int c = 0; c < 3; ++c) out[c] = static_cast<std::uint8_t>(unsigned{in[c]} * in[3] / 255);
  return rgb;
}

torch::Tensor decode_jpeg(const std::string& bytes, const std::string& path, const ImageLimits& limits) {
  const JpegHeader header = jpeg_header(bytes, path, limits);
  auto pixels = allocate_pixels(header.height, header.width, header.cmyk() ? 4 : 3, path);
  // TJFLAG_STOPONWARNING: a truncated file ("premature end of data") is an error, not a grey tail.
  // TJFLAG_LIMITSCANS: a progressive file of over 500 scans (a few KB can hold thousands,
  // each a pass over the whole image: minutes) is refused; real ones have about ten.
  if (tjDecompress2(jpeg_decoder(), as_bytes(bytes), static_cast<unsigned long>(bytes.size()),
                    pixels.data_ptr<std::uint8_t>(), header.width, 0, header.height,
                    header.cmyk() ? TJPF_CMYK : TJPF_RGB, TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0)
    throw bad_image(path, std::string("JPEG data: ") + tjGetErrorStr2(jpeg_decoder()));
  return header.cmyk() ? inverted_cmyk_to_rgb(pixels, path) : pixels;
}

struct PngImage {
  PngImage() { image.version = PNG_IMAGE_VERSION; }
  ~PngImage() { png_image_free(&image); }
  png_image image{};
};

void png_begin(PngImage& png, const std::string& bytes, const std::string& path, const ImageLimits& limits) {
  if (png_image_begin_read_from_memory(&png.image, bytes.data(), bytes.size()) == 0)
    throw bad_image(path, std::string("PNG header: ") + png.image.message);
  if (png.image.width == 0 || png.image.height == 0) throw bad_image(path, "PNG header gives an empty image");
  check_pixels(png.image.width, png.image.height, path, limits);
}

torch::Tensor decode_png(const std::string& bytes, const std::string& path, const ImageLimits& limits) {
  PngImage png;
  png_begin(png, bytes, path, limits);
  png.image.format = PNG_FORMAT_RGB;
  auto pixels = allocate_pixels(png.image.height, png.image.width, 3, path);
  if (png_image_finish_read(&png.image, /*background=*/nullptr, pixels.data_ptr<std::uint8_t>(), 0, nullptr) == 0)
    throw bad_image(path, std::string("PNG data: ") + png.image.message);
  // Warnings (an sRGB profile libpng dislikes) are not errors, as for PIL; a bad CRC or a
  // truncated file fails the read above.
  return pixels;
}

// Reads up to `size` bytes from `fd` into `into`; fewer at the end of the file.
std::size_t read_up_to(int fd, char* into, std::size_t size, const std::string& path) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, into + done, size - done);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("cannot read image '" + path + "': " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return done;
}

struct FileDescriptor {
  explicit FileDescriptor(int fd) : fd(fd) {}
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
  int fd;
};

}  // namespace

ImageFormat sniff_image_format(const std::string& bytes, const std::string& path) {
  if (bytes.size() >= 3 && as_bytes(bytes)[0] == 0xFF && as_bytes(bytes)[1] == 0xD8 && as_bytes(bytes)[2] == 0xFF)
    return ImageFormat::Jpeg;
  static const unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() >= 8 && std::equal(kPngSignature, kPngSignature + 8, as_bytes(bytes))) return ImageFormat::Png;
  throw bad_image(path, bytes.empty() ? "the file is empty" : "not a JPEG or PNG file (its first bytes are neither's signature)");
}

std::string read_image_file(const std::string& path, const ImageLimits& limits) {
  // O_NONBLOCK: a FIFO named x.jpg is refused below, not waited on for a writer.
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat info {};
  if (file.fd < 0 || ::fstat(file.fd, &info) != 0)
    throw std::runtime_error("cannot read image '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    throw std::runtime_error("cannot read image '" + path + "': not a regular file (a device, FIFO or socket), expected a file");
  // The signature first: a file that is no image is refused after 8 bytes, whatever its size.
  std::string bytes(8, '\0');
  bytes.resize(read_up_to(file.fd, bytes.data(), bytes.size(), path));
  (void)sniff_image_format(bytes, path);
  if (info.st_size > limits.max_file_bytes())
    throw std::runtime_error("image '" + path + "' is " + std::to_string(info.st_size) + " bytes (" +
                             human_bytes(static_cast<double>(info.st_size)) + "), over the limit of " +
                             std::to_string(limits.max_file_bytes()) + " bytes for an image file (3 bytes per pixel of " +
                             "the " + std::to_string(limits.max_pixels) + "-pixel limit, plus 16 MiB), so it is not read: expected a " +
                             "smaller file, or a higher --max-image-pixels");
  const std::size_t head = bytes.size();
  bytes.resize(std::max<std::size_t>(head, static_cast<std::size_t>(info.st_size)));
  bytes.resize(head + read_up_to(file.fd, bytes.data() + head, bytes.size() - head, path));  // shorter if it shrank
  return bytes;
}

ImageSize read_image_size(const std::string& bytes, const std::string& path, const ImageLimits& limits) {
  if (sniff_image_format(bytes, path) == ImageFormat::Jpeg) {
    const JpegHeader header = jpeg_header(bytes, path, limits);
    const std::int64_t pixels = std::int64_t{header.width} * header.height;
    return {header.width, header.height, pixels * (header.cmyk() ? 4 + 3 : 3)};
  }
  PngImage png;
  png_begin(png, bytes, path, limits);
  return {static_cast<int>(png.image.width), static_cast<int>(png.image.height),
          std::int64_t{png.image.width} * png.image.height * 3};
}

torch::Tensor decode_image(const std::string& bytes, const std::string& path, const ImageLimits& limits) {
  return sniff_image_format(bytes, path) == ImageFormat::Jpeg ? decode_jpeg(bytes, path, limits)
                                                              : decode_png(bytes, path, limits);
}

}  // namespace gpubench
