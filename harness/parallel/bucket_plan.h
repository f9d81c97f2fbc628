#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace gpubench {

// Which parameters' gradients travel together in one all-reduce, as PyTorch's DDP lays
// them out once it has seen a backward pass: parameters in reverse definition order (the
// order autograd produces their gradients), a small first bucket so communication starts
// early, then buckets of up to `cap_bytes`. A bucket closes once it reaches its limit (so
// one large parameter may exceed it), and at a dtype or device change.
struct GradientBucket {
  std::vector<std::size_t> parameters;  // indices into the parameter list, in fill order
  std::vector<std::int64_t> offsets;    // each parameter's first element in the flat buffer
  std::int64_t numel = 0;
  std::int64_t bytes = 0;
};

struct BucketPlan {
  std::vector<GradientBucket> buckets;
  std::vector<std::size_t> bucket_of;  // parameter index -> bucket index
  std::int64_t cap_bytes = 0;
  std::int64_t first_cap_bytes = 0;
  nlohmann::json to_json() const;      // {buckets, bucket_bytes[], bucket_parameters[], cap_bytes, first_cap_bytes}
};

// PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES.
inline constexpr std::int64_t kFirstBucketBytes = 1 << 20;

// Parameters that do not require grad are left out (they get no hook and no bucket).
BucketPlan plan_buckets(const std::vector<torch::Tensor>& parameters, std::int64_t cap_bytes,
                        std::int64_t first_cap_bytes = kFirstBucketBytes);

}  // namespace gpubench
