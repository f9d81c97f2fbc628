#include "bench/allreduce_round.h"

#include <algorithm>
#include <chrono>

namespace gpubench::bench {
namespace {

// Small: p <= 97, so the sum 97 * n(n+1)/2 stays an integer float32 holds exactly up to
// n = 580 ranks.
constexpr std::int64_t kPatternModulus = 97;

void synchronize(torch::Device device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

}  // namespace

AllreduceRound::AllreduceRound(CollectiveGroup& group, int rank, int world, std::int64_t bytes, torch::Device device)
    : group_(group), rank_(rank), world_(world), device_(device) {
  const std::int64_t elements = std::max<std::int64_t>(1, bytes / static_cast<std::int64_t>(sizeof(float)));
  const auto on_device = torch::TensorOptions().device(device_);
  pattern_ = torch::arange(elements + kPatternModulus, on_device.dtype(torch::kInt64))
                 .remainder(kPatternModulus)
                 .add_(1)
                 .to(torch::kFloat32);
  buffer_ = torch::empty({elements}, on_device.dtype(torch::kFloat32));
  expected_ = torch::empty_like(buffer_);
  token_ = torch::ones({1}, on_device.dtype(torch::kFloat32));
  fill(-1);
  line_up();
  all_reduce_timed();
  check(-1);
}

torch::Tensor AllreduceRound::pattern_for(std::int64_t iteration) const {
  const auto shift = (iteration % kPatternModulus + kPatternModulus) % kPatternModulus;
  return pattern_.narrow(0, shift, buffer_.numel());
}

void AllreduceRound::fill(std::int64_t iteration) {
  // This rank contributes (rank + 1) * p.
  buffer_.copy_(pattern_for(iteration)).mul_(rank_ + 1);
}

void AllreduceRound::line_up() {
  // A one-element all-reduce as a barrier (the same call on every backend): each rank's
  // timer then starts when the others are ready too, so one rank's untimed check of the
  // previous result is not billed to the next all-reduce on another.
  token_.fill_(1);
  std::vector<torch::Tensor> tensors{token_};
  wait_collective(group_, *group_.allreduce(tensors), kCollectiveTimeout);
  synchronize(device_);
}

double AllreduceRound::all_reduce_timed() {
  synchronize(device_);  // the fill must not be billed to the all-reduce
  const auto start = std::chrono::steady_clock::now();
  std::vector<torch::Tensor> tensors{buffer_};
  wait_collective(group_, *group_.allreduce(tensors), kCollectiveTimeout);
  synchronize(device_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void AllreduceRound::check(std::int64_t iteration) {
  // Sum over ranks r of (r + 1) * p = p * world (world + 1) / 2.
  expected_.copy_(pattern_for(iteration)).mul_(world_ * (world_ + 1) / 2);
  if (!torch::equal(buffer_, expected_)) wrong_ += buffer_.ne(expected_).sum().item<std::int64_t>();
}

double AllreduceRound::run_one() {
  fill(iteration_);
  line_up();
  const double seconds = all_reduce_timed();
  check(iteration_);
  ++iteration_;
  return seconds;
}

std::int64_t AllreduceRound::wrong_elements_all_ranks() {
  std::vector<torch::Tensor> tensors{torch::tensor({wrong_}, torch::kInt64).to(device_)};
  wait_collective(group_, *group_.allreduce(tensors), kCollectiveTimeout);
  return tensors[0].to(torch::kCPU).item<std::int64_t>();
}

}  // namespace gpubench::bench
