#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpubench {

// Differences between two reports' run environments that make a comparison doubtful,
// one line each, e.g. "torch_version differs: BASE 1.13.0, NEW 2.11.0". Checked: GPU
// names (env.cuda.devices[].name), env.cpu_model, env.cores, env.threads,
// env.torch_version, env.torch_cuda, env.blas and matrix.preset. A field missing on one
// side counts as a difference; missing on both is not checked. Reports with no env
// record at all get one line saying so.
// `base_label` / `next_label` name the two reports in the lines (runs of one side are
// checked against each other too: "BASE run 'a/run-01.json'").
std::vector<std::string> environment_warnings(const nlohmann::json& base, const nlohmann::json& next,
                                              const std::string& base_label = "BASE",
                                              const std::string& next_label = "NEW");

// Differences in one config's workload (batch size, model shape...), e.g.
// "mlp/cpu/fp32: workload.global_batch_size differs: BASE 256, NEW 512".
std::vector<std::string> workload_warnings(const std::string& config_id, const nlohmann::json& base_result,
                                           const nlohmann::json& next_result);

}  // namespace gpubench
