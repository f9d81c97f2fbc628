#include "harness/parallel/store_seal.h"

#include "harness/parallel/hmac_sha256.h"

namespace gpubench {
namespace {

// "<tag><64 hex digits>\n<value>"
constexpr const char* kSealTag = "gpubench-hmac-sha256:";
constexpr std::size_t kMacDigits = 64;

// The key and the value, unambiguously joined (a key has no NUL), under a version tag.
std::string sealed_message(const std::string& key, const std::string& value) {
  return std::string("gpubench store value v1") + '\0' + key + '\0' + value;
}

}  // namespace

std::string StoreSeal::seal(const std::string& key, const std::string& value) const {
  if (!secret_) return value;
  return kSealTag + hmac_sha256_hex(*secret_, sealed_message(key, value)) + "\n" + value;
}

std::string StoreSeal::open(const std::string& key, const std::string& sealed) const {
  const std::string tag = kSealTag;
  const std::size_t header = tag.size() + kMacDigits + 1;
  const bool has_seal = sealed.size() >= header && sealed.compare(0, tag.size(), tag) == 0 && sealed[header - 1] == '\n';
  if (!secret_) {
    if (has_seal)
      throw SealBroken("it is sealed with a secret this rank does not have: export the same GPUBENCH_RUN_SECRET to "
                       "every rank, or to none");
    return sealed;
  }
  if (!has_seal)
    throw SealBroken("it carries no HMAC of this run's secret: a process outside the run wrote it (another user who "
                     "reached the rendezvous store), or a rank without GPUBENCH_RUN_SECRET");
  const std::string value = sealed.substr(header);
  if (!equal_in_constant_time(sealed.substr(tag.size(), kMacDigits), hmac_sha256_hex(*secret_, sealed_message(key, value))))
    throw SealBroken("its HMAC is not this run's secret's for this key: a process outside the run wrote it (another "
                     "user who reached the rendezvous store), or the ranks' GPUBENCH_RUN_SECRET differ");
  return value;
}

std::string StoreSeal::describe(const std::string& launcher) const {
  if (secret_)
    return "every rank's numbers and outcome crossed the rendezvous store with an HMAC-SHA256 under this run's secret "
           "(GPUBENCH_RUN_SECRET: gpubench's launcher makes one per run, under torchrun or Slurm the user exports it), "
           "checked by rank 0: a value another user writes into the store fails the config, never enters the report";
  return "not authenticated: launched by " + launcher + " without GPUBENCH_RUN_SECRET, so anyone who can reach the "
         "rendezvous store (MASTER_ADDR:MASTER_PORT) while the job runs could have changed these numbers; export the same "
         "secret to every rank (e.g. GPUBENCH_RUN_SECRET=$(openssl rand -hex 32))";
}

}  // namespace gpubench
