#pragma once
// The checkpoint of an ep-K run as one model and one optimizer: after every expert was
// gathered (ExpertParallel::gather_experts), Adam's moments of the experts a rank does not
// hold are broadcast by the rank that does, so rank 0 saves what a single process would.
// Collective over the experts' group: every rank calls it.
#include <memory>

#include <torch/torch.h>

#include "harness/parallel/expert_parallel.h"
#include "workloads/model.h"

namespace gpubench {

// An Adam over every parameter of `model` (module order, as a fresh model lists them) with
// `trained`'s hyper-parameters: the state of a parameter `trained` (or `dense`, a sharded
// run's consolidated optimizer) holds is carried over, and each expert's moments come from
// the rank that held it. Without `keep`, nullptr, having taken part.
std::unique_ptr<torch::optim::Adam> whole_adam_with_experts(ExpertParallel& experts, const Model& model,
                                                            torch::optim::Adam& trained, torch::optim::Adam* dense, bool keep);

}  // namespace gpubench
