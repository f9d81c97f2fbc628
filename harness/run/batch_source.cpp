#include "harness/run/batch_source.h"

namespace gpubench {

LoaderBatchSource::LoaderBatchSource(Dataset dataset, LoaderOptions options, torch::Device device)
    : device_(device) {
  auto loader_options = torch::data::DataLoaderOptions(static_cast<size_t>(options.batch_size))
                            .workers(static_cast<size_t>(options.workers))
                            .drop_last(true);
  const auto size = *dataset.size();
  using Sharded = torch::data::StatelessDataLoader<Dataset, DistributedShardSampler>;
  loader_ = std::make_unique<Sharded>(std::move(dataset), DistributedShardSampler(size, options.shard), loader_options);
}

Batch LoaderBatchSource::next() {
  if (!position_ || *position_ == loader_->end()) position_ = loader_->begin();  // next epoch
  Batch batch = **position_;
  ++*position_;
  return batch;
}

Batch LoaderBatchSource::to_device(Batch host_batch) {
  if (device_.is_cpu()) return host_batch;
  return {host_batch.data.to(device_), host_batch.target.to(device_)};
}

}  // namespace gpubench
