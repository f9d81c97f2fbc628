#include "harness/parallel/launch_store.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <c10/util/Logging.h>

#include "core/config/errors.h"

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

// A listening socket bound to `addr` itself (not every interface), for TCPStore to take
// over; throws std::runtime_error with the OS's reason.
int listening_socket(const std::string& addr, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0)
    throw std::runtime_error("cannot resolve " + addr + ": " + ::gai_strerror(rc));
  std::string why = "no address";
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    why = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  throw std::runtime_error("cannot listen on " + addr + ":" + std::to_string(port) + ": " + why);
}

// MASTER_ADDR must name a host: a typo is one line, now, not c10d's retry loop of
// warnings and stack traces for --comm-timeout.
void check_resolves(const std::string& addr) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(addr.c_str(), nullptr, &hints, &found); rc != 0)
    throw UsageError("MASTER_ADDR='" + addr + "' does not resolve (" + ::gai_strerror(rc) +
                     "): expected rank 0's host name or IP address");
  ::freeaddrinfo(found);
}

// c10d logs every failed connect try as a warning and an error with a C++ stack trace, and
// every wait that runs out twice; the failure reaches the user once, as gpubench's own
// message. Quiet while connecting and waiting.
class QuietC10Log {
 public:
  QuietC10Log() : saved_(FLAGS_caffe2_log_level) { FLAGS_caffe2_log_level = c10::GLOG_FATAL; }
  ~QuietC10Log() { FLAGS_caffe2_log_level = saved_; }
  QuietC10Log(const QuietC10Log&) = delete;
  QuietC10Log& operator=(const QuietC10Log&) = delete;

 private:
  int saved_;
};

}  // namespace

bool is_loopback_address(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

c10::intrusive_ptr<c10d::Store> host_store(const std::string& addr, int port, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = true;
  // Ranks arrive whenever they start; each waits for its own keys with its own timeout.
  options.waitWorkers = false;
  options.timeout = timeout;
  check_resolves(addr);
  try {
    const QuietC10Log quiet;
    // All ranks on this host: listen on loopback only (c10d's own server would listen on
    // every interface, unauthenticated). Ranks on other hosts need it reachable: there it
    // listens on every interface, as torchrun's store does (docs/ddp.md, "DDP ranks and their rendezvous").
    if (is_loopback_address(addr)) options.masterListenFd = listening_socket(addr, port);
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
  check_resolves(addr);
  try {
    const QuietC10Log quiet;
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
    // c10d warns twice for every wait that runs out; the caller decides what that means.
    const QuietC10Log quiet;
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

void wait_for_test_gate(c10d::Store& store, const std::string& key, std::chrono::milliseconds timeout) {
  const char* gated = std::getenv("GPUBENCH_TEST_GATE_STORE_READS");
  if (gated != nullptr && std::string(gated) == "1") (void)wait_for_key(store, key + "/gate", timeout);
}

std::string to_text(const std::vector<std::uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }
std::vector<std::uint8_t> to_bytes(const std::string& text) { return std::vector<std::uint8_t>(text.begin(), text.end()); }

}  // namespace gpubench
