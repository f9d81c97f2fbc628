#include "config/matrix_spec.h"

#include <gtest/gtest.h>

#include <set>

#include "config/errors.h"

namespace gpubench {
namespace {

MatrixRequest request(const std::string& spec, std::vector<std::string> workloads = {"mlp", "cnn", "transformer"}) {
  MatrixRequest r;
  r.spec = spec;
  r.workloads = std::move(workloads);
  r.known_workloads = {"mlp", "cnn", "transformer"};
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
  EXPECT_EQ(configs.size(), 27u);  // 9 techniques x 3 workloads, no duplicates
  for (const std::string w : {"mlp", "cnn", "transformer"})
    for (const std::string t : {"cpu/fp32", "cpu/bf16", "cpu/fp32/ddp-2", "cuda/fp32/pageable", "cuda/fp32/pinned",
                                "cuda/amp-fp16/pinned", "cuda/amp-bf16/pinned", "cuda/fp32/pinned/dp",
                                "cuda/fp32/pinned/ddp-1"})
      EXPECT_TRUE(all.count(w + "/" + t)) << w + "/" + t;
}

TEST(MatrixSpec, GpuDdpUsesEveryVisibleDevice) {
  auto r = request("gpu", {"mlp"});
  r.cuda_devices = 8;
  EXPECT_TRUE(ids(expand_matrix(r)).count("mlp/cuda/fp32/pinned/ddp-8"));
}

TEST(MatrixSpec, GroupsSelectTheirTechniquesAndBaselines) {
  EXPECT_EQ(ids(expand_matrix(request("cpu", {"mlp"}))),
            (std::set<std::string>{"mlp/cpu/fp32", "mlp/cpu/bf16", "mlp/cpu/fp32/ddp-2"}));
  EXPECT_EQ(ids(expand_matrix(request("pinned", {"cnn"}))),
            (std::set<std::string>{"cnn/cuda/fp32/pageable", "cnn/cuda/fp32/pinned"}));
  const auto amp = ids(expand_matrix(request("amp", {"cnn"})));
  EXPECT_TRUE(amp.count("cnn/cuda/amp-fp16/pinned") && amp.count("cnn/cuda/fp32/pinned") && amp.count("cnn/cpu/bf16"));
  EXPECT_FALSE(amp.count("cnn/cuda/fp32/pageable"));
  const auto parallel = ids(expand_matrix(request("parallel", {"cnn"})));
  EXPECT_TRUE(parallel.count("cnn/cuda/fp32/pinned/dp") && parallel.count("cnn/cpu/fp32/ddp-2") &&
              parallel.count("cnn/cpu/fp32"));
  for (const auto& config : expand_matrix(request("gpu"))) EXPECT_EQ(config.device, DeviceKind::Cuda);
}

TEST(MatrixSpec, IdListsAndGroupsMixWithoutDuplicates) {
  const auto configs = expand_matrix(request("mlp/cpu/fp32, cpu ,cnn/cuda/amp-fp16", {"mlp"}));
  EXPECT_EQ(configs.front().id(), "mlp/cpu/fp32");
  EXPECT_EQ(ids(configs), (std::set<std::string>{"mlp/cpu/fp32", "mlp/cpu/bf16", "mlp/cpu/fp32/ddp-2",
                                                 "cnn/cuda/amp-fp16/pinned"}));
  EXPECT_EQ(configs.size(), 4u);
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
