#include "core/device/host_malloc.h"

#include <malloc.h>

#include <stdexcept>

namespace gpubench {

void configure_host_malloc(HostMalloc mode) {
  if (mode == HostMalloc::Glibc) return;
  // mallopt returns 1 on success. M_TRIM_THRESHOLD takes an int: INT_MAX bytes (2 GiB of
  // free heap top) is "never" for any step this tool runs on a CPU.
  if (mallopt(M_MMAP_MAX, 0) != 1 || mallopt(M_TRIM_THRESHOLD, 0x7fffffff) != 1)
    throw std::runtime_error("glibc refused mallopt(M_MMAP_MAX, 0) / mallopt(M_TRIM_THRESHOLD): "
                             "run with --host-malloc glibc");
}

nlohmann::json host_malloc_json(HostMalloc mode) {
  if (mode == HostMalloc::Glibc) return {{"mode", "glibc"}, {"detail", "glibc malloc defaults (mmap above 128 KiB)"}};
  return {{"mode", "retain"},
          {"detail", "glibc malloc with M_MMAP_MAX=0 and M_TRIM_THRESHOLD=INT_MAX: freed tensor memory is kept "
                     "for the next step instead of being unmapped and page-faulted again"}};
}

}  // namespace gpubench
