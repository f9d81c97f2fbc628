#include "workloads/sharded_memory.h"

#include <algorithm>

namespace gpubench {

MemoryEstimate per_rank_estimate(const MemoryEstimate& single, const Config& config, const UnitSizes& units) {
  if (!config.multi_rank()) return single;
  MemoryEstimate rank = single;
  constexpr double kFp32 = 4;
  const double psi = static_cast<double>(units.parameters), n = config.world_size;
  const double unit = kFp32 * static_cast<double>(std::max(units.largest_unit, units.root));
  const double in_flight = 2 * unit;  // two reduce-scatter inputs at once
  switch (config.parallel) {
    case ParallelMode::Ddp:
      rank.buffers = kFp32 * psi;
      break;
    case ParallelMode::Zero1:
      rank.states = kFp32 * psi * 2 + (8 + 4) * psi / n;
      rank.buffers = in_flight;
      break;
    case ParallelMode::Zero2:
      rank.states = kFp32 * psi + (4 + 8) * psi / n;
      rank.buffers = in_flight + unit;
      break;
    case ParallelMode::Fsdp:
      rank.states = 16 * psi / n;
      rank.gathered = kFp32 * static_cast<double>(units.root + 2 * units.largest_unit);
      rank.buffers = in_flight + kFp32 * static_cast<double>(units.root);
      break;
    default:
      break;
  }
  // On a CPU, Gloo's reduce-scatter all-reduces a flat copy of its input (c10d in torch
  // 2.11 has no reduce-scatter of its own there): one more whole unit (measured: a 56M
  // Llama's fsdp-2 and zero2-2 ranks held 1.01-1.05x of the estimate without it).
  if (config.sharded() && config.device == DeviceKind::Cpu) rank.buffers += unit;
  // The round trip gathers the whole state to rank 0 first: Adam's two moments (8 bytes a
  // parameter), and fsdp's whole parameters (4), beside the second model and optimizer.
  if (config.sharded()) rank.checkpoint += (config.parallel == ParallelMode::Fsdp ? 12 : 8) * psi;
  return rank;
}

}  // namespace gpubench
