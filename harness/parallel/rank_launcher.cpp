#include "harness/parallel/rank_launcher.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "core/config/errors.h"
#include "core/io/interrupt.h"
#include "harness/parallel/launch_store.h"
#include "harness/parallel/run_secret.h"

namespace gpubench {

std::map<std::string, std::string> local_rank_environment(int rank, int world_size, int port, const std::string& secret) {
  std::map<std::string, std::string> env = {{"RANK", std::to_string(rank)},
                                            {"WORLD_SIZE", std::to_string(world_size)},
                                            {"LOCAL_RANK", std::to_string(rank)},
                                            {"LOCAL_WORLD_SIZE", std::to_string(world_size)},
                                            {"MASTER_ADDR", "127.0.0.1"},
                                            {"MASTER_PORT", std::to_string(port)},
                                            {launch_vars::kAgentStore, "1"},
                                            {launch_vars::kLauncher, "gpubench"}};
  if (!secret.empty()) env[launch_vars::kRunSecret] = secret;
  return env;
}

std::string visible_device_for(int local_rank, const EnvLookup& lookup) {
  const std::string visible = lookup("CUDA_VISIBLE_DEVICES").value_or("");
  std::vector<std::string> entries;
  std::string entry;
  for (char ch : visible + ",") {
    if (ch != ',') {
      entry += ch;
    } else if (!entry.empty()) {
      entries.push_back(entry);
      entry.clear();
    }
  }
  if (local_rank < static_cast<int>(entries.size())) return entries[static_cast<std::size_t>(local_rank)];
  return std::to_string(local_rank);
}

std::unique_ptr<RankLauncher> RankLauncher::from_environment(double comm_timeout_s, const EnvLookup& lookup) {
  std::unique_ptr<RankLauncher> launcher(new RankLauncher(read_launch_env(lookup), comm_timeout_s));
  const LaunchEnv& env = launcher->env_;
  // Launched alone, this process starts every rank: a fresh secret for this run. As one rank,
  // the one the launcher (--nproc) or the user (torchrun, Slurm) gave every rank, if any.
  launcher->secret_ = env.distributed() ? run_secret_from(lookup) : std::optional<std::string>(new_run_secret());
  launcher->seal_ = StoreSeal(launcher->secret_);
  if (!env.distributed() || env.master_port == 0) return launcher;
  if (env.launcher_hosts_store || env.rank != 0)
    launcher->store_ = connect_store(env.master_addr, env.master_port, launcher->comm_timeout());
  else
    launcher->store_ = host_store(env.master_addr, env.master_port, launcher->comm_timeout());
  return launcher;
}

std::chrono::milliseconds RankLauncher::comm_timeout() const {
  return std::chrono::milliseconds(static_cast<std::int64_t>(comm_timeout_s_ * 1000));
}

std::string RankLauncher::key_prefix() const {
  // Per torchrun attempt: a restarted job must not read the previous attempt's keys.
  return external() ? "gpubench/attempt" + std::to_string(env_.restart_count) : "gpubench/matrix";
}

void RankLauncher::agree_on_configs(const std::vector<std::string>& config_ids) {
  if (!external() || !store_) return;
  const std::string key = key_prefix() + "/configs";
  const std::string mine = nlohmann::json(config_ids).dump();
  if (env_.rank == 0) {
    store_->set(key, to_bytes(seal_.seal(key, mine)));
    return;
  }
  if (!wait_for_key(*store_, key, comm_timeout()))
    throw UsageError("rank 0 did not publish its matrix within --comm-timeout " +
                     std::to_string(static_cast<int>(comm_timeout_s_)) + " s: is rank 0 running gpubench with the same flags?");
  std::string theirs;
  try {
    theirs = seal_.open(key, to_text(store_->get(key)));
  } catch (const SealBroken& broken) {
    throw UsageError("rank 0's matrix in the rendezvous store failed authentication: " + std::string(broken.what()));
  }
  if (theirs != mine)
    throw UsageError("rank " + std::to_string(env_.rank) + " expands --matrix to " + mine + " but rank 0 to " + theirs +
                     ": every rank must be started with the same flags");
}

std::optional<std::string> RankLauncher::skip_reason(const Config& config) const {
  if (!external()) return std::nullopt;
  const std::string launch = "launched as " + env_.describe();
  if (!config.multi_rank())
    return launch + ": only ddp-N, zero1-N, zero2-N or fsdp-N configs with N = " + std::to_string(env_.world_size) +
           " run under a distributed launcher (run the others without it)";
  if (config.world_size != env_.world_size)
    return to_string(config.parallel) + "-" + std::to_string(config.world_size) + " needs " +
           std::to_string(config.world_size) + " ranks; " + launch;
  return std::nullopt;
}

std::vector<std::pair<int, RankExit>> RankLauncher::launch(const ConfigLaunch& request) {
  std::vector<int> ranks;
  std::vector<RankProcessSpec> specs;
  const std::string prefix = key_prefix() + "/" + request.scope;
  if (external()) {
    RankProcessSpec spec{request.argv_for_rank(env_.rank), {{launch_vars::kAgentStore, "1"}, {launch_vars::kStorePrefix, prefix}}};
    if (secret_) spec.env[launch_vars::kRunSecret] = *secret_;
    if (request.cuda) spec.env["CUDA_VISIBLE_DEVICES"] = visible_device_for(env_.local_rank);
    ranks.push_back(env_.rank);
    specs.push_back(spec);
  } else {
    if (!store_) {
      store_ = host_store("127.0.0.1", 0, comm_timeout());
      store_port_ = hosted_store_port(store_);
    }
    for (int rank = 0; rank < request.world_size; ++rank) {
      RankProcessSpec spec{request.argv_for_rank(rank),
                           local_rank_environment(rank, request.world_size, store_port_, secret_.value_or(""))};
      spec.env[launch_vars::kStorePrefix] = prefix;
      if (request.cuda) spec.env["CUDA_VISIBLE_DEVICES"] = visible_device_for(rank);
      ranks.push_back(rank);
      specs.push_back(spec);
    }
  }
  for (auto& spec : specs) spec.stdout_to_stderr = true;  // a config's ranks print nothing of the report
  RankWaitPolicy policy;
  policy.timeout_s = request.timeout_s;
  // The first rank to fail found the dead or stalled peer (its collective failed, or
  // timed out after --comm-timeout); once its process is gone, a healthy survivor's
  // collective with it fails at once (connection reset) and it reports within seconds. A
  // rank still running after kPeerGrace_s is the stalled one, or blocked on it: SIGTERM,
  // then SIGKILL (a SIGSTOPped process ignores SIGTERM until continued). So a config ends
  // within --comm-timeout + kPeerGrace_s + kTermGrace_s (+ process exits) of a stall.
  policy.after_peer_failure_s = kPeerGrace_s;
  policy.term_grace_s = kTermGrace_s;
  const std::vector<RankExit> exits = run_rank_processes(specs, policy);
  std::vector<std::pair<int, RankExit>> out;
  for (std::size_t i = 0; i < ranks.size(); ++i) out.emplace_back(ranks[i], exits[i]);
  return out;
}

// The store is reachable by other local users (issue 61, item 1): a value that is not the
// object ranks write (not JSON, another type, fields of other types) is that rank's failure
// with the reason, never a crash that loses the whole report (item 2).
RankReport parsed_rank_report(const std::string& value) {
  RankReport report;
  try {
    const auto text = nlohmann::json::parse(value);
    const auto is = [&](const char* key, bool (nlohmann::json::*type)() const noexcept) {
      return !text.contains(key) || (text.at(key).*type)();
    };
    if (!text.is_object() || !text.contains("ok") || !is("ok", &nlohmann::json::is_boolean) ||
        !is("reason", &nlohmann::json::is_string) || !is("peak_rss_bytes", &nlohmann::json::is_number_unsigned) ||
        !is("wall_s", &nlohmann::json::is_number))
      throw std::runtime_error("not a JSON object of its fields");
    report.ok = text.value("ok", false);
    report.reason = text.value("reason", "");
    report.peak_rss_bytes = text.value("peak_rss_bytes", std::uint64_t{0});
    report.wall_s = text.value("wall_s", 0.0);
  } catch (const std::exception& error) {
    report = RankReport{};
    // The value itself is not quoted: whoever wrote it would write into the row's message.
    report.reason = std::string("its outcome in the rendezvous store is not what a rank writes (") +
                    (dynamic_cast<const nlohmann::json::parse_error*>(&error) != nullptr ? "not JSON" : "not an object of "
                                                                                                       "its fields") +
                    "): expected {\"ok\": ..., \"reason\": ...}";
  }
  return report;
}

RankReport opened_rank_report(const StoreSeal& seal, const std::string& key, int rank, const std::string& sealed) {
  try {
    return parsed_rank_report(seal.open(key, sealed));
  } catch (const SealBroken& broken) {
    RankReport report;
    report.reason = "rank " + std::to_string(rank) + "'s report failed authentication: " + broken.what();
    return report;
  }
}

namespace {

// wait_for_key in slices, so that a SIGTERM or Ctrl-C (torchrun ending its workers after a
// peer died) ends the wait instead of the launcher's SIGKILL doing it 30 s later.
enum class KeyWait { Found, TimedOut, Interrupted };
KeyWait wait_for_key_or_interrupt(c10d::Store& store, const std::string& key, std::chrono::milliseconds timeout) {
  constexpr std::chrono::milliseconds kSlice{250};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (wait_for_key(store, key, std::clamp(left, std::chrono::milliseconds{1}, kSlice))) return KeyWait::Found;
    if (interrupt_signal() != 0) return KeyWait::Interrupted;
    if (left <= kSlice) return KeyWait::TimedOut;
  }
}

}  // namespace

std::vector<std::pair<int, RankReport>> RankLauncher::exchange(const std::string& scope, int world_size,
                                                               const std::vector<std::pair<int, RankReport>>& local) {
  if (!external() || !store_) return local;
  const std::string prefix = key_prefix() + "/" + scope + "/report/";
  for (const auto& [rank, report] : local) {
    const nlohmann::json text = {{"ok", report.ok}, {"reason", report.reason}, {"peak_rss_bytes", report.peak_rss_bytes}, {"wall_s", report.wall_s}};
    const std::string key = prefix + std::to_string(rank);
    store_->set(key, to_bytes(seal_.seal(key, text.dump())));
  }
  if (env_.rank != 0) return local;
  std::vector<std::pair<int, RankReport>> all;
  // The ranks run in lockstep until their last collective: after a run that went well a
  // peer's report comes soon after ours, but may trail by its checkpoint round trip. After
  // a failed one (a dead or stalled peer), a healthy peer's collective with this rank's
  // ended process fails at once: what has not come within the grace is not coming.
  const bool rank0_ok = !local.empty() && local.front().second.ok;
  const auto wait = rank0_ok ? comm_timeout() + std::chrono::seconds(30)
                             : std::chrono::milliseconds(static_cast<long long>((kPeerGrace_s + kTermGrace_s) * 1000));
  for (int rank = 0; rank < world_size; ++rank) {
    // This process's own ranks' reports as it has them: only a peer's is read back.
    const auto own = std::find_if(local.begin(), local.end(), [&](const auto& entry) { return entry.first == rank; });
    if (own != local.end()) {
      all.push_back(*own);
      continue;
    }
    RankReport report;
    const std::string key = prefix + std::to_string(rank);
    const KeyWait outcome = wait_for_key_or_interrupt(*store_, key, wait);
    if (outcome == KeyWait::Found) {
      wait_for_test_gate(*store_, key, wait);
      report = opened_rank_report(seal_, key, rank, to_text(store_->get(key)));
    } else if (outcome == KeyWait::Interrupted) {
      report.reason = "sent no outcome before rank 0 was stopped by " + interrupt_signal_name() +
                      " (its gpubench process may have died)";
    } else {
      report.reason = "reported no outcome within " + std::to_string(wait.count() / 1000) +
                      " s (its gpubench process may have died)";
    }
    all.emplace_back(rank, report);
  }
  return all;
}

}  // namespace gpubench
