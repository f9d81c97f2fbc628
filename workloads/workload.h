#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "core/config/technique_rules.h"
#include "workloads/data/dataset.h"
#include "workloads/memory_estimate.h"
#include "workloads/model.h"

namespace gpubench {

// What a dataset is built from: a preset-scaled size, a seed, and optionally real data.
struct DatasetRequest {
  std::int64_t samples = 0;
  std::uint64_t seed = 0;
  std::string data_path;  // empty = synthetic; else the workload's real-data format
  // The parent checks real data once before any config runs (every image decoded, every
  // token id range-checked); a config's own process then only re-reads the index.
  bool full_check = true;
  std::int64_t max_image_pixels = 0;  // --max-image-pixels (ImageFolder trees); 0 = the reader's default
};

// What can be built into a workload's model rather than around it.
struct ModelTechniques {
  bool checkpoint = false;   // activation checkpointing (ckpt): per block, stage or layer (traits().segments)
  bool fp8_linears = false;  // FP8 matmuls in the Linear layers (the fp8 precision): gpt2's blocks
  // Where the model will train. The decoder families make and initialise their parameters
  // there (workloads/family_layers.h); the others build on the CPU and the runner moves them.
  torch::Device device = torch::kCPU;
  ExpertGemms expert_gemms = ExpertGemms::Auto;  // a mixture of experts' routed GEMMs (--expert-gemms)
};

// The Python twin of a workload's model that the compile technique exports
// (scripts/compile_twins.py): its name there and the C++ model's shape, as JSON fields the
// twin reads (gpt2: Gpt2Shape's). Part of the compiled package's cache key.
struct PythonTwin {
  std::string name;
  nlohmann::json shape = nlohmann::json::object();
};

// One training workload: model, dataset and loss, with its exact definition recorded in
// the report so other tools can be compared against it. Adam lr 1e-3 for all.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  // Per process; a CPU gets a smaller batch than a GPU where one would take minutes a step.
  virtual std::int64_t default_batch_size(DeviceKind device) const = 0;
  // Dataset size of the `default` preset; presets scale it.
  virtual std::int64_t base_dataset_samples() const = 0;
  virtual Model make_model() const = 0;
  // The same model with the techniques that change it; the default, none asked, is
  // make_model(). Throws std::invalid_argument for a technique the workload lacks.
  virtual Model make_model_with(const ModelTechniques& techniques) const;
  // Throws UsageError naming the file and what is wrong with real data.
  virtual Dataset make_dataset(const DatasetRequest& request) const = 0;
  // Cross-entropy of the model's output against the targets, computed in fp32 (autocast
  // outputs are cast up so the loss itself is never low precision).
  virtual torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& targets) const;
  // Human-readable definition and sizes for the report.
  virtual nlohmann::json describe() const = 0;
  // Multiply-adds of one sample's forward, counted by flops_convention(); training FLOPs
  // are training_flops() of it (model_flops.h).
  virtual std::int64_t forward_macs_per_sample() const = 0;
  virtual std::string flops_convention() const;
  // Tokens a sample holds (language models: tokens/s is what their users compare); 0: none.
  virtual std::int64_t tokens_per_sample() const { return 0; }
  // The real data --data takes for this workload ("" = synthetic only), for help and errors.
  virtual std::string real_data_format() const { return ""; }
  // The standard models (resnet50, gpt2): a step takes seconds on a CPU, so groups leave
  // their CPU configs out on a machine without a GPU unless they are asked for by name.
  virtual bool real_scale() const { return false; }
  // The twin the compile technique exports; nullopt: none (traits().python_twin is false).
  virtual std::optional<PythonTwin> python_twin() const { return std::nullopt; }
  // What the model offers the techniques that change it (technique_rules.h reads these):
  // by default cloneable, nothing else; real_scale() copied in.
  virtual WorkloadTraits traits() const;
  // The model's parameter count where it is known without building the model (a 1.2B
  // model takes seconds and gigabytes to build); nullopt: small enough not to matter.
  virtual std::optional<std::int64_t> declared_parameters() const { return std::nullopt; }
  // This workload as a config on `device` trains it, where that differs (the decoder LMs
  // train a shorter default sequence on a CPU); nullptr: this workload as it is.
  virtual std::unique_ptr<Workload> on_device(DeviceKind device) const { return nullptr; }
  // What a config at this micro-batch needs in memory, where the workload knows (nullopt:
  // it does not say; nothing is refused on its account).
  virtual std::optional<MemoryEstimate> memory_estimate(const Config& config, std::int64_t batch_size) const {
    return std::nullopt;
  }
};

// A language model's loss: cross-entropy of [batch, seq, vocab] logits (in fp32) against
// the [batch, seq] next tokens.
torch::Tensor next_token_loss(const torch::Tensor& logits, const torch::Tensor& targets);

std::unique_ptr<Workload> make_workload(const std::string& name);  // throws UsageError
// The workload as `config` trains it: make_workload(config.workload) on config.device
// (Workload::on_device). What runs, estimates and reports a config uses this.
std::unique_ptr<Workload> make_workload_for(const Config& config);
// The built-in workloads, then the run's --model ones (workloads/model_registry.h).
std::vector<std::string> workload_names();
const std::vector<std::string>& builtin_workload_names();
// Each named workload's traits (MatrixRequest::known_workloads).
std::map<std::string, WorkloadTraits> workload_traits(const std::vector<std::string>& names);

}  // namespace gpubench
