#include "harness/run/pinned_batch_source.h"

#include <array>
#include <deque>
#include <stdexcept>

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace gpubench {
namespace {

torch::Device with_index(torch::Device device) {
  if (!device.is_cuda()) throw std::invalid_argument("pinned batch source: device " + device.str() + " is not a CUDA device");
  return device.has_index() ? device : torch::Device(torch::kCUDA, c10::cuda::current_device());
}

std::uint64_t batch_bytes(const Batch& batch) {
  return static_cast<std::uint64_t>(batch.data.nbytes() + batch.target.nbytes());
}

// Copies `source` into the reused pinned buffer, (re)allocating it if shape or dtype changed.
void stage(torch::Tensor& pinned, const torch::Tensor& source) {
  if (!pinned.defined() || pinned.sizes() != source.sizes() || pinned.scalar_type() != source.scalar_type())
    pinned = at::empty(source.sizes(), torch::TensorOptions().dtype(source.scalar_type()).pinned_memory(true));
  pinned.copy_(source);
}

torch::Tensor copy_async(const torch::Tensor& pinned, torch::Device device) {
  return pinned.to(device, pinned.scalar_type(), /*non_blocking=*/true);
}

}  // namespace

// ---- PinnedBatchSource ----

struct PinnedBatchSource::State {
  struct Slot {
    torch::Tensor host_data, host_target;      // pinned, reused
    torch::Tensor device_data, device_target;  // allocated on the copy stream, handed out by to_device
    at::cuda::CUDAEvent start{cudaEventDefault}, done{cudaEventDefault};  // timing enabled
    bool timing_pending = false;  // copy issued, duration not read yet
    bool outstanding = false;     // returned by next(), to_device() not called yet
    // Handed out by next(): the copy belongs to the step that took the batch (measured or
    // not), not to the earlier step that issued the prefetch. A copy never handed out (the
    // run's last prefetch) belongs to no step and is not recorded.
    bool handed_out = false;
    bool measured = false;
    std::uint64_t bytes = 0;
  };

  State(std::unique_ptr<BatchSource> host_source, torch::Device device_, std::shared_ptr<H2dCopyStats> stats_)
      : host(std::move(host_source)),
        device(with_index(device_)),
        stats(std::move(stats_)),
        copy_stream(at::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())) {}

  ~State() {
    if (stats) stats->set_drain(nullptr);
    // Let copies still running finish before their buffers go (destructors must not throw).
    for (auto& slot : slots) {
      try {
        slot.done.synchronize();
      } catch (...) {
      }
    }
  }

  // Waits for the slot's last copy (normally long finished) and records its duration,
  // once its batch was handed out.
  void retire(Slot& slot) {
    if (!slot.timing_pending || !slot.handed_out) return;
    slot.done.synchronize();
    if (stats) stats->record(slot.bytes, static_cast<double>(slot.start.elapsed_time(slot.done)), slot.measured);
    slot.timing_pending = false;
  }

  // Collates the next batch, pins it into a free slot and starts its copy on the copy stream.
  void issue() {
    Slot& slot = slots[next_slot];
    if (slot.outstanding)
      throw std::logic_error("PinnedBatchSource: next() called again before to_device() of the batch it returned");
    retire(slot);  // its pinned buffers are about to be overwritten
    const Batch batch = host->next();
    stage(slot.host_data, batch.data);
    stage(slot.host_target, batch.target);
    slot.bytes = batch_bytes(batch);
    slot.handed_out = false;
    {
      // Allocations below belong to the copy stream; to_device() records the compute stream.
      c10::cuda::CUDAStreamGuard guard(copy_stream);
      slot.start.record(copy_stream);
      slot.device_data = copy_async(slot.host_data, device);
      slot.device_target = copy_async(slot.host_target, device);
      slot.done.record(copy_stream);
    }
    slot.timing_pending = true;
    ready.push_back(next_slot);
    next_slot = (next_slot + 1) % slots.size();
  }

  std::unique_ptr<BatchSource> host;
  torch::Device device;
  std::shared_ptr<H2dCopyStats> stats;
  c10::cuda::CUDAStream copy_stream;
  std::array<Slot, 2> slots;  // double buffering
  std::deque<std::size_t> ready;  // slots whose copy is issued, in batch order, not yet returned
  std::size_t next_slot = 0;
  std::deque<std::size_t> outstanding;  // returned by next(), waiting for to_device()
};

PinnedBatchSource::PinnedBatchSource(std::unique_ptr<BatchSource> host, torch::Device device,
                                     std::shared_ptr<H2dCopyStats> stats)
    : state_(std::make_unique<State>(std::move(host), device, std::move(stats))) {
  // At run end the copies of the last steps are recorded too (retire waits for each one).
  if (State* s = state_.get(); s->stats)
    s->stats->set_drain([s] {
      for (auto& slot : s->slots) s->retire(slot);
    });
}

PinnedBatchSource::~PinnedBatchSource() = default;

Batch PinnedBatchSource::next() {
  State& s = *state_;
  if (!s.outstanding.empty())
    throw std::logic_error("PinnedBatchSource: next() called again before to_device() of the batch it returned");
  // Record the durations of copies that have finished (query() does not block), so that
  // a run's last copies are counted too, not only those whose slot gets reused.
  for (auto& slot : s.slots)
    if (slot.timing_pending && slot.done.query()) s.retire(slot);
  if (s.ready.empty()) s.issue();  // first call: nothing prefetched yet
  const std::size_t index = s.ready.front();
  s.ready.pop_front();
  State::Slot& slot = s.slots[index];
  slot.outstanding = true;
  slot.handed_out = true;
  slot.measured = s.stats && s.stats->measuring();
  s.outstanding.push_back(index);
  s.issue();  // prefetch: batch N+1's copy runs while step N computes
  return {slot.host_data, slot.host_target};
}

Batch PinnedBatchSource::to_device(Batch host_batch) {
  State& s = *state_;
  if (s.outstanding.empty() || !s.slots[s.outstanding.front()].host_data.is_same(host_batch.data))
    throw std::logic_error("PinnedBatchSource::to_device: expected the batch the last next() returned");
  State::Slot& slot = s.slots[s.outstanding.front()];
  s.outstanding.pop_front();
  slot.outstanding = false;
  const c10::cuda::CUDAStream compute = c10::cuda::getCurrentCUDAStream(s.device.index());
  slot.done.block(compute);  // GPU-side wait: the host does not block here
  slot.device_data.record_stream(compute);
  slot.device_target.record_stream(compute);
  Batch batch{std::move(slot.device_data), std::move(slot.device_target)};
  slot.device_data = torch::Tensor();
  slot.device_target = torch::Tensor();
  return batch;
}

// ---- CopyTimedBatchSource ----

struct CopyTimedBatchSource::State {
  State(std::unique_ptr<BatchSource> inner_, torch::Device device_, std::shared_ptr<H2dCopyStats> stats_)
      : inner(std::move(inner_)), device(with_index(device_)), stats(std::move(stats_)) {}
  std::unique_ptr<BatchSource> inner;
  torch::Device device;
  std::shared_ptr<H2dCopyStats> stats;
  at::cuda::CUDAEvent start{cudaEventDefault}, done{cudaEventDefault};
};

CopyTimedBatchSource::CopyTimedBatchSource(std::unique_ptr<BatchSource> inner, torch::Device device,
                                           std::shared_ptr<H2dCopyStats> stats)
    : state_(std::make_unique<State>(std::move(inner), device, std::move(stats))) {}

CopyTimedBatchSource::~CopyTimedBatchSource() = default;

Batch CopyTimedBatchSource::next() { return state_->inner->next(); }

Batch CopyTimedBatchSource::to_device(Batch host_batch) {
  State& s = *state_;
  const std::uint64_t bytes = batch_bytes(host_batch);
  const bool measured = s.stats && s.stats->measuring();
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(s.device.index());
  s.start.record(stream);
  Batch batch = s.inner->to_device(std::move(host_batch));
  s.done.record(stream);
  s.done.synchronize();  // elapsed_time needs both events completed; a pageable copy already blocked
  if (s.stats) s.stats->record(bytes, static_cast<double>(s.start.elapsed_time(s.done)), measured);
  return batch;
}

}  // namespace gpubench
