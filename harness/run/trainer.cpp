#include "harness/run/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "harness/run/compiled_step.h"
#include "workloads/autocast_scope.h"

namespace gpubench {
namespace {

// The workload's loss plus what the model adds from the forward that made it (a router's
// load-balancing loss), when it has any.
torch::Tensor with_auxiliary_loss(const Model& model, const torch::Tensor& loss) {
  if (!model.auxiliary_loss) return loss;
  const torch::Tensor extra = model.auxiliary_loss();
  return extra.defined() ? loss + extra : loss;
}

}  // namespace

template <class Body>
auto Trainer::phase(Phase phase, Body&& body) {
  probes_.phase_begin(phase);
  if constexpr (std::is_void_v<decltype(body())>) {
    body();
    if (sync_phases_) spec_.synchronize();
    probes_.phase_end(phase);
  } else {
    auto result = body();
    if (sync_phases_) spec_.synchronize();
    probes_.phase_end(phase);
    return result;
  }
}

torch::Tensor Trainer::input_of(const Batch& batch) const {
  return spec_.channels_last_input ? batch.data.contiguous(torch::MemoryFormat::ChannelsLast) : batch.data;
}

torch::Tensor Trainer::eager_step(Model& model, torch::optim::Optimizer& optimizer, const Workload& workload,
                                  BatchSource& source, LossScaler& scaler, Batch& last_batch) {
  const int micro_batches = std::max(1, spec_.accumulate);
  torch::Tensor step_loss;  // the mean of the micro-batches' losses, for the curve
  for (int micro = 0; micro < micro_batches; ++micro) {
    Batch host = phase(Phase::Data, [&] { return source.next(); });
    Batch batch = phase(Phase::H2D, [&] { return source.to_device(std::move(host)); });
    torch::Tensor loss = phase(Phase::Forward, [&] {
      if (spec_.test_delay_ms > 0)
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(spec_.test_delay_ms));
      if (spec_.gradient_sync) spec_.gradient_sync->begin_forward(/*first=*/micro == 0);
      AutocastScope autocast(spec_.device.type(), spec_.autocast_dtype, spec_.autocast);
      const torch::Tensor input = input_of(batch);
      const auto output = spec_.data_parallel_devices.empty() ? model.forward(input)
                                                               : model.data_parallel_forward(input, spec_.data_parallel_devices);
      const torch::Tensor full = with_auxiliary_loss(model, workload.loss(output, batch.target));
      // Each micro-batch's share of the optimizer step's gradient, as a Python loop's
      // `(loss / K).backward()`.
      return micro_batches > 1 ? full / micro_batches : full;
    });
    const bool last = micro == micro_batches - 1;
    // DDP (and zero1) reduce once per optimizer step: the earlier micro-batches run
    // no_sync. zero2 and fsdp keep no whole gradient, so they reduce every micro-batch.
    const bool announced =
        spec_.gradient_sync && (last || spec_.gradient_sync->reduces_every_micro_batch());
    phase(Phase::Backward, [&] {
      if (micro == 0) optimizer.zero_grad();  // set_to_none, as Python: no memset per parameter
      if (announced) spec_.gradient_sync->begin_backward(/*accumulated=*/micro > 0);
      scaler.scale(loss).backward();
      // --sync-phases: the device's backward is done before the wait for the last
      // reductions starts, so what that wait takes (ddp.exposed_comm_ms, the comm-bound
      // verdict's evidence) is communication, not the GPU's unfinished backward.
      if (announced && sync_phases_) spec_.synchronize();
      // The wait for the last reduction belongs to Backward: exposed communication
      // shows as backward time and the Optimizer phase stays comparable to one process.
      if (announced) spec_.gradient_sync->finish_backward();
    });
    step_loss = micro == 0 ? loss.detach() : step_loss + loss.detach();
    last_batch = std::move(batch);
  }
  phase(Phase::Optimizer, [&] {
    scaler.step(optimizer);  // once per optimizer step: GradScaler unscales the accumulated gradients once
    scaler.update();
    if (spec_.gradient_sync) spec_.gradient_sync->after_optimizer_step();  // zero1/zero2: the updated shards gathered
  });
  return step_loss;
}

torch::Tensor Trainer::compiled_step(torch::optim::Optimizer& optimizer, BatchSource& source, LossScaler& scaler,
                                     Batch& last_batch) {
  const int micro_batches = std::max(1, spec_.accumulate);
  torch::Tensor step_loss;  // the mean of the micro-batches' losses, as eager_step's
  for (int micro = 0; micro < micro_batches; ++micro) {
    Batch host = phase(Phase::Data, [&] { return source.next(); });
    Batch batch = phase(Phase::H2D, [&] { return source.to_device(std::move(host)); });
    // The package was exported under autocast where the config asks for it: no scope here.
    // Each micro-batch adds its 1/K share of the gradient, as eager's `(loss / K).backward()`.
    torch::Tensor loss = phase(Phase::Forward, [&] {
      if (spec_.gradient_sync) spec_.gradient_sync->begin_forward(/*first=*/micro == 0);
      return spec_.compiled->run(batch.data, batch.target, 1.0 / micro_batches, /*add=*/micro > 0);
    });
    if (micro_batches > 1) loss = loss / micro_batches;
    step_loss = micro == 0 ? loss : step_loss + loss;
    last_batch = std::move(batch);
  }
  // The package's backward ran inside its call: the reduction takes the whole step's
  // gradients at once (no overlap with a backward), DDP and zero alike, once a step.
  phase(Phase::Backward, [&] {
    if (!spec_.gradient_sync) return;
    spec_.gradient_sync->begin_backward(/*accumulated=*/false);
    spec_.gradient_sync->take_gradients();
    spec_.gradient_sync->finish_backward();
  });
  phase(Phase::Optimizer, [&] {
    scaler.step(optimizer);
    scaler.update();
    if (spec_.gradient_sync) spec_.gradient_sync->after_optimizer_step();
  });
  return step_loss;
}

void Trainer::capture_step(Model& model, torch::optim::Optimizer& optimizer, const Workload& workload,
                           const Batch& example, LossScaler& scaler) {
  static_batch_ = Batch(example.data.clone(), example.target.clone());
  optimizer.zero_grad();  // to none: the captured backward allocates the gradients each replay rewrites
  scaler.prepare_for_capture();
  spec_.graph->capture([&] {
    {
      // Forward and loss only, as eager_step scopes it: backward and the optimizer run
      // outside autocast in both, so a graph row is its eager row's math.
      AutocastScope autocast(spec_.device.type(), spec_.autocast_dtype, spec_.autocast);
      static_loss_ = with_auxiliary_loss(model, workload.loss(model.forward(input_of(static_batch_)), static_batch_.target));
    }
    scaler.scale(static_loss_).backward();
    scaler.step(optimizer);  // a GradScaler with fused Adam: checked and skipped on the device, nothing read back
    scaler.update();
  });
  scaler.end_capture();
}

Batch Trainer::into_static_input(Batch batch) {
  // On the graph's stream, before the replay that reads them.
  static_batch_.data.copy_(batch.data, /*non_blocking=*/true);
  static_batch_.target.copy_(batch.target, /*non_blocking=*/true);
  return Batch(static_batch_.data, static_batch_.target);
}

torch::Tensor Trainer::replayed_step(LossScaler& scaler) {
  phase(Phase::Forward, [&] {
    spec_.graph->replay();
    scaler.count_replayed_step();
  });
  phase(Phase::Backward, [] {});
  phase(Phase::Optimizer, [] {});
  return static_loss_;
}

void Trainer::record_loss(double value, TrainingRun& run) {
  const std::size_t step = run.losses.size();
  run.losses.push_back(value);
  if (!std::isfinite(value))
    throw TrainingFailure("loss became " + std::string(std::isnan(value) ? "NaN" : "inf") + " at step " +
                          std::to_string(step));
}

TrainingRun Trainer::run(Model& model, torch::optim::Optimizer& optimizer, const Workload& workload,
                         BatchSource& source, LossScaler& scaler) {
  if (spec_.graph && spec_.warmup_steps < 1)
    throw std::invalid_argument("Trainer: a CUDA Graph step needs at least one eager warm-up step before its capture");
  TrainingRun run;
  HostLossReadback host_readback;
  LossReadback& readback = spec_.loss_readback ? *spec_.loss_readback : host_readback;
  model.module->train();
  probes_.run_begin(spec_.config_id);
  double measured_s = 0, last_step_ms = 0;
  for (int step = 0;; ++step) {
    const bool measured = step >= spec_.warmup_steps;
    if (step == spec_.warmup_steps && spec_.agree_on_step_count) {
      run.agreed_steps = spec_.agree_on_step_count(last_step_ms);
      spec_.stopping.max_steps = run.agreed_steps;
    }
    if (measured) {
      const StopDecision decision = should_stop(spec_.stopping, run.step_ms, measured_s);
      if (decision.stop) {
        run.stop_reason = decision.reason;
        break;
      }
    }
    // Captured between warm-up and the first measured step, outside every probe's step.
    if (measured && spec_.graph && !spec_.graph->captured())
      capture_step(model, optimizer, workload, run.last_batch, scaler);
    sync_phases_ = spec_.sync_each_phase ? spec_.sync_each_phase(step) : spec_.sync_phases;
    const auto step_start = std::chrono::steady_clock::now();
    probes_.step_begin(step, measured);
    Batch batch;
    torch::Tensor loss;
    if (spec_.graph && spec_.graph->captured()) {
      Batch host = phase(Phase::Data, [&] { return source.next(); });
      batch = phase(Phase::H2D, [&] { return into_static_input(source.to_device(std::move(host))); });
      loss = replayed_step(scaler);
    } else if (spec_.compiled) {
      loss = compiled_step(optimizer, source, scaler, batch);
    } else {
      loss = eager_step(model, optimizer, workload, source, scaler, batch);
    }
    // This step's loss starts towards the host; the previous step's is read now that this
    // one is queued. The wait is inside the step, as in a real loop: a step's time is the
    // loop's period, the device's throughput once the host runs ahead.
    readback.start(loss);
    const std::optional<double> previous_loss =
        readback.pending() > 1 ? std::optional<double>(readback.wait_oldest()) : std::nullopt;
    probes_.step_end(step, measured);
    last_step_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - step_start).count();
    if (measured) {
      run.step_ms.push_back(last_step_ms);
      measured_s += last_step_ms / 1000.0;
    }
    if (previous_loss) record_loss(*previous_loss, run);
    run.last_batch = std::move(batch);
  }
  while (readback.pending() > 0) record_loss(readback.wait_oldest(), run);
  probes_.run_end();
  run.optimizer_steps_skipped = static_cast<int>(scaler.skipped_steps());
  return run;
}

}  // namespace gpubench
