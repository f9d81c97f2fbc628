#include "core/config/matrix_spec.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/config/errors.h"

namespace gpubench {
namespace {

// The built-in workloads' traits (tests/workloads checks these are theirs).
std::map<std::string, WorkloadTraits> traits_of(const std::vector<std::string>& names) {
  std::map<std::string, WorkloadTraits> all;
  all["mlp"].units = true;
  all["cnn"].image_batches = all["cnn"].segments = all["cnn"].units = true;
  all["transformer"].segments = all["transformer"].units = true;
  all["resnet50"].image_batches = all["resnet50"].segments = all["resnet50"].units = all["resnet50"].real_scale = true;
  all["gpt2"].segments = all["gpt2"].units = all["gpt2"].fp8_linears = all["gpt2"].real_scale = true;
  std::map<std::string, WorkloadTraits> out;
  for (const auto& name : names) out[name] = all.at(name);
  return out;
}

MatrixRequest request(const std::string& spec, std::vector<std::string> workloads = {"mlp", "cnn", "transformer"}) {
  MatrixRequest r;
  r.spec = spec;
  r.workloads = std::move(workloads);
  r.known_workloads = traits_of({"mlp", "cnn", "transformer"});
  return r;
}

std::set<std::string> ids(const std::vector<Config>& configs) {
  std::set<std::string> out;
  for (const auto& c : configs) out.insert(c.id());
  return out;
}

TEST(MatrixSpec, AllHasEveryTechniqueOfTheMissionForEachWorkload) {
  const auto configs = expand_matrix(request("all"));
  const auto all = ids(configs);
  // 10 techniques x 3 workloads; Adam variants on CUDA for all (2 each, plus fused under
  // amp-fp16) and on the CPU for mlp (2), channels_last on both for the CNN (2), the CUDA
  // Graph step for all (1 each), gradient accumulation on CUDA for all and on the CPU for
  // mlp (4 in all); the sharded modes beside DDP on both devices (6 each); then each
  // workload's CPU and CUDA recipe (mlp's CPU recipe, fused Adam, is already there): no
  // duplicates.
  EXPECT_EQ(configs.size(), 30u + 9u + 2u + 2u + 3u + 4u + 18u + 5u);
  EXPECT_TRUE(all.count("cnn/cpu/fp32/adam-fused/channels-last") && all.count("cnn/cuda/amp-bf16/pinned/channels-last/graph"));
  EXPECT_TRUE(all.count("transformer/cpu/fp32/adam-fused") && all.count("mlp/cuda/amp-bf16/pinned/graph"));
  for (const std::string w : {"mlp", "cnn", "transformer"})
    for (const std::string t : {"cpu/fp32", "cpu/bf16", "cpu/fp32/ddp-2", "cuda/fp32/pageable", "cuda/fp32/pinned",
                                "cuda/amp-fp16/pinned", "cuda/amp-bf16/pinned", "cuda/tf32/pinned", "cuda/fp32/pinned/dp",
                                "cuda/fp32/pinned/ddp-1", "cpu/fp32/zero1-2", "cpu/fp32/zero2-2", "cpu/fp32/fsdp-2",
                                "cuda/fp32/pinned/zero1-1", "cuda/fp32/pinned/zero2-1", "cuda/fp32/pinned/fsdp-1"})
      EXPECT_TRUE(all.count(w + "/" + t)) << w + "/" + t;
  for (const std::string w : {"mlp", "cnn", "transformer"})
    for (const std::string t : {"cuda/fp32/pinned/adam-foreach", "cuda/fp32/pinned/adam-fused",
                                "cuda/amp-fp16/pinned/adam-fused", "cuda/fp32/pinned/graph", "cuda/fp32/pinned/acc4"})
      EXPECT_TRUE(all.count(w + "/" + t)) << w + "/" + t;
  EXPECT_TRUE(all.count("mlp/cpu/fp32/acc4"));
  EXPECT_TRUE(all.count("mlp/cpu/fp32/adam-foreach") && all.count("mlp/cpu/fp32/adam-fused"));
  EXPECT_TRUE(all.count("cnn/cpu/fp32/channels-last") && all.count("cnn/cuda/fp32/pinned/channels-last"));
  EXPECT_FALSE(all.count("cnn/cpu/fp32/adam-fused")) << "0.3% of a CNN step: runnable by id, not in all";
  // The transformer's CPU recipe has fused Adam (a single technique row would measure 1% of a step).
}

TEST(MatrixSpec, TheStandardWorkloadsHaveEveryTechniqueThatAppliesToThem) {
  MatrixRequest r = request("all", {"resnet50", "gpt2"});
  r.known_workloads = traits_of({"resnet50", "gpt2"});
  const auto all = ids(expand_matrix(r));
  for (const std::string w : {"resnet50", "gpt2"})
    for (const std::string t : {"cpu/fp32", "cpu/bf16", "cpu/fp32/ddp-2", "cuda/fp32/pageable", "cuda/fp32/pinned",
                                "cuda/amp-fp16/pinned", "cuda/amp-bf16/pinned", "cuda/tf32/pinned", "cuda/fp32/pinned/dp",
                                "cuda/fp32/pinned/ddp-1", "cuda/fp32/pinned/adam-foreach", "cuda/fp32/pinned/adam-fused",
                                "cuda/amp-fp16/pinned/adam-fused", "cuda/fp32/pinned/graph", "cuda/fp32/pinned/acc4",
                                "cpu/fp32/ckpt", "cuda/fp32/pinned/ckpt", "cpu/fp32/fsdp-2", "cuda/fp32/pinned/fsdp-1"})
      EXPECT_TRUE(all.count(w + "/" + t)) << w + "/" + t;
  EXPECT_TRUE(all.count("resnet50/cpu/fp32/channels-last") && all.count("resnet50/cuda/fp32/pinned/channels-last"));
  EXPECT_FALSE(all.count("gpt2/cuda/fp32/pinned/channels-last")) << "no 4-d tensors";
  EXPECT_TRUE(all.count("gpt2/cuda/fp8/pinned"));
  EXPECT_FALSE(all.count("resnet50/cuda/fp8/pinned")) << "fp8 is gpt2's blocks' Linear layers";
  // and the recipes: cpu (fp32 + fused Adam, channels-last for the CNN), cuda (bf16 + ..., graph)
  EXPECT_TRUE(all.count("resnet50/cpu/fp32/adam-fused/channels-last") && all.count("gpt2/cpu/fp32/adam-fused"));
  EXPECT_TRUE(all.count("resnet50/cuda/amp-bf16/pinned/channels-last/graph") && all.count("gpt2/cuda/amp-bf16/pinned/graph"));
  EXPECT_EQ(all.size(), 2u * 23u + 2u + 1u + 4u);
}

TEST(MatrixSpec, NamedIdsAreThoseTheSpecListsOneByOneNormalised) {
  EXPECT_EQ(named_config_ids("cpu,cnn/cuda/fp32, gpt2/cpu/fp32"),
            (std::vector<std::string>{"cnn/cuda/fp32/pinned", "gpt2/cpu/fp32"}));
  EXPECT_TRUE(named_config_ids("all").empty());
}

TEST(MatrixSpec, GpuDdpUsesEveryVisibleDevice) {
  auto r = request("gpu", {"mlp"});
  r.cuda_devices = 8;
  EXPECT_TRUE(ids(expand_matrix(r)).count("mlp/cuda/fp32/pinned/ddp-8"));
}

TEST(MatrixSpec, GroupsSelectTheirTechniquesAndBaselines) {
  EXPECT_EQ(ids(expand_matrix(request("cpu", {"mlp"}))),
            (std::set<std::string>{"mlp/cpu/fp32", "mlp/cpu/bf16", "mlp/cpu/fp32/ddp-2", "mlp/cpu/fp32/zero1-2",
                                   "mlp/cpu/fp32/zero2-2", "mlp/cpu/fp32/fsdp-2", "mlp/cpu/fp32/adam-foreach",
                                   "mlp/cpu/fp32/adam-fused", "mlp/cpu/fp32/acc4"}));
  EXPECT_EQ(ids(expand_matrix(request("pinned", {"cnn"}))),
            (std::set<std::string>{"cnn/cuda/fp32/pageable", "cnn/cuda/fp32/pinned"}));
  const auto amp = ids(expand_matrix(request("amp", {"cnn"})));
  EXPECT_TRUE(amp.count("cnn/cuda/amp-fp16/pinned") && amp.count("cnn/cuda/fp32/pinned") && amp.count("cnn/cpu/bf16"));
  EXPECT_FALSE(amp.count("cnn/cuda/fp32/pageable"));
  const auto parallel = ids(expand_matrix(request("parallel", {"cnn"})));
  EXPECT_TRUE(parallel.count("cnn/cuda/fp32/pinned/dp") && parallel.count("cnn/cpu/fp32/ddp-2") &&
              parallel.count("cnn/cpu/fp32"));
  for (const auto& config : expand_matrix(request("gpu"))) EXPECT_EQ(config.device, DeviceKind::Cuda);
  // Techniques stay out of the other groups, and come with their baselines in `tuning`.
  for (const std::string group : {"amp", "pinned"})
    for (const auto& config : expand_matrix(request(group))) EXPECT_TRUE(config.technique_segments().empty()) << group;
  EXPECT_FALSE(amp.count("cnn/cuda/tf32/pinned"));
  // fp8 is a mixed precision: in `amp` with the amp-bf16 row it is compared with.
  MatrixRequest gpt2 = request("amp", {"gpt2"});
  gpt2.known_workloads = traits_of({"gpt2"});
  const auto gpt2_amp = ids(expand_matrix(gpt2));
  EXPECT_TRUE(gpt2_amp.count("gpt2/cuda/fp8/pinned") && gpt2_amp.count("gpt2/cuda/amp-bf16/pinned"));
  EXPECT_EQ(ids(expand_matrix(request("tuning", {"cnn"}))),
            (std::set<std::string>{"cnn/cpu/fp32", "cnn/cpu/fp32/channels-last", "cnn/cuda/fp32/pinned",
                                   "cnn/cuda/tf32/pinned", "cnn/cuda/fp32/pinned/channels-last",
                                   "cnn/cuda/fp32/pinned/adam-foreach", "cnn/cuda/fp32/pinned/adam-fused",
                                   "cnn/cuda/amp-fp16/pinned", "cnn/cuda/amp-fp16/pinned/adam-fused",
                                   "cnn/cuda/fp32/pinned/graph", "cnn/cuda/fp32/pinned/acc4"}));
  for (const std::string group : {"amp", "pinned", "parallel"})
    for (const auto& config : expand_matrix(request(group))) EXPECT_EQ(config.accumulate, 1) << group;
}

// --accumulate K: every config takes K micro-batches, except graph configs; a group's own
// accumulation rows take K too, and an id naming another accK contradicts it (exit 2).
TEST(MatrixSpec, AccumulateAppliesToEveryConfigButGraphsAndContradictionsAreRefused) {
  MatrixRequest r = request("mlp/cpu/fp32,mlp/cpu/fp32/acc8,mlp/cuda/fp32/pinned/graph,mlp/cpu/fp32/ddp-2", {"mlp"});
  r.accumulate = 8;
  EXPECT_EQ(ids(expand_matrix(r)), (std::set<std::string>{"mlp/cpu/fp32/acc8", "mlp/cuda/fp32/pinned/graph",
                                                           "mlp/cpu/fp32/ddp-2/acc8"}));
  MatrixRequest group = request("cpu", {"mlp"});
  group.accumulate = 16;
  for (const auto& config : expand_matrix(group)) EXPECT_EQ(config.accumulate, 16) << config.id();
  MatrixRequest contradiction = request("mlp/cpu/fp32/acc4", {"mlp"});
  contradiction.accumulate = 2;
  try {
    expand_matrix(contradiction);
    FAIL() << "acc4 with --accumulate 2 was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--accumulate 2 contradicts config id 'mlp/cpu/fp32/acc4'"), std::string::npos)
        << error.what();
  }
}

TEST(MatrixSpec, RecipesAndAblationsPerWorkloadAndDevice) {
  MatrixRequest r = request("recipes", {"cnn"});
  r.cuda_devices = 1;
  r.cuda_compute_capability = 90;
  EXPECT_EQ(ids(expand_matrix(r)),
            (std::set<std::string>{"cnn/cpu/fp32", "cnn/cpu/fp32/adam-fused/channels-last", "cnn/cpu/fp32/ddp-2/adam-fused/channels-last",
                                   "cnn/cuda/fp32/pinned", "cnn/cuda/amp-bf16/pinned/channels-last/graph",
                                   "cnn/cuda/amp-bf16/pinned/ddp-1/adam-fused/channels-last"}));
  r.spec = "ablation";
  const auto ablation = ids(expand_matrix(r));
  for (const std::string id : {"cnn/cpu/fp32", "cnn/cpu/fp32/adam-fused/channels-last", "cnn/cpu/fp32/channels-last",
                               "cnn/cpu/fp32/adam-fused", "cnn/cpu/fp32/ddp-2/adam-fused/channels-last",
                               "cnn/cuda/fp32/pinned/channels-last/graph", "cnn/cuda/amp-bf16/pinned/adam-fused/channels-last",
                               "cnn/cuda/fp32/pinned/graph"})
    EXPECT_TRUE(ablation.count(id)) << id;
  EXPECT_EQ(matrix_recipes(r).size(), 4u) << "cpu and cuda: the recipe and the DDP recipe";
}

// A named id whose technique its workload cannot take is refused with the table's reason.
TEST(MatrixSpec, NamedIdsAreCheckedAgainstTheirWorkloadsTraits) {
  for (const auto& [id, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"mlp/cpu/fp32/channels-last", "channels-last does not apply to mlp"},
           {"mlp/cpu/fp32/ckpt", "ckpt does not apply to mlp"},
           {"cnn/cuda/fp8", "fp8 does not apply to cnn"}}) {
    try {
      expand_matrix(request(id, {"mlp", "cnn"}));
      ADD_FAILURE() << id << " was accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  }
  EXPECT_EQ(expand_matrix(request("transformer/cpu/fp32/ckpt", {"transformer"})).front().id(), "transformer/cpu/fp32/ckpt");
}

TEST(MatrixSpec, IdListsAndGroupsMixWithoutDuplicates) {
  const auto configs = expand_matrix(request("mlp/cpu/fp32, cpu ,cnn/cuda/amp-fp16", {"mlp"}));
  EXPECT_EQ(configs.front().id(), "mlp/cpu/fp32");
  EXPECT_EQ(ids(configs), (std::set<std::string>{"mlp/cpu/fp32", "mlp/cpu/bf16", "mlp/cpu/fp32/ddp-2",
                                                 "mlp/cpu/fp32/zero1-2", "mlp/cpu/fp32/zero2-2", "mlp/cpu/fp32/fsdp-2",
                                                 "mlp/cpu/fp32/adam-foreach", "mlp/cpu/fp32/adam-fused",
                                                 "mlp/cpu/fp32/acc4", "cnn/cuda/amp-fp16/pinned"}));
  EXPECT_EQ(configs.size(), 10u);
}

TEST(MatrixSpec, WorkloadFilterKeepsOrder) {
  const auto configs = expand_matrix(request("cpu", {"transformer", "mlp"}));
  EXPECT_EQ(configs.front().workload, "transformer");
  EXPECT_EQ(configs.back().workload, "mlp");
}

TEST(MatrixSpec, RejectsUnknownNames) {
  EXPECT_THROW(expand_matrix(request("everything")), UsageError);
  EXPECT_THROW(expand_matrix(request("")), UsageError);
  EXPECT_THROW(expand_matrix(request(" , ")), UsageError);
  EXPECT_THROW(expand_matrix(request("resnet/cpu/fp32")), UsageError);
  EXPECT_THROW(expand_matrix(request("cpu", {"resnet"})), UsageError);
  try {
    expand_matrix(request("cpus"));
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("'cpus'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("parallel"), std::string::npos) << "lists the groups";
  }
}

}  // namespace
}  // namespace gpubench
