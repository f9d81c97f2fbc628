#pragma once
// Bytes one training process of a config needs, part by part, where the workload can say
// (the decoder LMs: workloads/decoder_lm.cpp has the arithmetic). A config whose estimate
// does not fit is refused before it runs: skipped on the CPU (what the host has free), a
// failed row on a GPU (the device's free memory), each naming the estimate.
#include <algorithm>

#include <nlohmann/json.hpp>

namespace gpubench {

struct MemoryEstimate {
  double states = 0;       // fp32 weights, gradients and Adam's two moments: 16 bytes a parameter
  double activations = 0;  // what backward keeps, at the config's batch and sequence (16-bit weight copies too)
  double logits = 0;       // the [batch, seq, vocab] logits, their fp32 copy and gradient
  double checkpoint = 0;   // the checkpoint round trip's second model and optimizer (host)
  // Short-lived copies of the largest tensor (the token embedding: its gradient's
  // contributions and their sum in backward, Adam's temporaries), backward's gradients of a
  // layer's widest tensors and, on a CPU, the process itself (LibTorch's libraries) and its
  // heap's slack.
  double workspace = 0;
  // A multi-rank config's own (workloads/sharded_memory.h): the flat gradient copies its
  // reductions hold (DDP's buckets, the sharded modes' reduce-scatter inputs, a unit's
  // whole gradients) and fsdp's gathered units. 0 for one process.
  double buffers = 0;
  double gathered = 0;
  // A sharded rank's device peak before it trains: zero1-N and zero2-N (and any CPU rank)
  // build the whole unsharded fp32 model there (4 bytes a parameter) and flatten it unit by
  // unit into shards (a unit's flat copy and its shard at a time); a GPU rank of fsdp-N or
  // ep-K builds on the host (Config::model_built_on_host) and its device holds only a unit
  // being flattened or a piece being broadcast. The cache is released after, so this peak
  // and training's do not add. 0 for one process and ddp (whose model stays whole anyway).
  double startup = 0;
  // Where the model is built on the host: the whole fp32 model there while the rank starts
  // (4 bytes a parameter), a rank's, released as its share moves to the device. 0 elsewhere.
  double host_model = 0;
  double training_total() const { return states + activations + logits + workspace + buffers + gathered; }
  // What the device must hold at once: the larger of training and the start.
  double device_total() const { return std::max(training_total(), startup); }
  double host_total() const { return device_total() + checkpoint; }
  nlohmann::json to_json() const {
    return {{"states_bytes", states},           {"activations_bytes", activations}, {"logits_bytes", logits},
            {"workspace_bytes", workspace},     {"checkpoint_bytes", checkpoint},   {"device_total_bytes", device_total()},
            {"host_total_bytes", host_total()}, {"buffers_bytes", buffers},         {"gathered_bytes", gathered},
            {"startup_bytes", startup},         {"host_model_bytes", host_model},
            {"convention", "16 bytes a parameter (fp32 weights, grads, Adam m and v); activations what each layer's "
                           "forward keeps per token (its family's norms, matmul inputs, attention, MLP at its width; "
                           "llama 26 h + 4 a + 4 kv + 8 f bytes in 16-bit) plus, under autocast, 2 bytes a matmul "
                           "weight for its 16-bit copy; workspace 4 fp32 copies of the token embedding and two "
                           "gradients at the MLP's width, plus on a CPU 0.5 GiB for the process and, for the heap's "
                           "slack, 12% of the states and 60% of what a step allocates and frees"}};
  }
};

}  // namespace gpubench
