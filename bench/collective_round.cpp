#include "bench/collective_round.h"

#include <algorithm>
#include <chrono>

namespace gpubench::bench {
namespace {

void synchronize(torch::Device device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

}  // namespace

CollectiveRound::CollectiveRound(const Collective& collective, CollectiveGroup& group, int rank, int world,
                                 std::int64_t bytes, torch::Device device)
    : collective_(collective),
      group_(group),
      rank_(rank),
      world_(world),
      device_(device),
      buffers_(collective.buffers(bytes, world)),
      pattern_(std::max(buffers_.input_elements, buffers_.output_elements), device) {
  const auto floats = torch::TensorOptions().device(device_).dtype(torch::kFloat32);
  input_ = torch::empty({buffers_.input_elements}, floats);
  // -1 is never expected: a collective that writes nothing fails the warm-up's check, and
  // each later iteration's shift makes the previous result wrong too.
  output_ = buffers_.in_place ? input_ : torch::full({buffers_.output_elements}, -1.0, floats);
  expected_ = torch::empty({buffers_.output_elements}, floats);
  token_ = torch::ones({1}, floats);
  iteration_ = -1;
  run_one();
}

void CollectiveRound::line_up() {
  // A one-element all-reduce as a barrier (the same call on every backend): each rank's
  // timer then starts when the others are ready too, so one rank's untimed check of the
  // previous result is not billed to the next collective on another.
  token_.fill_(1);
  std::vector<torch::Tensor> tensors{token_};
  wait_collective(group_, *group_.allreduce(tensors), kCollectiveTimeout);
  synchronize(device_);
}

double CollectiveRound::collective_timed() {
  synchronize(device_);  // the fill must not be billed to the collective
  const auto start = std::chrono::steady_clock::now();
  wait_collective(group_, *collective_.issue(group_, input_, output_), kCollectiveTimeout);
  synchronize(device_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void CollectiveRound::check(std::int64_t iteration) {
  collective_.expect(expected_, pattern_, rank_, world_, iteration);
  if (!torch::equal(output_, expected_)) wrong_ += output_.ne(expected_).sum().item<std::int64_t>();
}

double CollectiveRound::run_one() {
  collective_.fill(input_, pattern_, rank_, world_, iteration_);
  line_up();
  const double seconds = collective_timed();
  check(iteration_);
  ++iteration_;
  return seconds;
}

std::int64_t CollectiveRound::wrong_elements_all_ranks() {
  std::vector<torch::Tensor> tensors{torch::tensor({wrong_}, torch::kInt64).to(device_)};
  wait_collective(group_, *group_.allreduce(tensors), kCollectiveTimeout);
  return tensors[0].to(torch::kCPU).item<std::int64_t>();
}

}  // namespace gpubench::bench
