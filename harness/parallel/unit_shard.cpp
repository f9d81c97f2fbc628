#include "harness/parallel/unit_shard.h"

#include "harness/parallel/storage_bytes.h"

namespace gpubench {

UnitShard::UnitShard(const FlatUnit& layout, std::vector<torch::Tensor> members, torch::Device device, int rank,
                     int world_size, bool keep_whole, bool in_place_gather)
    : layout_(layout),
      members_(std::move(members)),
      rank_(rank),
      world_size_(world_size),
      keep_whole_(keep_whole),
      in_place_gather_(in_place_gather) {
  torch::NoGradGuard no_grad;
  options_ = members_.front().options().device(device).requires_grad(false);
  for (const auto& member : members_) {
    sizes_.push_back(member.sizes().vec());
    strides_.push_back(member.strides().vec());
    numels_.push_back(member.numel());
  }
  whole_ = torch::zeros({layout_.padded_numel}, options_);
  // From the host, for a model built there (Config::model_built_on_host): the device holds
  // this unit's flat copy and its shard, never the whole model.
  for (std::size_t slot = 0; slot < members_.size(); ++slot) member_view(whole_, slot).copy_(members_[slot]);
  const torch::Tensor mine = whole_.narrow(0, rank_ * layout_.shard_numel, layout_.shard_numel);
  // zero1 and zero2 step their slice of the whole unit in place: it sees the update
  // before the gather; fsdp's shard outlives the whole unit's bytes.
  shard_ = keep_whole_ ? mine : mine.clone();
  bind_members();
  if (!keep_whole_) release();
}

torch::Tensor UnitShard::member_view(const torch::Tensor& flat, std::size_t slot) const {
  // With the member's own strides: a channels-last weight keeps its layout, and its
  // gradient is flattened in the same element order as its values.
  return flat.narrow(0, layout_.offsets[slot], numels_[slot]).as_strided(sizes_[slot], strides_[slot]);
}

void UnitShard::bind_members() {
  for (std::size_t slot = 0; slot < members_.size(); ++slot) members_[slot].set_data(member_view(whole_, slot));
  resident_ = true;
}

void UnitShard::allocate_whole() { allocate_storage_bytes(whole_, static_cast<std::size_t>(whole_bytes())); }

c10::intrusive_ptr<c10d::Work> UnitShard::launch_gather(CollectiveGroup& group) {
  torch::NoGradGuard no_grad;
  if (!keep_whole_) allocate_whole();
  // NCCL gathers in place (its input the output's own slice); Gloo reads a copy, so
  // that no backend ever reads and writes one buffer at once.
  gather_input_ = keep_whole_ && !in_place_gather_ ? shard_.clone() : shard_;
  gather_ = group._allgather_base(whole_, gather_input_);
  return gather_;
}

void UnitShard::finish_gather(const Wait& wait) {
  wait(*gather_);
  gather_.reset();
  gather_input_ = torch::Tensor();
  resident_ = true;
}

void UnitShard::release() {
  // The storage every view of the unit shares gives its bytes back.
  free_storage_bytes(whole_);
  resident_ = false;
}

void UnitShard::begin_backward() {
  arrived_.assign(members_.size(), false);
  pending_ = members_.size();
}

bool UnitShard::gradient_arrived(std::size_t member) {
  if (arrived_.at(member)) return false;
  arrived_[member] = true;
  return --pending_ == 0;
}

c10::intrusive_ptr<c10d::Work> UnitShard::launch_reduce(CollectiveGroup& group, bool free_gradients) {
  torch::NoGradGuard no_grad;
  reduce_input_ = torch::zeros({layout_.padded_numel}, options_);
  for (std::size_t slot = 0; slot < members_.size(); ++slot) {
    torch::Tensor& grad = members_[slot].mutable_grad();
    if (!grad.defined()) continue;  // no gradient this backward: zeros, so every rank still reduces
    member_view(reduce_input_, slot).copy_(grad);
    if (free_gradients) grad.reset();
  }
  // Divided before the sum, as DDP's buckets are: the same rounding as ddp-N's average.
  const int divisor = divisor_ > 0 ? divisor_ : world_size_;
  if (divisor > 1) reduce_input_.div_(divisor);
  reduce_output_ = torch::empty({layout_.shard_numel}, options_);
  c10d::ReduceScatterOptions sum;
  sum.reduceOp = c10d::ReduceOp::SUM;
  reduce_ = group._reduce_scatter_base(reduce_output_, reduce_input_, sum);
  return reduce_;
}

void UnitShard::finish_reduce(const Wait& wait, bool accumulate) {
  wait(*reduce_);
  reduce_.reset();
  reduce_input_ = torch::Tensor();
  torch::NoGradGuard no_grad;
  torch::Tensor& grad = shard_.mutable_grad();
  if (accumulate && grad.defined())
    grad.add_(reduce_output_);
  else
    grad = reduce_output_;
  reduce_output_ = torch::Tensor();
}

}  // namespace gpubench
