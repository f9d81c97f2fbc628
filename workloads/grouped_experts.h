#pragma once
// The routed experts' GEMMs as one grouped GEMM each (torch::_grouped_mm): the rows of every
// expert, sorted by expert, against the experts' weights stacked [E, in, out], each expert's
// rows cut by a device-side offset (so no count goes to the host). LibTorch 2.11 fuses it
// into one CUTLASS kernel on CUDA sm90/sm100 with bf16 operands; elsewhere (other GPUs, other
// dtypes, the CPU) its own fallback is a loop of GEMMs that reads the offsets on the host,
// which is what gpubench's loop already does, so there the loop stays (choose_expert_gemms).
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/formats/decoder_shape.h"
#include "workloads/workload.h"

namespace gpubench {

// What one sparse layer's experts ran as, and why: the row's `moe.experts_computed_as`. A
// literal: the choice is made every forward of every sparse layer, and allocates nothing.
struct ExpertGemmChoice {
  bool grouped = false;
  const char* why = "";
};

// `rows` are the routed rows (their device, and the dtype the GEMMs compute in: autocast's
// when it is on); `widths` every dimension a grouped GEMM's operand has (hidden, the
// expert's intermediate, gate+up's 2I): _grouped_mm takes rows of a multiple of 16 bytes.
ExpertGemmChoice choose_expert_gemms(ExpertGemms wanted, const torch::Tensor& rows, const std::vector<std::int64_t>& widths);

// The dtype the experts' GEMMs compute in: autocast's for the rows' device when it is on
// (what LibTorch's Linear would cast to), else the rows' own.
torch::ScalarType expert_compute_dtype(const torch::Tensor& rows);

// How many of `chosen` (expert ids) name each of `experts`, on their device: bincount's
// count without its read of the largest id on the host (CUDA's bincount sizes its output so).
torch::Tensor count_per_expert(const torch::Tensor& chosen, std::int64_t experts);

// Each expert's end row (int32, cumulative), from its count of rows: _grouped_mm's offsets.
torch::Tensor group_offsets(const torch::Tensor& counts);

// The expert each of `rows` sorted rows belongs to, from the counts, on their device
// without a host read (for a per-expert bias).
torch::Tensor expert_of_rows(const torch::Tensor& counts, std::int64_t rows);

// Weights [out, in] of each expert (a Linear's), stacked and cast to `dtype` as the
// right-hand operand [E, in, out] (a transposed view: _grouped_mm takes it column-major).
torch::Tensor stacked_operand(const std::vector<torch::Tensor>& weights, torch::ScalarType dtype);

// torch::_grouped_mm of `rows` (made contiguous) against a stacked operand [E, in, out].
torch::Tensor grouped_gemm(const torch::Tensor& rows, const torch::Tensor& operand, const torch::Tensor& offsets);

// Every expert's gated MLP act(x Wg^T) * (x Wu^T) Wd^T over its rows: gate and up as one
// grouped GEMM (their weights stacked side by side), then down.
torch::Tensor grouped_gated_mlp(const torch::Tensor& rows, const torch::Tensor& offsets, const std::vector<torch::Tensor>& gate,
                                const std::vector<torch::Tensor>& up, const std::vector<torch::Tensor>& down,
                                DecoderActivation activation);

// The decoder's MLP activations (one definition for the dense MLP and the experts).
torch::Tensor activate(DecoderActivation activation, const torch::Tensor& x);

}  // namespace gpubench
