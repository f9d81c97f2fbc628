#include "harness/run/config_sizes.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <ATen/Parallel.h>

#include "workloads/workload.h"

namespace gpubench {

int apply_thread_setting(int requested) {
  const int threads = requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(threads);
  return at::get_num_threads();
}

ResolvedSizes resolve_sizes(const Config& config, const RunSettings& settings) {
  const auto workload = make_workload(config.workload);
  const PresetScale scale = preset_scale(settings.preset);
  ResolvedSizes sizes;
  sizes.batch_size = settings.batch_size > 0 ? settings.batch_size : workload->default_batch_size(config.device);
  sizes.dataset_samples = static_cast<std::int64_t>(std::llround(workload->base_dataset_samples() * scale.dataset_scale));
  sizes.warmup = settings.warmup >= 0 ? settings.warmup : scale.warmup;
  sizes.stopping.exact = settings.steps > 0;
  sizes.stopping.max_steps = settings.steps > 0 ? settings.steps : scale.max_steps;
  sizes.stopping.min_steps = std::min(scale.min_steps, sizes.stopping.max_steps);
  sizes.stopping.budget_s = scale.budget_s;
  return sizes;
}

StoppingRule fixed_count_for_ranks(StoppingRule rule, bool overhead) {
  if (rule.exact) return rule;
  rule.exact = true;
  rule.max_steps = overhead ? rule.min_steps : std::max(rule.min_steps * 5, 10);
  return rule;
}

int warmup_steps_for(const Config& config, int resolved_warmup) {
  constexpr int kGraphEagerWarmupSteps = 3;
  return config.graph ? std::max(resolved_warmup, kGraphEagerWarmupSteps) : resolved_warmup;
}

}  // namespace gpubench
