// Collective bandwidth as nccl-tests reports it, for each collective of collectives.h:
// algbw = size / time (size as nccl-tests counts it: all-reduce's buffer, all-gather's
// output, reduce-scatter's input) and busbw = algbw x the collective's bus factor (what
// each rank's link carries in a ring, comparable across rank counts). The ceilings for
// DDP's gradient all-reduce and the sharded modes' all-gathers and reduce-scatters; every
// result is checked, not only timed.
// gloo: 2 processes on 127.0.0.1 (rank 0 here, rank 1 a peer process); nccl: one rank per GPU.
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/collective_group.h"
#include "bench/collective_round.h"
#include "bench/collective_session.h"
#include "bench/collectives.h"
#include "bench/registrations.h"

namespace gpubench::bench {
namespace {

// Gloo over loopback is host-memory bound: 64 MiB is past its plateau and keeps a run short.
const std::vector<std::int64_t> kGlooSizes = {4LL << 10, 64LL << 10, 1LL << 20, 16LL << 20, 64LL << 20};
const std::vector<std::int64_t> kNcclSizes = {4LL << 10, 64LL << 10, 1LL << 20, 16LL << 20, 256LL << 20, 1LL << 30};

// One intra-op thread while in scope. The untimed fill and check are elementwise ops that
// OpenMP would spread over every core, and its workers keep spinning after each region:
// on a small machine they steal the cores the collective's own threads need, and the
// ceiling would measure that contention. The peers run with one thread for the same reason.
class SingleIntraOpThread {
 public:
  SingleIntraOpThread() : previous_(at::get_num_threads()) { at::set_num_threads(1); }
  ~SingleIntraOpThread() { at::set_num_threads(previous_); }
  SingleIntraOpThread(const SingleIntraOpThread&) = delete;
  SingleIntraOpThread& operator=(const SingleIntraOpThread&) = delete;

 private:
  int previous_;
};

void measure(benchmark::State& state, const Collective& collective, CollectiveSession& session) {
  SingleIntraOpThread one_thread;
  const std::int64_t bytes = state.range(0);
  session.send_batch(collective, bytes, static_cast<std::int64_t>(state.max_iterations));
  CollectiveRound round(collective, session.group(), 0, session.world(), bytes, session.device());
  for (auto _ : state) state.SetIterationTime(round.run_one());
  const BatchReport report =
      report_batch(collective, round.wrong_elements_all_ranks(), round.counted_bytes(), session.world());
  state.counters["ranks"] = session.world();
  state.counters["correct"] = report.error.empty() ? 1 : 0;
  if (!report.error.empty()) {
    state.SkipWithError(report.error.c_str());
    return;
  }
  state.SetBytesProcessed(round.counted_bytes() * state.iterations());
  state.counters["size_bytes"] = static_cast<double>(round.counted_bytes());
  state.counters["algbw_gb_per_s"] = benchmark::Counter(report.gigabytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["busbw_gb_per_s"] =
      benchmark::Counter(report.bus_gigabytes, benchmark::Counter::kIsIterationInvariantRate);
}

void collective_benchmark(benchmark::State& state, const Collective* collective, const std::string& backend) {
  if (auto reason = backend_unavailable_reason(backend, backend_world_size(backend))) {
    state.SkipWithError(reason->c_str());
    return;
  }
  try {
    measure(state, *collective, CollectiveSession::get(backend));
  } catch (const std::exception& error) {
    // The ranks may now be out of step (a timeout, a dead peer): start a fresh group next time.
    CollectiveSession::discard(backend);
    // Without LibTorch's C++ stack trace: the row's message is read, not debugged.
    state.SkipWithError((backend + " " + collective->description + " failed: " + message_of(error)).c_str());
  }
}

void register_collective(const Collective& collective, const std::string& backend, const std::vector<std::int64_t>& sizes) {
  auto* benchmark = benchmark::RegisterBenchmark((std::string(collective.name) + "/" + backend).c_str(),
                                                 collective_benchmark, &collective, backend);
  benchmark->ArgName("bytes")->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (const auto size : sizes) benchmark->Arg(size);
}

}  // namespace

void register_collective_benchmarks() {
  for (const auto& collective : collectives()) {
    register_collective(collective, "gloo", kGlooSizes);
    register_collective(collective, "nccl", kNcclSizes);
  }
}

}  // namespace gpubench::bench
