#pragma once
#include <cstdint>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "core/stats/stopping_rule.h"

// What a config will use, known before it runs: batch, dataset size, warm-up, stopping
// rule, threads. The matrix command validates and lists with these; the config's own
// process runs with them.
namespace gpubench {

// The sizes a config will use, known before running (for validation and --list).
struct ResolvedSizes {
  std::int64_t batch_size = 0;
  std::int64_t dataset_samples = 0;
  int warmup = 0;
  StoppingRule stopping;  // exact when --steps was given
};
// The batch is the workload's for the config's device kind unless --batch-size says.
ResolvedSizes resolve_sizes(const Config& config, const RunSettings& settings);
// The warm-up a config runs: the graph variant warms up eagerly at least 3 steps before
// its capture (PyTorch's recipe); every other config as resolved.
int warmup_steps_for(const Config& config, int resolved_warmup);

// DDP ranks must run the same number of steps (each waits for the others' gradients), but
// each would judge noise and budget on its own clock: a budgeted rule becomes a fixed
// count (min_steps under --overhead, whose schedule sets it). Its max_steps is the cap the
// ranks' agreement after warm-up may lower (DdpSession::agree_on_step_count).
StoppingRule fixed_count_for_ranks(StoppingRule rule, bool overhead);

// Sets intra-op threads (0 = all cores) and returns the number in force.
int apply_thread_setting(int requested);

}  // namespace gpubench
