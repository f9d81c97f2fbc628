#include "cli/model_flags.h"

#include <algorithm>
#include <cstdio>

#include "cli/flags.h"
#include "core/config/errors.h"
#include "core/config/workload_name.h"

namespace gpubench {
namespace {

// "NAME=VALUE" split at its first '=' (a path may hold more); without one, no name and
// the whole text as the value.
std::pair<std::string, std::string> name_and_value(const std::string& item) {
  const auto equals = item.find('=');
  if (equals == std::string::npos) return {"", item};
  return {item.substr(0, equals), item.substr(equals + 1)};
}

void add_model(const std::string& item, const std::vector<std::string>& builtin, RunSettings& settings) {
  const auto [name, path] = name_and_value(item);
  if (!is_workload_name(name) || path.empty())
    throw UsageError("--model '" + item + "' is invalid: expected NAME=PATH, NAME of letters, digits, '_', '-' or '.' "
                     "(it goes into config ids) and PATH a Hugging Face model folder or its config.json");
  if (std::find(builtin.begin(), builtin.end(), name) != builtin.end())
    throw UsageError("--model " + item + ": '" + name + "' is a built-in workload: expected another name");
  if (!settings.model_paths.emplace(name, path).second)
    throw UsageError("--model is given twice for " + name + " ('" + settings.model_paths[name] + "' and '" + path + "')");
}

void add_seq_len(const std::string& item, const std::vector<std::string>& builtin, RunSettings& settings) {
  const auto [name, count] = name_and_value(item);
  if (!name.empty() && name != "llama" && name != "moe" && !settings.model_paths.count(name))
    throw UsageError("--seq-len " + item + ": '" + name + "' is not a decoder LM whose sequence can change: expected "
                     "llama, moe or a --model NAME" + (std::find(builtin.begin(), builtin.end(), name) != builtin.end() && name == "gpt2"
                                                        ? " (gpt2 is nanoGPT's, 1024 tokens)" : ""));
  const long long tokens = parse_integer("--seq-len", count, 1, 1 << 20);
  if (!settings.seq_lens.emplace(name, tokens).second)
    throw UsageError("--seq-len is given twice for " + (name.empty() ? std::string("every decoder") : name));
}

// "NAME=VALUE" of a --model NAME: the name and the value, or a UsageError.
std::pair<std::string, std::string> named_value(const std::string& flag, const std::string& item, const RunSettings& settings,
                                                const std::string& expected) {
  auto parts = name_and_value(item);
  if (parts.first.empty() || !settings.model_paths.count(parts.first))
    throw UsageError(flag + " '" + item + "' is invalid: expected NAME=" + expected + ", NAME a --model");
  return parts;
}

// One value a --model NAME: a second for the same NAME is a contradiction the user resolves,
// as for --model and --seq-len (the last one silently won).
template <class Map, class Value>
void set_once(Map& values, const std::string& flag, const std::string& name, Value value) {
  if (!values.emplace(name, std::move(value)).second) throw UsageError(flag + " is given twice for " + name);
}

void add_task_flags(const RawModelFlags& raw, RunSettings& settings) {
  for (const auto& item : raw.inputs) {
    const auto [name, text] = named_value("--input", item, settings, "CxHxW (a sample's shape, e.g. 3x224x224)");
    std::vector<std::int64_t> shape;
    std::size_t start = 0;
    for (std::size_t x = text.find('x');; x = text.find('x', start)) {
      shape.push_back(parse_integer("--input " + name, text.substr(start, x - start), 1, 1 << 20));
      if (x == std::string::npos) break;
      start = x + 1;
    }
    if (shape.size() > 4) throw UsageError("--input " + item + " has " + std::to_string(shape.size()) + " dimensions: expected 1 to 4");
    set_once(settings.model_inputs, "--input", name, shape);
  }
  for (const auto& item : raw.classes) {
    const auto [name, text] = named_value("--classes", item, settings, "N (the outputs' width)");
    set_once(settings.model_classes, "--classes", name, parse_integer("--classes " + name, text, 2, 1 << 24));
  }
  for (const auto& item : raw.vocabs) {
    const auto [name, text] = named_value("--vocab", item, settings, "N (token ids below it)");
    set_once(settings.model_vocabs, "--vocab", name, parse_integer("--vocab " + name, text, 2, 1 << 24));
  }
  for (const auto& item : raw.flops) {
    const auto [name, text] = named_value("--flops-per-sample", item, settings, "F (training FLOPs of one sample)");
    set_once(settings.model_flops, "--flops-per-sample", name, parse_decimal("--flops-per-sample " + name, text, 1, 1e18, "FLOPs"));
  }
}

}  // namespace

void add_model_flags(CLI::App& app, RawModelFlags& raw) {
  const auto repeatable = [&](const char* flag, std::vector<std::string>& into, const char* help) {
    app.add_option(flag, into, help)->expected(1)->take_all();
  };
  repeatable("--input", raw.inputs, "NAME=CxHxW: a TorchScript --model's sample shape (classification, with --classes)");
  repeatable("--classes", raw.classes, "NAME=N: a TorchScript --model's classes (its output [batch, N])");
  repeatable("--vocab", raw.vocabs, "NAME=N: a TorchScript --model is a language model over N tokens (output [batch, T, N])");
  repeatable("--flops-per-sample", raw.flops,
             "NAME=F: training FLOPs of one sample of a TorchScript --model (default: counted by LibTorch's operator "
             "observer)");
  app.add_option("--model", raw.models,
                 "NAME=PATH, repeatable: a decoder LM from a Hugging Face config.json (PATH its folder, with "
                 "model.safetensors or a sharded index when it has weights, or the file) as workload NAME: gpt2, "
                 "llama, mistral (no sliding window) and qwen2 configs (docs/your-model.md)")
      ->expected(1)
      ->take_all();
  app.add_option("--seq-len", raw.seq_lens,
                 "[NAME=]N, repeatable: tokens per sample of llama and the --model LMs (default: the config's context "
                 "up to 2048; llama 2048)")
      ->expected(1)
      ->take_all();
  app.add_option("--weights", raw.weights, "file | random: start a --model from its safetensors (default) or from the "
                                           "family's random init");
  app.add_option("--expert-gemms", raw.expert_gemms,
                 "auto | grouped | loop: a mixture of experts' routed experts as torch::_grouped_mm or one GEMM per "
                 "expert (auto: grouped where LibTorch fuses it, CUDA sm90/sm100 in bf16)");
  app.add_option("--checkpoint-check", raw.checkpoint_check,
                 "auto | every | once | off: the checkpoint round trip (save, load, compare) in every config, once per "
                 "workload, or none (auto: every config of a model under 300M parameters, else once per workload)");
  app.add_option("--child-skip-checkpoint", raw.checkpoint_skip_reason)->group("");
}

void apply_model_flags(const CLI::App& app, const RawModelFlags& raw, const std::vector<std::string>& builtin,
                       RunSettings& settings) {
  for (const auto& item : raw.models) add_model(item, builtin, settings);
  for (const auto& item : raw.seq_lens) add_seq_len(item, builtin, settings);
  add_task_flags(raw, settings);
  if (app.count("--weights") > 0) {
    if (raw.weights != "file" && raw.weights != "random")
      throw UsageError("--weights '" + raw.weights + "' is unknown: expected file or random");
    settings.random_weights = raw.weights == "random";
  }
  if (app.count("--expert-gemms") > 0) settings.expert_gemms = parse_expert_gemms(raw.expert_gemms);
  if (app.count("--checkpoint-check") > 0) settings.checkpoint_policy = parse_checkpoint_policy(raw.checkpoint_check);
  settings.checkpoint_skip_reason = raw.checkpoint_skip_reason;
}

std::vector<std::string> model_flags_to_args(const RunSettings& s) {
  std::vector<std::string> args;
  for (const auto& [name, path] : s.model_paths) args.insert(args.end(), {"--model", name + "=" + path});
  for (const auto& [name, tokens] : s.seq_lens)
    args.insert(args.end(), {"--seq-len", (name.empty() ? "" : name + "=") + std::to_string(tokens)});
  if (s.random_weights) args.insert(args.end(), {"--weights", "random"});
  if (s.expert_gemms != ExpertGemms::Auto) args.insert(args.end(), {"--expert-gemms", to_string(s.expert_gemms)});
  const auto dims = [](const std::vector<std::int64_t>& shape) {
    std::string text;
    for (const auto d : shape) text += (text.empty() ? "" : "x") + std::to_string(d);
    return text;
  };
  for (const auto& [name, shape] : s.model_inputs) args.insert(args.end(), {"--input", name + "=" + dims(shape)});
  for (const auto& [name, n] : s.model_classes) args.insert(args.end(), {"--classes", name + "=" + std::to_string(n)});
  for (const auto& [name, n] : s.model_vocabs) args.insert(args.end(), {"--vocab", name + "=" + std::to_string(n)});
  for (const auto& [name, f] : s.model_flops) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", f);
    args.insert(args.end(), {"--flops-per-sample", name + "=" + text});
  }
  args.insert(args.end(), {"--checkpoint-check", to_string(s.checkpoint_policy)});
  return args;
}

}  // namespace gpubench
