#include "harness/parallel/launch_store.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

// The rendezvous store of ranks that are all on this host listens on loopback only.
namespace gpubench {
namespace {

// Local addresses ("0100007F", "00000000", ...) of the listening sockets on `port`, from
// the kernel's own tables (state 0A is LISTEN).
std::vector<std::string> listeners_on(std::uint16_t port) {
  std::vector<std::string> addresses;
  char hex_port[8];
  std::snprintf(hex_port, sizeof(hex_port), "%04X", port);
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      const auto colon = local.find(':');
      if (state == "0A" && colon != std::string::npos && local.substr(colon + 1) == hex_port)
        addresses.push_back(local.substr(0, colon));
    }
  }
  return addresses;
}

TEST(LaunchStore, LocalRanksStoreListensOnLoopbackOnly) {
  const auto store = host_store("127.0.0.1", 0, std::chrono::seconds(10));
  const std::uint16_t port = hosted_store_port(store);
  ASSERT_NE(port, 0);
  EXPECT_EQ(listeners_on(port), std::vector<std::string>{"0100007F"}) << "port " << port;
  // And it works: a client on loopback meets it.
  const auto client = connect_store("127.0.0.1", port, std::chrono::seconds(10));
  client->set("key", to_bytes("value"));
  EXPECT_EQ(to_text(store->get("key")), "value");
}

// Rank 0 waits for a peer's outcome in slices: c10d logged two "waitForInput ... timed out"
// lines every 250 ms of such a wait (334 lines once), burying the row's own message. A wait
// that runs out is an answer (false), said once by gpubench, not by c10d (issue 61, item 6).
TEST(LaunchStore, AWaitThatRunsOutPrintsNothing) {
  const auto store = host_store("127.0.0.1", 0, std::chrono::seconds(10));
  const auto client = connect_store("127.0.0.1", hosted_store_port(store), std::chrono::seconds(10));
  testing::internal::CaptureStderr();
  const bool found = wait_for_key(*client, "never-set", std::chrono::milliseconds(1200));
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(found);
  EXPECT_EQ(printed, "");
}

TEST(LaunchStore, LoopbackAddresses) {
  for (const std::string addr : {"127.0.0.1", "127.1.2.3", "localhost", "::1"}) EXPECT_TRUE(is_loopback_address(addr)) << addr;
  for (const std::string addr : {"10.0.0.5", "node17", "0.0.0.0", ""}) EXPECT_FALSE(is_loopback_address(addr)) << addr;
}

}  // namespace
}  // namespace gpubench
