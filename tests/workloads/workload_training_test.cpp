// Each workload's model trains on its own data: the loss falls. Also pins the exact
// architecture sizes other tools will be compared against.
#include <map>

#include <gtest/gtest.h>

#include "workloads/gpt2.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

double mean_loss_after(const Workload& workload, int steps, std::int64_t batch, std::vector<double>& losses) {
  torch::manual_seed(0);
  Model model = workload.make_model();
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  const auto data = workload.make_dataset({batch * 8, 1, ""}).first(static_cast<std::size_t>(batch * 8));
  for (int step = 0; step < steps; ++step) {
    const auto x = data.data.narrow(0, (step % 8) * batch, batch);
    const auto y = data.target.narrow(0, (step % 8) * batch, batch);
    optimizer.zero_grad();
    auto loss = workload.loss(model.forward(x), y);
    loss.backward();
    optimizer.step();
    losses.push_back(loss.item<double>());
  }
  return losses.back();
}

// The mean of the last two steps at most `keep` of the first two's.
void expect_loss_falls(const std::string& name, int steps, std::int64_t batch, double keep = 0.9) {
  const auto workload = make_workload(name);
  std::vector<double> losses;
  mean_loss_after(*workload, steps, batch, losses);
  const double head = (losses[0] + losses[1]) / 2, tail = (losses[steps - 1] + losses[steps - 2]) / 2;
  EXPECT_LT(tail, head * keep) << name << ": first " << losses.front() << " last " << losses.back();
}

TEST(WorkloadTraining, MlpLossFalls) { expect_loss_falls("mlp", 24, 64); }
TEST(WorkloadTraining, CnnLossFalls) { expect_loss_falls("cnn", 24, 32); }
TEST(WorkloadTraining, TransformerLossFalls) { expect_loss_falls("transformer", 16, 4); }
// The standard models at CPU sizes: seconds a step, so few steps.
TEST(WorkloadTraining, ResNet50LossFalls) { expect_loss_falls("resnet50", 10, 4, 0.8); }
// From ln(50304) = 10.8 the first steps learn which tokens are frequent: 2% in 5 steps.
TEST(WorkloadTraining, Gpt2LossFalls) { expect_loss_falls("gpt2", 5, 1, 0.98); }

TEST(WorkloadDefinitions, ParameterCountsMatchTheSpecifiedArchitectures) {
  // 784*1024+1024 + 1024*1024+1024 + 1024*10+10
  EXPECT_EQ(make_workload("mlp")->make_model().parameter_count(), 1863690);
  // stem 864+64; block1 2*(9216+64); block2 18432+36864+2048+3*128; block3 73728+147456+8192+3*256; head 1290
  EXPECT_EQ(make_workload("cnn")->make_model().parameter_count(), 928+18560+57728+230144+1290);
  // embeddings 4096*256 + 128*256; per layer: LN 512*2, attn 4*256*256+4*256, fc 256*1024+1024+1024*256+256; final LN 512; head 256*4096+4096
  const std::int64_t layer = 1024 + (4 * 256 * 256 + 4 * 256) + (256 * 1024 + 1024 + 1024 * 256 + 256);
  EXPECT_EQ(make_workload("transformer")->make_model().parameter_count(), 4096 * 256 + 128 * 256 + 4 * layer + 512 + 256 * 4096 + 4096);
  // torchvision's published count for resnet50 (and reference_outputs.py's model).
  EXPECT_EQ(make_workload("resnet50")->make_model().parameter_count(), 25557032);
  // nanoGPT's GPT(GPTConfig()) with the LM head tied: wte 50304*768 + wpe 1024*768 + 12 blocks
  // (LN 2*768 x2, c_attn 768*2304+2304, c_proj 768*768+768, c_fc 768*3072+3072, c_proj
  // 3072*768+768) + ln_f 2*768.
  const std::int64_t block = 4 * 768 + (768 * 2304 + 2304) + (768 * 768 + 768) + (768 * 3072 + 3072) + (3072 * 768 + 768);
  EXPECT_EQ(50304 * 768 + 1024 * 768 + 12 * block + 2 * 768, 124475904);
  EXPECT_EQ(make_workload("gpt2")->make_model().parameter_count(), 124475904);
  EXPECT_EQ(Gpt2Shape().parameters(), 124475904);
}

TEST(WorkloadDefinitions, BatchSizesPerDeviceKind) {
  EXPECT_EQ(make_workload("resnet50")->default_batch_size(DeviceKind::Cuda), 256) << "NVIDIA's recipe";
  EXPECT_EQ(make_workload("resnet50")->default_batch_size(DeviceKind::Cpu), 8);
  EXPECT_EQ(make_workload("gpt2")->default_batch_size(DeviceKind::Cuda), 16) << "16 x 1024 tokens";
  EXPECT_EQ(make_workload("gpt2")->default_batch_size(DeviceKind::Cpu), 1);
  EXPECT_EQ(make_workload("mlp")->default_batch_size(DeviceKind::Cuda), make_workload("mlp")->default_batch_size(DeviceKind::Cpu));
}

TEST(WorkloadDefinitions, OutputShapes) {
  for (const auto& name : workload_names()) {
    // A 5 GB model and a 6 GB one at 2048 tokens: tests/workloads/decoder_test.cpp and
    // builtin_moe_test.cpp cover them.
    if (name == "llama" || name == "moe") continue;
    const auto workload = make_workload(name);
    const auto data = workload->make_dataset({4, 1, ""}).first(1);  // gpt2: one 1024-token sequence
    const auto out = workload->make_model().forward(data.data);
    EXPECT_EQ(out.size(0), 1) << name;
    const std::map<std::string, std::int64_t> outputs = {{"transformer", 4096}, {"resnet50", 1000}, {"gpt2", 50304}};
    EXPECT_EQ(out.size(-1), outputs.count(name) ? outputs.at(name) : 10) << name;
    EXPECT_GT(workload->loss(out, data.target).item<double>(), 0) << name;
  }
}

}  // namespace
}  // namespace gpubench
