#pragma once
#include <cstdint>
#include <string>

namespace gpubench {

enum class Preset { Quick, Default, Full };

std::string to_string(Preset preset);
Preset parse_preset(const std::string& text);  // throws UsageError

// What every config of one matrix run shares. Zero means "the workload's preset value".
struct RunSettings {
  Preset preset = Preset::Default;
  int steps = 0;          // measured steps
  int warmup = -1;        // excluded steps; -1 = preset value
  int batch_size = 0;     // per process
  int threads = 0;        // intra-op threads; 0 = all cores
  int workers = 0;        // DataLoader worker threads
  std::uint64_t seed = 42;
  std::string data_dir;   // real MNIST IDX files for mlp
  double config_timeout_s = 1800;
};

// The preset's scale: how many steps and how large a dataset. Models never change.
struct PresetScale {
  int warmup;
  int steps;
  double dataset_scale;  // multiplies each workload's base dataset size
};
PresetScale preset_scale(Preset preset);

}  // namespace gpubench
