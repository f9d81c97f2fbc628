#include "harness/parallel/bucket_plan.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace gpubench {

nlohmann::json BucketPlan::to_json() const {
  nlohmann::json bytes = nlohmann::json::array(), counts = nlohmann::json::array();
  for (const auto& bucket : buckets) {
    bytes.push_back(bucket.bytes);
    counts.push_back(bucket.parameters.size());
  }
  return {{"buckets", buckets.size()},
          {"bucket_bytes", bytes},
          {"bucket_parameters", counts},
          {"bucket_cap_bytes", cap_bytes},
          {"first_bucket_cap_bytes", first_cap_bytes}};
}

BucketPlan plan_buckets(const std::vector<torch::Tensor>& parameters, std::int64_t cap_bytes,
                        std::int64_t first_cap_bytes) {
  if (cap_bytes <= 0) throw std::invalid_argument("bucket cap must be positive, got " + std::to_string(cap_bytes));
  BucketPlan plan;
  plan.cap_bytes = cap_bytes;
  plan.first_cap_bytes = std::min(first_cap_bytes, cap_bytes);
  plan.bucket_of.assign(parameters.size(), std::numeric_limits<std::size_t>::max());
  GradientBucket current;
  c10::ScalarType dtype = c10::ScalarType::Undefined;
  c10::Device device = torch::kCPU;
  const auto close = [&] {
    if (current.parameters.empty()) return;
    for (std::size_t index : current.parameters) plan.bucket_of[index] = plan.buckets.size();
    plan.buckets.push_back(std::move(current));
    current = GradientBucket{};
  };
  for (std::size_t i = parameters.size(); i-- > 0;) {
    const torch::Tensor& parameter = parameters[i];
    if (!parameter.requires_grad()) continue;
    if (!current.parameters.empty() && (parameter.scalar_type() != dtype || parameter.device() != device)) close();
    dtype = parameter.scalar_type();
    device = parameter.device();
    current.parameters.push_back(i);
    current.offsets.push_back(current.numel);
    current.numel += parameter.numel();
    current.bytes += parameter.numel() * static_cast<std::int64_t>(parameter.element_size());
    const std::int64_t limit = plan.buckets.empty() ? plan.first_cap_bytes : plan.cap_bytes;
    if (current.bytes >= limit) close();
  }
  close();
  return plan;
}

}  // namespace gpubench
