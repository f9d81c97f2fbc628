#include "workloads/scripted_probe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/config/errors.h"
#include "workloads/op_flops.h"
#include "workloads/scripted_model.h"
#include "core/io/byte_units.h"

namespace gpubench {
namespace {

std::vector<std::int64_t> batch_dims(const ScriptedTask& task, std::int64_t samples) {
  if (task.kind == ScriptedTask::Kind::LanguageModel) return {samples, task.seq_len};
  std::vector<std::int64_t> dims = {samples};
  dims.insert(dims.end(), task.input.begin(), task.input.end());
  return dims;
}

torch::Tensor example_batch(const ScriptedTask& task, std::int64_t samples) {
  if (task.kind == ScriptedTask::Kind::LanguageModel)
    return torch::randint(0, task.vocab, batch_dims(task, samples), torch::kInt64);
  return torch::randn(batch_dims(task, samples));
}

// The lines of `text`, trailing spaces cut.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    line.erase(line.find_last_not_of(" \r\t") + 1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// What a user reads of a failed forward. LibTorch's message for an error inside TorchScript
// is the interpreter's traceback (serialized code, then the original code, each excerpt
// ending at a "<--- HERE" marker and the code after it, indented) ending with the exception
// ("RuntimeError: AssertionError: expected 4 channels"): the cause first, every line of it
// (a message of two lines once lost its first: "boom" dropped, a forged "Result: ..." kept),
// then where the original code raised it. Any other message: its first line (LibTorch's C++
// stack trace, where one follows, is of no use to the user).
std::string failure_cause(const std::string& text) {
  const std::vector<std::string> lines = lines_of(text);
  if (text.find("Traceback of TorchScript") == std::string::npos) return lines.front();
  std::size_t after_marker = 0;
  std::string where;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("<--- HERE") != std::string::npos) after_marker = i + 1;
    const std::size_t file = lines[i].find("File \"");
    if (file != std::string::npos) where = lines[i].substr(file);
  }
  while (after_marker < lines.size() && (lines[after_marker].empty() || lines[after_marker].front() == ' ')) ++after_marker;
  std::string cause;
  for (std::size_t i = after_marker; i < lines.size(); ++i)
    if (!lines[i].empty()) cause += (cause.empty() ? "" : "\n") + lines[i];
  if (cause.empty()) cause = lines.back();  // no marker: the traceback's last line, as before
  return cause + (where.empty() ? "" : " (raised at " + where + ")");
}

// Something a training step can train: parameters, not all frozen.
void check_trainable(const torch::jit::Module& module, const std::string& what) {
  std::int64_t count = 0, frozen = 0;
  for (const auto& p : module.parameters(/*recurse=*/true)) {
    ++count;
    if (!p.requires_grad()) ++frozen;
  }
  if (count == 0) throw UsageError(what + " has no parameters: expected a module with weights to train");
  if (frozen == count)
    throw UsageError(what + ": all " + std::to_string(count) + " of its parameters have requires_grad false (frozen): "
                     "expected some to train");
}

// The forward's output as a loss needs it: the task's shape, floating point, reached by
// the gradient of the parameters.
void check_output(const torch::Tensor& output, const ScriptedTask& task, const std::string& what) {
  const bool classification = task.kind == ScriptedTask::Kind::Classification;
  const std::vector<std::int64_t> expected = classification ? std::vector<std::int64_t>{kProbeSamples, task.classes}
                                                            : std::vector<std::int64_t>{kProbeSamples, task.seq_len, task.vocab};
  if (output.sizes().vec() != expected)
    throw UsageError(fmt::format("{}: its output for a batch of {} is [{}]: expected [{}] ({})", what, kProbeSamples,
                                 fmt::join(output.sizes(), ", "), fmt::join(expected, ", "),
                                 classification ? "logits per class" : "logits per position and token"));
  if (!output.is_floating_point())
    throw UsageError(what + ": its output is " + std::string(c10::toString(output.scalar_type())) +
                     ": expected floating-point logits (the loss's gradient flows back through them)");
  if (!output.requires_grad())
    throw UsageError(what + ": its output does not require grad (detached from the parameters inside forward?): "
                     "expected logits that backward reaches the parameters through");
}

}  // namespace

nlohmann::json ScriptedProbe::to_json() const {
  return {{"parameters", parameters}, {"follows_train_eval", follows_train_eval}, {"forward_macs", forward_macs}};
}

ScriptedProbe ScriptedProbe::from_json(const nlohmann::json& json) {
  try {
    return {json.at("parameters").get<std::int64_t>(), json.at("follows_train_eval").get<bool>(),
            json.at("forward_macs").get<std::int64_t>()};
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("a model probe's result is not what the probe writes: ") + error.what());
  }
}

std::string task_batch_shape(const ScriptedTask& task, std::int64_t samples) {
  return fmt::format("{}", fmt::join(batch_dims(task, samples), "x"));
}

void check_probe_input_fits(const std::string& name, const ScriptedTask& task, double available_bytes,
                            const std::string& source) {
  const bool lm = task.kind == ScriptedTask::Kind::LanguageModel;
  std::uint64_t bytes = lm ? sizeof(std::int64_t) : sizeof(float);  // randint's int64 ids, randn's fp32
  bool overflow = false;
  for (const std::int64_t dim : batch_dims(task, kProbeSamples))
    overflow = overflow || __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(dim), &bytes);
  if (!overflow && (available_bytes <= 0 || static_cast<double>(bytes) <= available_bytes)) return;
  const std::string flag = lm ? "--seq-len " + name + "=" + std::to_string(task.seq_len)
                              : "--input " + name + "=" + fmt::format("{}", fmt::join(task.input, "x"));
  const std::string size = overflow ? "more bytes than 64 bits count" : fmt::format("{:.1f} GiB", bytes / kGiB);
  throw UsageError(fmt::format("{}: a batch of {} samples ({}) is {} as {} (the input of the forward that checks the "
                               "model, before any of the model's own memory){}: expected a sample that fits",
                               flag, kProbeSamples, task_batch_shape(task, kProbeSamples), size, lm ? "int64 ids" : "fp32",
                               overflow ? "" : fmt::format(", more than the {:.1f} GiB available ({})", available_bytes / kGiB, source)));
}

ScriptedProbe probe_scripted_model(const std::string& path, const ScriptedTask& task) {
  const std::string what = "--model archive '" + path + "'";
  ScriptedModule module(load_torchscript(path));
  check_trainable(module->scripted, what);
  ScriptedProbe probe;
  for (const auto& p : module->parameters()) probe.parameters += p.numel();
  probe.follows_train_eval = follows_train_eval(module->scripted);
  // In eval mode, with autograd on: the output must be one a backward can start from.
  module->train(false);
  torch::Tensor output;
  const auto run = [&] {
    try {
      output = module->forward(example_batch(task, kProbeSamples));
    } catch (const std::exception& error) {
      // c10::Error, or the interpreter's JITException (a scripted assert or raise).
      const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
      throw UsageError(what + ": its forward fails on the task's input (" + task_batch_shape(task, kProbeSamples) +
                       "): " + failure_cause(c10_error ? c10_error->what_without_backtrace() : error.what()));
    }
  };
  probe.forward_macs = count_matmul_macs(run) / kProbeSamples;
  check_output(output, task, what);
  return probe;
}

}  // namespace gpubench
