#pragma once
// What ranks hand each other through the rendezvous store, sealed under the run's secret
// (run_secret.h). The store answers anyone who reaches its port (on loopback: every local
// user), so a value read back is trusted only when it carries an HMAC-SHA256, under that
// secret, of the key it was written under and the value itself: a value written by a
// process without the secret, or copied from another key (another rank, config or
// attempt), fails to open. What it cannot stop, a writer breaking the run (a value that
// fails is that config's failure), any torch job's store allows too.
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench {

// A sealed value that did not open: the reason, never quoting the value.
class SealBroken : public std::runtime_error {
 public:
  explicit SealBroken(const std::string& why) : std::runtime_error(why) {}
};

class StoreSeal {
 public:
  // Without a secret, values are written and read as they are (not authenticated).
  explicit StoreSeal(std::optional<std::string> secret) : secret_(std::move(secret)) {}

  bool authenticates() const { return secret_.has_value(); }

  // `value` as written under `key` (the name that binds it: the full key, prefix and all).
  std::string seal(const std::string& key, const std::string& value) const;

  // The value a seal() under `key` with this secret wrote; throws SealBroken saying why
  // (no seal, or one this secret did not make) otherwise.
  std::string open(const std::string& key, const std::string& sealed) const;

  // What the row says of how its ranks' numbers crossed the store (ddp.results_authentication),
  // `launcher` as LaunchEnv names it.
  std::string describe(const std::string& launcher) const;

 private:
  std::optional<std::string> secret_;
};

}  // namespace gpubench
