// Each workload's model trains on its own data: the loss falls. Also pins the exact
// architecture sizes other tools will be compared against.
#include <gtest/gtest.h>

#include "workloads/workload.h"

namespace gpubench {
namespace {

double mean_loss_after(const Workload& workload, int steps, std::int64_t batch, std::vector<double>& losses) {
  torch::manual_seed(0);
  Model model = workload.make_model();
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  const auto data = workload.make_dataset({batch * 8, 1, ""});
  for (int step = 0; step < steps; ++step) {
    const auto x = data.inputs().narrow(0, (step % 8) * batch, batch);
    const auto y = data.targets().narrow(0, (step % 8) * batch, batch);
    optimizer.zero_grad();
    auto loss = workload.loss(model.forward(x), y);
    loss.backward();
    optimizer.step();
    losses.push_back(loss.item<double>());
  }
  return losses.back();
}

void expect_loss_falls(const std::string& name, int steps, std::int64_t batch) {
  const auto workload = make_workload(name);
  std::vector<double> losses;
  mean_loss_after(*workload, steps, batch, losses);
  const double head = (losses[0] + losses[1]) / 2, tail = (losses[steps - 1] + losses[steps - 2]) / 2;
  EXPECT_LT(tail, head * 0.9) << name << ": first " << losses.front() << " last " << losses.back();
}

TEST(WorkloadTraining, MlpLossFalls) { expect_loss_falls("mlp", 24, 64); }
TEST(WorkloadTraining, CnnLossFalls) { expect_loss_falls("cnn", 24, 32); }
TEST(WorkloadTraining, TransformerLossFalls) { expect_loss_falls("transformer", 16, 4); }

TEST(WorkloadDefinitions, ParameterCountsMatchTheSpecifiedArchitectures) {
  // 784*1024+1024 + 1024*1024+1024 + 1024*10+10
  EXPECT_EQ(make_workload("mlp")->make_model().parameter_count(), 1863690);
  // stem 864+64; block1 2*(9216+64); block2 18432+36864+2048+3*128; block3 73728+147456+8192+3*256; head 1290
  EXPECT_EQ(make_workload("cnn")->make_model().parameter_count(), 928+18560+57728+230144+1290);
  // embeddings 4096*256 + 128*256; per layer: LN 512*2, attn 4*256*256+4*256, fc 256*1024+1024+1024*256+256; final LN 512; head 256*4096+4096
  const std::int64_t layer = 1024 + (4 * 256 * 256 + 4 * 256) + (256 * 1024 + 1024 + 1024 * 256 + 256);
  EXPECT_EQ(make_workload("transformer")->make_model().parameter_count(), 4096 * 256 + 128 * 256 + 4 * layer + 512 + 256 * 4096 + 4096);
}

TEST(WorkloadDefinitions, OutputShapes) {
  for (const auto& name : workload_names()) {
    const auto workload = make_workload(name);
    const auto data = workload->make_dataset({4, 1, ""});
    const auto out = workload->make_model().forward(data.inputs());
    EXPECT_EQ(out.size(0), 4) << name;
    EXPECT_EQ(out.size(-1), name == "transformer" ? 4096 : 10) << name;
    EXPECT_GT(workload->loss(out, data.targets()).item<double>(), 0) << name;
  }
}

}  // namespace
}  // namespace gpubench
