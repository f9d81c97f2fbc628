// One rank for the multi-process tests, built from the production pieces (launch
// environment, DdpSession, sharded LoaderBatchSource, Trainer with the gradient reducer or
// the sharded modes): trains a workload (mlp by default) on a small synthetic dataset and,
// on rank 0, saves the parameters after the first step and at the end plus the global loss
// curve (a sharded run's whole model gathered first), and the merged numbers to FILE.json.
//   ddp_rank_helper --out FILE --steps K --batch B [--optimizer sgd|adam] [--comm-timeout S]
//                   [--bucket-mb M] [--progress FILE] [--mode ddp|zero1|zero2|fsdp]
//                   [--workload mlp|cnn|transformer] [--accumulate K] [--ckpt 1]
// Without RANK/WORLD_SIZE it is the one-process reference: no DDP at all, the same
// sampler with world size 1. Each rank initialises its
// model with a different seed: equal results prove the broadcast from rank 0.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include <torch/torch.h>

#include "core/config/config.h"
#include "harness/parallel/ddp_session.h"
#include "harness/profile/phase_timer.h"
#include "harness/run/batch_source.h"
#include "harness/run/trainer.h"
#include "workloads/workload.h"

namespace {

using namespace gpubench;

torch::Tensor flat_parameters(torch::nn::Module& module) {
  std::vector<torch::Tensor> flat;
  for (const auto& p : module.parameters()) flat.push_back(p.detach().reshape({-1}).clone());
  return torch::cat(flat);
}

ParallelMode mode_named(const std::string& name) {
  for (const ParallelMode mode : {ParallelMode::Ddp, ParallelMode::Zero1, ParallelMode::Zero2, ParallelMode::Fsdp})
    if (to_string(mode) == name) return mode;
  throw std::invalid_argument("--mode '" + name + "': expected ddp, zero1, zero2 or fsdp");
}

// Snapshots the parameters when the first step ends, and writes progress per step.
class StepWatcher final : public Probe {
 public:
  StepWatcher(torch::nn::Module& module, std::string progress) : module_(module), progress_(std::move(progress)) {}
  std::string name() const override { return "watcher"; }
  void step_end(int step, bool) override {
    // fsdp's parameters hold no bytes between steps (their units are freed): nothing to snapshot.
    if (step == 0 && module_.parameters().front().storage().nbytes() > 0) first_ = flat_parameters(module_);
    if (!progress_.empty()) std::ofstream(progress_, std::ios::trunc) << step + 1 << "\n";
  }
  torch::Tensor first_ = torch::empty({0});

 private:
  torch::nn::Module& module_;
  std::string progress_;
};

int run(std::map<std::string, std::string> args) {
  at::set_num_threads(1);
  const std::uint64_t seed = 7;
  const LaunchEnv env = read_launch_env();
  DdpSettings settings;
  settings.mode = mode_named(args["--mode"]);
  settings.accumulate = std::stoi(args["--accumulate"]);
  settings.world_size = env.world_size;
  settings.comm_timeout_s = std::stod(args["--comm-timeout"]);
  settings.bucket_mb = std::stod(args["--bucket-mb"]);
  settings.seed = seed;
  const std::unique_ptr<DdpSession> session = env.distributed() ? DdpSession::join(settings, env) : nullptr;

  const auto workload = make_workload(args["--workload"]);
  torch::manual_seed(seed + static_cast<std::uint64_t>(env.rank));
  ModelTechniques techniques;
  techniques.checkpoint = args["--ckpt"] == "1";
  Model model = workload->make_model_with(techniques);
  GradientSync* sync = nullptr;
  if (session) {
    session->broadcast_from_rank0(*model.module);
    sync = &session->attach(model);  // before the optimizer: a sharded run's steps its shards
  }
  const std::vector<torch::Tensor> stepped = session ? session->optimizer_parameters(model) : model.module->parameters();
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (args["--optimizer"] == "sgd")
    optimizer = std::make_unique<torch::optim::SGD>(stepped, torch::optim::SGDOptions(0.05));
  else
    optimizer = std::make_unique<torch::optim::Adam>(stepped, torch::optim::AdamOptions(1e-3));
  LoaderOptions loader{std::stoll(args["--batch"]), 0, DataShard{0, 1, seed}};
  if (session) loader.shard = session->data_shard();
  LoaderBatchSource source(workload->make_dataset({512, seed, ""}), loader, torch::kCPU);

  auto timer = std::make_shared<PhaseTimer>();
  auto watcher = std::make_shared<StepWatcher>(*model.module, args["--progress"]);
  ProbeSet probes;
  probes.add(timer);
  if (session) probes.add(session->recorder());
  probes.add(watcher);
  TrainerSpec spec;
  spec.stopping.exact = true;
  spec.stopping.max_steps = std::stoi(args["--steps"]);
  spec.accumulate = settings.accumulate;
  spec.gradient_sync = sync;
  PassThroughScaler scaler;
  const TrainingRun run = Trainer(spec, probes).run(model, *optimizer, *workload, source, scaler);
  std::vector<double> losses = run.losses;
  if (session) {
    nlohmann::json memory = {{"model_state", model_state_bytes(model.module->parameters(), *optimizer).to_json()}};
    if (ShardedDataParallel* sharded = session->sharded()) {
      memory["peak_gathered_bytes"] = sharded->peak_gathered_bytes();
      sharded->gather_whole_model();
    }
    const auto gathered = session->gather(timer->step_ms(), run.losses, 256, model.module->parameters(), memory);
    if (!gathered) return 0;  // rank 0 writes
    losses = gathered->global_losses;
    std::ofstream(args["--out"] + ".json") << gathered->ddp.dump(2) << "\n";
  }
  torch::save(std::vector<torch::Tensor>{watcher->first_, flat_parameters(*model.module),
                                         torch::tensor(losses, torch::kDouble)},
              args["--out"]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args = {{"--steps", "1"},       {"--batch", "32"},   {"--optimizer", "adam"},
                                             {"--comm-timeout", "5"}, {"--bucket-mb", "25"}, {"--progress", ""},
                                             {"--out", "/dev/null"},  {"--mode", "ddp"},   {"--workload", "mlp"},
                                             {"--accumulate", "1"},   {"--ckpt", "0"}};
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  try {
    return run(args);
  } catch (const c10::Error& error) {
    std::cerr << "ddp_rank_helper: error: " << error.what_without_backtrace() << std::endl;
  } catch (const std::exception& error) {
    std::cerr << "ddp_rank_helper: error: " << error.what() << std::endl;
  }
  return 1;
}
