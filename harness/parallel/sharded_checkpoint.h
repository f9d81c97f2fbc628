#pragma once
// The checkpoint of a sharded run as one model and one optimizer: every rank's shards of
// the parameters and of Adam's moments gathered (FSDP's full_state_dict; rank 0 keeps and
// saves it, the others take part a unit at a time), so the round trip saves, loads and
// compares what a single process would. Collective: every rank calls it.
#include <memory>

#include <torch/torch.h>

#include "harness/parallel/sharded_data_parallel.h"

namespace gpubench {

// After sharded.gather_whole_model(keep): with `keep`, an Adam over the whole model's
// parameters, with the hyper-parameters of `sharded_optimizer` (which steps the shards)
// and each parameter's state viewing the gathered moments (a shard never stepped: no
// state, as Adam before its first step); without, nullptr, having taken part.
std::unique_ptr<torch::optim::Adam> consolidated_adam(ShardedDataParallel& sharded, torch::optim::Adam& sharded_optimizer,
                                                      bool keep);

}  // namespace gpubench
