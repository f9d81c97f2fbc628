#include "run/checkpoint_check.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include "run/channels_last.h"

namespace gpubench {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Compares named tensors of two modules; returns the first mismatching name or "".
std::string first_difference(const torch::OrderedDict<std::string, torch::Tensor>& expected,
                             const torch::OrderedDict<std::string, torch::Tensor>& actual) {
  if (expected.size() != actual.size()) return "tensor count " + std::to_string(expected.size()) + " vs " +
                                               std::to_string(actual.size());
  for (const auto& item : expected) {
    const auto* other = actual.find(item.key());
    if (other == nullptr) return item.key() + " missing after load";
    if (!torch::equal(item.value().cpu(), other->cpu())) return item.key() + " differs after load";
  }
  return "";
}

}  // namespace

nlohmann::json CheckpointCheck::to_json() const {
  return {{"save_ms", save_ms},
          {"load_ms", load_ms},
          {"bytes", bytes},
          {"parameters_equal", parameters_equal},
          {"outputs_equal", outputs_equal},
          {"mismatch", mismatch}};
}

CheckpointCheck check_checkpoint_round_trip(const Workload& workload, Model& trained, torch::optim::Adam& optimizer,
                                            const torch::Tensor& probe_input, const std::string& path,
                                            bool channels_last) {
  CheckpointCheck check;
  const auto device = probe_input.device();
  auto start = std::chrono::steady_clock::now();
  {
    torch::serialize::OutputArchive model_archive, optimizer_archive;
    trained.module->save(model_archive);
    optimizer.save(optimizer_archive);
    model_archive.write("optimizer", optimizer_archive);
    model_archive.save_to(path);
  }
  check.save_ms = ms_since(start);
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) check.bytes = static_cast<std::uint64_t>(info.st_size);

  Model restored = workload.make_model();
  restored.module->to(device);
  if (channels_last) to_channels_last(*restored.module);
  auto restored_optimizer =
      torch::optim::Adam(restored.module->parameters(), static_cast<const torch::optim::AdamOptions&>(optimizer.defaults()));
  start = std::chrono::steady_clock::now();
  {
    torch::serialize::InputArchive model_archive, optimizer_archive;
    model_archive.load_from(path, device);
    restored.module->load(model_archive);
    model_archive.read("optimizer", optimizer_archive);
    restored_optimizer.load(optimizer_archive);
  }
  check.load_ms = ms_since(start);
  std::remove(path.c_str());

  check.mismatch = first_difference(trained.module->named_parameters(), restored.module->named_parameters());
  if (check.mismatch.empty())
    check.mismatch = first_difference(trained.module->named_buffers(), restored.module->named_buffers());
  check.parameters_equal = check.mismatch.empty();

  torch::NoGradGuard no_grad;
  trained.module->eval();
  restored.module->eval();
  check.outputs_equal = torch::equal(trained.forward(probe_input).cpu(), restored.forward(probe_input).cpu());
  if (!check.outputs_equal && check.mismatch.empty()) check.mismatch = "outputs differ on the probe batch";
  trained.module->train();
  return check;
}

}  // namespace gpubench
