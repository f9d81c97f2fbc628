// This LibTorch ships no Gloo headers (some pip wheels): CPU DDP is skipped with this reason.
#include <stdexcept>

#include "parallel/process_group.h"

namespace gpubench {

std::optional<std::string> gloo_unavailable_reason() {
  return std::string("this LibTorch ships no Gloo headers (gloo/*.h), so CPU DistributedDataParallel is not built");
}

c10::intrusive_ptr<CollectiveGroup> make_gloo_group(const GroupRequest&) {
  throw std::runtime_error(*gloo_unavailable_reason());
}

}  // namespace gpubench
