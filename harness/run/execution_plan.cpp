#include "harness/run/execution_plan.h"

#include <stdexcept>

#include "harness/run/cuda_execution_plan.h"

namespace gpubench {
namespace {

ExecutionPlan plan_cpu_execution(const Config& config) {
  ExecutionPlan plan;
  plan.device = torch::kCPU;
  plan.autocast = config.precision == Precision::Bf16;
  plan.autocast_dtype = torch::kBFloat16;
  plan.make_batch_source = [](Dataset dataset, LoaderOptions options) -> std::unique_ptr<BatchSource> {
    return std::make_unique<LoaderBatchSource>(std::move(dataset), options, torch::kCPU);
  };
  return plan;
}

}  // namespace

ExecutionPlan plan_execution(const Config& config) {
  if (config.device == DeviceKind::Cpu) return plan_cpu_execution(config);
  return plan_cuda_execution(config);
}

}  // namespace gpubench
