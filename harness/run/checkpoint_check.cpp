#include "harness/run/checkpoint_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "core/io/private_dir.h"
#include "harness/run/channels_last.h"

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

// archive.save_to(path) lets LibTorch's zip writer meet a full disk: it throws, and throws
// again from its destructor, so the config's process aborts (signal 6, no result, a
// LibTorch stack trace). Here the bytes go through a writer that never fails towards
// LibTorch; the first write error is kept and thrown afterwards, naming the file: the
// config becomes a failed row saying the checkpoint could not be written.
void save_checkpoint_file(torch::serialize::OutputArchive& archive, const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw std::runtime_error("checkpoint round trip: cannot create '" + path + "': " + std::strerror(errno));
  int error = 0;
  std::uint64_t written = 0;
  archive.save_to([&](const void* data, std::size_t size) -> std::size_t {
    for (std::size_t done = 0; error == 0 && done < size;) {
      const ssize_t n = ::write(fd, static_cast<const char*>(data) + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error = errno;
      else done += static_cast<std::size_t>(n), written += static_cast<std::uint64_t>(n);
    }
    return size;  // a short count would make LibTorch throw from its destructor
  });
  // No fsync: save_ms is what torch::save costs a training loop (the page cache's write).
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    std::remove(path.c_str());
    throw std::runtime_error("checkpoint round trip: cannot write '" + path + "' (" + std::to_string(written) +
                             " bytes written): " + std::strerror(error));
  }
}

}  // namespace

nlohmann::json CheckpointCheck::to_json() const {
  if (!done) return {{"done", false}, {"reason", mismatch}};
  nlohmann::json out = {{"done", true},
                        {"save_ms", save_ms},
                        {"load_ms", load_ms},
                        {"bytes", bytes},
                        {"parameters_equal", parameters_equal},
                        {"outputs_equal", outputs_compared ? nlohmann::json(outputs_equal) : nlohmann::json()},
                        {"mismatch", mismatch}};
  if (!outputs_note.empty()) out["outputs_note"] = outputs_note;
  return out;
}

CheckpointCheck check_checkpoint_round_trip(const Workload& workload, Model& trained, torch::optim::Adam& optimizer,
                                            const torch::Tensor& probe_input, const std::string& path,
                                            bool channels_last, const ModelTechniques& techniques) {
  CheckpointCheck check;
  const auto device = probe_input.device();
  auto start = std::chrono::steady_clock::now();
  {
    torch::serialize::OutputArchive model_archive, optimizer_archive;
    trained.module->save(model_archive);
    optimizer.save(optimizer_archive);
    model_archive.write("optimizer", optimizer_archive);
    save_checkpoint_file(model_archive, path);
  }
  check.save_ms = ms_since(start);
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) check.bytes = static_cast<std::uint64_t>(info.st_size);

  Model restored = workload.make_model_with(techniques);
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
  const torch::Tensor output = trained.forward(probe_input).cpu();
  if (!torch::equal(output, trained.forward(probe_input).cpu())) {
    // Its own outputs differ call to call: a restored copy's cannot be held to them (a traced
    // module with dropout failed every row this way, its measurement with it).
    check.outputs_compared = false;
    check.outputs_note = "not compared: the model's own eval-mode output differs call to call (a traced module's "
                         "dropout runs in train mode); its parameters and buffers were compared";
  } else {
    check.outputs_equal = torch::equal(output, restored.forward(probe_input).cpu());
    if (!check.outputs_equal && check.mismatch.empty()) check.mismatch = "outputs differ on the probe batch";
  }
  trained.module->train();
  return check;
}

CheckpointCheck round_trip_in_private_dir(const std::string& scratch_dir, const Workload& workload, Model& trained,
                                          torch::optim::Adam& optimizer, const torch::Tensor& probe_input,
                                          bool channels_last, const ModelTechniques& techniques) {
  try {
    const PrivateDir folder(scratch_dir);
    return check_checkpoint_round_trip(workload, trained, optimizer, probe_input, folder.file("checkpoint.pt"),
                                       channels_last, techniques);
  } catch (const std::exception& error) {
    CheckpointCheck check;
    check.done = false;
    check.mismatch = std::string("could not run: ") + error.what();
    return check;
  }
}

}  // namespace gpubench
