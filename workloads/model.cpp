#include "workloads/model.h"

namespace gpubench {

std::int64_t Model::parameter_count() const {
  std::int64_t count = 0;
  for (const auto& parameter : module->parameters()) count += parameter.numel();
  return count;
}

}  // namespace gpubench
