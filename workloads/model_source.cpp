#include "workloads/model_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/config/errors.h"

namespace gpubench {
namespace {

constexpr const char* kExpected =
    "expected a TorchScript archive (torch.jit.script(model).save(path)), a Hugging Face model folder (config.json, "
    "model.safetensors) or its config.json";

std::string file_type(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// The first bytes of a regular file, read without blocking: O_NONBLOCK, in case it became
// a FIFO since it was looked at.
std::string first_bytes(const std::string& path, const std::string& what, std::size_t count) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw UsageError(what + " cannot be opened: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw UsageError(what + " is " + file_type(info.st_mode) + ": " + kExpected);
  }
  std::string bytes(count, '\0');
  const ssize_t got = ::pread(fd, bytes.data(), count, 0);
  ::close(fd);
  bytes.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return bytes;
}

}  // namespace

ModelSource classify_model_path(const std::string& name, const std::string& path) {
  const std::string what = "--model " + name + "='" + path + "'";
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    throw UsageError(what + " is neither a folder holding config.json nor a config.json file (" + std::strerror(errno) +
                     "): " + kExpected);
  if (S_ISDIR(info.st_mode)) {
    struct stat config {};
    if (::stat((path + "/config.json").c_str(), &config) != 0)
      throw UsageError(what + " is a folder without config.json (an empty folder, or a download that did not finish?): " +
                       kExpected);
    return ModelSource::ConfigFolder;
  }
  if (!S_ISREG(info.st_mode)) throw UsageError(what + " is " + file_type(info.st_mode) + ": " + kExpected);
  const std::string magic = first_bytes(path, what, 4);
  if (magic == std::string("PK\x03\x04", 4)) return ModelSource::TorchScriptArchive;
  // A pickle starts with its PROTO opcode (0x80) and a protocol of 2 to 5: torch.save's
  // format before PyTorch 1.6 (and with _use_new_zipfile_serialization=False since).
  if (magic.size() >= 2 && static_cast<unsigned char>(magic[0]) == 0x80 && magic[1] >= 2 && magic[1] <= 5)
    throw UsageError(what + " is a Python pickle (torch.save's legacy format?), which holds weights without the code "
                            "that uses them: " + kExpected);
  return ModelSource::ConfigFile;
}

std::string describe(ModelSource source) {
  switch (source) {
    case ModelSource::TorchScriptArchive: return "a TorchScript archive";
    case ModelSource::ConfigFolder: return "a Hugging Face model folder";
    case ModelSource::ConfigFile: return "a config.json file";
  }
  return "";
}

}  // namespace gpubench
