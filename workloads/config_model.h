#pragma once
// A user's decoder LM from its Hugging Face config.json (`--model NAME=PATH`), as a
// DecoderLmSpec: the family's model (workloads/gpt2.h, workloads/decoder.h) built to the
// config's shape, its safetensors loaded by name when the folder has them, the sequence and
// micro-batch a run uses, and what the row says about all of it.
#include <cstdint>
#include <optional>
#include <string>

#include "workloads/decoder_lm.h"
#include "workloads/formats/hf_decoder_config.h"
#include "workloads/gpt2.h"

namespace gpubench {

// The longest default sequence (a config's context can be 131072): longer ones only by
// --seq-len.
constexpr std::int64_t kDefaultSequenceCap = 2048;
// The GPU a config'd model's default micro-batch is sized for, and the share of it the
// estimate may take (the rest: the CUDA context, cuDNN/cuBLAS workspaces, fragmentation).
constexpr double kSizedForGpuBytes = 80e9;
constexpr double kGpuShare = 0.6;

// PATH is the model's folder (config.json, model.safetensors or its sharded index) or the
// config.json itself. UsageError naming the file for a config or weights gpubench cannot
// honour, and for a checkpoint whose tensors are not the model's (missing, extra or
// mis-shaped, each named with its file). `random_weights`: the family's init, the folder's
// weights not read (a folder without weights is that too).
DecoderLmSpec read_config_model(const std::string& name, const std::string& path, std::optional<std::int64_t> seq_len,
                                bool random_weights);

// What the terminal should hear when the --model's folder holds weights only in formats
// gpubench does not read (pytorch_model.bin and its shards, tf_model.h5, flax_model.msgpack,
// *.pth, *.gguf) and no safetensors: it trains from random init, which the row says too.
// nullopt when it has safetensors, none of those, or with random_weights.
std::optional<std::string> unread_weights_notice(const std::string& name, const std::string& path, bool random_weights);

// The folder a --model PATH's files are read from (its weights, their index and shards):
// PATH when it is a folder, else the config.json's folder, "." for a bare file name. The
// output rules read the same, so what they protect is what the reader reads.
std::string model_folder(const std::string& path);

// GPT-2's shape of a gpt2 config (UsageError for one gpubench's GPT-2 cannot be: an untied
// head); the decoder families' is config.shape.
Gpt2Shape gpt2_shape_of(const DecoderConfig& config);

}  // namespace gpubench
