#include "workloads/grouped_experts.h"

#include <ATen/autocast_mode.h>

#include "core/device/cuda_runtime.h"

namespace gpubench {
namespace {

// Whether LibTorch 2.11's _grouped_mm runs its fused kernel on this device (GroupedBlas.cpp:
// bf16 operands and output on compute capability 9.x or 10.x; its CUTLASS kernels are built
// for CUDA 12 and later, which the pinned wheel is). The runtime's device list is read once.
bool fused_grouped_mm_on(const torch::Device& device) {
  if (!device.is_cuda()) return false;
  static const CudaRuntimeInfo cuda = query_cuda_runtime();
  const auto index = static_cast<std::size_t>(device.has_index() ? device.index() : 0);
  if (!cuda.available || index >= cuda.devices.size()) return false;
  const int major = cuda.devices[index].compute_major;
  return major == 9 || major == 10;
}

}  // namespace

torch::Tensor grouped_gemm(const torch::Tensor& rows, const torch::Tensor& operand, const torch::Tensor& offsets) {
  return at::_grouped_mm(rows.contiguous(), operand, offsets);
}

torch::ScalarType expert_compute_dtype(const torch::Tensor& rows) {
  const auto type = rows.device().type();
  return at::autocast::is_autocast_enabled(type) ? at::autocast::get_autocast_dtype(type) : rows.scalar_type();
}

ExpertGemmChoice choose_expert_gemms(ExpertGemms wanted, const torch::Tensor& rows, const std::vector<std::int64_t>& widths) {
  const torch::ScalarType dtype = expert_compute_dtype(rows);
  const auto element = static_cast<std::int64_t>(c10::elementSize(dtype));
  bool aligned = true;
  for (const std::int64_t width : widths) aligned = aligned && (width * element) % 16 == 0;
  if (wanted == ExpertGemms::Loop) return {false, "a loop of one GEMM per expert over its tokens (dropless; asked for)"};
  if (!aligned)
    return {false, "a loop of one GEMM per expert over its tokens (dropless; torch::_grouped_mm takes rows of a "
                   "multiple of 16 bytes, and the experts' widths are not)"};
  if (wanted == ExpertGemms::Grouped)
    return {true, "torch::_grouped_mm over every expert's tokens (dropless; asked for by --expert-gemms grouped: "
                  "LibTorch's kernel for the rows' device and dtype)"};
  if (fused_grouped_mm_on(rows.device()) && dtype == torch::kBFloat16)
    return {true, "torch::_grouped_mm over every expert's tokens (dropless; one fused kernel: CUDA sm90/sm100, bf16)"};
  return {false, "a loop of one GEMM per expert over its tokens (dropless; torch::_grouped_mm fuses only bf16 on CUDA "
                 "sm90/sm100, and is a loop of GEMMs itself elsewhere)"};
}

torch::Tensor count_per_expert(const torch::Tensor& chosen, std::int64_t experts) {
  return torch::zeros({experts}, chosen.options().dtype(torch::kInt64)).index_add_(0, chosen, torch::ones_like(chosen, torch::kInt64));
}

torch::Tensor group_offsets(const torch::Tensor& counts) { return counts.cumsum(0).to(torch::kInt32); }

torch::Tensor expert_of_rows(const torch::Tensor& counts, std::int64_t rows) {
  const auto experts = torch::arange(counts.size(0), counts.options());
  // output_size given: the result's length needs no read of the counts on the host.
  return torch::repeat_interleave(experts, counts, /*dim=*/0, /*output_size=*/rows);
}

torch::Tensor stacked_operand(const std::vector<torch::Tensor>& weights, torch::ScalarType dtype) {
  std::vector<torch::Tensor> cast;
  cast.reserve(weights.size());
  // Cast before stacking: the transient copy is then 16-bit where the GEMMs are.
  for (const auto& weight : weights) cast.push_back(weight.to(dtype));
  return torch::stack(cast).transpose(1, 2);
}

torch::Tensor grouped_gated_mlp(const torch::Tensor& rows, const torch::Tensor& offsets, const std::vector<torch::Tensor>& gate,
                                const std::vector<torch::Tensor>& up, const std::vector<torch::Tensor>& down,
                                DecoderActivation activation) {
  const torch::ScalarType dtype = expert_compute_dtype(rows);
  const auto x = rows.to(dtype);
  std::vector<torch::Tensor> gate_up;  // expert e's [Wg; Wu], [2I, hidden]
  gate_up.reserve(gate.size());
  for (std::size_t e = 0; e < gate.size(); ++e) gate_up.push_back(torch::cat({gate[e].to(dtype), up[e].to(dtype)}, 0));
  const auto both = grouped_gemm(x, stacked_operand(gate_up, dtype), offsets).chunk(2, -1);
  const auto hidden = activate(activation, both[0]) * both[1];
  return grouped_gemm(hidden, stacked_operand(down, dtype), offsets);
}

torch::Tensor activate(DecoderActivation activation, const torch::Tensor& x) {
  switch (activation) {
    case DecoderActivation::Silu: return torch::silu(x);
    case DecoderActivation::GeluTanh: return torch::gelu(x, "tanh");
    case DecoderActivation::GeluErf: return torch::gelu(x);
  }
  return x;
}

}  // namespace gpubench
