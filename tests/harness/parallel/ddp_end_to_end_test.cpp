// DDP through the gpubench command line: the matrix runner's ranks, --nproc (what torchrun
// does), a rank dying inside a matrix, and launch environments that are usage errors.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/report_json.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

// Small and quick on two shared cores: one intra-op thread per rank.
const std::string kQuick = " --preset quick --steps 3 --warmup 1 --batch-size 64 --threads 1 --format json";

using test_support::find_row;
using test_support::read_json;

// A TCP socket listening on every interface; port 0 = any free one.
struct Listener {
  int fd = -1;
  int port = 0;
  explicit Listener(int wanted = 0) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(static_cast<std::uint16_t>(wanted));
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || listen(fd, 4) != 0) return;
    socklen_t length = sizeof(address);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
  }
  ~Listener() {
    if (fd >= 0) close(fd);
  }
};

int closed_port() { return Listener().port; }  // free a moment ago, nobody listening now

test_support::CommandResult gpubench(const std::string& env, const std::string& args) {
  return test_support::run_command("env -u RANK -u WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS " + env + " " +
                                   GPUBENCH_EXE + " " + args);
}

TEST(DdpEndToEnd, MatrixRunsTwoRanksAndReportsTheirMergedNumbers) {
  const std::string dir = test_support::make_temp_dir("ddp-e2e");
  const auto run = gpubench("", "--matrix mlp/cpu/fp32/ddp-2" + kQuick + " --out " + dir + "/report.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto* row = find_row(report, "mlp/cpu/fp32/ddp-2");
  ASSERT_NE(row, nullptr);
  ASSERT_EQ((*row)["status"], "ok") << row->dump();
  const auto& ddp = (*row)["ddp"];
  EXPECT_EQ(ddp["world_size"], 2);
  EXPECT_EQ(ddp["backend"], "gloo");
  EXPECT_EQ(ddp["launcher"], "gpubench");
  EXPECT_EQ(ddp["results_authenticated"], true) << "the launcher's secret sealed the ranks' numbers";
  EXPECT_EQ(ddp["buckets"], 2) << "25 MiB cap: the 1 MiB first bucket (fc3, fc2) and fc1";
  EXPECT_EQ(ddp["comm_ms"]["count"], 2 * 3) << "2 ranks x 3 measured steps";
  ASSERT_EQ(ddp["per_rank"].size(), 2u);
  EXPECT_EQ(ddp["per_rank"][1]["rank"], 1);
  EXPECT_EQ(ddp["host_peak_rss_bytes_per_rank"].size(), 2u);
  EXPECT_EQ((*row)["workload"]["global_batch_size"], 128);
  // Model FLOPs per step follow the global batch (--batch-size 64 on each of 2 ranks).
  EXPECT_DOUBLE_EQ((*row)["flops"]["training_per_step"].get<double>(),
                   128 * (*row)["flops"]["training_per_sample"].get<double>());
  EXPECT_DOUBLE_EQ((*row)["flops"]["training_per_sample"].get<double>(), 6.0 * (784 * 1024 + 1024 * 1024 + 1024 * 10));
  EXPECT_GT((*row)["throughput"]["tflops_per_s"]["median"].get<double>(), 0);
  EXPECT_EQ((*row)["loss"]["curve"].size(), 4u);
  EXPECT_TRUE((*row)["checkpoint"]["parameters_equal"].get<bool>());
  // Both ranks' CPU is the config's own (their shared process group), not interference.
  EXPECT_EQ((*row)["interference"]["own_cpu_counts"], "process_group");
  EXPECT_GE((*row)["interference"]["own_processes"].get<int>(), 2) << (*row)["interference"].dump();
}

// Gradient accumulation under DDP: 4 micro-batches a step, one all-reduce per optimizer
// step on each rank (PyTorch's no_sync for the first three), every micro-batch counted.
TEST(DdpEndToEnd, AccumulatingRanksAllReduceOncePerOptimizerStep) {
  const std::string dir = test_support::make_temp_dir("ddp-acc");
  const auto run = gpubench("", "--matrix mlp/cpu/fp32/ddp-2 --accumulate 4" + kQuick + " --out " + dir + "/report.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto* row = find_row(report, "mlp/cpu/fp32/ddp-2/acc4");
  ASSERT_NE(row, nullptr) << report.dump();
  ASSERT_EQ((*row)["status"], "ok") << row->dump();
  EXPECT_EQ((*row)["ddp"]["comm_ms"]["count"], 2 * 3) << "2 ranks x 3 optimizer steps, not x 4 micro-batches";
  for (const auto& rank : (*row)["ddp"]["per_rank"]) EXPECT_EQ(rank["comm_ms"]["count"], 3) << rank.dump();
  EXPECT_EQ((*row)["workload"]["micro_batch_size"], 64);
  EXPECT_EQ((*row)["workload"]["accumulation_steps"], 4);
  EXPECT_EQ((*row)["workload"]["global_batch_size"], 64 * 4 * 2);
  EXPECT_EQ((*row)["config"]["accumulate"], 4);
  EXPECT_EQ((*row)["loss"]["curve"].size(), 4u) << "one loss per optimizer step";
}

// Without --steps the ranks agree after warm-up on the count that fits the budget: 5 s
// (quick) over a 1.0-1.25 s step (the test-only delay) is 4 or 5 steps, between min_steps
// (3) and the ranks' cap (15).
TEST(DdpEndToEnd, BudgetedRanksAgreeOnTheCountThatFitsTheBudget) {
  const std::string dir = test_support::make_temp_dir("ddp-agree");
  const auto run = gpubench("", "--matrix mlp/cpu/fp32/ddp-2 --preset quick --warmup 1 --batch-size 64 --threads 1 "
                                "--test-step-delay-ms 1000 --format json --out " + dir + "/report.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir + "/report.json");
  const auto* row = find_row(report, "mlp/cpu/fp32/ddp-2");
  ASSERT_NE(row, nullptr);
  ASSERT_EQ((*row)["status"], "ok") << row->dump();
  const auto& stopping = (*row)["stopping"];
  EXPECT_TRUE(stopping["ranks_agreed_on_steps"].get<bool>()) << stopping.dump();
  const int measured = (*row)["steps"]["measured"].get<int>();
  EXPECT_EQ(measured, stopping["max_steps"].get<int>()) << stopping.dump();
  EXPECT_GE(measured, 4) << stopping.dump();
  EXPECT_LE(measured, 5) << stopping.dump();
  EXPECT_EQ((*row)["ddp"]["comm_ms"]["count"], 2 * measured) << "both ranks ran the agreed count";
}

TEST(DdpEndToEnd, NprocLaunchesRanksLikeTorchrunAndOnlyRankZeroReports) {
  const std::string dir = test_support::make_temp_dir("ddp-nproc");
  const auto run = gpubench("", "--nproc 2 --matrix mlp/cpu/fp32/ddp-2,mlp/cpu/fp32" + kQuick + " --out " + dir + "/report.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto* ddp = find_row(report, "mlp/cpu/fp32/ddp-2");
  ASSERT_NE(ddp, nullptr);
  ASSERT_EQ((*ddp)["status"], "ok") << ddp->dump();
  EXPECT_EQ((*ddp)["ddp"]["launcher"], "gpubench");
  EXPECT_EQ((*ddp)["ddp"]["results_authenticated"], true) << "--nproc gives its ranks a secret";
  const auto* single = find_row(report, "mlp/cpu/fp32");
  ASSERT_NE(single, nullptr);
  EXPECT_EQ((*single)["status"], "skipped");
  EXPECT_NE((*single)["reason"].get<std::string>().find("only ddp-N, zero1-N, zero2-N or fsdp-N configs with N = 2 run under a distributed launcher"),
            std::string::npos);
  // One report on stdout: rank 1 stays quiet.
  EXPECT_EQ(run.output.find("\"schema_version\""), run.output.rfind("\"schema_version\"")) << run.output;
}

TEST(DdpEndToEnd, ADeadRankFailsItsConfigWithTheReasonAndTheMatrixGoesOn) {
  const std::string dir = test_support::make_temp_dir("ddp-dead");
  const auto start = std::chrono::steady_clock::now();
  const auto run = gpubench("GPUBENCH_DDP_KILL_RANK_AT_STEP=1:2",
                            "--matrix mlp/cpu/fp32/ddp-2,mlp/cpu/fp32 --comm-timeout 5" + kQuick + " --out " + dir + "/report.json");
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto* ddp = find_row(report, "mlp/cpu/fp32/ddp-2");
  ASSERT_NE(ddp, nullptr);
  EXPECT_EQ((*ddp)["status"], "failed");
  const std::string reason = (*ddp)["reason"];
  EXPECT_NE(reason.find("rank 1 of 2: child process killed by signal 9"), std::string::npos) << reason;
  EXPECT_NE(reason.find("rank 0 of 2: all-reduce of gradient bucket"), std::string::npos) << reason;
  const auto* next = find_row(report, "mlp/cpu/fp32");
  ASSERT_NE(next, nullptr);
  EXPECT_EQ((*next)["status"], "ok") << "the matrix goes on";
  EXPECT_LT(took_s, 150) << "bounded by --comm-timeout, not the 1800 s config timeout";
}

TEST(DdpEndToEnd, BadLaunchEnvironmentsAreUsageErrors) {
  const std::string out = " --matrix mlp/cpu/fp32/ddp-2 --comm-timeout 2" + kQuick + " --out /tmp/gpubench-ddp-bad-env.json";
  auto expect_usage_error = [&](const std::string& env, const std::string& message) {
    const auto run = gpubench(env, out);
    EXPECT_EQ(run.exit_code, 2) << env << "\n" << run.output;
    EXPECT_NE(run.output.find(message), std::string::npos) << env << "\n" << run.output;
    // One line of gpubench's, not c10d's retry warnings and a C++ stack trace.
    EXPECT_EQ(run.output.find("frame #"), std::string::npos) << env << "\n" << run.output;
    EXPECT_EQ(run.output.find("[c10d]"), std::string::npos) << env << "\n" << run.output;
  };
  for (const char* rank : {"0", "1"}) {
    const auto start = std::chrono::steady_clock::now();
    expect_usage_error(std::string("RANK=") + rank + " WORLD_SIZE=2 MASTER_ADDR=no-such-host.invalid MASTER_PORT=29999",
                       "MASTER_ADDR='no-such-host.invalid' does not resolve");
    // At once here (0.4 s); a machine whose resolver has no reachable DNS server may spend
    // its own timeout first, hence the loose bound.
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 40);
  }
  expect_usage_error("WORLD_SIZE=2", "WORLD_SIZE=2 is set but RANK is not");
  expect_usage_error("RANK=2 WORLD_SIZE=2 MASTER_PORT=29999", "RANK=2 is not below WORLD_SIZE=2: ranks run from 0 to 1");
  expect_usage_error("RANK=x WORLD_SIZE=2 MASTER_PORT=29999", "RANK='x' is invalid");
  expect_usage_error("RANK=0 WORLD_SIZE=2 MASTER_PORT=29999 GPUBENCH_RUN_SECRET=short",
                     "GPUBENCH_RUN_SECRET is 5 characters long: expected at least 16");
  const Listener busy;
  ASSERT_GT(busy.port, 0);
  expect_usage_error("RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(busy.port),
                     "cannot host the rendezvous store on port " + std::to_string(busy.port));
  const int nobody = closed_port();
  const auto start = std::chrono::steady_clock::now();
  expect_usage_error("RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(nobody),
                     "could not reach the rendezvous store at MASTER_ADDR:MASTER_PORT = 127.0.0.1:" + std::to_string(nobody) +
                         " within 2 s");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60);
}

}  // namespace
}  // namespace gpubench
