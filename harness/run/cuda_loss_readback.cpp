#include "harness/run/cuda_loss_readback.h"

#include <deque>
#include <stdexcept>

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

namespace gpubench {
namespace {

class CudaLossReadback final : public LossReadback {
 public:
  void start(const torch::Tensor& loss) override {
    Pending pending;
    // In the loss's own dtype, as loss.item() copies it: no conversion kernel on the device.
    pending.host = torch::empty({}, torch::TensorOptions().dtype(loss.scalar_type()).pinned_memory(true));
    pending.host.copy_(loss.detach(), /*non_blocking=*/true);
    pending.copied = std::make_unique<at::cuda::CUDAEvent>(cudaEventDisableTiming);
    pending.copied->record(c10::cuda::getCurrentCUDAStream(loss.device().index()));
    pending_.push_back(std::move(pending));
  }
  double wait_oldest() override {
    if (pending_.empty()) throw std::logic_error("LossReadback::wait_oldest with no loss pending");
    Pending oldest = std::move(pending_.front());
    pending_.pop_front();
    oldest.copied->synchronize();
    return oldest.host.item<double>();
  }
  std::size_t pending() const override { return pending_.size(); }

 private:
  struct Pending {
    torch::Tensor host;
    std::unique_ptr<at::cuda::CUDAEvent> copied;
  };
  std::deque<Pending> pending_;
};

}  // namespace

std::unique_ptr<LossReadback> make_cuda_loss_readback() { return std::make_unique<CudaLossReadback>(); }

}  // namespace gpubench
