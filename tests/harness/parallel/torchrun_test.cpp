// gpubench's DDP ranks launched by the real torchrun (`python -m torch.distributed.run`,
// from the torch gpubench is built against), as users who outgrow one machine launch them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ddp_launch_checks.h"

namespace gpubench {
namespace {

using test_support::expect_same_training_as_own_launcher;
using test_support::find_row;
using test_support::read_json;
using test_support::regular_files;
using test_support::single_quoted;
const std::string& kFlags = test_support::kDdpFlags;

std::string torchrun(const std::string& layout = "--nproc-per-node 2") {
  return std::string("env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT PYTHONWARNINGS=ignore ") + GPUBENCH_PYTHON +
         " -m torch.distributed.run " + layout + " --no-python ";
}

TEST(Torchrun, LaunchesTheRanksRankZeroReportsAndTheNumbersMatchGpubenchsOwnLauncher) {
  const std::string dir = test_support::make_temp_dir("torchrun");
  const auto run = test_support::run_command(torchrun() + GPUBENCH_EXE + kFlags + " --out " + dir + "/torchrun.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("\"schema_version\""), run.output.rfind("\"schema_version\"")) << "rank 1 prints no report";
  EXPECT_EQ(regular_files(dir), 1) << "rank 1 writes no report";
  const nlohmann::json row = test_support::ok_ddp_row(dir + "/torchrun.json");
  EXPECT_EQ(row["ddp"]["launcher"], "torchrun");
  // No GPUBENCH_RUN_SECRET: the ranks' values crossed the store unsealed, and both say so.
  EXPECT_EQ(row["ddp"]["results_authenticated"], false);
  EXPECT_NE(run.output.find("gpubench: warning: launched by torchrun without GPUBENCH_RUN_SECRET"), std::string::npos)
      << run.output;
  expect_same_training_as_own_launcher(dir + "/torchrun.json", dir);
}

// Two "nodes": two torchrun agents, one process each, meeting at a c10d rendezvous on
// loopback, as `torchrun --nnodes 2` runs on two machines (README: More than one machine),
// with the secret a user exports to every rank (docs/ddp.md).
TEST(Torchrun, TwoAgentsOfOneProcessEachRendezvousAndTrainLikeOneLauncher) {
  const std::string dir = test_support::make_temp_dir("torchrun-2nodes");
  const std::string port = std::to_string(29600 + ::getpid() % 300);
  const std::string agent = "GPUBENCH_RUN_SECRET=" + std::string(32, 's') + " " +
                            torchrun("--nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:" + port +
                                     " --rdzv-id gpubench-test-" + port) +
                            GPUBENCH_EXE + kFlags + " --out " + dir + "/report.json";
  const auto run = test_support::run_command("bash -c " + single_quoted("(" + agent + ") >" + dir + "/agent1.log 2>&1 & a=$!; " +
                                                                        "(" + agent + ") >" + dir + "/agent2.log 2>&1; b=$?; " +
                                                                        "wait $a; echo \"agents=$?,$b\"; cat " + dir + "/agent1.log " +
                                                                        dir + "/agent2.log"));
  ASSERT_NE(run.output.find("agents=0,0"), std::string::npos) << run.output;
  EXPECT_EQ(regular_files(dir), 3) << "the two agents' logs and one report";
  const nlohmann::json row = test_support::ok_ddp_row(dir + "/report.json");
  EXPECT_EQ(row["ddp"]["launcher"], "torchrun");
  EXPECT_EQ(row["ddp"]["results_authenticated"], true);
  expect_same_training_as_own_launcher(dir + "/report.json", dir);
}

// Two hosts with addresses of their own: one torchrun agent in each of two network
// namespaces joined by a veth pair (10.231.R.1 and .2). The first hosts the rendezvous
// (is_host: its address is not what this machine's name resolves to); --local-addr gives
// each agent's address to the other (MASTER_ADDR), and GLOO_SOCKET_IFNAME the interface Gloo
// uses (this machine's name resolves to 127.0.0.1 in both). Root only, as namespaces are.
TEST(Torchrun, TwoHostsInNetworkNamespacesTrainLikeOneLauncher) {
  if (::geteuid() != 0) GTEST_SKIP() << "network namespaces need root (CI runs as root)";
  const std::string dir = test_support::make_temp_dir("torchrun-netns");
  const std::string id = std::to_string(::getpid() % 200 + 20);
  const std::string a = "gb" + id + "a", b = "gb" + id + "b", net = "10.231." + id + ".";
  const auto made = test_support::run_command(
      "ip netns add " + a + " && ip netns add " + b + " && ip link add v" + a + " type veth peer name v" + b +
      " && ip link set v" + a + " netns " + a + " && ip link set v" + b + " netns " + b + " && ip -n " + a +
      " addr add " + net + "1/24 dev v" + a + " && ip -n " + b + " addr add " + net + "2/24 dev v" + b + " && ip -n " + a +
      " link set v" + a + " up && ip -n " + b + " link set v" + b + " up && ip -n " + a + " link set lo up && ip -n " + b +
      " link set lo up");
  struct Namespaces {
    std::string a, b;
    ~Namespaces() { test_support::run_command("ip netns del " + a + "; ip netns del " + b); }
  } namespaces{a, b};
  if (made.exit_code != 0) GTEST_SKIP() << "no network namespaces here: " << made.output;
  const auto agent = [&](const std::string& ns, const std::string& address, bool host) {
    return "ip netns exec " + ns + " env GLOO_SOCKET_IFNAME=v" + ns + " " +
           torchrun("--nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint " + net + "1:29970 --rdzv-id netns-" +
                    id + " --rdzv-conf is_host=" + (host ? "true" : "false") + " --local-addr " + address) +
           GPUBENCH_EXE + kFlags + " --out " + dir + "/report.json";
  };
  const auto run = test_support::run_command(
      "bash -c " + single_quoted("(timeout 300 " + agent(a, net + "1", true) + ") >" + dir + "/a.log 2>&1 & p=$!; (timeout 300 " +
                                 agent(b, net + "2", false) + ") >" + dir + "/b.log 2>&1; q=$?; wait $p; echo \"agents=$?,$q\"; " +
                                 "tail -n 20 " + dir + "/a.log " + dir + "/b.log"));
  ASSERT_NE(run.output.find("agents=0,0"), std::string::npos) << run.output;
  const nlohmann::json row = test_support::ok_ddp_row(dir + "/report.json");
  EXPECT_EQ(row["ddp"]["launcher"], "torchrun");
  expect_same_training_as_own_launcher(dir + "/report.json", dir);
}

// A rank killed mid-run (SIGKILL: a lost node): torchrun fails within the bound, names the
// rank, rank 0 ends on torchrun's SIGTERM with a report that names it, and no process of
// the run is left. (Measured: 1 s from the kill to torchrun's exit; before rank 0's wait
// for its peers' outcomes heard SIGTERM, torchrun SIGKILLed it after its 30 s grace.)
TEST(Torchrun, AKilledRankFailsTheRunWithinAMinuteAndLeavesNoProcess) {
  const std::string dir = test_support::make_temp_dir("torchrun-kill");
  const std::string mark = "GPUBENCH_TORCHRUN_TEST=" + dir;
  // Rank 1's processes (its matrix process and the config child it started) by their
  // environment: RANK=1 and this test's mark.
  const std::string rank1_pids =
      "for p in $(pgrep -f 'gpubench'); do e=$(tr '\\0' '\\n' </proc/$p/environ 2>/dev/null); "
      "grep -qx 'RANK=1' <<<\"$e\" && grep -qxF '" + mark + "' <<<\"$e\" && echo $p; done";
  // Only torchrun and what it starts carry the mark, not this script's own processes.
  const std::string script =
      "env " + mark + " " + torchrun() + GPUBENCH_EXE + " --matrix mlp/cpu/fp32/ddp-2 --steps 2000 --warmup 1 --batch-size 64 --threads 1 "
      "--test-step-delay-ms 20 --comm-timeout 10 --format json --out " + dir + "/report.json >" + dir + "/log 2>&1 & "
      "launcher=$!; "
      "for i in $(seq 300); do [ -n \"$(" + rank1_pids + ")\" ] && break; sleep 0.1; done; sleep 3; "
      "kill -9 $(" + rank1_pids + "); start=$(date +%s); wait $launcher; rc=$?; "
      "echo \"torchrun_rc=$rc seconds=$(( $(date +%s) - start ))\"; sleep 1; "
      "left=$(grep -lxF '" + mark + "' /proc/[0-9]*/environ 2>/dev/null | wc -l); echo \"left=$left\"; "
      "cat " + dir + "/log";
  const auto run = test_support::run_command("bash -c " + single_quoted(script));
  EXPECT_NE(run.output.find("torchrun_rc=1 "), std::string::npos) << run.output;
  const auto seconds_at = run.output.find("seconds=");
  ASSERT_NE(seconds_at, std::string::npos) << run.output;
  EXPECT_LT(std::stoi(run.output.substr(seconds_at + 8)), 60) << run.output;
  EXPECT_NE(run.output.find("left=0"), std::string::npos) << "a process of the run is left\n" << run.output;
  EXPECT_NE(run.output.find("rank      : 1"), std::string::npos) << "torchrun names the lost rank\n" << run.output;
  // The survivor ends on torchrun's SIGTERM by itself (not the SIGKILL 30 s later) and its
  // report names the lost rank.
  EXPECT_EQ(run.output.find("Unable to shutdown process"), std::string::npos) << run.output;
  const auto report = read_json(dir + "/report.json");
  const auto* row = find_row(report, "mlp/cpu/fp32/ddp-2");
  ASSERT_NE(row, nullptr) << run.output;
  EXPECT_EQ((*row)["status"], "failed");
  EXPECT_NE((*row)["reason"].get<std::string>().find("rank 1 of 2: sent no outcome"), std::string::npos) << row->dump();
}

}  // namespace
}  // namespace gpubench
