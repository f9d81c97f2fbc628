#pragma once
#include <functional>
#include <vector>

#include <torch/torch.h>

#include "harness/profile/probe.h"
#include "harness/parallel/gradient_sync.h"
#include "harness/run/batch_source.h"
#include "harness/run/step_graph.h"
#include "harness/run/loss_readback.h"
#include "harness/run/loss_scaler.h"
#include "core/stats/stopping_rule.h"
#include "workloads/workload.h"

namespace gpubench {

class CompiledTrainingStep;

// Thrown when training itself goes wrong (NaN/inf loss): the config fails, the matrix goes on.
class TrainingFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TrainerSpec {
  torch::Device device = torch::kCPU;
  bool autocast = false;
  c10::ScalarType autocast_dtype = torch::kBFloat16;
  int warmup_steps = 0;
  StoppingRule stopping;  // when to stop the measured steps
  std::string config_id;
  // How a step meets the device (DESIGN.md, "Measuring on a GPU as a real loop runs"). By
  // default as a Python loop: no phase waits for the device and each step's loss is read
  // one step late through `loss_readback`, so the host queues step N+1 while the device
  // runs step N (DevicePhaseTimer's marks give the device's time per phase). With
  // `sync_phases` (--sync-phases: attribution) every phase ends with `synchronize`, so the
  // host's wall timers see each phase's real duration.
  bool sync_phases = false;
  std::function<void()> synchronize = [] {};
  std::shared_ptr<LossReadback> loss_readback;  // null: HostLossReadback
  double test_delay_ms = 0;  // RunSettings::test_step_delay_ms
  // Set for DataParallel: runs the forward over these devices.
  std::vector<torch::Device> data_parallel_devices;
  // channels_last configs: the batch is re-laid out to NHWC inside Forward (as
  // `x.to(memory_format=torch.channels_last)` in a Python loop), matching the model.
  bool channels_last_input = false;
  // Set for the graph variant: after the (eager) warm-up steps, the step is captured once
  // and every measured step replays it (needs warmup_steps >= 1 and an optimizer that
  // steps on the device: fused Adam).
  StepGraph* graph = nullptr;  // CudaGraphStep
  // Set for compile: each step's forward, loss and backward are one call of the compiled
  // package (in the Forward phase: the phases inside it are Inductor's); the optimizer is
  // LibTorch's. One batch a step (no accumulation).
  CompiledTrainingStep* compiled = nullptr;
  // Set for DDP and the sharded modes: averages gradients across ranks inside the Backward
  // phase (and, sharded, gathers parameters in Forward and after the optimizer).
  GradientSync* gradient_sync = nullptr;
  // Micro-batches per optimizer step (Config::accumulate): each step runs data, H2D,
  // forward and backward this many times, then the optimizer once.
  int accumulate = 1;
  // Set for budgeted DDP: called once after warm-up with the last warm-up step's ms;
  // returns the measured step count every rank runs (DdpSession::agree_on_step_count).
  std::function<int(double last_warmup_ms)> agree_on_step_count;
  // Whether `step`'s phases each end with `synchronize` (empty: `sync_phases` for every
  // step): --overhead with --sync-phases leaves its bare steps unsynchronised.
  std::function<bool(int step)> sync_each_phase;
};

struct TrainingRun {
  std::vector<double> losses;  // every step, warm-up included (each read one step late)
  // The Trainer's own clock per measured step (step warmup_steps + i at index i), probes'
  // costs included: what --overhead compares across instrumentation levels.
  std::vector<double> step_ms;
  int optimizer_steps_skipped = 0;
  std::string stop_reason;
  int agreed_steps = 0;        // the ranks' count from agree_on_step_count; 0 when not asked
  Batch last_batch;            // on the device, for the checkpoint's output check
};

// The seed's loop: next batch -> to device -> forward (autocast) -> loss -> zero_grad /
// backward (scaled) -> optimizer step; each phase a named scope that every probe sees
// (with gradient accumulation the first four repeat per micro-batch inside one step).
class Trainer {
 public:
  Trainer(TrainerSpec spec, Probe& probes) : spec_(std::move(spec)), probes_(probes) {}
  TrainingRun run(Model& model, torch::optim::Optimizer& optimizer, const Workload& workload, BatchSource& source,
                  LossScaler& scaler);

 private:
  template <class Body>
  auto phase(Phase phase, Body&& body);
  torch::Tensor input_of(const Batch& batch) const;
  // `accumulate` times data -> H2D -> forward (autocast, loss / K) -> backward (scaled,
  // gradients accumulating), then one optimizer step; a phase each. Returns the step's
  // loss (the micro-batches' mean); `last_batch` gets the last micro-batch on the device.
  torch::Tensor eager_step(Model& model, torch::optim::Optimizer& optimizer, const Workload& workload,
                           BatchSource& source, LossScaler& scaler, Batch& last_batch);
  // Data -> H2D -> the compiled step (Forward; Backward stays empty) -> optimizer step.
  torch::Tensor compiled_step(torch::optim::Optimizer& optimizer, BatchSource& source, LossScaler& scaler,
                              Batch& last_batch);
  // Records that step into spec_.graph on static copies of `example`, the loss scaler's
  // scale, step and update included (a GradScaler keeps its state on the device, and fused
  // Adam unscales and skips there); runs nothing.
  void capture_step(Model& model, torch::optim::Optimizer& optimizer, const Workload& workload, const Batch& example,
                    LossScaler& scaler);
  // Copies a device batch into the graph's static input (in the H2D phase); returns it.
  Batch into_static_input(Batch batch);
  // Replays the graph in the Forward phase (Backward and Optimizer stay empty); its loss.
  torch::Tensor replayed_step(LossScaler& scaler);
  // The next step's loss, read: appended to run.losses, a TrainingFailure if not finite.
  static void record_loss(double value, TrainingRun& run);

  TrainerSpec spec_;
  Probe& probes_;
  bool sync_phases_ = true;  // this step's phases end with a device sync
  Batch static_batch_;       // the graph variant's input and loss, read and written by every replay
  torch::Tensor static_loss_;
};

}  // namespace gpubench
