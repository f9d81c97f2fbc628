#pragma once
// One unit of sharding on one rank (shard_layout.h): this rank's shard of the unit's flat
// parameters (what the optimizer steps), the gathered whole while it exists, and its
// gradients on their way to this rank's gradient shard. sharded_data_parallel.h decides
// when each step happens; this is how.
#include <cstdint>
#include <functional>
#include <vector>

#include <torch/torch.h>

#include "harness/parallel/process_group.h"
#include "harness/parallel/shard_layout.h"

namespace gpubench {

class UnitShard {
 public:
  // Blocks until `work` is done (the sharded run's bounded, timed wait).
  using Wait = std::function<void(c10d::Work& work)>;

  // `members`: the unit's parameters (layout.members of the model's list), as trained so
  // far; from here on they view one flat buffer of the whole unit, for good. `keep_whole`:
  // zero1 and zero2 keep that buffer on every rank, and the shard is this rank's slice of
  // it (stepped in place); fsdp keeps only the shard and gives the buffer its bytes only
  // around each use: its storage is freed in place (FSDP's free_storage), so every tensor
  // viewing it -- the parameters, and what autograd saved of them (a transposed weight) --
  // lets go of the memory and sees the next gather's values. Copies the members' values
  // in, so every rank must hold the same values (rank 0's broadcast). The buffer lives on
  // `device`, wherever the members are now (a model built on the host moves unit by unit).
  UnitShard(const FlatUnit& layout, std::vector<torch::Tensor> members, torch::Device device, int rank, int world_size,
            bool keep_whole, bool in_place_gather);

  const FlatUnit& layout() const { return layout_; }
  // The optimizer's parameter: this rank's 1/N of the unit (padding included), a leaf.
  torch::Tensor& shard() { return shard_; }
  const torch::Tensor& shard() const { return shard_; }
  std::int64_t whole_bytes() const { return layout_.padded_numel * layout_.element_bytes; }
  std::int64_t shard_bytes() const { return layout_.shard_numel * layout_.element_bytes; }

  // --- parameters: the whole unit from every rank's shard ---
  bool resident() const { return resident_; }         // the members view the whole unit
  bool gathering() const { return gather_.defined(); }  // an all-gather is in flight
  // Starts the all-gather of every rank's shard into the whole unit (a new buffer for fsdp).
  c10::intrusive_ptr<c10d::Work> launch_gather(CollectiveGroup& group);
  // Waits for the gather in flight and points the members at their part of the whole.
  void finish_gather(const Wait& wait);
  // fsdp: the whole unit's storage is freed (0 bytes). A use of a member before the next
  // gather fails (LibTorch: "data is not allocated yet"), never reads freed memory.
  void release();

  // --- gradients: each member's .grad, reduce-scattered into this rank's gradient shard ---
  // The members whose gradient arrived this backward; a unit is complete when all have.
  void begin_backward();
  // Returns true when this member completes the unit. A member twice: counted once.
  bool gradient_arrived(std::size_t member);
  bool complete() const { return pending_ == 0; }
  // What launch_reduce divides the gradients by before the sum: the world size unless set
  // (ep-K's experts sharded over their N/K replicas divide by N, ddp-N's average).
  void divide_gradients_by(int divisor) { divisor_ = divisor; }
  // Flattens the members' gradients (a member without one contributes zeros) divided by
  // the world size (or the divisor set) into a padded buffer and starts its reduce-scatter (sum) into this
  // rank's slice. `free_gradients`: the members' .grad are dropped once copied (zero2, fsdp).
  c10::intrusive_ptr<c10d::Work> launch_reduce(CollectiveGroup& group, bool free_gradients);
  bool reducing() const { return reduce_.defined(); }
  // Waits for the reduce-scatter; the result becomes shard().grad(), or is added to it
  // when `accumulate` (earlier micro-batches of the step reduced already).
  void finish_reduce(const Wait& wait, bool accumulate);

  // Member `slot`'s part of a flat, whole-unit buffer, shaped and strided as the member.
  torch::Tensor member_view(const torch::Tensor& flat, std::size_t slot) const;
  std::size_t members() const { return members_.size(); }

  // The bytes the whole unit's buffer holds now (0 while fsdp has it freed).
  std::int64_t held_bytes() const { return static_cast<std::int64_t>(whole_.storage().nbytes()); }

 private:
  void bind_members();
  void allocate_whole();

  FlatUnit layout_;
  std::vector<torch::Tensor> members_;
  std::vector<std::vector<std::int64_t>> sizes_, strides_;  // each member's layout, kept through releases
  std::vector<std::int64_t> numels_;
  int rank_ = 0, world_size_ = 1, divisor_ = 0;  // divisor_ 0: the world size
  bool keep_whole_ = true;
  bool in_place_gather_ = false;  // NCCL gathers from a slice of its output; Gloo from a copy
  torch::TensorOptions options_;
  torch::Tensor whole_;  // the whole unit, the members' storage (fsdp: 0 bytes between uses)
  torch::Tensor shard_;
  bool resident_ = false;
  c10::intrusive_ptr<c10d::Work> gather_;
  torch::Tensor gather_input_;  // what the gather in flight reads (kept alive until it ends)
  std::vector<bool> arrived_;
  std::size_t pending_ = 0;
  c10::intrusive_ptr<c10d::Work> reduce_;
  torch::Tensor reduce_input_, reduce_output_;
};

}  // namespace gpubench
