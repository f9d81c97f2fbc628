#include "core/config/config.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "core/config/errors.h"
#include "core/config/technique_rules.h"
#include "core/io/text_parts.h"

namespace gpubench {
namespace {

const char* const kGrammar =
    "expected workload/device/precision[/pinned|pageable] and any of /dp|ddp-N|zero1-N|zero2-N|fsdp-N, /ep-K, /accK, /adam-foreach|adam-fused, "
    "/channels-last, /ckpt, /graph, e.g. mlp/cpu/fp32, cnn/cuda/amp-bf16/pinned/adam-fused/channels-last";

UsageError bad_id(const std::string& id, const std::string& why) {
  return UsageError("config id '" + id + "': " + why + " (" + kGrammar + ")");
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

Precision parse_precision(const std::string& id, const std::string& text) {
  for (const Precision p : {Precision::Fp32, Precision::Bf16, Precision::AmpFp16, Precision::AmpBf16, Precision::Tf32, Precision::Fp8})
    if (text == to_string(p)) return p;
  throw bad_id(id, "precision '" + text + "' is unknown, expected fp32 or bf16 (cpu), or fp32, tf32, amp-fp16, amp-bf16 "
                   "or fp8 (cuda)");
}

// The multi-rank modes' prefixes, as ids spell them ("ddp-2", "fsdp-8").
struct RankedMode {
  const char* prefix;
  ParallelMode mode;
};
constexpr RankedMode kRankedModes[] = {{"ddp-", ParallelMode::Ddp},
                                       {"zero1-", ParallelMode::Zero1},
                                       {"zero2-", ParallelMode::Zero2},
                                       {"fsdp-", ParallelMode::Fsdp}};

// A count an id spells ("ddp-N", "accK"): decimal digits without a leading zero, in [min,
// max], or nullopt. One grammar for every number of an id: fsdp-02 was read as fsdp-2 while
// acc02 was refused, so two spellings named one config.
std::optional<int> id_count(const std::string& digits, int min, int max) {
  if (digits.empty() || digits.size() > 4 || !all_digits(digits) || digits[0] == '0') return std::nullopt;
  const int count = std::stoi(digits);
  return count < min || count > max ? std::nullopt : std::optional<int>(count);
}

// "ddp-N", "fsdp-N", ... -> N (1..1024); throws for a malformed count.
int parse_ranks(const std::string& id, const std::string& text, const std::string& prefix) {
  if (const auto ranks = id_count(text.substr(prefix.size()), 1, 1024)) return *ranks;
  throw bad_id(id, "'" + text + "' needs a rank count 1..1024 without leading zeros, e.g. " + prefix + "2");
}

// "accK" -> K (2..1024); throws for a malformed count.
int parse_accumulate(const std::string& id, const std::string& text) {
  if (const auto steps = id_count(text.substr(3), 2, 1024)) return *steps;
  throw bad_id(id, "'" + text + "' needs 2..1024 micro-batches per optimizer step, e.g. acc4 (acc1 is the plain config)");
}

// One technique segment into the config; returns the word the rule table knows it by, or
// "" when the segment is none.
std::string apply_segment(const std::string& id, const std::string& text, Config& config) {
  if (text == "pinned" || text == "pageable") {
    config.host_memory = text == "pinned" ? HostMemory::Pinned : HostMemory::Pageable;
    return text;
  }
  if (text == "dp") {
    config.parallel = ParallelMode::DataParallel;
    return text;
  }
  if (text.rfind("ep-", 0) == 0) {
    const auto ranks = id_count(text.substr(3), 2, 1024);
    if (!ranks) throw bad_id(id, "'" + text + "' needs 2..1024 ranks per expert group without leading zeros, e.g. ep-2");
    config.expert_parallel = *ranks;
    return "ep-K";
  }
  for (const RankedMode& ranked : kRankedModes) {
    const std::string prefix = ranked.prefix;
    if (text.rfind(prefix, 0) != 0) continue;
    config.parallel = ranked.mode;
    config.world_size = parse_ranks(id, text, prefix);
    return prefix + "N";
  }
  if (text.size() > 3 && text.rfind("acc", 0) == 0 && std::isdigit(static_cast<unsigned char>(text[3]))) {
    config.accumulate = parse_accumulate(id, text);
    return "accK";
  }
  if (text == "adam-foreach" || text == "adam-fused") {
    config.adam = text == "adam-fused" ? AdamKernel::Fused : AdamKernel::Foreach;
    return text;
  }
  if (text == "channels-last") config.channels_last = true;
  else if (text == "ckpt") config.checkpoint = true;
  else if (text == "graph") config.graph = true;
  else return "";
  return text;
}

}  // namespace

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
    case ParallelMode::Zero1: return "zero1";
    case ParallelMode::Zero2: return "zero2";
    case ParallelMode::Fsdp: return "fsdp";
  }
  return "?";
}

std::string to_string(AdamKernel kernel) {
  switch (kernel) {
    case AdamKernel::Loop: return "loop";
    case AdamKernel::Foreach: return "adam-foreach";
    case AdamKernel::Fused: return "adam-fused";
  }
  return "?";
}

std::vector<std::string> Config::technique_segments() const {
  std::vector<std::string> segments;
  if (parallel == ParallelMode::DataParallel) segments.push_back("dp");
  if (multi_rank()) segments.push_back(to_string(parallel) + "-" + std::to_string(world_size));
  if (expert_parallel > 1) segments.push_back("ep-" + std::to_string(expert_parallel));
  if (accumulate > 1) segments.push_back("acc" + std::to_string(accumulate));
  // A graph replays fused Adam: the id of the one-technique grammar (".../graph") stands for both.
  if (adam != AdamKernel::Loop && !(graph && adam == AdamKernel::Fused)) segments.push_back(to_string(adam));
  if (channels_last) segments.push_back("channels-last");
  if (checkpoint) segments.push_back("ckpt");
  if (graph) segments.push_back("graph");
  return segments;
}

std::string Config::id() const {
  std::string text = workload + "/" + to_string(device) + "/" + to_string(precision);
  if (device == DeviceKind::Cuda) text += "/" + to_string(host_memory);
  for (const auto& segment : technique_segments()) text += "/" + segment;
  return text;
}

Config Config::parse(const std::string& id) {
  const auto parts = split_text(id, '/');
  if (parts.size() < 3) throw bad_id(id, "has " + std::to_string(parts.size()) + " segments");
  for (const auto& part : parts)
    if (part.empty()) throw bad_id(id, "has an empty segment");
  Config config;
  config.workload = parts[0];
  if (parts[1] != "cpu" && parts[1] != "cuda") throw bad_id(id, "device '" + parts[1] + "' is unknown, expected cpu or cuda");
  config.device = parts[1] == "cpu" ? DeviceKind::Cpu : DeviceKind::Cuda;
  config.host_memory = config.device == DeviceKind::Cuda ? HostMemory::Pinned : HostMemory::Pageable;
  config.precision = parse_precision(id, parts[2]);
  std::vector<std::string> words = {parts[1], parts[2]};
  std::vector<std::string> seen;
  for (std::size_t i = 3; i < parts.size(); ++i) {
    if (std::find(seen.begin(), seen.end(), parts[i]) != seen.end()) throw bad_id(id, "segment '" + parts[i] + "' is given twice");
    const std::string word = apply_segment(id, parts[i], config);
    if (word.empty()) throw bad_id(id, "segment '" + parts[i] + "' is not understood");
    if (std::find(words.begin(), words.end(), word) != words.end())
      throw bad_id(id, "'" + parts[i] + "' sets what another segment set already (" + word + ")");
    seen.push_back(parts[i]);
    words.push_back(word);
  }
  if (auto broken = id_rule_broken(words)) throw bad_id(id, *broken);
  // ep-K borrows its K ranks from the multi-rank mode (torchtitan's expert parallel): a
  // relation of two numbers, which the pairwise table cannot state.
  if (config.expert_parallel > 1 && !config.multi_rank())
    throw bad_id(id, "ep-" + std::to_string(config.expert_parallel) +
                         " splits the experts over ranks of a multi-rank mode: add ddp-N, zero1-N, zero2-N or fsdp-N with N a "
                         "multiple of " + std::to_string(config.expert_parallel));
  if (config.expert_parallel > 1 && config.world_size % config.expert_parallel != 0)
    throw bad_id(id, "ep-" + std::to_string(config.expert_parallel) + " needs a rank count that is a multiple of " +
                         std::to_string(config.expert_parallel) + " (each group of " +
                         std::to_string(config.expert_parallel) + " ranks holds every expert once), and " +
                         to_string(config.parallel) + "-" + std::to_string(config.world_size) + " has " +
                         std::to_string(config.world_size));
  return config;
}

void add_unique(std::vector<Config>& configs, const Config& config) {
  if (std::find(configs.begin(), configs.end(), config) == configs.end()) configs.push_back(config);
}

}  // namespace gpubench
