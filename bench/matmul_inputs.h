#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace gpubench::bench {

// Random square (A, B) pairs used in turn, enough of them that the inputs together are
// larger than any last-level cache: a matmul must not find its operands already warm
// from the previous iteration, or the "ceiling" would be a cache's, not the machine's.
// Random normal values, never zeros (some hardware and libraries shortcut zeros). For
// float8_e4m3fn inputs the output is bf16.
class MatmulInputs {
 public:
  MatmulInputs(std::int64_t n, torch::ScalarType dtype, torch::Device device);
  const std::pair<torch::Tensor, torch::Tensor>& next();
  torch::Tensor& output() { return output_; }
  std::size_t set_count() const { return sets_.size(); }
  // 2 n^3: one multiply and one add per inner-product term.
  double flops_per_matmul() const { return 2.0 * static_cast<double>(n_) * static_cast<double>(n_) * static_cast<double>(n_); }

 private:
  std::int64_t n_;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> sets_;
  std::size_t position_ = 0;
  torch::Tensor output_;
};

}  // namespace gpubench::bench
