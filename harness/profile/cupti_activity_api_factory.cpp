// The one place that builds the real CUPTI API (libkineto's factory habit): everything else
// talks to CuptiActivityApi, so the tests can feed it a mock.
#include "harness/profile/cupti_activity_api.h"
#include "harness/profile/cupti_activity_api_real.h"

namespace gpubench {

CuptiBackend make_cupti_activity_api() {
  CuptiBackend backend;
  backend.api = make_real_cupti_activity_api();
  return backend;
}

}  // namespace gpubench
