#include "harness/run/row_parts.h"

#include <algorithm>
#include <thread>

#include "workloads/model_flops.h"

namespace gpubench {

nlohmann::json loss_json(const std::vector<double>& losses, int warmup) {
  nlohmann::json loss = {{"first", losses.front()}, {"last", losses.back()}, {"curve", losses}};
  // Mean of the first and last quarter of steps: single steps are noisy, these are not.
  const std::size_t quarter = std::max<std::size_t>(1, losses.size() / 4);
  double head = 0, tail = 0;
  for (std::size_t i = 0; i < quarter; ++i) {
    head += losses[i];
    tail += losses[losses.size() - 1 - i];
  }
  loss["first_quarter_mean"] = head / static_cast<double>(quarter);
  loss["last_quarter_mean"] = tail / static_cast<double>(quarter);
  loss["fell"] = tail < head;
  loss["warmup_steps"] = warmup;
  return loss;
}

std::string cupti_overhead_note(const Config& config, const RunSettings& settings, const CuptiCollector* cupti) {
  if (config.device != DeviceKind::Cuda) return "CUPTI traces GPU activity: not measured on a CPU config";
  if (!settings.cupti) return "CUPTI off (--no-cupti): not measured";
  if (cupti && cupti->state() != CuptiCollector::State::Done)
    return "CUPTI did not collect (" + cupti->reason() + "): its level ran without it";
  return "";
}

nlohmann::json flops_json(const Workload& workload, double global_batch) {
  const std::int64_t forward_macs = workload.forward_macs_per_sample();
  const auto per_sample = static_cast<double>(training_flops(forward_macs));
  return {{"forward_per_sample", static_cast<double>(forward_macs * kFlopsPerMac)},
          {"training_per_sample", per_sample},
          {"training_per_step", per_sample * global_batch},
          {"convention", workload.flops_convention()}};
}

std::optional<nlohmann::json> oversubscribed_json(const Config& config) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (config.device != DeviceKind::Cpu || !config.multi_rank() || config.world_size <= cores) return std::nullopt;
  return nlohmann::json{{"ranks", config.world_size},
                        {"cores", cores},
                        {"note", "more ranks than cores (--oversubscribe): the ranks took turns on the cores, so its "
                                 "times measure the scheduler, not this machine's speed; its losses and what the ranks "
                                 "hold are the config's"}};
}

}  // namespace gpubench
