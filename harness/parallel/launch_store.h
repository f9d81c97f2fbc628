#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include <torch/csrc/distributed/c10d/Store.hpp>

namespace gpubench {

// The rendezvous key-value store (c10d TCPStore) ranks meet through.

// Hosts the store on `port` (0: the kernel picks a free one; read it with
// hosted_store_port). When `addr` is a loopback address (every rank on this host) the
// server listens on that address only, through a socket bound here and handed to
// TCPStore (masterListenFd); otherwise on every interface, as c10d's server does (it has
// no bind-address option), since ranks on other hosts must reach it. The store has no
// authentication either way. Throws UsageError when the port cannot be bound (in use,
// privileged), naming the address and what to do.
c10::intrusive_ptr<c10d::Store> host_store(const std::string& addr, int port, std::chrono::milliseconds timeout);
std::uint16_t hosted_store_port(const c10::intrusive_ptr<c10d::Store>& store);

// 127.0.0.0/8, ::1 or "localhost".
bool is_loopback_address(const std::string& addr);

// Connects to a store at addr:port, retrying until `timeout`. Throws UsageError when it
// cannot be reached in time, naming the address, the wait and the likely causes.
c10::intrusive_ptr<c10d::Store> connect_store(const std::string& addr, int port, std::chrono::milliseconds timeout);

// A view of `store` whose keys all start with `prefix` (one config, one attempt).
c10::intrusive_ptr<c10d::Store> prefixed_store(const std::string& prefix, c10::intrusive_ptr<c10d::Store> store);

// Waits up to `timeout` for `key` to be set; false when it did not appear in time (the
// store itself failing still throws).
bool wait_for_key(c10d::Store& store, const std::string& key, std::chrono::milliseconds timeout);

// Fault injection for the forgery tests (GPUBENCH_TEST_GATE_STORE_READS=1; a no-op without
// it): rank 0, about to read a peer's value at `key`, first waits up to `timeout` for
// `key` + "/gate", which the test sets once it has rewritten the value as another local
// user could. Without the gate such a test would race rank 0's read.
void wait_for_test_gate(c10d::Store& store, const std::string& key, std::chrono::milliseconds timeout);

std::string to_text(const std::vector<std::uint8_t>& bytes);
std::vector<std::uint8_t> to_bytes(const std::string& text);

}  // namespace gpubench
