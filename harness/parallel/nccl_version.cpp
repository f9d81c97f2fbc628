#include "harness/parallel/nccl_version.h"

namespace gpubench {

std::string NcclVersion::to_string() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

NcclVersion decode_nccl_version(int code) {
  // NCCL_VERSION(X, Y, Z) in nccl.h: the wider encoding from 2.9 on, so every code below
  // 10000 is an older release.
  const int major_unit = code >= 10000 ? 10000 : 1000;
  return NcclVersion{code / major_unit, (code % major_unit) / 100, code % 100};
}

std::optional<std::string> nccl_header_mismatch(int header_code, std::optional<int> loaded_code) {
  if (!loaded_code) return std::nullopt;
  const NcclVersion header = decode_nccl_version(header_code);
  const NcclVersion loaded = decode_nccl_version(*loaded_code);
  // Patch releases keep the structs; a minor release may grow ncclConfig_t.
  if (header.major == loaded.major && header.minor == loaded.minor) return std::nullopt;
  return "gpubench was compiled against nccl.h of NCCL " + header.to_string() + " but LibTorch loaded NCCL " +
         loaded.to_string() +
         ": c10d's NCCL options would not match (memory corruption), so no NCCL group is created. Rebuild with "
         "scripts/build.sh (it uses the nccl.h of torch's own nvidia-nccl wheel) or pass "
         "-DGPUBENCH_NCCL_INCLUDE_DIR=<the include directory of NCCL " +
         loaded.to_string() + ">";
}

}  // namespace gpubench
