#pragma once
// One config run in this process on a fixed, small number of steps (the quick preset, seed
// 42, no CUPTI), for the tests that hold a technique's row against its baseline's on the
// same seed and data. A row that is not ok fails the calling test, naming its reason.
#include <string>

#include <gtest/gtest.h>

#include "core/config/run_settings.h"
#include "harness/run/config_runner.h"

namespace gpubench {

struct QuickRun {
  int steps = 4;
  int warmup = 0;
  int batch_size = 0;  // 0: the workload's default for the device
  bool round_trip = true;  // the checkpoint round trip (seconds for a real-scale model)
};

inline nlohmann::json run_quick_row(const std::string& id, const QuickRun& run) {
  RunSettings settings;
  settings.preset = Preset::Quick;
  settings.steps = run.steps;
  settings.warmup = run.warmup;
  settings.batch_size = run.batch_size;
  settings.seed = 42;
  settings.cupti = false;
  if (!run.round_trip) settings.checkpoint_skip_reason = "left out by the test: it compares training only";
  const nlohmann::json row = run_config_in_process(Config::parse(id), settings);
  EXPECT_EQ(row.value("status", ""), "ok") << id << ": " << row.value("reason", "");
  return row;
}

}  // namespace gpubench
