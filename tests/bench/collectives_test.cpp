// The collectives' table (sizes, bus factors, checks) and real checked rounds of each
// collective between two ranks on Gloo, the ranks threads of this process.
#include "bench/collectives.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <stdlib.h>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "bench/collective_group.h"
#include "bench/collective_round.h"
#include "harness/ceilings/ceilings_file.h"

namespace gpubench::bench {
namespace {

TEST(CollectiveTable, NamesTheCollectivesTheCeilingsFileHasKeysFor) {
  std::vector<std::string> names;
  for (const auto& collective : collectives()) names.push_back(collective.name);
  EXPECT_EQ(names, collective_ceiling_names());
  EXPECT_STREQ(collective_named("reducescatter").description, "reduce-scatter");
  try {
    collective_named("alltoall");
    ADD_FAILURE() << "no error for an unknown collective";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "unknown collective 'alltoall', expected one of allreduce, allgather, reducescatter");
  }
}

void expect_buffers(const std::string& name, std::int64_t bytes, int world, std::int64_t input, std::int64_t output,
                    bool in_place, std::int64_t counted) {
  const CollectiveBuffers b = collective_named(name).buffers(bytes, world);
  EXPECT_EQ(b.input_elements, input) << name << " " << bytes << " bytes, " << world << " ranks";
  EXPECT_EQ(b.output_elements, output) << name << " " << bytes << " bytes, " << world << " ranks";
  EXPECT_EQ(b.in_place, in_place) << name;
  EXPECT_EQ(b.counted_bytes, counted) << name << " " << bytes << " bytes, " << world << " ranks";
}

// nccl-tests' size: all-reduce's buffer, all-gather's output, reduce-scatter's input, the
// latter two rounded down to a multiple of the ranks (at least one element each).
TEST(CollectiveTable, SizesCountWhatNcclTestsCounts) {
  expect_buffers("allreduce", 4096, 2, 1024, 1024, true, 4096);
  expect_buffers("allreduce", 4096, 3, 1024, 1024, true, 4096);
  expect_buffers("allgather", 4096, 2, 512, 1024, false, 4096);
  expect_buffers("allgather", 4096, 3, 341, 1023, false, 4092);
  expect_buffers("reducescatter", 4096, 2, 1024, 512, false, 4096);
  expect_buffers("reducescatter", 4096, 3, 1023, 341, false, 4092);
  expect_buffers("allgather", 4, 8, 1, 8, false, 32);
  expect_buffers("reducescatter", 4, 8, 8, 1, false, 32);
  expect_buffers("allreduce", 1, 2, 1, 1, true, 4);
}

TEST(CollectiveTable, BusFactorsAreNcclTests) {
  const auto& all_reduce = collective_named("allreduce");
  const auto& all_gather = collective_named("allgather");
  const auto& reduce_scatter = collective_named("reducescatter");
  EXPECT_DOUBLE_EQ(all_reduce.bus_factor(2), 1.0);   // 2(N-1)/N
  EXPECT_DOUBLE_EQ(all_reduce.bus_factor(8), 1.75);
  EXPECT_DOUBLE_EQ(all_gather.bus_factor(2), 0.5);   // (N-1)/N
  EXPECT_DOUBLE_EQ(all_gather.bus_factor(8), 0.875);
  EXPECT_DOUBLE_EQ(reduce_scatter.bus_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(reduce_scatter.bus_factor(3), 2.0 / 3);
  EXPECT_DOUBLE_EQ(all_reduce.bus_factor(1), 0.0);  // one rank moves nothing
}

TEST(CollectiveTable, AWrongBatchReportsWhyAndNoBandwidth) {
  const BatchReport wrong = report_batch(collective_named("allgather"), 3, 4096, 2);
  EXPECT_EQ(wrong.error, "all-gather results wrong: 3 elements differ from the expected over 2 ranks");
  EXPECT_EQ(wrong.gigabytes, 0.0);
  EXPECT_EQ(wrong.bus_gigabytes, 0.0);
  const BatchReport right = report_batch(collective_named("reducescatter"), 0, 4096, 2);
  EXPECT_EQ(right.error, "");
  EXPECT_DOUBLE_EQ(right.gigabytes, 4.096e-6);
  EXPECT_DOUBLE_EQ(right.bus_gigabytes, 2.048e-6);
  EXPECT_DOUBLE_EQ(report_batch(collective_named("allreduce"), 0, 4096, 4).bus_gigabytes, 4.096e-6 * 1.5);
}

// What the collective really computes from every rank's input, done here by hand.
torch::Tensor true_output(const std::string& name, const std::vector<torch::Tensor>& inputs, int rank) {
  const int world = static_cast<int>(inputs.size());
  if (name == "allgather") return torch::cat(inputs);
  const torch::Tensor sum = torch::stack(inputs).sum(0);
  if (name == "allreduce") return sum;
  return sum.chunk(world)[rank];
}

// Each rank's expected output is exactly what the collective makes of the inputs the ranks
// wrote, for an even and an uneven rank count and shifts past the pattern's period.
TEST(CollectiveTable, EachChecksWhatItsCollectiveComputes) {
  for (const auto& collective : collectives()) {
    for (const int world : {2, 3}) {
      const CollectiveBuffers b = collective.buffers(4096, world);
      const CheckPattern pattern(std::max(b.input_elements, b.output_elements), torch::kCPU);
      for (const std::int64_t shift : {-1, 0, 5, 200}) {
        std::vector<torch::Tensor> inputs;
        for (int rank = 0; rank < world; ++rank) {
          inputs.push_back(torch::empty({b.input_elements}));
          collective.fill(inputs.back(), pattern, rank, world, shift);
        }
        for (int rank = 0; rank < world; ++rank) {
          torch::Tensor expected = torch::empty({b.output_elements});
          collective.expect(expected, pattern, rank, world, shift);
          EXPECT_TRUE(torch::equal(expected, true_output(collective.name, inputs, rank)))
              << collective.name << ", " << world << " ranks, rank " << rank << ", shift " << shift;
        }
        // A rank's input differs from the next iteration's: a stale result is wrong.
        torch::Tensor next = torch::empty({b.input_elements});
        collective.fill(next, pattern, 0, world, shift + 1);
        EXPECT_FALSE(torch::equal(next, inputs[0])) << collective.name;
      }
    }
  }
}

// The two ranks are threads of this process, each with a Gloo group of its own, and torch
// 2.11's FlightRecorder (one per process, recording every Gloo collective) fills its map of
// groups outside its lock: two groups' first collectives at once crashed in 2 of 15 runs
// (SIGSEGV in std::map's insert under ProcessGroupGloo::enqueue). Real ranks are processes
// with one group each; here the recorder is switched off before any group exists.
const bool kFlightRecorderOff = ::setenv("TORCH_FR_BUFFER_SIZE", "0", /*overwrite=*/1) == 0;

struct RankOutcome {
  std::int64_t wrong = -1;
  std::int64_t counted_bytes = 0;
  std::string error;
};

// Two ranks on Gloo over loopback, each a thread running `iterations` checked collectives.
std::vector<RankOutcome> run_two_ranks(const Collective& rank0, const Collective& rank1, std::int64_t bytes,
                                       int iterations) {
  EXPECT_TRUE(kFlightRecorderOff);
  auto server = make_loopback_store(/*server=*/true, /*port=*/0);
  const std::uint16_t port = server->getPort();
  std::vector<RankOutcome> outcomes(2);
  auto rank_body = [&](int rank, const Collective& collective) {
    try {
      c10::intrusive_ptr<c10d::Store> store = server;
      if (rank != 0) store = make_loopback_store(/*server=*/false, port);
      auto group = make_collective_group("gloo", store, rank, 2);
      CollectiveRound round(collective, *group, rank, 2, bytes, torch::kCPU);
      for (int i = 0; i < iterations; ++i) EXPECT_GE(round.run_one(), 0.0);
      outcomes[rank].wrong = round.wrong_elements_all_ranks();
      outcomes[rank].counted_bytes = round.counted_bytes();
      shutdown_group(group);
    } catch (const std::exception& error) {
      outcomes[rank].error = error.what();
    }
  };
  std::thread peer(rank_body, 1, std::cref(rank1));
  rank_body(0, rank0);
  peer.join();
  return outcomes;
}

TEST(CollectiveRounds, EachCollectiveIsRightOnTwoGlooRanks) {
  for (const auto& collective : collectives()) {
    for (const std::int64_t bytes : {4096, 1 << 20}) {
      const auto outcomes = run_two_ranks(collective, collective, bytes, 3);
      for (int rank = 0; rank < 2; ++rank) {
        EXPECT_EQ(outcomes[rank].error, "") << collective.name << " rank " << rank;
        EXPECT_EQ(outcomes[rank].wrong, 0) << collective.name << " " << bytes << " bytes, rank " << rank;
        EXPECT_EQ(outcomes[rank].counted_bytes, bytes) << collective.name;
      }
    }
  }
}

// A collective that writes nothing (a barrier where it should be): the output keeps what
// was there, which no check expects.
c10::intrusive_ptr<c10d::Work> writes_nothing(gpubench::CollectiveGroup& group, torch::Tensor&, torch::Tensor&) {
  return group.barrier();
}

// An all-gather that puts the ranks' chunks in the wrong order.
c10::intrusive_ptr<c10d::Work> gathers_reversed(gpubench::CollectiveGroup& group, torch::Tensor& input,
                                                torch::Tensor& output) {
  wait_collective(group, *group._allgather_base(output, input), kCollectiveTimeout);
  output.copy_(output.view({group.getSize(), -1}).flip({0}).reshape({-1}));
  return group.barrier();
}

// A reduce-scatter that hands each rank the next rank's chunk.
c10::intrusive_ptr<c10d::Work> scatters_to_the_next_rank(gpubench::CollectiveGroup& group, torch::Tensor& input,
                                                         torch::Tensor& output) {
  torch::Tensor rotated = input.roll(-output.numel());
  c10d::ReduceScatterOptions sum;
  sum.reduceOp = c10d::ReduceOp::SUM;
  wait_collective(group, *group._reduce_scatter_base(output, rotated, sum), kCollectiveTimeout);
  return group.barrier();
}

// A rank that contributes p instead of (rank + 1) p.
void fills_without_its_factor(torch::Tensor& input, const CheckPattern& pattern, int, int world, std::int64_t shift) {
  collective_named("allreduce").fill(input, pattern, 0, world, shift);
}

TEST(CollectiveRounds, AWrongResultIsCountedOnEveryRank) {
  struct Case {
    std::string what;
    Collective rank0, rank1;
  };
  std::vector<Case> cases;
  for (const auto& collective : collectives()) {
    Collective broken = collective;
    broken.issue = writes_nothing;
    cases.push_back({std::string(collective.name) + " that writes nothing", broken, broken});
  }
  Collective reversed = collective_named("allgather");
  reversed.issue = gathers_reversed;
  cases.push_back({"allgather with its chunks reversed", reversed, reversed});
  Collective misplaced = collective_named("reducescatter");
  misplaced.issue = scatters_to_the_next_rank;
  cases.push_back({"reducescatter to the next rank", misplaced, misplaced});
  Collective unscaled = collective_named("allreduce");
  unscaled.fill = fills_without_its_factor;
  cases.push_back({"allreduce with rank 1 contributing the wrong values", collective_named("allreduce"), unscaled});

  for (const auto& c : cases) {
    const auto outcomes = run_two_ranks(c.rank0, c.rank1, 4096, 2);
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(outcomes[rank].error, "") << c.what;
      // Every element of the warm-up and both iterations, summed over the ranks (rank 0
      // sees rank 1's count too).
      EXPECT_GT(outcomes[rank].wrong, 0) << c.what << ", rank " << rank;
    }
    EXPECT_EQ(outcomes[0].wrong, outcomes[1].wrong) << c.what;
  }
}

}  // namespace
}  // namespace gpubench::bench
