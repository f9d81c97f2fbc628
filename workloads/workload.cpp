#include "workloads/workload.h"

#include "config/errors.h"
#include "workloads/cnn.h"
#include "workloads/mlp.h"
#include "workloads/transformer.h"

namespace gpubench {

torch::Tensor Workload::loss(const torch::Tensor& output, const torch::Tensor& targets) const {
  return torch::nn::functional::cross_entropy(output.to(torch::kFloat32), targets);
}

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names = {"mlp", "cnn", "transformer"};
  return names;
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  if (name == "mlp") return std::make_unique<MlpWorkload>();
  if (name == "cnn") return std::make_unique<CnnWorkload>();
  if (name == "transformer") return std::make_unique<TransformerWorkload>();
  throw UsageError("workload '" + name + "' is unknown: expected mlp, cnn or transformer");
}

}  // namespace gpubench
