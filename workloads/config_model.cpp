#include "workloads/config_model.h"

#include <dirent.h>

#include <algorithm>
#include <filesystem>

#include "core/config/errors.h"
#include "workloads/family_weights.h"
#include "workloads/formats/safetensors_weights.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

struct Located {
  std::string config_file, folder;
};

Located locate(const std::string& name, const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) return {(fs::path(path) / "config.json").string(), path};
  if (fs::is_regular_file(path, error)) return {path, fs::path(path).parent_path().string()};
  throw UsageError("--model " + name + "='" + path + "' is neither a folder holding config.json nor a config.json file");
}

// Every weight in a dtype the loader converts to fp32 (SafetensorsFile::tensor), checked
// before any config runs rather than failing each config's load.
void check_weight_dtypes(const SafetensorsWeights& weights, const WeightMapping& mapping) {
  std::string listed;
  int wrong = 0;
  for (const std::string& name : weights.names()) {
    const std::string& dtype = weights.dtype(name);
    if (mapping.ignored(name) || dtype == "F32" || dtype == "BF16" || dtype == "F16") continue;
    if (++wrong <= 3) listed += (listed.empty() ? "" : ", ") + name + " is " + dtype + " (in '" + weights.source(name) + "')";
  }
  if (wrong > 0)
    throw UsageError("weights '" + weights.listing() + "': " + listed + (wrong > 3 ? ", and " + std::to_string(wrong - 3) + " more" : "") +
                     ": expected F32, BF16 or F16 weights (gpubench trains from fp32 copies of them)");
}

// A tied model's head is its embedding: a file that also holds the head (lm_head.weight)
// must hold the same values there, or the config and the file disagree about the model.
void check_tied_copies(const DecoderConfig& config, const SafetensorsWeights& weights, const WeightMapping& mapping,
                       const ExpectedWeights& expected) {
  for (const auto& [copy, ours] : mapping.tied) {
    const bool owned = std::any_of(expected.begin(), expected.end(), [&](const auto& e) {
      return mapping.to_reference(e.first).reference_name == copy;
    });
    const std::string embedding = mapping.to_reference(ours).reference_name;
    if (owned || !weights.contains(copy) || weights.same_values(copy, embedding)) continue;
    throw UsageError("weights '" + weights.listing() + "': " + copy + " differs from " + embedding + ", but config.json '" +
                     config.path + "' ties them (tie_word_embeddings true: the head is the embedding): expected the "
                     "two equal, or tie_word_embeddings false for a model with a head of its own");
  }
}

// The checkpoint's names against the family's, before any model is built; the mapping the
// loader will use (GPT-2 files may lack "transformer.").
WeightMapping checked_mapping(const DecoderConfig& config, const SafetensorsWeights& weights) {
  const auto names = weights.names();
  const auto shape_of = [&](const std::string& n) { return weights.shape(n); };
  WeightMapping mapping;
  ExpectedWeights expected;
  if (config.family == DecoderFamily::Llama) {
    mapping = huggingface_llama_names();
    expected = llama_expected_weights(llama_shape_of(config));
  } else {
    mapping = weights.contains("transformer.wte.weight") || !weights.contains("wte.weight") ? huggingface_gpt2_names()
                                                                                           : huggingface_gpt2_base_names();
    expected = gpt2_expected_weights(gpt2_shape_of(config));
  }
  const std::string problems = weights_mismatch(expected, names, shape_of, mapping);
  if (!problems.empty())
    throw UsageError("weights '" + weights.listing() + "' do not match config.json '" + config.path + "' (" +
                     mapping.reference + "): " + problems);
  check_weight_dtypes(weights, mapping);
  check_tied_copies(config, weights, mapping, expected);
  return mapping;
}

// The sequence a run uses and why.
std::pair<std::int64_t, std::string> sequence_of(const DecoderConfig& config, std::optional<std::int64_t> requested) {
  if (requested) {
    config.check_sequence_length(*requested);
    return {*requested, "--seq-len"};
  }
  const std::int64_t context = config.max_position_embeddings;
  std::int64_t seq = std::min(context, kDefaultSequenceCap);
  if (config.sliding_window) seq = std::min(seq, *config.sliding_window);
  config.check_sequence_length(seq);
  return {seq, seq < context ? "the config's context (" + std::to_string(context) + ") capped at " + std::to_string(seq) +
                                   " tokens: --seq-len to change it"
                             : "the config's context (max_position_embeddings)"};
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The files of a folder that hold weights in formats gpubench does not read: PyTorch's
// pickles (pytorch_model.bin and its shards, Meta's consolidated.*.pth), TensorFlow's,
// Flax's, GGUF. readdir, not std::filesystem (LIBTORCH-COMPAT.md: libtorch's own copy).
std::vector<std::string> unread_weight_files(const std::string& folder) {
  std::vector<std::string> found;
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return found;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if ((name.rfind("pytorch_model", 0) == 0 && ends_with(name, ".bin")) || name == "tf_model.h5" ||
        name == "flax_model.msgpack" || ends_with(name, ".pth") || ends_with(name, ".gguf"))
      found.push_back(name);
  }
  ::closedir(dir);
  std::sort(found.begin(), found.end());
  return found;
}

std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) text += (i ? ", " : "") + names[i];
  return text + (names.size() > 3 ? ", ..." : "");
}

}  // namespace

std::optional<std::string> unread_weights_notice(const std::string& name, const std::string& path, bool random_weights) {
  if (random_weights) return std::nullopt;
  const Located where = locate(name, path);
  std::error_code error;
  for (const char* file : {SafetensorsWeights::kSingleFile, SafetensorsWeights::kIndexFile})
    if (fs::exists(fs::path(where.folder) / file, error)) return std::nullopt;
  const std::vector<std::string> unread = unread_weight_files(where.folder);
  if (unread.empty()) return std::nullopt;
  return "--model " + name + ": folder '" + where.folder + "' holds " + listed(unread) +
         " but no safetensors, and gpubench reads safetensors only: " + name + " trains from random init (save the "
         "weights with save_pretrained(folder, safe_serialization=True) to start from them, or say --weights random)";
}

LlamaShape llama_shape_of(const DecoderConfig& c) {
  LlamaShape s;
  s.model_type = c.model_type;
  s.vocab = c.vocab_size;
  s.hidden = c.hidden_size;
  s.intermediate = c.intermediate_size;
  s.layers = c.num_hidden_layers;
  s.heads = c.num_attention_heads;
  s.kv_heads = c.num_key_value_heads;
  s.head_dim = c.head_dim;
  s.max_positions = c.max_position_embeddings;
  s.rms_norm_eps = c.norm_eps;
  s.rope = {c.rope.type_name(), c.rope.theta, c.rope.factor, c.rope.low_freq_factor, c.rope.high_freq_factor,
            c.rope.original_max_position_embeddings};
  s.tie_word_embeddings = c.tie_word_embeddings;
  s.qkv_bias = c.qkv_bias;
  s.o_bias = c.o_bias;
  s.mlp_bias = c.mlp_bias;
  s.pad_token_id = c.pad_token_id;
  return s;
}

Gpt2Shape gpt2_shape_of(const DecoderConfig& c) {
  if (!c.tie_word_embeddings)
    throw UsageError("config.json '" + c.path + "': tie_word_embeddings is false: expected true (gpubench's GPT-2 ties "
                     "its LM head to wte, as every published GPT-2)");
  Gpt2Shape s;
  s.vocab = c.vocab_size;
  s.layers = c.num_hidden_layers;
  s.heads = c.num_attention_heads;
  s.embd = c.hidden_size;
  s.context = c.max_position_embeddings;
  s.inner = c.intermediate_size;
  s.layer_norm_eps = c.norm_eps;
  s.tanh_gelu = c.activation == DecoderActivation::GeluTanh;
  return s;
}

DecoderLmSpec read_config_model(const std::string& name, const std::string& path, std::optional<std::int64_t> seq_len,
                                bool random_weights) {
  const Located where = locate(name, path);
  const DecoderConfig config = read_decoder_config(where.config_file);
  std::optional<SafetensorsWeights> weights;
  if (!random_weights) weights = SafetensorsWeights::open(where.folder);
  const WeightMapping mapping = weights ? checked_mapping(config, *weights) : WeightMapping{};
  DecoderLmSpec spec;
  spec.name = name;
  spec.family = config.family == DecoderFamily::Llama ? "llama" : "gpt2";
  std::tie(spec.seq_len, spec.seq_len_reason) = sequence_of(config, seq_len);
  spec.parameters = config.parameter_count();
  spec.layers = config.num_hidden_layers;
  spec.attention_width = config.num_attention_heads * config.head_dim;
  spec.kv_width = config.num_key_value_heads * config.head_dim;
  spec.intermediate = config.intermediate_size;
  spec.hidden = config.hidden_size;
  spec.heads = config.num_attention_heads;
  spec.vocab = config.vocab_size;
  // N of 6N: the parameters without the tables only looked up.
  spec.flops_parameters = spec.parameters - (config.family == DecoderFamily::Gpt2 ? config.max_position_embeddings * config.hidden_size : 0) -
                          (config.tie_word_embeddings ? 0 : config.vocab_size * config.hidden_size);
  spec.root_parameters = config.vocab_size * config.hidden_size * (config.tie_word_embeddings ? 1 : 2) +
                         (config.family == DecoderFamily::Gpt2 ? config.max_position_embeddings * config.hidden_size : 0) +
                         2 * config.hidden_size;
  spec.real_scale = spec.parameters >= 50'000'000;
  spec.definition = config.describe();
  spec.definition["definition"] =
      "a user's " + config.model_type + " (Hugging Face config.json '" + where.config_file + "'): " +
      std::to_string(config.num_hidden_layers) + " layers, hidden " + std::to_string(config.hidden_size) + ", " +
      std::to_string(config.num_attention_heads) + " heads (" + std::to_string(config.num_key_value_heads) +
      " key/value), vocab " + std::to_string(config.vocab_size) + ", " + std::to_string(spec.parameters) +
      " parameters; built by gpubench's " + spec.family + " family as transformers 5.17 computes it; next-token "
      "cross-entropy; Adam lr 1e-3";
  spec.definition["source"] = where.config_file;
  const std::vector<std::string> unread = weights || random_weights ? std::vector<std::string>{} : unread_weight_files(where.folder);
  spec.definition["weights"] = weights          ? weights->listing()
                               : random_weights ? "random (--weights random)"
                               : unread.empty() ? "random (the folder has none)"
                                                : "random (the folder's " + listed(unread) + " not read: safetensors only)";
  std::shared_ptr<const SafetensorsWeights> shared = weights ? std::make_shared<const SafetensorsWeights>(std::move(*weights)) : nullptr;
  // With no weights, the family's init draws them.
  WeightLoader load;
  if (shared) load = [shared, mapping](torch::nn::Module& module) {
    const std::string problems = load_mapped_weights(module, shared->names(), [&](const std::string& n) { return shared->tensor(n); }, mapping);
    if (!problems.empty()) throw UsageError("weights '" + shared->listing() + "': " + problems);
  };
  if (config.family == DecoderFamily::Llama)
    spec.make_model = [shape = llama_shape_of(config), load](const ModelTechniques& t) { return make_llama_model(shape, t, load); };
  else
    spec.make_model = [shape = gpt2_shape_of(config), load](const ModelTechniques& t) { return make_gpt2_model(shape, t, load); };
  // The micro-batch: the largest power of two (up to 64) whose bf16 estimate takes at most
  // kGpuShare of an 80 GB GPU; on a CPU one sequence.
  DecoderLmWorkload probe(spec);
  Config bf16;
  bf16.workload = name;
  bf16.device = DeviceKind::Cuda;
  bf16.precision = Precision::AmpBf16;
  for (std::int64_t batch = 64; batch >= 1; batch /= 2) {
    spec.gpu_batch = batch;
    if (probe.memory_estimate(bf16, batch)->device_total() <= kGpuShare * kSizedForGpuBytes) break;
  }
  spec.cpu_batch = 1;
  set_cpu_sequence(spec, seq_len.has_value());
  spec.definition["gpu_batch_reason"] = "the largest power of two up to 64 whose estimate (weights, gradients, Adam, bf16 "
                                        "activations, logits) is at most 60% of an 80 GB GPU";
  return spec;
}

}  // namespace gpubench
