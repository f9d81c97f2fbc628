#include "bench/collective_session.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <stdexcept>

#include "bench/collective_command.h"
#include "bench/collective_round.h"

namespace gpubench::bench {
namespace {

std::map<std::string, std::unique_ptr<CollectiveSession>>& sessions() {
  static std::map<std::string, std::unique_ptr<CollectiveSession>> live;
  return live;
}

constexpr std::chrono::milliseconds kPeerExitGrace{5000};

// A peer's command line that cannot be right, said at once (exit 2): std::stoi read port
// 70000 as 4464 and "2x" as 2, and a bad rank or backend was found only after 40-60 s of
// connecting, with c10d's stack traces (issue 61, item 9).
struct BadPeerArguments : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

int peer_number(const std::string& text, const char* what, int min, int max) {
  const bool digits = !text.empty() && text.size() <= 9 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int value = digits ? std::stoi(text) : -1;
  if (!digits || value < min || value > max)
    throw BadPeerArguments(std::string(what) + " '" + text + "': expected a whole number in " + std::to_string(min) +
                           ".." + std::to_string(max));
  return value;
}

struct PeerArguments {
  std::string backend;
  std::uint16_t port = 0;
  int rank = 0, world = 0;
};

PeerArguments peer_arguments(const std::vector<std::string>& arguments) {
  if (arguments.size() != 4)
    throw BadPeerArguments("expected: " + std::string(kCollectivePeerFlag) + " BACKEND PORT RANK WORLD");
  PeerArguments out;
  out.backend = arguments[0];
  if (out.backend != "gloo" && out.backend != "nccl")
    throw BadPeerArguments("backend '" + out.backend + "': expected gloo or nccl");
  out.port = static_cast<std::uint16_t>(peer_number(arguments[1], "port", 1, 65535));
  out.world = peer_number(arguments[3], "world size", 2, 1024);
  out.rank = peer_number(arguments[2], "rank", 1, out.world - 1);  // rank 0 is the benchmark itself
  if (out.backend == "nccl" && !torch::cuda::is_available())
    throw BadPeerArguments("backend nccl needs a CUDA device, and LibTorch sees none here");
  return out;
}

}  // namespace

CollectiveSession::CollectiveSession(const std::string& backend, int world) : backend_(backend), world_(world) {
  store_ = make_loopback_store(/*server=*/true, /*port=*/0);
  const std::string port = std::to_string(store_->getPort());
  for (int rank = 1; rank < world_; ++rank)
    peers_.push_back(std::make_unique<PeerProcess>(
        std::vector<std::string>{kCollectivePeerFlag, backend_, port, std::to_string(rank), std::to_string(world_)}));
  // Blocks until every peer joined, or kCollectiveTimeout (a peer that failed to start).
  group_ = make_collective_group(backend_, store_, 0, world_);
}

CollectiveSession::~CollectiveSession() {
  try {
    CollectiveCommand stop;
    stop.stop = true;
    send_command(*store_, sequence_++, stop);
  } catch (const std::exception&) {
    // The peers are gone already; the bounded stop below reaps them.
  }
  for (auto& peer : peers_) peer->stop(kPeerExitGrace);
  if (failed_)
    (void)group_.release();
  else
    shutdown_group(group_);
}

void CollectiveSession::send_batch(const Collective& collective, std::int64_t bytes, std::int64_t iterations) {
  CollectiveCommand command;
  command.collective = collective.name;
  command.bytes = bytes;
  command.iterations = iterations;
  send_command(*store_, sequence_++, command);
}

CollectiveSession& CollectiveSession::get(const std::string& backend) {
  auto& live = sessions();
  auto found = live.find(backend);
  if (found == live.end())
    found = live.emplace(backend, std::make_unique<CollectiveSession>(backend, backend_world_size(backend))).first;
  return *found->second;
}

void CollectiveSession::discard(const std::string& backend) {
  auto& live = sessions();
  const auto found = live.find(backend);
  if (found == live.end()) return;
  // Kill first: out-of-step peers would not answer a stop command until their timeout.
  for (auto& peer : found->second->peers_) peer->stop(std::chrono::milliseconds(0));
  found->second->failed_ = true;
  live.erase(found);
}

void shutdown_collective_sessions() { sessions().clear(); }

int run_collective_peer(const std::vector<std::string>& arguments) {
  PeerArguments peer;
  try {
    peer = peer_arguments(arguments);
  } catch (const BadPeerArguments& error) {
    std::cerr << "gpubench-bench collective peer: " << error.what() << "\n";
    return 2;
  }
  const std::string& backend = peer.backend;
  const std::uint16_t port = peer.port;
  const int rank = peer.rank, world = peer.world;
  try {
    const torch::Device device = backend_device(backend, rank);
    at::set_num_threads(1);  // as rank 0 does while it measures (collective_bench.cpp says why)
    auto store = make_loopback_store(/*server=*/false, port);
    auto group = make_collective_group(backend, store, rank, world);
    for (std::int64_t sequence = 0;; ++sequence) {
      const CollectiveCommand command = receive_command(*store, sequence);
      if (command.stop) {
        shutdown_group(group);
        return 0;
      }
      CollectiveRound round(collective_named(command.collective), *group, rank, world, command.bytes, device);
      for (std::int64_t i = 0; i < command.iterations; ++i) round.run_one();
      round.wrong_elements_all_ranks();
    }
  } catch (const std::exception& error) {
    std::cerr << "gpubench-bench collective peer: " << message_of(error) << "\n";
    return 1;
  }
}

}  // namespace gpubench::bench
