#include "core/config/run_settings.h"

#include "core/config/errors.h"

namespace gpubench {

std::string to_string(Preset preset) {
  switch (preset) {
    case Preset::Quick: return "quick";
    case Preset::Default: return "default";
    case Preset::Full: return "full";
  }
  return "?";
}

Preset parse_preset(const std::string& text) {
  if (text == "quick") return Preset::Quick;
  if (text == "default") return Preset::Default;
  if (text == "full") return Preset::Full;
  throw UsageError("--preset '" + text + "' is unknown: expected quick, default or full");
}

std::string to_string(HostMalloc mode) { return mode == HostMalloc::Retain ? "retain" : "glibc"; }

HostMalloc parse_host_malloc(const std::string& text) {
  if (text == "retain") return HostMalloc::Retain;
  if (text == "glibc") return HostMalloc::Glibc;
  throw UsageError("--host-malloc '" + text + "' is unknown: expected retain or glibc");
}

std::string to_string(ExpertGemms gemms) {
  switch (gemms) {
    case ExpertGemms::Auto: return "auto";
    case ExpertGemms::Grouped: return "grouped";
    case ExpertGemms::Loop: return "loop";
  }
  return "?";
}

ExpertGemms parse_expert_gemms(const std::string& text) {
  for (const ExpertGemms gemms : {ExpertGemms::Auto, ExpertGemms::Grouped, ExpertGemms::Loop})
    if (text == to_string(gemms)) return gemms;
  throw UsageError("--expert-gemms '" + text + "' is unknown: expected auto, grouped or loop");
}

std::string to_string(CheckpointPolicy policy) {
  switch (policy) {
    case CheckpointPolicy::Auto: return "auto";
    case CheckpointPolicy::Every: return "every";
    case CheckpointPolicy::Once: return "once";
    case CheckpointPolicy::Off: return "off";
  }
  return "?";
}

CheckpointPolicy parse_checkpoint_policy(const std::string& text) {
  for (const CheckpointPolicy policy : {CheckpointPolicy::Auto, CheckpointPolicy::Every, CheckpointPolicy::Once, CheckpointPolicy::Off})
    if (text == to_string(policy)) return policy;
  throw UsageError("--checkpoint-check '" + text + "' is unknown: expected auto, every, once or off");
}

PresetScale preset_scale(Preset preset) {
  switch (preset) {
    // quick: 5 s a config keeps `--matrix all` on a 2-core CPU under 3 minutes.
    case Preset::Quick: return {1, 3, 30, 5.0, 0.25};
    case Preset::Default: return {3, 5, 200, 30.0, 1.0};
    case Preset::Full: return {10, 10, 1000, 120.0, 4.0};
  }
  return {3, 5, 200, 30.0, 1.0};
}

}  // namespace gpubench
