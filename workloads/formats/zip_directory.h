#pragma once
// The central directory of a zip archive (PKWARE's APPNOTE: the end record, its ZIP64 form,
// one header per entry): what each entry declares it holds, read before anything is
// inflated. A TorchScript archive is a zip whose records LibTorch reads whole into memory
// at their declared size, so a 2.6 MB file can declare gigabytes; this is where that is seen.
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

struct ZipEntry {
  std::string name;
  std::uint16_t method = 0;          // 0 stored, 8 deflated
  std::uint64_t compressed = 0;      // bytes in the file
  std::uint64_t uncompressed = 0;    // bytes once read
};

// The entries of the zip archive held in `bytes` (`size` of them). Throws UsageError
// "WHAT: problem" for a file without an end record (not a zip, or cut short), a directory
// outside the file, or an entry header cut or mis-signed.
std::vector<ZipEntry> read_zip_directory(const std::uint8_t* bytes, std::uint64_t size, const std::string& what);

// How far the entries' declared sizes may exceed the file: torch.jit.save stores its tensor
// records as they are and deflates only its code (resnet18: 46.89 MB declared in a 46.89 MB
// file); a re-zipped archive of weights deflates by a few percent. A declared total above kMaxInflation times the file plus
// kInflationSlack bytes is a zip bomb, refused before LibTorch allocates it.
constexpr std::uint64_t kMaxInflation = 16;
constexpr std::uint64_t kInflationSlack = 64ull << 20;

// The entries' declared total, checked against `file_bytes`: UsageError "WHAT: ..." naming
// the largest entry when it exceeds the bound above.
void check_declared_sizes(const std::vector<ZipEntry>& entries, std::uint64_t file_bytes, const std::string& what);

}  // namespace gpubench
