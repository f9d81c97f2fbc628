#pragma once
// The flags that bring a user's model into the run and shape the decoder LMs:
//   --model NAME=PATH          a Hugging Face config.json (or its folder) as workload NAME
//   --seq-len [NAME=]N         tokens per sample (every decoder LM, or NAME's)
//   --weights random|file      start a --model from its safetensors (file, the default) or not
//   --checkpoint-check auto|every|once|off
//   --input NAME=CxHxW --classes NAME=N | --vocab NAME=N   a TorchScript model's task
//   --flops-per-sample NAME=F                              its training FLOPs a sample
// Parsed into RunSettings; workloads/model_registry.h turns --model into workloads.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/config/run_settings.h"

namespace gpubench {

struct RawModelFlags {
  std::vector<std::string> models, seq_lens, inputs, classes, vocabs, flops;
  std::string weights, checkpoint_check, checkpoint_skip_reason, expert_gemms;
};

void add_model_flags(CLI::App& app, RawModelFlags& raw);

// Throws UsageError naming the flag, the value and what was expected. `builtin` are the
// built-in workload names (a --model may not take one).
void apply_model_flags(const CLI::App& app, const RawModelFlags& raw, const std::vector<std::string>& builtin,
                       RunSettings& settings);

// The flags that reproduce these settings in a config's child process.
std::vector<std::string> model_flags_to_args(const RunSettings& settings);

}  // namespace gpubench
