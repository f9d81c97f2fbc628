#include "workloads/op_flops.h"

#include <cstring>

#include <ATen/record_function.h>

namespace gpubench {
namespace {

thread_local std::int64_t counted_macs = 0;

std::int64_t product(c10::IntArrayRef sizes, std::size_t from = 0) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < sizes.size(); ++i) p *= sizes[i];
  return p;
}

c10::IntArrayRef sizes_of(const c10::IValue& value) {
  return value.isTensor() ? value.toTensor().sizes() : c10::IntArrayRef();
}

// [.., m, k] x [.., k, n]: the leading dims of the first times m x k x n.
std::int64_t matmul_macs(const c10::IValue& a, const c10::IValue& b) {
  const auto x = sizes_of(a), y = sizes_of(b);
  if (x.size() < 2 || y.size() < 2) return 0;
  return product(x) * y.back();
}

std::int64_t convolution_macs(c10::ArrayRef<const c10::IValue> inputs) {
  if (inputs.size() < 9 || !inputs[0].isTensor() || !inputs[1].isTensor()) return 0;
  const auto input = inputs[0].toTensor().sizes(), weight = inputs[1].toTensor().sizes();
  const auto stride = inputs[3].toIntVector(), padding = inputs[4].toIntVector(), dilation = inputs[5].toIntVector();
  const bool transposed = inputs[6].toBool();
  const std::size_t spatial = input.size() - 2;
  if (transposed) return product(input, 2) * input[0] * product(weight);
  std::int64_t positions = input[0];
  for (std::size_t d = 0; d < spatial && d < stride.size(); ++d) {
    const std::int64_t extent = dilation[d] * (weight[2 + d] - 1) + 1;
    positions *= (input[2 + d] + 2 * padding[d] - extent) / stride[d] + 1;
  }
  return positions * product(weight);
}

std::unique_ptr<at::ObserverContext> on_op(const at::RecordFunction& fn) {
  const char* name = fn.name();
  const auto inputs = fn.inputs();
  if (std::strcmp(name, "aten::mm") == 0 || std::strcmp(name, "aten::bmm") == 0) {
    if (inputs.size() >= 2) counted_macs += matmul_macs(inputs[0], inputs[1]);
  } else if (std::strcmp(name, "aten::addmm") == 0 || std::strcmp(name, "aten::baddbmm") == 0) {
    if (inputs.size() >= 3) counted_macs += matmul_macs(inputs[1], inputs[2]);
  } else if (std::strcmp(name, "aten::convolution") == 0) {
    counted_macs += convolution_macs(inputs);
  }
  return nullptr;
}

}  // namespace

std::int64_t count_matmul_macs(const std::function<void()>& body) {
  counted_macs = 0;
  at::RecordFunctionGuard enabled(true);
  const auto handle = at::addThreadLocalCallback(at::RecordFunctionCallback(&on_op).needsInputs(true));
  try {
    body();
  } catch (...) {
    at::removeCallback(handle);
    throw;
  }
  at::removeCallback(handle);
  return counted_macs;
}

}  // namespace gpubench
