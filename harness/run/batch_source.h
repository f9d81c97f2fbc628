#pragma once
#include <memory>
#include <optional>

#include <torch/torch.h>

#include "harness/parallel/shard_sampler.h"
#include "workloads/data/dataset.h"

namespace gpubench {

using Batch = torch::data::Example<>;

// Where the trainer's batches come from. The Data phase is next(); the H2D phase is
// to_device(). Separate calls so each phase is timed on its own; a pinned, prefetching
// source overlaps the copy of batch N+1 with step N and only waits here.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual Batch next() = 0;
  virtual Batch to_device(Batch host_batch) = 0;
};

struct LoaderOptions {
  std::int64_t batch_size = 0;
  int workers = 0;
  // This process's shard (parallel/shard_sampler.h): the whole dataset for one process
  // (world size 1), a DDP rank's share otherwise. One sampler for both, so one process with
  // batch B*N sees step for step what N ranks with batch B see together: a DDP row's loss
  // curve is the single process's at the same global batch.
  DataShard shard;
};

// torch::data DataLoader over a Dataset: a seeded permutation per epoch, of which this
// process takes its shard, fixed batch size (drop_last), `workers` loader threads, restarting the epoch
// when it runs out. Copies to the device from ordinary (pageable) host memory.
class LoaderBatchSource : public BatchSource {
 public:
  LoaderBatchSource(Dataset dataset, LoaderOptions options, torch::Device device);
  Batch next() override;
  Batch to_device(Batch host_batch) override;

 private:
  // The loader, through its base (its type names the sampler).
  using Loader = torch::data::DataLoaderBase<Dataset, Batch, std::vector<size_t>>;
  std::unique_ptr<Loader> loader_;
  torch::optional<torch::data::Iterator<Batch>> position_;
  torch::Device device_;
};

}  // namespace gpubench
