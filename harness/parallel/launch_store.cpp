#include "parallel/launch_store.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "config/errors.h"

namespace gpubench {
namespace {

std::string error_text(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) return c10_error->what_without_backtrace();
  return error.what();
}

std::string seconds(std::chrono::milliseconds timeout) {
  const double s = static_cast<double>(timeout.count()) / 1000.0;
  return (s == static_cast<int>(s) ? std::to_string(static_cast<int>(s)) : std::to_string(s)) + " s";
}

}  // namespace

c10::intrusive_ptr<c10d::Store> host_store(const std::string& addr, int port, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = true;
  // Ranks arrive whenever they start; each waits for its own keys with its own timeout.
  options.waitWorkers = false;
  options.timeout = timeout;
  try {
    return c10::make_intrusive<c10d::TCPStore>(addr, options);
  } catch (const std::exception& error) {
    throw UsageError("cannot host the rendezvous store on port " + std::to_string(port) + " (MASTER_ADDR=" + addr +
                     " MASTER_PORT=" + std::to_string(port) + "): " + error_text(error) +
                     " -- is the port already in use? Pick a free MASTER_PORT");
  }
}

std::uint16_t hosted_store_port(const c10::intrusive_ptr<c10d::Store>& store) {
  const auto* tcp = dynamic_cast<const c10d::TCPStore*>(store.get());
  return tcp != nullptr ? tcp->getPort() : 0;
}

c10::intrusive_ptr<c10d::Store> connect_store(const std::string& addr, int port, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = false;
  options.timeout = timeout;
  try {
    return c10::make_intrusive<c10d::TCPStore>(addr, options);
  } catch (const std::exception& error) {
    throw UsageError("could not reach the rendezvous store at MASTER_ADDR:MASTER_PORT = " + addr + ":" +
                     std::to_string(port) + " within " + seconds(timeout) + " (--comm-timeout): " + error_text(error) +
                     " -- is rank 0 (or the launcher) running, and do all ranks use the same MASTER_ADDR/MASTER_PORT?");
  }
}

c10::intrusive_ptr<c10d::Store> prefixed_store(const std::string& prefix, c10::intrusive_ptr<c10d::Store> store) {
  return c10::make_intrusive<c10d::PrefixStore>(prefix, std::move(store));
}

bool wait_for_key(c10d::Store& store, const std::string& key, std::chrono::milliseconds timeout) {
  try {
    store.wait({key}, timeout);
    return true;
  } catch (const std::exception& error) {
    // c10d reports a wait that ran out as an error whose text says so; anything else
    // (the store's server gone) is a real failure.
    const std::string text = error_text(error);
    if (text.find("imeout") != std::string::npos || text.find("timed out") != std::string::npos) return false;
    throw;
  }
}

std::string to_text(const std::vector<std::uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }
std::vector<std::uint8_t> to_bytes(const std::string& text) { return std::vector<std::uint8_t>(text.begin(), text.end()); }

}  // namespace gpubench
