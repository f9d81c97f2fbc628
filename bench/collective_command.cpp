#include "bench/collective_command.h"

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace gpubench::bench {
namespace {

std::string command_key(std::int64_t sequence) { return "gpubench/collective/command/" + std::to_string(sequence); }

}  // namespace

void send_command(c10d::Store& store, std::int64_t sequence, const CollectiveCommand& command) {
  // A stop names no collective: "-" keeps the fields in place.
  const std::string text = (command.collective.empty() ? std::string("-") : command.collective) + " " +
                           std::to_string(command.bytes) + " " + std::to_string(command.iterations) + " " +
                           (command.stop ? "1" : "0");
  store.set(command_key(sequence), std::vector<std::uint8_t>(text.begin(), text.end()));
}

CollectiveCommand receive_command(c10d::Store& store, std::int64_t sequence) {
  const std::string key = command_key(sequence);
  // Polls rather than Store::wait, whose wait is bounded by the store's timeout.
  while (!store.check({key})) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto bytes = store.get(key);
  std::istringstream text(std::string(bytes.begin(), bytes.end()));
  CollectiveCommand command;
  int stop = 0;
  if (!(text >> command.collective >> command.bytes >> command.iterations >> stop))
    throw std::runtime_error("malformed collective command '" + text.str() + "'");
  if (command.collective == "-") command.collective.clear();
  command.stop = stop != 0;
  return command;
}

}  // namespace gpubench::bench
