// All-reduce bandwidth as nccl-tests reports it: algbw = bytes / time and busbw = algbw *
// 2(n-1)/n (what each rank's link carries in a ring, comparable across rank counts). The
// ceiling for DDP's gradient all-reduce; every result is checked, not only timed.
// gloo: 2 processes on 127.0.0.1 (rank 0 here, rank 1 a peer process); nccl: one rank per GPU.
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/allreduce_round.h"
#include "bench/allreduce_session.h"
#include "bench/collective_group.h"
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

void measure(benchmark::State& state, AllreduceSession& session) {
  SingleIntraOpThread one_thread;
  const std::int64_t bytes = state.range(0);
  session.send_batch(bytes, static_cast<std::int64_t>(state.max_iterations));
  AllreduceRound round(session.group(), 0, session.world(), bytes, session.device());
  for (auto _ : state) state.SetIterationTime(round.run_one());
  const std::int64_t wrong = round.wrong_elements_all_ranks();

  const double world = session.world();
  const double gigabytes = static_cast<double>(bytes) / 1e9;
  state.SetBytesProcessed(bytes * state.iterations());
  state.counters["algbw_gb_per_s"] = benchmark::Counter(gigabytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["busbw_gb_per_s"] =
      benchmark::Counter(gigabytes * 2 * (world - 1) / world, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ranks"] = world;
  state.counters["correct"] = wrong == 0 ? 1 : 0;
  if (wrong != 0)
    state.SkipWithError(("all-reduce results wrong: " + std::to_string(wrong) +
                         " elements differ from the expected sum over " + std::to_string(session.world()) + " ranks")
                            .c_str());
}

void allreduce_benchmark(benchmark::State& state, const std::string& backend) {
  if (auto reason = backend_unavailable_reason(backend, backend_world_size(backend))) {
    state.SkipWithError(reason->c_str());
    return;
  }
  try {
    measure(state, AllreduceSession::get(backend));
  } catch (const std::exception& error) {
    // The ranks may now be out of step (a timeout, a dead peer): start a fresh group next time.
    AllreduceSession::discard(backend);
    state.SkipWithError((backend + " all-reduce failed: " + error.what()).c_str());
  }
}

void register_allreduce(const std::string& backend, const std::vector<std::int64_t>& sizes) {
  auto* benchmark = benchmark::RegisterBenchmark(("allreduce/" + backend).c_str(), allreduce_benchmark, backend);
  benchmark->ArgName("bytes")->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (const auto size : sizes) benchmark->Arg(size);
}

}  // namespace

void register_allreduce_benchmarks() {
  register_allreduce("gloo", kGlooSizes);
  register_allreduce("nccl", kNcclSizes);
}

}  // namespace gpubench::bench
