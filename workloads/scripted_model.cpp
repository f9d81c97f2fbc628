#include "workloads/scripted_model.h"

#include <algorithm>
#include <iostream>
#include <unordered_set>

#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/runtime/print_handler.h>

#include "core/config/errors.h"
#include "core/io/mapped_file.h"
#include "core/io/printable.h"
#include "workloads/formats/zip_directory.h"

namespace gpubench {
namespace {

std::string dotted_to_registered(std::string name) {
  for (std::size_t at = name.find('.'); at != std::string::npos; at = name.find('.', at + 2)) name.replace(at, 1, "__");
  return name;
}

// The first line of a c10::Error: LibTorch appends a C++ stack trace a user cannot use.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Where a TorchScript model's `print` goes (LibTorch's default: std::cout, gpubench's own
// standard output, where it broke --format json and could write terminal escapes or a
// forged "Result: 0 regressions" line). Here: standard error, marked as the model's, every
// control byte and newline shown escaped (io/printable.h), one line a print.
void print_from_model(const std::string& text) {
  const std::string line = !text.empty() && text.back() == '\n' ? text.substr(0, text.size() - 1) : text;
  std::cerr << "gpubench: the model printed: " + one_line(line) + "\n" << std::flush;
}

}  // namespace

torch::jit::Module load_torchscript(const std::string& path) {
  {
    // The records' declared sizes before LibTorch allocates them.
    const MappedFile file(path, "--model archive");
    const auto entries = read_zip_directory(file.data(), file.size(), "--model archive '" + path + "' is not a TorchScript module");
    check_declared_sizes(entries, file.size(), "--model archive '" + path + "'");
  }
  torch::jit::setGraphExecutorOptimize(false);
  torch::jit::setPrintHandler(&print_from_model);  // before load: a __setstate__ may print too
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, torch::kCPU);
  } catch (const std::exception& error) {
    // c10::Error, or torch::jit::ErrorReport when the archive's code does not compile here.
    const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
    const std::string why = first_line(c10_error ? c10_error->what_without_backtrace() : error.what());
    const bool pickle = why.find("constants.pkl") != std::string::npos || why.find("code/") != std::string::npos;
    throw UsageError("--model archive '" + path + "' is not a TorchScript module" +
                     (pickle ? " (a torch.save() pickle? export with torch.jit.script(model).save(path))" : "") +
                     ": LibTorch says: " + why);
  }
  if (!module.find_method("forward"))
    throw UsageError("--model archive '" + path + "' has no forward method: expected a scripted nn.Module");
  const auto& schema = module.get_method("forward").function().getSchema();
  // arguments()[0] is self; an argument with a default (an optional mask) need not be given.
  const auto& arguments = schema.arguments();
  const auto required = std::count_if(arguments.begin() + (arguments.empty() ? 0 : 1), arguments.end(),
                                      [](const c10::Argument& a) { return !a.default_value().has_value(); });
  if (arguments.size() < 2 || required != 1)
    throw UsageError("--model archive '" + path + "': forward takes " + std::to_string(required) + " inputs without a default (" +
                     c10::toString(schema) + "): expected one tensor (the batch)");
  return module;
}

bool follows_train_eval(const torch::jit::Module& module) {
  auto graph = module.get_method("forward").graph()->copy();
  torch::jit::Inline(*graph);
  for (const torch::jit::Node* node : graph->nodes()) {
    const std::string kind = node->kind().toQualString();
    std::size_t training_input = 0;
    if (kind == "aten::batch_norm") training_input = 5;
    else if (kind == "aten::dropout" || kind == "aten::feature_dropout") training_input = 2;
    else continue;
    if (node->inputs().size() > training_input && node->inputs()[training_input]->node()->kind() == c10::prim::Constant)
      return false;
  }
  return true;
}

ScriptedModuleImpl::ScriptedModuleImpl(torch::jit::Module module) : scripted(std::move(module)) {
  // TorchScript lists a shared tensor (an LM head tied to its embedding) once per owner,
  // where Python's named_parameters() lists it once: registered twice, the optimizer would
  // step it twice a step. The first name wins, as in Python.
  std::unordered_set<const c10::TensorImpl*> seen;
  for (const auto& p : scripted.named_parameters(/*recurse=*/true))
    if (seen.insert(p.value.unsafeGetTensorImpl()).second)
      register_parameter(dotted_to_registered(p.name), p.value, p.value.requires_grad());
  for (const auto& b : scripted.named_buffers(/*recurse=*/true))
    if (seen.insert(b.value.unsafeGetTensorImpl()).second) register_buffer(dotted_to_registered(b.name), b.value);
  train(scripted.is_training());
}

torch::Tensor ScriptedModuleImpl::forward(const torch::Tensor& input) { return scripted.forward({input}).toTensor(); }

void ScriptedModuleImpl::train(bool on) {
  torch::nn::Module::train(on);
  scripted.train(on);
}

}  // namespace gpubench
