#include "parallel/process_group.h"

#include <stdexcept>

namespace gpubench {

std::string backend_for(const torch::Device& device) { return device.is_cuda() ? "nccl" : "gloo"; }

std::optional<std::string> backend_unavailable_reason(const std::string& backend) {
  if (backend == "gloo") return gloo_unavailable_reason();
  if (backend == "nccl") {
#if GPUBENCH_TORCH_CUDA
    return std::nullopt;
#else
    return std::string("NCCL needs a LibTorch with CUDA; this build's LibTorch is CPU-only");
#endif
  }
  return "unknown collective backend '" + backend + "': expected gloo or nccl";
}

c10::intrusive_ptr<CollectiveGroup> make_process_group(const GroupRequest& request) {
  if (auto reason = backend_unavailable_reason(request.backend)) throw std::runtime_error(*reason);
#if GPUBENCH_TORCH_CUDA
  if (request.backend == "nccl") return make_nccl_group(request);
#endif
  return make_gloo_group(request);
}

}  // namespace gpubench
