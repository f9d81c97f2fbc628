#pragma once
// The CUPTI-backed CuptiActivityApi; only cupti_activity_api_factory.cpp includes this.
#include <memory>

#include "harness/profile/cupti_activity_api.h"

namespace gpubench {

// CuptiActivityApi over libcupti. CUPTI is one per process and its buffer callbacks carry
// no user data, so all instances share one process-wide buffer pool; CUPTI's single
// subscriber rule makes a second concurrent instance fail at subscribe().
std::unique_ptr<CuptiActivityApi> make_real_cupti_activity_api();

}  // namespace gpubench
