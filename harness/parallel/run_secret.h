#pragma once
// The secret one run's ranks share, so that what they hand each other through the
// rendezvous store (which any local user can reach) is authenticated (store_seal.h).
// gpubench's own launchers (the matrix runner's ranks, --nproc) make a fresh one per run
// and give it to the ranks they start in their environment (GPUBENCH_RUN_SECRET): a
// process's environment is readable only by its own user and root (/proc/PID/environ is
// mode 0400 and ptrace-checked), never by other users as its command line is. Under
// torchrun or Slurm the user exports one to every rank; without it results are not
// authenticated, and the row says so.
#include <optional>
#include <string>

#include "harness/parallel/launch_env.h"

namespace gpubench {

// A secret of 32 bytes from the kernel's random source (getrandom), as 64 hex digits.
// Throws std::runtime_error if the kernel gives none.
std::string new_run_secret();

// GPUBENCH_RUN_SECRET as `lookup` gives it; nullopt when unset. Throws UsageError, never
// quoting it, when it is shorter than kMinRunSecretChars (empty included).
constexpr std::size_t kMinRunSecretChars = 16;
std::optional<std::string> run_secret_from(const EnvLookup& lookup);

}  // namespace gpubench
