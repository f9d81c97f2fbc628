// Expert parallel (ep-K) through the gpubench command line, on real ranks over Gloo: a
// mixture of experts saved by transformers (the family_references fixture) trains under
// ddp-N/ep-K, zero2-N/ep-K and fsdp-N/ep-K as under ddp-N at the same global batch, with
// more experts than ranks, uneven tokens per expert (the router's own), accumulation, the
// load-balancing loss and replica groups (N > K); each rank holds 1/K of the experts, the
// all-to-all moves what the theory says, and the checkpoint is the whole model.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/family_references.h"
#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

// Runs `ids` (comma-separated, model m) and returns the report.
nlohmann::json run_matrix(const std::string& folder, const std::string& ids, const std::string& extra = "") {
  const std::string dir = test_support::make_temp_dir("expert-parallel");
  const auto run = test_support::run_command("env -u RANK -u WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS " +
                                             std::string(GPUBENCH_EXE) + " --model m=" + folder + " --matrix " + ids +
                                             " --steps 4 --warmup 0 --threads 1 --batch-size 4" + extra + " --out " + dir +
                                             "/r.json > /dev/null");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  nlohmann::json report = test_support::read_json(dir + "/r.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  fs::remove_all(dir);
  return report;
}

const nlohmann::json& ok_row(const nlohmann::json& report, const std::string& id) {
  static const nlohmann::json missing;
  const nlohmann::json* row = test_support::find_row(report, id);
  if (row == nullptr) {
    ADD_FAILURE() << "no row " << id;
    return missing;
  }
  EXPECT_EQ((*row)["status"], "ok") << id << ": " << (*row)["reason"];
  return *row;
}

void expect_same_curve(const nlohmann::json& row, const nlohmann::json& reference, const std::string& what) {
  const auto actual = row["loss"]["curve"].get<std::vector<double>>();
  const auto expected = reference["loss"]["curve"].get<std::vector<double>>();
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t step = 0; step < actual.size(); ++step)
    EXPECT_NEAR(actual[step], expected[step], 1e-5 * std::abs(expected[step])) << what << ", step " << step;
}

// What an ep row must show besides its curve: every rank ended with the same whole model,
// its checkpoint round trip is the whole model's, and a rank holds 1/K of the experts.
void expect_expert_parallel_row(const nlohmann::json& row, const nlohmann::json& config, int group_size,
                                const std::string& what) {
  const auto& ddp = row["ddp"];
  EXPECT_TRUE(ddp["final_parameters_identical"].get<bool>()) << what;
  const auto& ep = ddp["expert_parallel"];
  EXPECT_EQ(ep["group_size"], group_size) << what;
  const std::int64_t experts = config.value("num_experts", config.value("num_local_experts", 0));
  EXPECT_EQ(ep["experts_per_rank"], experts / group_size) << what;
  const auto& checkpoint = row["checkpoint"];
  EXPECT_TRUE(checkpoint["done"].get<bool>()) << what << checkpoint.dump();
  EXPECT_TRUE(checkpoint["parameters_equal"].get<bool>()) << what << checkpoint.dump();
  EXPECT_TRUE(checkpoint["outputs_equal"].get<bool>()) << what << checkpoint.dump();
  EXPECT_NE(checkpoint["state"].get<std::string>().find("expert"), std::string::npos) << what;
  // The all-to-all's theory, over every rank: each sparse layer's B T k routed rows of
  // `hidden` fp32 values go out and come back in forward, and their gradients the same two
  // ways in backward, every micro-batch (a rank's own share follows the routing).
  const std::int64_t sparse_layers = static_cast<std::int64_t>(row["moe"]["layers"].size());
  const std::int64_t rows = row["workload"]["global_batch_size"].get<std::int64_t>() *
                            row["workload"]["tokens_per_sample"].get<std::int64_t>() *
                            config["num_experts_per_tok"].get<std::int64_t>();
  const std::int64_t theory = 4 * sparse_layers * rows * config["hidden_size"].get<std::int64_t>() * 4;
  EXPECT_EQ(ep["all_to_all"]["token_bytes_per_step_all_ranks"].get<double>(), static_cast<double>(theory)) << what;
}

TEST(ExpertParallelEndToEnd, TrainsAsDdpWithEveryDataParallelModeAndAccumulation) {
  const std::string folder = test_support::family_case_folder("qwen2_moe_shared");
  if (folder.empty()) GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first";
  const auto config = test_support::read_json(folder + "/config.json");
  const auto report = run_matrix(folder, "m/cpu/fp32/ddp-2,m/cpu/fp32/ddp-2/ep-2,m/cpu/fp32/zero2-2/ep-2,"
                                         "m/cpu/fp32/fsdp-2/ep-2,m/cpu/fp32/ddp-2/acc2,m/cpu/fp32/fsdp-2/ep-2/acc2");
  const auto& ddp = ok_row(report, "m/cpu/fp32/ddp-2");
  for (const std::string id : {"m/cpu/fp32/ddp-2/ep-2", "m/cpu/fp32/zero2-2/ep-2", "m/cpu/fp32/fsdp-2/ep-2"}) {
    const auto& row = ok_row(report, id);
    expect_same_curve(row, ddp, id);
    expect_expert_parallel_row(row, config, 2, id);
  }
  const auto& accumulated = ok_row(report, "m/cpu/fp32/fsdp-2/ep-2/acc2");
  expect_same_curve(accumulated, ok_row(report, "m/cpu/fp32/ddp-2/acc2"), "fsdp-2/ep-2/acc2");
  expect_expert_parallel_row(accumulated, config, 2, "fsdp-2/ep-2/acc2");
  // A rank of ddp-2/ep-2 holds the experts' parameters, gradients and Adam moments (16 bytes
  // a parameter in fp32) for its half of them only.
  const auto& ep = ok_row(report, "m/cpu/fp32/ddp-2/ep-2");
  const std::int64_t held = ep["ddp"]["expert_parallel"]["local_expert_parameters"].get<std::int64_t>();
  for (std::size_t rank = 0; rank < 2; ++rank)
    EXPECT_EQ(ddp["ddp"]["per_rank"][rank]["model_state"]["total_bytes"].get<std::int64_t>() -
                  ep["ddp"]["per_rank"][rank]["model_state"]["total_bytes"].get<std::int64_t>(),
              16 * held)
        << "rank " << rank;
  // Compared with its mode alone: what the split saves a rank and costs a step.
  bool compared = false;
  for (const auto& comparison : report["comparisons"])
    if (comparison["kind"] == "ep_vs_ddp" && comparison["candidate"] == "m/cpu/fp32/ddp-2/ep-2") {
      compared = true;
      EXPECT_EQ(comparison["baseline"], "m/cpu/fp32/ddp-2");
      EXPECT_LT(comparison["model_state_ratio"].get<double>(), 1.0);
    }
  EXPECT_TRUE(compared) << "no ep_vs_ddp comparison";
}

TEST(ExpertParallelEndToEnd, ReplicaGroupsAndTheLoadBalancingLossTrainAsDdp) {
  // Mixtral with output_router_logits (the loss reads the routers), 4 experts: ep-2 of ddp-4
  // is two groups, each expert held by two ranks whose gradients are summed.
  const std::string folder = test_support::family_case_folder("mixtral_moe");
  if (folder.empty()) GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first";
  const auto config = test_support::read_json(folder + "/config.json");
  // Four ranks on this machine's cores (CI's two): --oversubscribe, as a user checks
  // correctness before a bigger machine.
  const auto report = run_matrix(folder,
                                 "m/cpu/fp32/ddp-4,m/cpu/fp32/ddp-4/ep-2,m/cpu/fp32/zero1-4/ep-4,m/cpu/fp32/fsdp-4,"
                                 "m/cpu/fp32/fsdp-4/ep-2,m/cpu/fp32/ddp-4/acc2,m/cpu/fp32/fsdp-4/ep-2/acc2",
                                 " --oversubscribe");
  const auto& ddp = ok_row(report, "m/cpu/fp32/ddp-4");
  const auto& replicated = ok_row(report, "m/cpu/fp32/ddp-4/ep-2");
  expect_same_curve(replicated, ddp, "ddp-4/ep-2");
  expect_expert_parallel_row(replicated, config, 2, "ddp-4/ep-2");
  EXPECT_EQ(replicated["ddp"]["expert_parallel"]["replica_group_size"], 2);
  const auto& zero1 = ok_row(report, "m/cpu/fp32/zero1-4/ep-4");
  expect_same_curve(zero1, ddp, "zero1-4/ep-4");
  expect_expert_parallel_row(zero1, config, 4, "zero1-4/ep-4");
  EXPECT_TRUE(zero1["ddp"]["expert_parallel"]["sharded_over_replicas"].is_null()) << "zero1 keeps its held experts whole";
  // fsdp-4/ep-2: each expert is held by two ranks, which shard it between them, so a rank
  // keeps a quarter of every expert's state, as fsdp-4 keeps a quarter of everything (the
  // shards' padding aside).
  const auto& sharded = ok_row(report, "m/cpu/fp32/fsdp-4/ep-2");
  expect_same_curve(sharded, ddp, "fsdp-4/ep-2");
  expect_expert_parallel_row(sharded, config, 2, "fsdp-4/ep-2");
  EXPECT_EQ(sharded["ddp"]["expert_parallel"]["sharded_over_replicas"]["replicas"], 2) << sharded["ddp"].dump();
  // Each micro-batch's backward reduce-scatters the experts' gradients, added in the shards.
  expect_same_curve(ok_row(report, "m/cpu/fp32/fsdp-4/ep-2/acc2"), ok_row(report, "m/cpu/fp32/ddp-4/acc2"), "fsdp-4/ep-2/acc2");
  const auto& fsdp = ok_row(report, "m/cpu/fp32/fsdp-4");
  for (std::size_t rank = 0; rank < 4; ++rank) {
    const auto state = [&](const nlohmann::json& row) {
      return row["ddp"]["per_rank"][rank]["model_state"]["total_bytes"].get<double>();
    };
    EXPECT_NEAR(state(sharded), state(fsdp), 0.02 * state(fsdp)) << "rank " << rank;
  }
}

// The experts through torch::_grouped_mm (--expert-gemms grouped; LibTorch's CPU kernel here,
// the fused one on an H100 under bf16) train as the loop of GEMMs does, also when each rank
// computes only its own experts over every rank's tokens (the offsets then come from the
// all-to-all's counts).
TEST(ExpertParallelEndToEnd, GroupedExpertGemmsTrainAsTheLoopAcrossRanks) {
  const std::string folder = test_support::family_case_folder("qwen2_moe_shared");
  if (folder.empty()) GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first";
  const auto config = test_support::read_json(folder + "/config.json");
  const auto loop = run_matrix(folder, "m/cpu/fp32/ddp-2");
  const auto& reference = ok_row(loop, "m/cpu/fp32/ddp-2");
  EXPECT_NE(reference["moe"]["experts_computed_as"].get<std::string>().find("a loop"), std::string::npos)
      << "the default on a CPU: " << reference["moe"]["experts_computed_as"];
  const auto grouped = run_matrix(folder, "m/cpu/fp32/ddp-2,m/cpu/fp32/fsdp-2/ep-2", " --expert-gemms grouped");
  for (const std::string id : {"m/cpu/fp32/ddp-2", "m/cpu/fp32/fsdp-2/ep-2"}) {
    const auto& row = ok_row(grouped, id);
    expect_same_curve(row, reference, id + " grouped");
    EXPECT_NE(row["moe"]["experts_computed_as"].get<std::string>().find("torch::_grouped_mm"), std::string::npos)
        << id << ": " << row["moe"]["experts_computed_as"];
  }
  expect_expert_parallel_row(ok_row(grouped, "m/cpu/fp32/fsdp-2/ep-2"), config, 2, "fsdp-2/ep-2 grouped");
}

// Mixtral-8x7B's published config.json (mistralai/Mixtral-8x7B-v0.1), random weights.
std::string mixtral_8x7b_folder() {
  const std::string dir = test_support::make_temp_dir("mixtral-8x7b");
  std::ofstream(dir + "/config.json") << nlohmann::json{
      {"architectures", {"MixtralForCausalLM"}}, {"model_type", "mixtral"}, {"hidden_act", "silu"},
      {"hidden_size", 4096}, {"intermediate_size", 14336}, {"max_position_embeddings", 32768},
      {"num_attention_heads", 32}, {"num_experts_per_tok", 2}, {"num_hidden_layers", 32}, {"num_key_value_heads", 8},
      {"num_local_experts", 8}, {"output_router_logits", false}, {"rms_norm_eps", 1e-5}, {"rope_theta", 1e6},
      {"router_aux_loss_coef", 0.02}, {"sliding_window", nullptr}, {"tie_word_embeddings", false},
      {"vocab_size", 32000}, {"torch_dtype", "bfloat16"}};
  return dir;
}

// The plan for GPUs not at hand knows ep-K: a rank's experts are its K-th, and the start (the
// whole fp32 model, built on the host before each GPU takes its share) is named for the host.
TEST(ExpertParallelEndToEnd, ThePlanForGpusNotAtHandCountsAGroupsShareOfTheExperts) {
  const std::string folder = mixtral_8x7b_folder();
  const std::string ids =
      "m/cuda/amp-bf16/pinned/ddp-64,m/cuda/amp-bf16/pinned/ddp-64/ep-8,m/cuda/amp-bf16/pinned/fsdp-64/ep-8";
  const auto json = test_support::run_command(std::string(GPUBENCH_EXE) + " --model m=" + folder +
                                              " --weights random --list --assume-gpus 64x80GiB --matrix " + ids +
                                              " --format json 2>/dev/null");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto plan = nlohmann::json::parse(json.output);
  ASSERT_EQ(plan.size(), 3u) << plan.dump(1);
  // ddp-64 holds every parameter's 16 bytes; ep-8 holds 1/8 of the experts' (45.1B of 46.7B).
  const double ddp = plan[0]["estimate_bytes"].get<double>(), ep = plan[1]["estimate_bytes"].get<double>();
  EXPECT_GT(ddp, 16.0 * 46.7e9) << plan.dump(1);
  EXPECT_LT(ep, ddp - 16.0 * 45.0e9 * 7 / 8 + 8.0 * (1 << 30)) << plan.dump(1);
  const auto table = test_support::run_command(std::string(GPUBENCH_EXE) + " --model m=" + folder +
                                               " --weights random --list --assume-gpus 64x80GiB --matrix " + ids +
                                               " --format table 2>&1");
  EXPECT_NE(table.output.find("each rank first builds the fp32 model on the host (~174"), std::string::npos)
      << table.output;
  EXPECT_EQ(table.output.find("the start binds"), std::string::npos) << "built on the host, the start binds no GPU";
  EXPECT_NEAR(plan[2]["host_model_bytes"].get<double>(), 4 * 46.7e9, 0.01 * 4 * 46.7e9) << plan.dump(1);
  // fsdp-64/ep-8: a rank's 5.6B held expert parameters sharded over their 8 replicas (16
  // bytes / 8) and whole only through a step (8 bytes): it fits an 80 GiB GPU, where whole
  // (20 bytes a held parameter) it would not.
  EXPECT_LT(plan[2]["estimate_bytes"].get<double>(), 80.0 * (1 << 30)) << plan[2].dump(1);
  EXPECT_GT(plan[2]["estimate_bytes"].get<double>(), (8.0 + 2.0) * 45.0e9 / 8) << plan[2].dump(1);
  fs::remove_all(folder);
}

TEST(ExpertParallelEndToEnd, IdsThatCannotSplitTheExpertsAreUsageErrors) {
  const std::string folder = test_support::family_case_folder("mixtral_moe");
  if (folder.empty()) GTEST_SKIP() << "the family references are not there";
  const auto run = [&](const std::string& id) {
    return test_support::run_command(std::string(GPUBENCH_EXE) + " --model m=" + folder + " --matrix " + id +
                                     " --steps 1 --warmup 0 --format json --out /dev/null 2>&1");
  };
  const auto uneven = run("m/cpu/fp32/ddp-3/ep-3");
  EXPECT_EQ(uneven.exit_code, 2) << uneven.output;
  EXPECT_NE(uneven.output.find("4 experts do not split over 3"), std::string::npos) << uneven.output;
  const auto lone = run("m/cpu/fp32/ep-2");
  EXPECT_EQ(lone.exit_code, 2) << lone.output;
  EXPECT_NE(lone.output.find("multi-rank mode"), std::string::npos) << lone.output;
  const auto odd = run("m/cpu/fp32/ddp-3/ep-2");
  EXPECT_EQ(odd.exit_code, 2) << odd.output;
  EXPECT_NE(odd.output.find("multiple of 2"), std::string::npos) << odd.output;
  const auto dense = test_support::run_command(std::string(GPUBENCH_EXE) +
                                               " --matrix gpt2/cpu/fp32/ddp-2/ep-2 --steps 1 --out /dev/null 2>&1");
  EXPECT_EQ(dense.exit_code, 2) << dense.output;
  EXPECT_NE(dense.output.find("has no experts"), std::string::npos) << dense.output;
  // gpt-oss stacks a layer's experts in one tensor: refused before any rank starts, not a
  // failing row after the model is built.
  if (const std::string oss = test_support::family_case_folder("gpt_oss_sinks_clamp"); !oss.empty()) {
    const auto stacked = test_support::run_command(std::string(GPUBENCH_EXE) + " --model m=" + oss +
                                                   " --matrix m/cpu/fp32/ddp-2/ep-2 --steps 1 --out /dev/null 2>&1");
    EXPECT_EQ(stacked.exit_code, 2) << stacked.output;
    EXPECT_NE(stacked.output.find("stacks every expert of a layer in one tensor"), std::string::npos) << stacked.output;
  }
}

// torchrun launches an ep config's ranks as it launches fsdp's (one rank of theirs each).
TEST(ExpertParallelEndToEnd, TorchrunLaunchesAnExpertParallelConfig) {
  const std::string folder = test_support::family_case_folder("qwen2_moe_shared");
  if (folder.empty()) GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first";
  if (std::string(GPUBENCH_PYTHON).empty()) GTEST_SKIP() << "no project Python (GPUBENCH_PYTHON) for torchrun";
  const std::string dir = test_support::make_temp_dir("expert-parallel-torchrun");
  const auto run = test_support::run_command(
      std::string("env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT PYTHONWARNINGS=ignore ") + GPUBENCH_PYTHON +
      " -m torch.distributed.run --nproc-per-node 2 --no-python " + GPUBENCH_EXE + " --model m=" + folder +
      " --matrix m/cpu/fp32/fsdp-2/ep-2 --steps 3 --warmup 0 --threads 1 --batch-size 4 --out " + dir + "/r.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = test_support::read_json(dir + "/r.json");
  const auto& row = ok_row(report, "m/cpu/fp32/fsdp-2/ep-2");
  EXPECT_EQ(row["ddp"]["launcher"], "torchrun");
  EXPECT_EQ(row["ddp"]["expert_parallel"]["group_size"], 2);
  EXPECT_TRUE(row["ddp"]["final_parameters_identical"].get<bool>());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
