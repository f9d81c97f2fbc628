#include "harness/run/loss_readback.h"

#include <stdexcept>

namespace gpubench {

double HostLossReadback::wait_oldest() {
  if (values_.empty()) throw std::logic_error("LossReadback::wait_oldest with no loss pending");
  const double value = values_.front();
  values_.pop_front();
  return value;
}

}  // namespace gpubench
