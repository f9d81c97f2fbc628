#pragma once
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "workloads/workload.h"

namespace gpubench {

struct CheckpointCheck {
  bool done = true;               // false: the round trip could not run (mismatch says why)
  double save_ms = 0, load_ms = 0;
  std::uint64_t bytes = 0;
  bool parameters_equal = false;  // every parameter and buffer bitwise equal
  bool outputs_equal = false;     // eval-mode outputs on the same batch identical
  // False where the model's own eval-mode output differs call to call (a traced module's
  // dropout, frozen in train mode): there is no output to compare, outputs_note says so, and
  // the parameters and buffers (compared bitwise) decide.
  bool outputs_compared = true;
  std::string outputs_note;
  std::string mismatch;           // first difference found, if any
  // What the row's status reads: parameters and buffers equal, and the outputs where they compare.
  bool passed() const { return parameters_equal && (!outputs_compared || outputs_equal); }
  nlohmann::json to_json() const;
};

// Saves model + optimizer with torch's serializer to `path`, loads them into fresh
// instances made by `workload` with the trained model's `techniques` (an fp8 model's
// outputs are an fp8 model's, never a plain one's), and verifies the round trip bitwise.
// `channels_last`: the trained model's 4-d tensors are in that layout, and the restored one
// is put in it too before the outputs are compared (a different layout picks different kernels).
CheckpointCheck check_checkpoint_round_trip(const Workload& workload, Model& trained, torch::optim::Adam& optimizer,
                                            const torch::Tensor& probe_input, const std::string& path,
                                            bool channels_last = false, const ModelTechniques& techniques = {});

// check_checkpoint_round_trip in a private folder made under `scratch_dir` (no other user
// can plant a link for torch::save to follow). A round trip that cannot run (a full TMPDIR,
// an unwritable folder) comes back not done, with the reason in `mismatch`: the row's
// failure, not the loss of what the steps measured (issue 61, item 7).
CheckpointCheck round_trip_in_private_dir(const std::string& scratch_dir, const Workload& workload, Model& trained,
                                          torch::optim::Adam& optimizer, const torch::Tensor& probe_input,
                                          bool channels_last, const ModelTechniques& techniques);

}  // namespace gpubench
