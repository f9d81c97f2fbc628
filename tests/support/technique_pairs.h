#pragma once
// Every pair of techniques an id can hold, on one device, written as the smallest id that
// holds both on a built-in workload that has what they need: the rule-table walk checks
// that each is either refused with a reason from the table or trained by a test, and the
// CPU and GPU pair tests train the legal ones.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/technique_rules.h"

namespace gpubench::test_support {

struct TechniquePair {
  std::string first, second;  // as an id spells them ("ddp-2", "acc2", "amp-bf16", ...)
  std::string id;             // workload/device/precision/segments
  std::string workload;
};

// The built-in workloads the pairs use and their traits (tests/workloads checks that these
// are the workloads' own): mlp has units (its layers) and cloning, cnn image batches and
// blocks, gpt2 blocks and FP8 Linear layers; mlp and gpt2 have a Python twin (compile).
inline const std::map<std::string, WorkloadTraits>& pair_workload_traits() {
  static const std::map<std::string, WorkloadTraits> traits = [] {
    std::map<std::string, WorkloadTraits> t;
    t["mlp"].units = t["mlp"].python_twin = true;
    t["cnn"].image_batches = t["cnn"].segments = t["cnn"].units = true;
    t["gpt2"].segments = t["gpt2"].units = t["gpt2"].fp8_linears = t["gpt2"].real_scale = t["gpt2"].python_twin = true;
    return t;
  }();
  return traits;
}

inline std::vector<TechniquePair> technique_pairs(DeviceKind device) {
  const std::vector<std::string> precisions = {"bf16", "amp-fp16", "amp-bf16", "tf32", "fp8"};
  const std::string ranks = device == DeviceKind::Cuda ? "-1" : "-2";
  const std::vector<std::string> words = {"bf16", "amp-fp16", "amp-bf16", "tf32", "fp8", "pinned", "pageable", "dp",
                                          "ddp" + ranks, "zero1" + ranks, "zero2" + ranks, "fsdp" + ranks,
                                          "acc2", "adam-foreach", "adam-fused", "channels-last", "ckpt", "graph",
                                          "compile"};
  const auto is_precision = [&](const std::string& w) {
    return std::find(precisions.begin(), precisions.end(), w) != precisions.end();
  };
  std::vector<TechniquePair> pairs;
  for (std::size_t i = 0; i < words.size(); ++i)
    for (std::size_t j = i + 1; j < words.size(); ++j) {
      const std::string& a = words[i];
      const std::string& b = words[j];
      if (is_precision(a) && is_precision(b)) continue;  // one precision slot: not writable
      const bool fp8 = a == "fp8" || b == "fp8";
      const bool images = a == "channels-last" || b == "channels-last";
      const bool blocks = a == "ckpt" || b == "ckpt";
      const std::string workload = fp8 ? "gpt2" : (images || blocks) ? "cnn" : "mlp";
      std::string id = workload + "/" + to_string(device) + "/" + (is_precision(a) ? a : is_precision(b) ? b : "fp32");
      for (const auto& word : {a, b})
        if (!is_precision(word)) id += "/" + word;
      pairs.push_back({a, b, id, workload});
    }
  return pairs;
}

}  // namespace gpubench::test_support
