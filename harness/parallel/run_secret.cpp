#include "harness/parallel/run_secret.h"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/config/errors.h"
#include "harness/parallel/hmac_sha256.h"

namespace gpubench {

std::string new_run_secret() {
  std::array<unsigned char, 32> bytes{};
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw std::runtime_error(std::string("cannot make the run's secret: getrandom: ") + std::strerror(errno));
    filled += static_cast<std::size_t>(got);
  }
  return lowercase_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::optional<std::string> run_secret_from(const EnvLookup& lookup) {
  std::optional<std::string> secret = lookup(launch_vars::kRunSecret);
  if (secret && secret->size() < kMinRunSecretChars)
    throw UsageError(std::string(launch_vars::kRunSecret) + " is " + std::to_string(secret->size()) +
                     " characters long: expected at least " + std::to_string(kMinRunSecretChars) +
                     " that other users cannot guess, the same on every rank (e.g. `openssl rand -hex 32`)");
  return secret;
}

}  // namespace gpubench
