#pragma once
#include <optional>
#include <string>

namespace gpubench {

// c10d's NCCL options embed NCCL's own structs (ncclConfig_t): our translation unit sizes
// them from the nccl.h it was compiled with, libtorch_cuda fills them from the NCCL it was
// built with. The two must agree or the options object is overrun. What can be checked at
// run time is the NCCL library loaded, which is normally the one LibTorch was built with
// (a pip torch pins its nvidia-nccl wheel; scripts/build.sh warns when the
// installed wheel differs). This is the check nccl_group.cpp makes before creating a
// group (pure, so it is tested without a GPU).

struct NcclVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string to_string() const;
};

// NCCL_VERSION_CODE / ncclGetVersion() as a version: major*10000 + minor*100 + patch
// since 2.9, major*1000 + minor*100 + patch before.
NcclVersion decode_nccl_version(int code);

// Why a group must not be created, or nullopt: the header's and the loaded library's
// major.minor differ. An unknown loaded version (ncclGetVersion not found) passes.
std::optional<std::string> nccl_header_mismatch(int header_code, std::optional<int> loaded_code);

}  // namespace gpubench
