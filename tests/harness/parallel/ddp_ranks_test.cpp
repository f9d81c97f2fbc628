// DDP across real processes (tests/harness/parallel/ddp_rank_helper.cpp is one rank):
// parity with one process, and a dead rank ending its peer with a clear error in time.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <iostream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/parallel/launch_store.h"
#include "harness/parallel/rank_launcher.h"
#include "rank_spawn.h"
#include "support/file_text.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using test_support::kProcessDeadline_s;
using test_support::file_text;
using test_support::relative_difference;
using test_support::spawn_with_env;
using test_support::wait_with_deadline;


std::vector<torch::Tensor> load(const std::string& path) {
  std::vector<torch::Tensor> tensors;
  torch::load(tensors, path);
  return tensors;
}

class DdpRanks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::make_temp_dir("ddp");
    store_ = host_store("127.0.0.1", 0, std::chrono::seconds(60));
    port_ = hosted_store_port(store_);
  }
  std::map<std::string, std::string> rank_env(int rank, int world, const std::string& scope) const {
    auto env = local_rank_environment(rank, world, port_, test_support::kTestRunSecret);
    env[launch_vars::kStorePrefix] = scope;
    return env;
  }
  std::string dir_;
  c10::intrusive_ptr<c10d::Store> store_;
  int port_ = 0;
};

// SGD: the parameters move by lr x the averaged gradient, so they differ only by float
// summation order (4e-9 relative after one step here). Adam's first step divides by |g|, which amplifies that
// order noise for gradients near its eps: 7.6e-7 relative here, too close to the bound.
TEST_F(DdpRanks, TwoRanksWithHalfTheBatchMatchOneProcessStepForStep) {
  const int steps = 4;
  const auto args = [&](const std::string& out, int batch) {
    return std::vector<std::string>{GPUBENCH_DDP_RANK_HELPER, "--out", out, "--steps", std::to_string(steps),
                                    "--batch", std::to_string(batch), "--optimizer", "sgd"};
  };
  // Tiny buckets (1 KB): five all-reduces per step, most launched during backward.
  auto ddp_args = args(dir_ + "/ddp.pt", 32);
  ddp_args.insert(ddp_args.end(), {"--bucket-mb", "0.001"});
  const pid_t reference = spawn_with_env(args(dir_ + "/single.pt", 64), {}, dir_ + "/single.err");
  const pid_t rank0 = spawn_with_env(ddp_args, rank_env(0, 2, "parity"), dir_ + "/rank0.err");
  const pid_t rank1 = spawn_with_env(ddp_args, rank_env(1, 2, "parity"), dir_ + "/rank1.err");
  ASSERT_EQ(wait_with_deadline(rank0, kProcessDeadline_s), 0) << file_text(dir_ + "/rank0.err");
  ASSERT_EQ(wait_with_deadline(rank1, kProcessDeadline_s), 0) << file_text(dir_ + "/rank1.err");
  ASSERT_EQ(wait_with_deadline(reference, kProcessDeadline_s), 0) << file_text(dir_ + "/single.err");

  const auto single = load(dir_ + "/single.pt"), ddp = load(dir_ + "/ddp.pt");
  const double first = relative_difference(ddp[0], single[0]), last = relative_difference(ddp[1], single[1]);
  std::cout << "relative parameter difference, ddp-2 vs one process: step 1 " << first << ", step " << steps << " "
            << last << std::endl;
  EXPECT_LE(first, 1e-6) << "parameters after the first step";
  EXPECT_LE(last, 1e-6) << "parameters after " << steps << " steps";
  ASSERT_EQ(ddp[2].numel(), steps);
  for (int step = 0; step < steps; ++step) {
    const double a = ddp[2][step].item<double>(), b = single[2][step].item<double>();
    EXPECT_NEAR(a, b, 1e-6 * std::abs(b)) << "global loss at step " << step;
  }
  EXPECT_GT(relative_difference(single[1], single[0]), 0) << "training moved the parameters";

  const auto merged = nlohmann::json::parse(file_text(dir_ + "/ddp.pt.json"));
  EXPECT_EQ(merged["world_size"], 2);
  EXPECT_EQ(merged["backend"], "gloo");
  EXPECT_EQ(merged["buckets"], 5) << merged.dump();
  EXPECT_EQ(merged["per_rank"].size(), 2u);
  EXPECT_EQ(merged["comm_ms"]["count"], 2 * steps);
  EXPECT_GT(merged["comm_ms"]["median"].get<double>(), 0);
  EXPECT_GE(merged["overlap_share"].get<double>(), 0);
  EXPECT_LE(merged["overlap_share"].get<double>(), 1);
}

TEST_F(DdpRanks, AKilledRankEndsItsPeerWithAClearErrorWithinTheTimeout) {
  const auto args = [&](int rank) {
    return std::vector<std::string>{GPUBENCH_DDP_RANK_HELPER, "--steps", "1000000", "--batch", "16", "--comm-timeout",
                                    "5", "--progress", dir_ + "/progress" + std::to_string(rank)};
  };
  const pid_t rank0 = spawn_with_env(args(0), rank_env(0, 2, "dead"), dir_ + "/rank0.err");
  const pid_t rank1 = spawn_with_env(args(1), rank_env(1, 2, "dead"), dir_ + "/rank1.err");
  // Let both train for a few steps, then kill rank 1 as the OOM killer would.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(static_cast<int>(kProcessDeadline_s));
  while (std::atoi(file_text(dir_ + "/progress1").c_str()) < 3 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(std::atoi(file_text(dir_ + "/progress1").c_str()), 3) << file_text(dir_ + "/rank1.err");
  kill(rank1, SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_with_deadline(rank1, 10), 128 + SIGKILL);
  const int code = wait_with_deadline(rank0, 30);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  const std::string error = file_text(dir_ + "/rank0.err");
  EXPECT_EQ(code, 1) << error;
  EXPECT_LE(took_s, 5 + 5) << "the survivor must give up within --comm-timeout (5 s) plus slack";
  EXPECT_NE(error.find("rank 0 of 2: all-reduce of gradient bucket"), std::string::npos) << error;
  EXPECT_NE(error.find("a peer rank probably died or stalled (waits are bounded by --comm-timeout 5 s)"), std::string::npos)
      << error;
}

// A stalled peer (SIGSTOP: alive, silent) is the timeout path, not a reset connection.
// Launched by hand this time (no launcher store): rank 0 hosts the store on MASTER_PORT.
TEST_F(DdpRanks, AStalledRankMakesItsPeerGiveUpAfterTheTimeout) {
  const int port = hosted_store_port(host_store("127.0.0.1", 0, std::chrono::seconds(5)));  // free a moment ago
  const auto args = [&](int rank) {
    return std::vector<std::string>{GPUBENCH_DDP_RANK_HELPER, "--steps", "1000000", "--batch", "16", "--comm-timeout",
                                    "3", "--progress", dir_ + "/progress" + std::to_string(rank)};
  };
  const auto env = [&](int rank) {
    return std::map<std::string, std::string>{{"RANK", std::to_string(rank)}, {"WORLD_SIZE", "2"},
                                              {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", std::to_string(port)}};
  };
  const pid_t rank0 = spawn_with_env(args(0), env(0), dir_ + "/rank0.err");
  const pid_t rank1 = spawn_with_env(args(1), env(1), dir_ + "/rank1.err");
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(static_cast<int>(kProcessDeadline_s));
  while (std::atoi(file_text(dir_ + "/progress1").c_str()) < 3 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(std::atoi(file_text(dir_ + "/progress1").c_str()), 3) << file_text(dir_ + "/rank0.err") << file_text(dir_ + "/rank1.err");
  kill(rank1, SIGSTOP);
  const auto stopped = std::chrono::steady_clock::now();
  const int code = wait_with_deadline(rank0, 30);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count();
  kill(rank1, SIGKILL);
  wait_with_deadline(rank1, 10);
  const std::string error = file_text(dir_ + "/rank0.err");
  EXPECT_EQ(code, 1) << error;
  EXPECT_GE(took_s, 2) << "it waited for its peer";
  EXPECT_LE(took_s, 3 + 5) << "and gave up after --comm-timeout (3 s) plus slack, despite the pending collective";
  EXPECT_NE(error.find("rank 0 of 2: all-reduce of gradient bucket"), std::string::npos) << error;
  EXPECT_NE(error.find("(waits are bounded by --comm-timeout 3 s)"), std::string::npos) << error;
}

}  // namespace
}  // namespace gpubench
