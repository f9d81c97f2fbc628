#include "config/config.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "config/errors.h"
#include "io/text_parts.h"

namespace gpubench {
namespace {

UsageError bad_id(const std::string& id, const std::string& why) {
  return UsageError("config id '" + id + "': " + why +
                    " (expected workload/device/precision[/pinned|pageable][/dp|ddp-N][/accK]"
                    "[/adam-foreach|adam-fused|channels-last|graph|ckpt], e.g. mlp/cpu/fp32, cnn/cuda/amp-fp16/pinned)");
}

Precision parse_precision(const std::string& id, const std::string& text, DeviceKind device) {
  if (text == "fp32") return Precision::Fp32;
  if (device == DeviceKind::Cpu) {
    if (text == "bf16") return Precision::Bf16;
    throw bad_id(id, "precision '" + text + "' is not a CPU precision, expected fp32 or bf16" +
                         std::string(text == "fp8" ? " (fp8 runs on cuda only)" : ""));
  }
  if (text == "amp-fp16") return Precision::AmpFp16;
  if (text == "amp-bf16") return Precision::AmpBf16;
  if (text == "tf32") return Precision::Tf32;
  if (text == "fp8") return Precision::Fp8;
  throw bad_id(id, "precision '" + text + "' is not a CUDA precision, expected fp32, tf32, amp-fp16, amp-bf16 or fp8");
}

// Parses "dp" or "ddp-N" into the config; returns false if the segment is neither.
bool parse_parallel(const std::string& id, const std::string& text, Config& config) {
  if (text == "dp") {
    if (config.device != DeviceKind::Cuda) throw bad_id(id, "DataParallel (dp) needs device cuda");
    config.parallel = ParallelMode::DataParallel;
    return true;
  }
  if (text.rfind("ddp-", 0) != 0) return false;
  const std::string count = text.substr(4);
  int ranks = 0;
  try {
    std::size_t used = 0;
    ranks = std::stoi(count, &used);
    if (used != count.size()) ranks = 0;
  } catch (const std::exception&) {
    ranks = 0;
  }
  if (ranks < 1 || ranks > 1024) throw bad_id(id, "'" + text + "' needs a rank count 1..1024, e.g. ddp-2");
  config.parallel = ParallelMode::Ddp;
  config.world_size = ranks;
  return true;
}

// Parses "accK" (K micro-batches per optimizer step) into the config; returns false if the
// segment is not one.
bool parse_accumulate(const std::string& id, const std::string& text, Config& config) {
  if (text.rfind("acc", 0) != 0 || text.size() == 3 || !std::isdigit(static_cast<unsigned char>(text[3]))) return false;
  const std::string count = text.substr(3);
  int steps = 0;
  if (count.size() <= 4 && std::all_of(count.begin(), count.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    steps = std::stoi(count);
  if (steps < 2 || steps > 1024 || count[0] == '0')
    throw bad_id(id, "'" + text + "' needs 2..1024 micro-batches per optimizer step, e.g. acc4 (acc1 is the plain config)");
  config.accumulate = steps;
  return true;
}

// Parses a variant segment into the config; returns false if the segment is none.
bool parse_variant(const std::string& id, const std::string& text, Config& config) {
  if (text == "adam-foreach") config.variant = Variant::AdamForeach;
  else if (text == "adam-fused") config.variant = Variant::AdamFused;
  else if (text == "channels-last") config.variant = Variant::ChannelsLast;
  else if (text == "graph") config.variant = Variant::CudaGraph;
  else if (text == "ckpt") config.variant = Variant::ActivationCheckpoint;
  else return false;
  if (config.parallel != ParallelMode::Single) throw bad_id(id, "'" + text + "' is measured on a single process only");
  const bool full_precision = config.precision == Precision::Fp32 || config.precision == Precision::Tf32;
  // Multi-tensor Adam also under fp16 autocast: the fused kernel takes the GradScaler's
  // scale and inf flag (PyTorch's AMP + fused path).
  const bool adam = config.variant == Variant::AdamForeach || config.variant == Variant::AdamFused;
  const bool ckpt = config.variant == Variant::ActivationCheckpoint;  // memory under every precision
  if (ckpt && config.workload != "resnet50" && config.workload != "gpt2")
    throw bad_id(id, "ckpt (activation checkpointing) applies to resnet50 (per stage) and gpt2 (per block) only");
  if (!ckpt && !full_precision && !(adam && config.precision == Precision::AmpFp16))
    throw bad_id(id, "'" + text + "' is measured in fp32 or tf32" + std::string(adam ? " (or amp-fp16)" : "") +
                         ", against the same config without it");
  if (config.variant == Variant::ChannelsLast && !is_image_workload(config.workload))
    throw bad_id(id, "channels-last applies to the image workloads cnn and resnet50 only (the others have no 4-d tensors)");
  if (config.variant == Variant::CudaGraph && config.device != DeviceKind::Cuda)
    throw bad_id(id, "graph (the step captured in a CUDA Graph) needs device cuda");
  return true;
}

}  // namespace

bool is_image_workload(const std::string& workload) { return workload == "cnn" || workload == "resnet50"; }

std::string to_string(DeviceKind device) { return device == DeviceKind::Cpu ? "cpu" : "cuda"; }

std::string to_string(Precision precision) {
  switch (precision) {
    case Precision::Fp32: return "fp32";
    case Precision::Bf16: return "bf16";
    case Precision::AmpFp16: return "amp-fp16";
    case Precision::AmpBf16: return "amp-bf16";
    case Precision::Tf32: return "tf32";
    case Precision::Fp8: return "fp8";
  }
  return "?";
}

std::string to_string(HostMemory memory) { return memory == HostMemory::Pinned ? "pinned" : "pageable"; }

std::string to_string(ParallelMode mode) {
  switch (mode) {
    case ParallelMode::Single: return "single";
    case ParallelMode::DataParallel: return "dp";
    case ParallelMode::Ddp: return "ddp";
  }
  return "?";
}

std::string to_string(Variant variant) {
  switch (variant) {
    case Variant::None: return "none";
    case Variant::AdamForeach: return "adam-foreach";
    case Variant::AdamFused: return "adam-fused";
    case Variant::ChannelsLast: return "channels-last";
    case Variant::CudaGraph: return "graph";
    case Variant::ActivationCheckpoint: return "ckpt";
  }
  return "?";
}


std::string Config::id() const {
  std::string text = workload + "/" + to_string(device) + "/" + to_string(precision);
  if (device == DeviceKind::Cuda) text += "/" + to_string(host_memory);
  if (parallel == ParallelMode::DataParallel) text += "/dp";
  if (parallel == ParallelMode::Ddp) text += "/ddp-" + std::to_string(world_size);
  if (accumulate > 1) text += "/acc" + std::to_string(accumulate);
  if (variant != Variant::None) text += "/" + to_string(variant);
  return text;
}

Config Config::parse(const std::string& id) {
  const auto parts = split_text(id, '/');
  if (parts.size() < 3 || parts.size() > 7) throw bad_id(id, "has " + std::to_string(parts.size()) + " segments");
  for (const auto& part : parts)
    if (part.empty()) throw bad_id(id, "has an empty segment");
  Config config;
  config.workload = parts[0];
  if (parts[1] == "cpu") {
    config.device = DeviceKind::Cpu;
  } else if (parts[1] == "cuda") {
    config.device = DeviceKind::Cuda;
    config.host_memory = HostMemory::Pinned;
  } else {
    throw bad_id(id, "device '" + parts[1] + "' is unknown, expected cpu or cuda");
  }
  config.precision = parse_precision(id, parts[2], config.device);
  if (config.precision == Precision::Fp8 && config.workload != "gpt2")
    throw bad_id(id, "fp8 applies to gpt2 only (its blocks' Linear layers run in FP8)");
  std::size_t next = 3;
  if (next < parts.size() && (parts[next] == "pinned" || parts[next] == "pageable")) {
    if (config.device != DeviceKind::Cuda) throw bad_id(id, "host memory '" + parts[next] + "' applies to cuda only");
    config.host_memory = parts[next] == "pinned" ? HostMemory::Pinned : HostMemory::Pageable;
    ++next;
  }
  if (next < parts.size() && parse_parallel(id, parts[next], config)) ++next;
  if (config.parallel != ParallelMode::Single && config.precision != Precision::Fp32)
    throw bad_id(id, "parallel modes are measured in fp32 only");
  if (next < parts.size() && parse_accumulate(id, parts[next], config)) ++next;
  if (next < parts.size() && parse_variant(id, parts[next], config)) ++next;
  if (config.accumulate > 1 && config.variant == Variant::CudaGraph)
    throw bad_id(id, "'graph' captures one whole step of one batch: it does not take accK");
  if (next != parts.size()) throw bad_id(id, "segment '" + parts[next] + "' is not understood");
  return config;
}

}  // namespace gpubench
