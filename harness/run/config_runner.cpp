#include "run/config_runner.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "config/errors.h"
#include "profile/host_memory.h"
#include "io/atomic_file.h"
#include "io/private_dir.h"
#include "parallel/ddp_session.h"
#include "profile/cupti_trace_spans.h"
#include "profile/trace_span_json.h"
#include "run/checkpoint_check.h"
#include "run/execution_plan.h"
#include "run/overhead_measurement.h"
#include "run/probe_assembly.h"
#include "run/trainer.h"
#include "stats/summary.h"
#include "stats/summary_json.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

nlohmann::json config_json(const Config& config) {
  return {{"workload", config.workload},
          {"device", to_string(config.device)},
          {"precision", to_string(config.precision)},
          {"host_memory", to_string(config.host_memory)},
          {"parallel", to_string(config.parallel)},
          {"world_size", config.world_size}};
}

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

// Why an --overhead result has no CUPTI level, or why its CUPTI level measured nothing.
std::string cupti_overhead_note(const Config& config, const RunSettings& settings, const CuptiCollector* cupti) {
  if (config.device != DeviceKind::Cuda) return "CUPTI traces GPU activity: not measured on a CPU config";
  if (!settings.cupti) return "CUPTI off (--no-cupti): not measured";
  if (cupti && cupti->state() != CuptiCollector::State::Done)
    return "CUPTI did not collect (" + cupti->reason() + "): its level ran without it";
  return "";
}

}  // namespace

int apply_thread_setting(int requested) {
  const int threads = requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(threads);
  return at::get_num_threads();
}

ResolvedSizes resolve_sizes(const std::string& workload_name, const RunSettings& settings) {
  const auto workload = make_workload(workload_name);
  const PresetScale scale = preset_scale(settings.preset);
  ResolvedSizes sizes;
  sizes.batch_size = settings.batch_size > 0 ? settings.batch_size : workload->default_batch_size();
  sizes.dataset_samples = static_cast<std::int64_t>(std::llround(workload->base_dataset_samples() * scale.dataset_scale));
  sizes.warmup = settings.warmup >= 0 ? settings.warmup : scale.warmup;
  sizes.stopping.exact = settings.steps > 0;
  sizes.stopping.max_steps = settings.steps > 0 ? settings.steps : scale.max_steps;
  sizes.stopping.min_steps = std::min(scale.min_steps, sizes.stopping.max_steps);
  sizes.stopping.budget_s = scale.budget_s;
  return sizes;
}

nlohmann::json run_config_in_process(const Config& config, const RunSettings& settings) {
  const auto started = std::chrono::steady_clock::now();
  // The ranks of a CPU DDP config share this machine's cores: by default each gets its
  // share, as torchrun's OMP_NUM_THREADS=1 intends; all cores per rank would oversubscribe
  // them and charge DDP for the contention. An explicit --threads is honoured.
  int requested_threads = settings.threads;
  if (requested_threads == 0 && config.parallel == ParallelMode::Ddp && config.device == DeviceKind::Cpu)
    requested_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / config.world_size);
  const int threads = apply_thread_setting(requested_threads);
  torch::manual_seed(settings.seed);

  const auto workload = make_workload(config.workload);
  const ResolvedSizes sizes = resolve_sizes(config.workload, settings);
  const bool real_data = workload->accepts_real_data() && !settings.data_dir.empty();
  TensorDataset dataset = workload->make_dataset({sizes.dataset_samples, settings.seed, real_data ? settings.data_dir : ""});
  const auto dataset_samples = static_cast<std::int64_t>(*dataset.size());
  if (sizes.batch_size > dataset_samples)
    throw UsageError("--batch-size " + std::to_string(sizes.batch_size) + " is larger than the " + config.workload +
                     " dataset (" + std::to_string(dataset_samples) + " samples)");

  // A DDP rank runs its device's single-process plan (its launcher narrowed
  // CUDA_VISIBLE_DEVICES to the rank's device) plus the session: process group, rank 0's
  // parameters, its data shard, gradient all-reduce during backward.
  const bool ddp_config = config.parallel == ParallelMode::Ddp;
  Config per_process = config;
  if (ddp_config) {
    per_process.parallel = ParallelMode::Single;
    per_process.world_size = 1;
  }
  ExecutionPlan plan = plan_execution(per_process);
  std::unique_ptr<DdpSession> ddp;
  if (ddp_config)
    ddp = DdpSession::join({config.world_size, plan.device, settings.bucket_mb, settings.comm_timeout_s, settings.seed},
                           read_launch_env());
  const std::int64_t shard_samples = (dataset_samples + config.world_size - 1) / config.world_size;
  if (ddp && sizes.batch_size > shard_samples)
    throw UsageError("--batch-size " + std::to_string(sizes.batch_size) + " is larger than each rank's shard of the " +
                     config.workload + " dataset (" + std::to_string(shard_samples) + " of " +
                     std::to_string(dataset_samples) + " samples)");
  Model model = workload->make_model();
  model.module->to(plan.device);
  if (ddp) ddp->broadcast_from_rank0(*model.module);
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  LoaderOptions loader_options{sizes.batch_size, settings.workers, std::nullopt};
  if (ddp) loader_options.shard = ddp->data_shard();
  auto source = plan.make_batch_source(std::move(dataset), loader_options);

  std::optional<OverheadSchedule> overhead;
  if (settings.overhead) overhead = overhead_schedule(config, settings, sizes.warmup);
  ConfigProbes config_probes = assemble_probes(config, settings, plan, overhead);
  ProbeSet& probes = config_probes.all;
  const auto& timer = config_probes.timer;
  if (ddp) probes.add(ddp->recorder());

  TrainerSpec spec;
  spec.device = plan.device;
  spec.autocast = plan.autocast;
  spec.autocast_dtype = plan.autocast_dtype;
  spec.warmup_steps = sizes.warmup;
  spec.stopping = overhead ? overhead_stopping(sizes.stopping, *overhead) : sizes.stopping;
  if (ddp_config && !spec.stopping.exact) {
    // Ranks must run the same number of steps (each waits for the others' gradients), but
    // each would judge noise and budget on its own clock: use a fixed count instead.
    spec.stopping.exact = true;
    spec.stopping.max_steps = overhead ? spec.stopping.min_steps : std::max(spec.stopping.min_steps * 5, 10);
  }
  if (overhead)
    spec.sync_each_phase = [schedule = *overhead](int step) {
      return schedule.level_at(step) != InstrumentationLevel::Bare;
    };
  spec.test_delay_ms = settings.test_step_delay_ms;
  spec.config_id = config.id();
  spec.synchronize = plan.synchronize;
  spec.data_parallel_devices = plan.data_parallel_devices;
  if (ddp) spec.gradient_sync = &ddp->attach(model.module->parameters());
  Trainer trainer(spec, probes);
  TrainingRun run = trainer.run(model, optimizer, *workload, *source, *plan.scaler);
  std::optional<DeviceSpanCount> device_spans;
  if (config_probes.trace) {
    if (config_probes.cupti && config_probes.cupti->state() == CuptiCollector::State::Done)
      device_spans = add_cupti_device_spans(*config_probes.trace, config_probes.cupti->records(),
                                            config_probes.cupti->clock_alignment());
    write_file_atomically(settings.trace_path, to_json(config_probes.trace->span_set()).dump());
  }
  // Rank 0 gets every rank's numbers; the report is rank 0's result.
  std::optional<DdpSession::Gathered> gathered;
  if (ddp) gathered = ddp->gather(timer->step_ms(), run.losses, static_cast<std::size_t>(shard_samples));
  const bool reporting = !ddp || ddp->rank() == 0;

  // The ranks hold the same parameters: only the reporting process checks the round trip,
  // in a directory of its own (no other user can plant a symlink for torch::save to follow).
  CheckpointCheck checkpoint;
  if (reporting) {
    const PrivateDir checkpoint_dir;
    checkpoint = check_checkpoint_round_trip(*workload, model, optimizer, run.last_batch.data,
                                             checkpoint_dir.file("checkpoint.pt"));
  }

  nlohmann::json result;
  result["config_id"] = config.id();
  result["config"] = config_json(config);
  result["status"] = "ok";
  result["reason"] = "";
  nlohmann::json workload_json = workload->describe();
  workload_json["name"] = config.workload;
  workload_json["batch_size"] = sizes.batch_size;
  workload_json["global_batch_size"] = sizes.batch_size * config.world_size;
  workload_json["dataset_samples"] = dataset_samples;
  workload_json["data_source"] = real_data ? "mnist-idx:" + settings.data_dir : "synthetic(seed=" + std::to_string(settings.seed) + ")";
  workload_json["parameters"] = model.parameter_count();
  workload_json["workers"] = settings.workers;
  result["workload"] = workload_json;
  result["steps"] = {{"warmup", sizes.warmup}, {"measured", static_cast<int>(timer->step_ms().size())}};
  const MedianInterval interval = median_confidence_interval(timer->step_ms());
  result["stopping"] = {{"reason", run.stop_reason},
                        {"exact_steps", spec.stopping.exact},
                        {"min_steps", spec.stopping.min_steps},
                        {"max_steps", spec.stopping.max_steps},
                        {"budget_s", sizes.stopping.budget_s},
                        {"target_relative_ci", sizes.stopping.target_relative_ci},
                        {"median_ci95_ms", {interval.low, interval.high}},
                        {"median_ci95_relative", interval.relative_half_width()}};
  result["threads"] = {{"intra_op", threads}, {"inter_op", at::get_num_interop_threads()}};
  probes.write_result(result);
  plan.scaler->write_result(result);
  if (overhead)
    result["overhead"] =
        overhead_json(*overhead, run.step_ms, cupti_overhead_note(config, settings, config_probes.cupti.get()));
  if (device_spans) result["trace"] = {{"device_spans", device_spans->added}, {"device_spans_left_out", device_spans->left_out}};

  std::vector<double> samples_per_s;
  for (double ms : timer->step_ms()) samples_per_s.push_back(static_cast<double>(sizes.batch_size * config.world_size) * 1000.0 / ms);
  result["throughput"]["samples_per_s"] = to_json(summarize(samples_per_s));
  // DDP: the global batch's loss (mean over the ranks' shards), comparable with one process.
  result["loss"] = loss_json(gathered ? gathered->global_losses : run.losses, sizes.warmup);
  if (gathered) result["ddp"] = gathered->ddp;
  result["optimizer_steps_skipped"] = run.optimizer_steps_skipped;
  // The seed's pitfall: a parameter or batch left behind on another device still trains,
  // just slowly. Checked, not assumed.
  bool parameters_on_device = true;
  for (const auto& parameter : model.module->parameters())
    parameters_on_device = parameters_on_device && parameter.device() == plan.device;
  result["placement"] = {{"parameters_on_device", parameters_on_device},
                         {"batch_on_device", run.last_batch.data.device() == plan.device}};
  if (reporting) result["checkpoint"] = checkpoint.to_json();
  if (reporting && (!checkpoint.parameters_equal || !checkpoint.outputs_equal)) {
    // Keep the measurements: the row says what broke and still shows the numbers.
    result["status"] = "failed";
    result["reason"] = "checkpoint round trip failed: " + checkpoint.mismatch;
  }
  result["memory"]["host_peak_rss_bytes"] = peak_rss_bytes();
  result["duration_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace gpubench
