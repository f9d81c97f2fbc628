#include "bench/collectives.h"

#include <algorithm>
#include <stdexcept>

namespace gpubench::bench {
namespace {

constexpr std::int64_t kFloatBytes = static_cast<std::int64_t>(sizeof(float));

// Sum over ranks r of (r + 1): every rank contributes (rank + 1) x p, so a missing or doubled
// contribution changes the sum.
double rank_sum(int world) { return world * (world + 1) / 2.0; }

// All-reduce: every rank's buffer is (rank + 1) p(i + shift), afterwards their sum.
CollectiveBuffers all_reduce_buffers(std::int64_t bytes, int) {
  const std::int64_t elements = std::max<std::int64_t>(1, bytes / kFloatBytes);
  return {elements, elements, true, elements * kFloatBytes};
}
double all_reduce_bus_factor(int world) { return 2.0 * (world - 1) / world; }
void all_reduce_fill(torch::Tensor& input, const CheckPattern& pattern, int rank, int, std::int64_t shift) {
  input.copy_(pattern.values(shift, input.numel())).mul_(rank + 1);
}
void all_reduce_expect(torch::Tensor& expected, const CheckPattern& pattern, int, int world, std::int64_t shift) {
  expected.copy_(pattern.values(shift, expected.numel())).mul_(rank_sum(world));
}
c10::intrusive_ptr<c10d::Work> all_reduce_issue(gpubench::CollectiveGroup& group, torch::Tensor&, torch::Tensor& output) {
  std::vector<torch::Tensor> tensors{output};
  return group.allreduce(tensors);
}

// Chunks of N elements' worth: nccl-tests' count rounded to the rank count.
std::int64_t chunk_elements(std::int64_t bytes, int world) {
  return std::max<std::int64_t>(1, bytes / kFloatBytes / world);
}

// All-gather: rank r sends (r + 1) p(j + shift); chunk r of every output must hold it, so
// a chunk from the wrong rank, or in the wrong place, differs by its factor.
CollectiveBuffers all_gather_buffers(std::int64_t bytes, int world) {
  const std::int64_t chunk = chunk_elements(bytes, world);
  return {chunk, chunk * world, false, chunk * world * kFloatBytes};
}
double gather_scatter_bus_factor(int world) { return (world - 1.0) / world; }
void all_gather_fill(torch::Tensor& input, const CheckPattern& pattern, int rank, int, std::int64_t shift) {
  input.copy_(pattern.values(shift, input.numel())).mul_(rank + 1);
}
void all_gather_expect(torch::Tensor& expected, const CheckPattern& pattern, int, int world, std::int64_t shift) {
  const std::int64_t chunk = expected.numel() / world;
  auto by_rank = expected.view({world, chunk});
  by_rank.copy_(pattern.values(shift, chunk));  // broadcast to every row
  by_rank.mul_(torch::arange(1, world + 1, expected.options()).view({world, 1}));
}
c10::intrusive_ptr<c10d::Work> all_gather_issue(gpubench::CollectiveGroup& group, torch::Tensor& input,
                                                torch::Tensor& output) {
  return group._allgather_base(output, input);
}

// Reduce-scatter: chunk c of rank r's input is (r + 1) p(j + shift + c); rank r's output
// must be the sum of chunk r: the shift by the chunk's index tells the chunks apart.
CollectiveBuffers reduce_scatter_buffers(std::int64_t bytes, int world) {
  const std::int64_t chunk = chunk_elements(bytes, world);
  return {chunk * world, chunk, false, chunk * world * kFloatBytes};
}
void reduce_scatter_fill(torch::Tensor& input, const CheckPattern& pattern, int rank, int world, std::int64_t shift) {
  const std::int64_t chunk = input.numel() / world;
  for (int c = 0; c < world; ++c) input.narrow(0, c * chunk, chunk).copy_(pattern.values(shift + c, chunk));
  input.mul_(rank + 1);
}
void reduce_scatter_expect(torch::Tensor& expected, const CheckPattern& pattern, int rank, int world, std::int64_t shift) {
  expected.copy_(pattern.values(shift + rank, expected.numel())).mul_(rank_sum(world));
}
c10::intrusive_ptr<c10d::Work> reduce_scatter_issue(gpubench::CollectiveGroup& group, torch::Tensor& input,
                                                    torch::Tensor& output) {
  c10d::ReduceScatterOptions sum;
  sum.reduceOp = c10d::ReduceOp::SUM;
  return group._reduce_scatter_base(output, input, sum);
}

}  // namespace

CheckPattern::CheckPattern(std::int64_t longest, torch::Device device) {
  values_ = torch::arange(longest + kModulus, torch::TensorOptions().device(device).dtype(torch::kInt64))
                .remainder(kModulus)
                .add_(1)
                .to(torch::kFloat32);
}

torch::Tensor CheckPattern::values(std::int64_t shift, std::int64_t length) const {
  return values_.narrow(0, (shift % kModulus + kModulus) % kModulus, length);
}

BatchReport report_batch(const Collective& collective, std::int64_t wrong_elements, std::int64_t counted_bytes,
                         int world) {
  BatchReport report;
  if (wrong_elements != 0) {
    report.error = std::string(collective.description) + " results wrong: " + std::to_string(wrong_elements) +
                   " elements differ from the expected over " + std::to_string(world) + " ranks";
    return report;
  }
  report.gigabytes = static_cast<double>(counted_bytes) / 1e9;
  report.bus_gigabytes = report.gigabytes * collective.bus_factor(world);
  return report;
}

const std::vector<Collective>& collectives() {
  static const std::vector<Collective> table = {
      {"allreduce", "all-reduce", all_reduce_buffers, all_reduce_bus_factor, all_reduce_fill, all_reduce_expect,
       all_reduce_issue},
      {"allgather", "all-gather", all_gather_buffers, gather_scatter_bus_factor, all_gather_fill, all_gather_expect,
       all_gather_issue},
      {"reducescatter", "reduce-scatter", reduce_scatter_buffers, gather_scatter_bus_factor, reduce_scatter_fill,
       reduce_scatter_expect, reduce_scatter_issue},
  };
  return table;
}

const Collective& collective_named(const std::string& name) {
  std::string known;
  for (const auto& collective : collectives()) {
    if (name == collective.name) return collective;
    known += (known.empty() ? "" : ", ") + std::string(collective.name);
  }
  throw std::invalid_argument("unknown collective '" + name + "', expected one of " + known);
}

}  // namespace gpubench::bench
