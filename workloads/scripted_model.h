#pragma once
// A TorchScript archive (torch.jit.script(model).save(path)) as a gpubench model: the only
// format PyTorch 2.11-2.15 hands LibTorch that trains (forward, backward, an optimizer over
// its parameters). Labelled experimental: TorchScript is deprecated upstream (a
// FutureWarning at export from 2.15; the C++ loader carries none).
#include <memory>
#include <optional>
#include <string>

#include <torch/script.h>
#include <torch/torch.h>

namespace gpubench {

// Loads an archive for training, or throws UsageError naming the file and what is wrong
// (not a zip, a pickle without code, a truncated archive, records declaring far more bytes
// than the file holds: workloads/formats/zip_directory.h, LibTorch would allocate them
// whole; a forward that takes other than one tensor). Autograd as in Python: the process's
// graph executor optimisation is switched off (torch::jit::setGraphExecutorOptimize(false))
// before the first forward, so the profiling executor never swaps in its own
// differentiable graphs after a few calls: warm-up and measured steps run the same code,
// and a CUDA Graph captures what a measured step runs.
torch::jit::Module load_torchscript(const std::string& path);

// Whether train()/eval() reaches the module's train-dependent ops (batch_norm, dropout):
// false for a traced module, whose trace froze them to the mode it was traced in (their
// `training` argument a constant); true also for a model without such ops.
bool follows_train_eval(const torch::jit::Module& module);

// A scripted module behind torch::nn::Module, so the rest of gpubench (optimizers, to(),
// DDP's broadcast and hooks, channels_last, torch::save) sees its parameters and buffers:
// the archive's own tensors, registered under their dotted names with '.' spelled "__" (a
// torch::nn::Module name may not hold a dot). Being the same tensors, an optimizer step or
// a move to a device is the scripted module's too. Not cloneable: data_parallel cannot
// replicate it (the Workload rule "dp needs cloneable" refuses dp).
struct ScriptedModuleImpl : torch::nn::Module {
  explicit ScriptedModuleImpl(torch::jit::Module module);
  torch::Tensor forward(const torch::Tensor& input);
  void train(bool on = true) override;
  torch::jit::Module scripted;
};
TORCH_MODULE(ScriptedModule);

}  // namespace gpubench
