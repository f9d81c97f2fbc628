// The one place that knows whether CUPTI was compiled in (libkineto's HAS_CUPTI habit):
// everything else talks to CuptiActivityApi and builds on every machine.
#include "profile/cupti_activity_api.h"

#if GPUBENCH_CUPTI
#include "profile/cupti_activity_api_real.h"
#endif

namespace gpubench {

CuptiBackend make_cupti_activity_api() {
  CuptiBackend backend;
#if GPUBENCH_CUPTI
  backend.api = make_real_cupti_activity_api();
#else
  backend.unavailable_reason = "gpubench was built without CUPTI (CUDA::cupti was not found at configure time)";
#endif
  return backend;
}

}  // namespace gpubench
