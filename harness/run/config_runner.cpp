#include "harness/run/config_runner.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "core/config/errors.h"
#include "harness/profile/host_memory.h"
#include "core/io/atomic_file.h"
#include "harness/parallel/ddp_session.h"
#include "harness/profile/cupti_trace_spans.h"
#include "harness/profile/kineto_trace.h"
#include "harness/profile/trace_span_json.h"
#include "core/device/cuda_memory_stats.h"
#include "harness/run/checkpoint_check.h"
#include "harness/run/memory_check.h"
#include "harness/run/config_json.h"
#include "harness/run/config_sizes.h"
#include "harness/run/compile_package.h"
#include "harness/run/compiled_step.h"
#include "harness/run/cuda_graph_step.h"
#include "harness/run/execution_plan.h"
#include "harness/run/channels_last.h"
#include "harness/run/multi_tensor_adam.h"
#include "harness/run/overhead_measurement.h"
#include "workloads/model_flops.h"
#include "harness/run/probe_assembly.h"
#include "harness/run/rank_state.h"
#include "harness/run/row_parts.h"
#include "harness/run/step_timing.h"
#include "harness/run/trainer.h"
#include "core/stats/ratio_interval.h"
#include "core/stats/summary.h"
#include "core/stats/summary_json.h"
#include "workloads/workload.h"
#include "core/io/json_text.h"

namespace gpubench {
namespace {


// Adam lr 1e-3 for every workload: LibTorch's per-parameter loop, or one multi-tensor pass
// (the adam-foreach and adam-fused variants).
std::unique_ptr<torch::optim::Adam> make_optimizer(const Config& config, const std::vector<torch::Tensor>& parameters) {
  const torch::optim::AdamOptions options(1e-3);
  // A graph replays the optimizer too: fused Adam keeps its step counts on the device.
  if (config.adam_kernel() == AdamKernel::Foreach)
    return std::make_unique<MultiTensorAdam>(parameters, options, MultiTensorAdam::Kernel::Foreach);
  if (config.adam_kernel() == AdamKernel::Fused)
    return std::make_unique<MultiTensorAdam>(parameters, options, MultiTensorAdam::Kernel::Fused);
  return std::make_unique<torch::optim::Adam>(parameters, options);
}

// A config between its stages (prepare -> train -> collect): what training needs and what
// the result describes. Members are destroyed in reverse order: the trainer spec's gradient
// sync points into the DDP session, the optimizer into the model.
struct PreparedConfig {
  Config config;
  const RunSettings* settings = nullptr;
  std::chrono::steady_clock::time_point started;
  int threads = 0;
  std::unique_ptr<Workload> workload;
  ResolvedSizes sizes;
  std::string data_source;  // the reader's own description, for the row
  std::int64_t dataset_samples = 0;
  std::int64_t shard_samples = 0;  // per rank; dataset_samples for one process
  ExecutionPlan plan;
  std::unique_ptr<DdpSession> ddp;
  GradientSync* sync = nullptr;  // the session's, for the trainer
  std::unique_ptr<CudaGraphStep> graph;  // the graph variant; its side stream is current while it lives
  Model model;
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::optional<CompiledPackage> package;         // compile: the cached or new package
  std::unique_ptr<CompiledTrainingStep> compiled;  // compile: the package bound to the model's tensors
  std::unique_ptr<BatchSource> source;
  std::optional<OverheadSchedule> overhead;
  ConfigProbes probes;
  TrainerSpec spec;
};

// What the config builds into its model (and the checkpoint check rebuilds), and where.
ModelTechniques model_techniques(const Config& config, torch::Device device, const RunSettings& settings) {
  return {config.checkpoint, config.precision == Precision::Fp8, device, settings.expert_gemms};
}

// The ranks of a CPU DDP config share this machine's cores: by default each gets its
// share, as torchrun's OMP_NUM_THREADS=1 intends; all cores per rank would oversubscribe
// them and charge DDP for the contention. An explicit --threads is honoured.
int threads_for(const Config& config, const RunSettings& settings) {
  int requested = settings.threads;
  if (requested == 0 && config.multi_rank() && config.device == DeviceKind::Cpu)
    requested = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / config.world_size);
  return apply_thread_setting(requested);
}

// The dataset (synthetic, or the workload's real data with --data), checked against the
// batch. The parent checked real data in full before the matrix ran; here only its index.
Dataset load_dataset(PreparedConfig& c) {
  const RunSettings& settings = *c.settings;
  const auto path = settings.data_paths.find(c.config.workload);
  Dataset dataset = c.workload->make_dataset({c.sizes.dataset_samples, settings.seed,
                                              path == settings.data_paths.end() ? "" : path->second,
                                              /*full_check=*/false, settings.max_image_pixels});
  c.data_source = dataset.reader().source();
  c.dataset_samples = static_cast<std::int64_t>(*dataset.size());
  if (c.sizes.batch_size > c.dataset_samples)
    throw UsageError("--batch-size " + std::to_string(c.sizes.batch_size) + " is larger than the " + c.config.workload +
                     " dataset (" + std::to_string(c.dataset_samples) + " samples)");
  return dataset;
}

// A DDP rank runs its device's single-process plan (its launcher narrowed
// CUDA_VISIBLE_DEVICES to the rank's device) plus the session: process group, rank 0's
// parameters, its data shard, gradient all-reduce during backward.
void plan_devices(PreparedConfig& c) {
  Config per_process = c.config;
  const bool ddp_config = c.config.multi_rank();
  if (ddp_config) {
    per_process.parallel = ParallelMode::Single;
    per_process.world_size = 1;
  }
  c.plan = plan_execution(per_process);
  c.shard_samples = (c.dataset_samples + c.config.world_size - 1) / c.config.world_size;
  if (!ddp_config) return;
  const RunSettings& settings = *c.settings;
  DdpSettings ddp;
  ddp.mode = c.config.parallel;
  ddp.world_size = c.config.world_size;
  ddp.accumulate = c.config.accumulate;
  ddp.expert_parallel = c.config.expert_parallel;
  ddp.device = c.plan.device;
  ddp.bucket_mb = settings.bucket_mb;
  ddp.comm_timeout_s = settings.comm_timeout_s;
  ddp.seed = settings.seed;
  c.ddp = DdpSession::join(ddp, read_launch_env());
  if (c.sizes.batch_size > c.shard_samples)
    throw UsageError("--batch-size " + std::to_string(c.sizes.batch_size) + " is larger than each rank's shard of the " +
                     c.config.workload + " dataset (" + std::to_string(c.shard_samples) + " of " +
                     std::to_string(c.dataset_samples) + " samples)");
}

// How the Trainer runs: device, autocast, warm-up, stopping rule, sync, gradient sync.
TrainerSpec trainer_spec(PreparedConfig& c) {
  TrainerSpec spec;
  spec.device = c.plan.device;
  spec.autocast = c.plan.autocast;
  spec.autocast_dtype = c.plan.autocast_dtype;
  spec.warmup_steps = c.sizes.warmup;
  spec.stopping = c.overhead ? overhead_stopping(c.sizes.stopping, *c.overhead) : c.sizes.stopping;
  if (c.ddp) {
    const bool budgeted = !spec.stopping.exact && !c.overhead;
    spec.stopping = fixed_count_for_ranks(spec.stopping, c.overhead.has_value());
    if (budgeted && spec.warmup_steps > 0)
      spec.agree_on_step_count = [ddp = c.ddp.get(), rule = spec.stopping, budget_s = c.sizes.stopping.budget_s](double ms) {
        return ddp->agree_on_step_count(ms, budget_s, rule.min_steps, rule.max_steps);
      };
  }
  spec.sync_phases = c.settings->sync_phases;
  // --overhead --sync-phases: its bare steps stay a plain loop, so the levels above them
  // carry the cost of the sync per phase.
  if (c.overhead && spec.sync_phases)
    spec.sync_each_phase = [schedule = *c.overhead](int step) {
      return schedule.level_at(step) != InstrumentationLevel::Bare;
    };
  spec.loss_readback = c.plan.loss_readback;
  spec.accumulate = c.config.accumulate;
  spec.test_delay_ms = c.settings->test_step_delay_ms;
  spec.config_id = c.config.id();
  spec.synchronize = c.plan.synchronize;
  spec.data_parallel_devices = c.plan.data_parallel_devices;
  spec.channels_last_input = c.config.channels_last;
  spec.graph = c.graph.get();
  spec.compiled = c.compiled.get();
  spec.gradient_sync = c.sync;
  return spec;
}

// Stage 1: everything the training loop needs, and every input checked.
void prepare(PreparedConfig& c) {
  const RunSettings& settings = *c.settings;
  c.threads = threads_for(c.config, settings);
  torch::manual_seed(settings.seed);
  c.workload = make_workload_for(c.config);
  c.sizes = resolve_sizes(c.config, settings);
  c.sizes.warmup = warmup_steps_for(c.config, c.sizes.warmup);
  Dataset dataset = load_dataset(c);
  plan_devices(c);
  // Refused before the model is built when its estimate cannot fit the device's free memory.
  // This rank's own GPU (rank k of a node trains on cuda:k), not the first one.
  if (c.config.device == DeviceKind::Cuda) {
    const int index = c.plan.device.has_index() ? c.plan.device.index() : 0;
    if (const auto why = device_memory_refusal(c.config, settings, static_cast<double>(cuda_device_memory(index).free_bytes)))
      throw std::runtime_error(*why);
  }
  if (c.config.graph) c.graph = std::make_unique<CudaGraphStep>(c.plan.device);
  // fsdp-N and ep-K on a GPU build on the host: attach() moves each rank's share only.
  const bool on_host = c.config.model_built_on_host();
  c.model = c.workload->make_model_with(model_techniques(c.config, on_host ? torch::Device(torch::kCPU) : c.plan.device, *c.settings));
  if (!on_host) c.model.module->to(c.plan.device);
  if (c.config.channels_last) to_channels_last(*c.model.module);
  if (c.ddp) {
    c.ddp->broadcast_from_rank0(*c.model.module);
    // Before the optimizer: a sharded run's optimizer steps its shards.
    c.sync = &c.ddp->attach(c.model);
    // The start's blocks (the whole model, or the units flattened from the host), back to
    // the driver: the caching allocator would keep them reserved for this process (NCCL's
    // buffers and other processes could not have them) and split them for smaller tensors.
    if (c.config.device == DeviceKind::Cuda && (c.ddp->sharded() || c.ddp->expert_parallel())) empty_cuda_cache();
    // Each rank's GradScaler sees only its gradient shard (or its experts'): its inf check is agreed.
    if (c.ddp->sharded() || c.ddp->expert_parallel())
      c.plan.scaler->agree_across_ranks([ddp = c.ddp.get()](torch::Tensor& found_inf, bool read_on_host) {
        ddp->agree_on_found_inf(found_inf, read_on_host);
      });
  }
  c.optimizer = make_optimizer(c.config, c.ddp ? c.ddp->optimizer_parameters(c.model) : c.model.module->parameters());
  // Exported for this batch's shape (Python runs here, before any step), then bound to the
  // model's tensors where they now live.
  if (c.config.compile) {
    c.package = compiled_package(compile_request(*c.workload, c.config, dataset.first(c.sizes.batch_size), c.threads));
    c.compiled = std::make_unique<CompiledTrainingStep>(*c.package, *c.model.module);
  }
  LoaderOptions loader_options{c.sizes.batch_size, settings.workers, DataShard{0, 1, settings.seed}};
  if (c.ddp) loader_options.shard = c.ddp->data_shard();
  c.source = c.plan.make_batch_source(std::move(dataset), loader_options);
  if (settings.overhead) c.overhead = overhead_schedule(c.config, settings, c.sizes.warmup);
  c.probes = assemble_probes(c.config, settings, c.plan, c.overhead);
  if (c.ddp) c.probes.all.add(c.ddp->recorder());
  c.spec = trainer_spec(c);
}

// Stage 2: the training loop.
TrainingRun train(PreparedConfig& c) {
  Trainer trainer(c.spec, c.probes.all);
  return trainer.run(c.model, *c.optimizer, *c.workload, *c.source, *c.plan.scaler);
}

// --trace: this config's host spans, and CUPTI's device spans when it collected, handed
// to the parent; --hta-dir: the same spans as this rank's Kineto-style trace file.
std::optional<DeviceSpanCount> hand_over_trace(PreparedConfig& c) {
  std::optional<DeviceSpanCount> device_spans;
  if (!c.probes.trace) return device_spans;
  if (c.probes.cupti && c.probes.cupti->state() == CuptiCollector::State::Done)
    device_spans = add_cupti_device_spans(*c.probes.trace, c.probes.cupti->records(), c.probes.cupti->clock_alignment());
  const TraceSpanSet spans = c.probes.trace->span_set();
  if (!c.settings->trace_path.empty()) write_file_atomically(c.settings->trace_path, json_text(to_json(spans)));
  if (!c.settings->hta_dir.empty()) {
    KinetoTraceOrigin origin;
    origin.rank = c.ddp ? c.ddp->rank() : 0;
    origin.world_size = c.config.world_size;
    origin.backend = !c.ddp ? "none" : c.config.device == DeviceKind::Cuda ? "nccl" : "gloo";
    origin.pid = static_cast<int>(::getpid());
    write_kineto_trace(c.settings->hta_dir, spans, origin);
  }
  return device_spans;
}

// Samples per optimizer step: the micro-batch x accumulation steps x ranks. The row's
// global_batch_size, and what samples/s and FLOPs per step count.
std::int64_t global_batch_size(const PreparedConfig& c) {
  return c.sizes.batch_size * c.config.accumulate * c.config.world_size;
}

// The result's description of what ran: config, workload, steps, stopping rule, threads.
nlohmann::json describe_run(const PreparedConfig& c, const TrainingRun& run) {
  const RunSettings& settings = *c.settings;
  nlohmann::json result;
  result["config_id"] = c.config.id();
  result["config"] = config_json(c.config);
  result["status"] = "ok";
  result["reason"] = "";
  nlohmann::json workload_json = c.workload->describe();
  workload_json["name"] = c.config.workload;
  // With gradient accumulation batch_size is the micro-batch.
  workload_json["batch_size"] = c.sizes.batch_size;
  workload_json["micro_batch_size"] = c.sizes.batch_size;
  workload_json["accumulation_steps"] = c.config.accumulate;
  workload_json["global_batch_size"] = global_batch_size(c);
  workload_json["dataset_samples"] = c.dataset_samples;
  workload_json["data_source"] = c.data_source;
  if (const std::int64_t tokens = c.workload->tokens_per_sample(); tokens > 0) workload_json["tokens_per_sample"] = tokens;
  workload_json["parameters"] = c.model.parameter_count();
  if (const auto estimate = c.workload->memory_estimate(c.config, c.sizes.batch_size))
    workload_json["memory_estimate"] = estimate->to_json();
  workload_json["workers"] = settings.workers;
  result["workload"] = workload_json;
  const auto& step_ms = c.probes.timer->step_ms();
  result["steps"] = {{"warmup", c.sizes.warmup}, {"measured", static_cast<int>(step_ms.size())}};
  const MedianInterval interval = median_confidence_interval(step_ms);
  // One or two steps give a point or a pair, not a spread: null says it is unknown.
  const bool spread_known = static_cast<int>(step_ms.size()) >= kMinStepsForSpread;
  result["stopping"] = {{"reason", run.stop_reason},
                        {"exact_steps", c.spec.stopping.exact},
                        {"min_steps", c.spec.stopping.min_steps},
                        {"max_steps", run.agreed_steps > 0 ? run.agreed_steps : c.spec.stopping.max_steps},
                        {"ranks_agreed_on_steps", run.agreed_steps > 0},
                        {"budget_s", c.sizes.stopping.budget_s},
                        {"target_relative_ci", c.sizes.stopping.target_relative_ci},
                        {"median_ci95_ms", spread_known ? nlohmann::json{interval.low, interval.high} : nlohmann::json()},
                        {"median_ci95_relative", spread_known ? nlohmann::json(interval.relative_half_width()) : nlohmann::json()}};
  result["threads"] = {{"intra_op", c.threads}, {"inter_op", at::get_num_interop_threads()}};
  result["timing"] = timing_json(c.config, settings);
  if (auto oversubscribed = oversubscribed_json(c.config)) result["oversubscribed"] = *oversubscribed;
  return result;
}


// The seed's pitfall: a parameter or batch left behind on another device still trains,
// just slowly. Checked, not assumed.
nlohmann::json placement_json(const PreparedConfig& c, const TrainingRun& run) {
  bool parameters_on_device = true;
  for (const auto& parameter : c.model.module->parameters())
    parameters_on_device = parameters_on_device && parameter.device() == c.plan.device;
  return {{"parameters_on_device", parameters_on_device}, {"batch_on_device", run.last_batch.data.device() == c.plan.device}};
}

// Stage 3: every rank's numbers to rank 0, the checkpoint round trip, the result row.
nlohmann::json collect(PreparedConfig& c, const TrainingRun& run) {
  const std::optional<DeviceSpanCount> device_spans = hand_over_trace(c);
  const auto& step_ms = c.probes.timer->step_ms();
  // Replays and scaled fused steps advanced only the device's step counts; the checkpoint
  // (and a sharded run's gathered optimizer) takes the host's.
  if (auto* adam = dynamic_cast<MultiTensorAdam*>(c.optimizer.get())) adam->read_step_counts_from_device();
  // Left out by the parent (run/checkpoint_plan.h), which says why in the row; every rank
  // reads the same decision, so a sharded run's ranks all gather the optimizer or none.
  const std::string& skipped = c.settings->checkpoint_skip_reason;
  // Rank 0 gets every rank's numbers; the report is rank 0's result.
  std::optional<DdpSession::Gathered> gathered;
  RankState rank_state;
  if (c.ddp) {
    rank_state = collect_rank_state(*c.ddp, c.model, *c.optimizer, skipped.empty(), c.plan.device);
    gathered = c.ddp->gather(step_ms, run.losses, static_cast<std::size_t>(c.shard_samples), c.model.module->parameters(),
                             rank_state.memory);
  }
  const bool reporting = !c.ddp || c.ddp->rank() == 0;
  // The ranks hold the same parameters: only the reporting process checks the round trip.
  CheckpointCheck checkpoint;
  if (reporting && skipped.empty()) {
    torch::optim::Adam& saved = rank_state.whole_optimizer ? *rank_state.whole_optimizer : *c.optimizer;
    checkpoint = round_trip_in_private_dir(c.settings->scratch_dir, *c.workload, c.model, saved, run.last_batch.data,
                                           c.config.channels_last, model_techniques(c.config, c.plan.device, *c.settings));
  }

  nlohmann::json result = describe_run(c, run);
  c.probes.all.write_result(result);
  c.plan.scaler->write_result(result);
  if (c.graph) {
    result["cuda_graph"] = c.graph->describe();
    result["cuda_graph"]["eager_warmup_steps"] = c.sizes.warmup;
  }
  if (c.package) result["compile"] = c.package->to_json();
  if (c.overhead)
    result["overhead"] =
        overhead_json(*c.overhead, run.step_ms, c.probes.cost->measured_step_us(),
                      cupti_overhead_note(c.config, *c.settings, c.probes.cupti.get()));
  if (device_spans) result["trace"] = {{"device_spans", device_spans->added}, {"device_spans_left_out", device_spans->left_out}};
  std::vector<double> samples_per_s;
  // Every micro-batch counts: samples (and FLOPs) per optimizer step of the global batch.
  const auto global_batch = static_cast<double>(global_batch_size(c));
  for (double ms : step_ms) samples_per_s.push_back(global_batch * 1000.0 / ms);
  result["throughput"]["samples_per_s"] = to_json(summarize(samples_per_s));
  if (const std::int64_t tokens = c.workload->tokens_per_sample(); tokens > 0) {
    std::vector<double> tokens_per_s;
    for (double rate : samples_per_s) tokens_per_s.push_back(rate * static_cast<double>(tokens));
    result["throughput"]["tokens_per_s"] = to_json(summarize(tokens_per_s));
  }
  result["flops"] = flops_json(*c.workload, global_batch);
  const double flops_per_sample = result["flops"]["training_per_sample"].get<double>();
  std::vector<double> tflops_per_s;
  for (double rate : samples_per_s) tflops_per_s.push_back(rate * flops_per_sample / 1e12);
  result["throughput"]["tflops_per_s"] = to_json(summarize(tflops_per_s));
  // DDP: the global batch's loss (mean over the ranks' shards), comparable with one process.
  result["loss"] = loss_json(gathered ? gathered->global_losses : run.losses, c.sizes.warmup);
  if (gathered) {
    result["ddp"] = gathered->ddp;
    result["ddp"]["memory"] = rank_memory_summary(gathered->ddp.value("per_rank", nlohmann::json::array()));
  }
  result["optimizer_steps_skipped"] = run.optimizer_steps_skipped;
  if (c.model.run_report) result["moe"] = c.model.run_report();
  result["placement"] = placement_json(c, run);
  if (reporting) result["checkpoint"] = skipped.empty() ? checkpoint.to_json() : nlohmann::json{{"done", false}, {"reason", skipped}};
  if (reporting && c.ddp) result["checkpoint"]["state"] = checkpoint_state_note(c.config);
  if (reporting && skipped.empty() && !checkpoint.passed()) {
    // Keep the measurements: the row says what broke and still shows the numbers.
    result["status"] = "failed";
    result["reason"] = "checkpoint round trip failed: " + checkpoint.mismatch;
  }
  result["memory"]["host_peak_rss_bytes"] = peak_rss_bytes();
  result["duration_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.started).count();
  return result;
}

}  // namespace

nlohmann::json run_config_in_process(const Config& config, const RunSettings& settings) {
  PreparedConfig prepared;
  prepared.config = config;
  prepared.settings = &settings;
  prepared.started = std::chrono::steady_clock::now();
  prepare(prepared);
  const TrainingRun run = train(prepared);
  return collect(prepared, run);
}

}  // namespace gpubench
