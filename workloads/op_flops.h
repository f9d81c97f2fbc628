#pragma once
// Counting a model's forward multiply-adds by watching what it runs, for models gpubench
// did not write (a TorchScript archive): LibTorch's operator observer (at::RecordFunction,
// what torch.profiler's with_flops reads) sees every aten op with its inputs. Counted by
// the matmul convention of workloads/model_flops.h: aten::mm, addmm, bmm and baddbmm
// (batch x m x k x n) and aten::convolution (output positions x the weight's elements; a
// transposed one by its input positions); composite ops (linear, matmul, conv2d, attention)
// are counted in these leaves only, never twice. Run on the CPU, where attention is the math
// path (its two batched matmuls are bmm).
#include <cstdint>
#include <functional>

namespace gpubench {

// The multiply-adds of the counted ops `body` runs on this thread.
std::int64_t count_matmul_macs(const std::function<void()>& body);

}  // namespace gpubench
