// c10d's ProcessGroupGloo, with Gloo's headers from Debian's libgloo-dev (gloo 5b14351,
// 2022): the torch wheel ships none, and LibTorch 2.11 was built with a newer Gloo
// (3135b0b, 2025) whose Store, Context and Pair differ in vtable and layout. This file
// stays sound because it touches no Gloo class itself: it calls only ProcessGroupGloo's
// out-of-line factories and constructor (compiled into libtorch_cpu with LibTorch's own
// Gloo), holds Gloo devices through shared_ptr, and uses the group through c10d::Backend's
// virtual interface. So: never link or preload Debian's libgloo (libtorch_cpu exports its
// own gloo:: symbols), never construct a GlooStore or touch gloo::Context, and include
// ProcessGroupGloo.hpp nowhere else. tests/harness/parallel checks the object file for it.
#include "harness/parallel/process_group.h"


#include <cstdlib>

// ProcessGroupGloo.hpp is empty unless USE_C10D_GLOO is defined (Debian's torch target
// defines it; a wheel's may not).
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace gpubench {
namespace {

std::shared_ptr<::gloo::transport::Device> gloo_device(bool all_ranks_local) {
  using Gloo = c10d::ProcessGroupGloo;
  // Loopback when every rank is here: no dependence on this host's name resolving.
  if (all_ranks_local) return Gloo::createDeviceForHostname("127.0.0.1");
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface != nullptr && *interface != '\0')
    return Gloo::createDeviceForInterface(interface);
  return Gloo::createDefaultDevice();  // this host's name, loopback if it does not resolve
}

}  // namespace

c10::intrusive_ptr<CollectiveGroup> make_gloo_group(const GroupRequest& request) {
  auto options = c10d::ProcessGroupGloo::Options::create(request.timeout);
  options->devices.push_back(gloo_device(request.all_ranks_local));
  // Two worker threads (the default): one bucket's all-reduce can run while the next is queued.
  return c10::make_intrusive<c10d::ProcessGroupGloo>(request.store, request.rank, request.world_size, options);
}

}  // namespace gpubench
