// Another local user rewriting what the ranks hand each other through the rendezvous store
// (issue 61, item 1). The store listens on 127.0.0.1 and answers every uid: while a real
// 2-rank run trains, this test connects its own c10d client to the launcher's port (which
// `ss -ltn` shows anyone) and, as a foreign writer without the run's secret, rewrites rank
// 1's numbers or outcome. Rank 0 must refuse the value (a failed row saying it failed
// authentication), never report it. GPUBENCH_TEST_GATE_STORE_READS holds rank 0's read of
// each peer value until the test has rewritten it (launch_store.h), so nothing races.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/parallel/launch_store.h"
#include "rank_spawn.h"
#include "support/file_text.h"
#include "support/report_json.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using test_support::file_text;

// The inodes of the sockets process `pid` holds open.
std::set<std::string> socket_inodes(pid_t pid) {
  std::set<std::string> inodes;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return inodes;
  while (const dirent* entry = ::readdir(listing)) {
    char target[256] = {};
    const std::string link = dir + "/" + entry->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
    const std::string text(target, n > 0 ? static_cast<std::size_t>(n) : 0);
    if (text.rfind("socket:[", 0) == 0) inodes.insert(text.substr(8, text.size() - 9));
  }
  ::closedir(listing);
  return inodes;
}

// The 127.0.0.1 port `pid` listens on (its store), from /proc/net/tcp as any user reads it;
// nullopt until it listens.
std::optional<int> loopback_listening_port(pid_t pid) {
  const std::set<std::string> inodes = socket_inodes(pid);
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
    if (state == "0A" && local.rfind("0100007F:", 0) == 0 && inodes.count(inode))
      return std::stoi(local.substr(9), nullptr, 16);
  }
  return std::nullopt;
}

// gpubench started with the read gate on, its stdout and stderr in `log`.
pid_t start_gpubench(const std::string& args, const std::string& log) {
  return test_support::spawn_with_env({"/bin/sh", "-c", "exec " + std::string(GPUBENCH_EXE) + " " + args + " >" + log + " 2>&1"},
                                      {{"GPUBENCH_TEST_GATE_STORE_READS", "1"}}, "/dev/null");
}

// The foreign writer: a c10d client of the store `pid` serves.
class ForeignWriter {
 public:
  explicit ForeignWriter(pid_t pid) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    std::optional<int> port;
    while (!(port = loopback_listening_port(pid)) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (port) store_ = connect_store("127.0.0.1", *port, std::chrono::seconds(30));
  }
  bool connected() const { return store_.defined(); }
  // Waits for the ranks' value at `key`; false when it never came.
  bool wait(const std::string& key) { return wait_for_key(*store_, key, std::chrono::seconds(180)); }
  std::string get(const std::string& key) { return to_text(store_->get(key)); }
  // Writes `value` at `key` (as whoever reaches the port may), then lets rank 0 read it.
  void rewrite(const std::string& key, const std::string& value) {
    store_->set(key, to_bytes(value));
    let_through(key);
  }
  void let_through(const std::string& key) { store_->set(key + "/gate", to_bytes("1")); }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

const std::string kForgeryRunFlags = " --steps 3 --warmup 1 --batch-size 16 --threads 1 --checkpoint-check off --format json";

// What a rank wrote, a seal line (if any) kept before its JSON: a forger may reuse it.
std::pair<std::string, nlohmann::json> split_value(const std::string& value) {
  const std::size_t json_at = value.find('{');
  return {value.substr(0, json_at), nlohmann::json::parse(value.substr(json_at))};
}

// The issue's forgery: rank 1's numbers rewritten to another host and pid, half its losses,
// and rank 0's parameter digest (final_parameters_identical), in place of its own.
TEST(StoreForgery, ARanksNumbersRewrittenInTheStoreAreRefusedNotReported) {
  const std::string dir = test_support::make_temp_dir("forge-numbers");
  const pid_t gpubench = start_gpubench("--matrix mlp/cpu/fp32/ddp-2" + kForgeryRunFlags + " --out " + dir + "/r.json", dir + "/log");
  ForeignWriter writer(gpubench);
  ASSERT_TRUE(writer.connected()) << file_text(dir + "/log");
  const std::string prefix = "gpubench/matrix/config0/ddp//rank/";
  ASSERT_TRUE(writer.wait(prefix + "1")) << file_text(dir + "/log");
  auto [seal, numbers] = split_value(writer.get(prefix + "1"));
  numbers["host"] = "FORGED-HOST";
  numbers["pid"] = 4242;
  for (auto& loss : numbers["losses"]) loss = loss.get<double>() / 2;
  if (writer.wait(prefix + "0")) numbers["parameter_digest"] = split_value(writer.get(prefix + "0")).second["parameter_digest"];
  writer.rewrite(prefix + "1", seal + numbers.dump());
  ASSERT_EQ(test_support::wait_with_deadline(gpubench, test_support::kProcessDeadline_s), 0) << file_text(dir + "/log");

  const std::string text = file_text(dir + "/r.json");
  const nlohmann::json report = nlohmann::json::parse(text);
  const auto* row = test_support::find_row(report, "mlp/cpu/fp32/ddp-2");
  ASSERT_NE(row, nullptr) << text;
  EXPECT_EQ((*row)["status"], "failed") << row->dump();
  EXPECT_NE((*row).value("reason", "").find("rank 1's numbers failed authentication: its HMAC is not this run's secret's"),
            std::string::npos)
      << row->dump();
  EXPECT_EQ(text.find("FORGED-HOST"), std::string::npos) << "the forged value reached the report: " << text;
}

// Under --nproc the ranks' outcomes meet in the launcher's store too: a forged "failed"
// outcome for rank 1 turned a healthy config into a failed row with the forger's reason.
TEST(StoreForgery, AForgedOutcomeUnderNprocIsRefusedNotReported) {
  const std::string dir = test_support::make_temp_dir("forge-outcome");
  const pid_t gpubench =
      start_gpubench("--nproc 2 --matrix mlp/cpu/fp32/ddp-2" + kForgeryRunFlags + " --out " + dir + "/r.json", dir + "/log");
  ForeignWriter writer(gpubench);
  ASSERT_TRUE(writer.connected()) << file_text(dir + "/log");
  const std::string numbers = "gpubench/attempt0/config0/ddp//rank/1", outcome = "gpubench/attempt0/config0/report/1";
  ASSERT_TRUE(writer.wait(numbers)) << file_text(dir + "/log");
  writer.let_through(numbers);
  ASSERT_TRUE(writer.wait(outcome)) << file_text(dir + "/log");
  writer.rewrite(outcome, R"({"ok": false, "reason": "FORGED: rank 1 ran out of memory", "peak_rss_bytes": 1, "wall_s": 1})");
  ASSERT_EQ(test_support::wait_with_deadline(gpubench, test_support::kProcessDeadline_s), 0) << file_text(dir + "/log");

  const std::string text = file_text(dir + "/r.json");
  const nlohmann::json report = nlohmann::json::parse(text);
  const auto* row = test_support::find_row(report, "mlp/cpu/fp32/ddp-2");
  ASSERT_NE(row, nullptr) << text;
  EXPECT_EQ((*row)["status"], "failed") << "a value that fails authentication fails its config: " << row->dump();
  EXPECT_NE((*row).value("reason", "").find("rank 1's report failed authentication: it carries no HMAC of this run's secret"),
            std::string::npos)
      << row->dump();
  EXPECT_EQ(text.find("FORGED"), std::string::npos) << "the forged reason reached the report: " << text;
}

}  // namespace
}  // namespace gpubench
