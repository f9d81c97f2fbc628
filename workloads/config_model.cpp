#include "workloads/config_model.h"

#include <dirent.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/config/errors.h"
#include "workloads/family_weights.h"
#include "workloads/formats/excerpt.h"
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
  if (fs::is_regular_file(path, error)) return {path, model_folder(path)};
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
    if (++wrong <= 3)
      listed += (listed.empty() ? "" : ", ") + shown_name(name) + " is " + shown_name(dtype) + " (in '" + weights.source(name) + "')";
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
  if (config.family == DecoderFamily::Decoder) {
    mapping = huggingface_decoder_names(config.weight_names);
    expected = decoder_expected_weights(config.shape);
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
  const std::int64_t context = config.shape.max_positions;
  const std::int64_t seq = std::min(context, kDefaultSequenceCap);
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

// A config'd GPT-2's sizes (its own family code: learned positions, a tied head).
DecoderLmSpec gpt2_lm_spec(const std::string& name, const Gpt2Shape& shape, std::int64_t seq_len, const WeightLoader& load) {
  DecoderLmSpec spec;
  spec.name = name;
  spec.family = "gpt2";
  spec.make_model = [shape, load](const ModelTechniques& t) { return make_gpt2_model(shape, t, load); };
  spec.parameters = shape.parameters();
  const std::int64_t positions = shape.context * shape.embd;
  spec.flops_parameters = spec.parameters - positions;  // N of 6N: the position table is only looked up
  spec.root_parameters = shape.vocab * shape.embd + positions + 2 * shape.embd;
  spec.layers = shape.layers;
  spec.attention_width = spec.kv_width = spec.hidden = shape.embd;
  spec.intermediate = shape.mlp_width();
  spec.heads = shape.heads;
  spec.vocab = shape.vocab;
  spec.seq_len = seq_len;
  spec.gated_mlp = false;
  spec.python_twin = gpt2_python_twin(shape);
  return spec;
}

// The compile technique's twin of a dense decoder whose parameter names are its checkpoint's
// (no rename, nothing ignored), which are transformers' module names: transformers' own
// model of the same config.json (scripts/compile_twins.py, eager attention), so the package's
// constants are gpubench's tensors by name. The mixtures of experts (HF 5.17 stacks the
// experts its checkpoints keep apart), a multimodal wrapper's decoder and the families gpubench
// renames have none: compile refuses them by the rule table.
std::optional<PythonTwin> huggingface_twin(const DecoderConfig& config) {
  const WeightNames& names = config.weight_names;
  if (config.family != DecoderFamily::Decoder || config.shape.moe.experts > 0 || !config.wrapper_model_type.empty() ||
      !names.renames.empty() || !names.ignored_prefixes.empty() || !names.ignored_suffixes.empty())
    return std::nullopt;
  std::ifstream in(config.path);
  nlohmann::json raw = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!raw.is_object()) return std::nullopt;  // read and checked a moment ago: only a file changed since
  return PythonTwin{"hf_decoder", {{"config", std::move(raw)}}};
}

}  // namespace

std::string model_folder(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) return path;
  const std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

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

Gpt2Shape gpt2_shape_of(const DecoderConfig& c) {
  if (!c.shape.tie_word_embeddings)
    throw UsageError("config.json '" + c.path + "': tie_word_embeddings is false: expected true (gpubench's GPT-2 ties "
                     "its LM head to wte, as every published GPT-2)");
  Gpt2Shape s;
  s.vocab = c.shape.vocab;
  s.layers = c.shape.layers;
  s.heads = c.shape.heads;
  s.embd = c.shape.hidden;
  s.context = c.shape.max_positions;
  s.inner = c.shape.intermediate;
  s.layer_norm_eps = c.shape.norm_eps;
  s.tanh_gelu = c.shape.activation == DecoderActivation::GeluTanh;
  return s;
}

DecoderLmSpec read_config_model(const std::string& name, const std::string& path, std::optional<std::int64_t> seq_len,
                                bool random_weights) {
  const Located where = locate(name, path);
  const DecoderConfig config = read_decoder_config(where.config_file);
  std::optional<SafetensorsWeights> weights;
  if (!random_weights) weights = SafetensorsWeights::open(where.folder);
  const WeightMapping mapping = weights ? checked_mapping(config, *weights) : WeightMapping{};
  std::shared_ptr<const SafetensorsWeights> shared = weights ? std::make_shared<const SafetensorsWeights>(std::move(*weights)) : nullptr;
  // With no weights, the family's init draws them.
  WeightLoader load;
  if (shared) load = [shared, mapping](torch::nn::Module& module) {
    const std::string problems = load_mapped_weights(module, shared->names(), [&](const std::string& n) { return shared->tensor(n); }, mapping);
    if (!problems.empty()) throw UsageError("weights '" + shared->listing() + "': " + problems);
  };
  const auto [seq, seq_reason] = sequence_of(config, seq_len);
  DecoderLmSpec spec = config.family == DecoderFamily::Decoder ? decoder_lm_spec(name, config.shape, seq, load)
                                                              : gpt2_lm_spec(name, gpt2_shape_of(config), seq, load);
  spec.seq_len_reason = seq_reason;
  if (config.family == DecoderFamily::Decoder) spec.python_twin = huggingface_twin(config);
  spec.parameters = config.parameter_count();
  spec.real_scale = spec.parameters >= 50'000'000;
  spec.definition = config.describe();
  const DecoderShape& s = config.shape;
  spec.definition["definition"] =
      "a user's " + config.model_type + " (Hugging Face config.json '" + where.config_file + "'): " +
      std::to_string(s.layers) + " layers, hidden " + std::to_string(s.hidden) + ", " + std::to_string(s.heads) +
      " heads (" + std::to_string(s.kv_heads) + " key/value), vocab " + std::to_string(s.vocab) + ", " +
      std::to_string(spec.parameters) + " parameters; built by gpubench's " +
      (spec.family == "gpt2" ? "GPT-2" : "decoder from the family's options") +
      " as transformers 5.17 computes it; next-token cross-entropy; Adam lr 1e-3";
  spec.definition["source"] = where.config_file;
  const std::vector<std::string> unread = shared || random_weights ? std::vector<std::string>{} : unread_weight_files(where.folder);
  spec.definition["weights"] = shared           ? shared->listing()
                               : random_weights ? "random (--weights random)"
                               : unread.empty() ? "random (the folder has none)"
                                                : "random (the folder's " + listed(unread) + " not read: safetensors only)";
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
