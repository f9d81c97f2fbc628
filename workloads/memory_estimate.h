#pragma once
// Bytes one training process of a config needs, part by part, where the workload can say
// (the decoder LMs: workloads/decoder_lm.cpp has the arithmetic). A config whose estimate
// does not fit is refused before it runs: skipped on the CPU (what the host has free), a
// failed row on a GPU (the device's free memory), each naming the estimate.
#include <nlohmann/json.hpp>

namespace gpubench {

struct MemoryEstimate {
  double states = 0;       // fp32 weights, gradients and Adam's two moments: 16 bytes a parameter
  double activations = 0;  // what backward keeps, at the config's batch and sequence
  double logits = 0;       // the [batch, seq, vocab] logits, their fp32 copy and gradient
  double checkpoint = 0;   // the checkpoint round trip's second model and optimizer (host)
  // Short-lived copies of the largest tensor (the token embedding: its gradient's
  // contributions and their sum in backward, Adam's temporaries) and, on a CPU, the
  // process itself (LibTorch's libraries) and its heap's slack.
  double workspace = 0;
  double device_total() const { return states + activations + logits + workspace; }
  double host_total() const { return device_total() + checkpoint; }
  nlohmann::json to_json() const {
    return {{"states_bytes", states},           {"activations_bytes", activations}, {"logits_bytes", logits},
            {"workspace_bytes", workspace},     {"checkpoint_bytes", checkpoint},   {"device_total_bytes", device_total()},
            {"host_total_bytes", host_total()},
            {"convention", "16 bytes a parameter (fp32 weights, grads, Adam m and v); activations 34 x hidden bytes a "
                           "token and layer in 16-bit; workspace 4 fp32 copies of the token embedding, plus on a "
                           "CPU 0.5 GiB for the process and 12% of the states for the heap's slack"}};
  }
};

}  // namespace gpubench
