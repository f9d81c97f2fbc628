#include "run/trainer.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "run/autocast_scope.h"

namespace gpubench {

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

TrainingRun Trainer::run(Model& model, torch::optim::Optimizer& optimizer, const Workload& workload,
                         BatchSource& source, LossScaler& scaler) {
  TrainingRun run;
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
    sync_phases_ = !spec_.sync_each_phase || spec_.sync_each_phase(step);
    const auto step_start = std::chrono::steady_clock::now();
    probes_.step_begin(step, measured);
    Batch host = phase(Phase::Data, [&] { return source.next(); });
    Batch batch = phase(Phase::H2D, [&] { return source.to_device(std::move(host)); });
    torch::Tensor loss = phase(Phase::Forward, [&] {
      if (spec_.test_delay_ms > 0)
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(spec_.test_delay_ms));
      AutocastScope autocast(spec_.device.type(), spec_.autocast_dtype, spec_.autocast);
      const torch::Tensor input =
          spec_.channels_last_input ? batch.data.contiguous(torch::MemoryFormat::ChannelsLast) : batch.data;
      const auto output = spec_.data_parallel_devices.empty()
                              ? model.forward(input)
                              : model.data_parallel_forward(input, spec_.data_parallel_devices);
      return workload.loss(output, batch.target);
    });
    phase(Phase::Backward, [&] {
      optimizer.zero_grad();  // set_to_none, as Python: no memset per parameter
      if (spec_.gradient_sync) spec_.gradient_sync->begin_backward();
      scaler.scale(loss).backward();
      // DDP's wait for the last all-reduce belongs to Backward: exposed communication
      // shows as backward time and the Optimizer phase stays comparable to one process.
      if (spec_.gradient_sync) spec_.gradient_sync->finish_backward();
    });
    phase(Phase::Optimizer, [&] {
      if (!scaler.step(optimizer)) ++run.optimizer_steps_skipped;
      scaler.update();
    });
    if (!sync_phases_) spec_.synchronize();
    probes_.step_end(step, measured);
    last_step_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - step_start).count();
    if (measured) {
      run.step_ms.push_back(last_step_ms);
      measured_s += last_step_ms / 1000.0;
    }
    // Read after the step so the value costs no extra device sync inside a phase.
    const double value = loss.item<double>();
    run.losses.push_back(value);
    if (!std::isfinite(value))
      throw TrainingFailure("loss became " + std::string(std::isnan(value) ? "NaN" : "inf") + " at step " +
                            std::to_string(step));
    run.last_batch = std::move(batch);
  }
  probes_.run_end();
  return run;
}

}  // namespace gpubench
