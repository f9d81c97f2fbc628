#include "harness/parallel/process_group.h"

#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

namespace gpubench {

std::string message_of(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) return c10_error->what_without_backtrace();
  return error.what();
}

std::string backend_for(const torch::Device& device) { return device.is_cuda() ? "nccl" : "gloo"; }

std::optional<std::string> backend_unavailable_reason(const std::string& backend) {
  if (backend == "gloo" || backend == "nccl") return std::nullopt;
  return "unknown collective backend '" + backend + "': expected gloo or nccl";
}

c10::intrusive_ptr<CollectiveGroup> make_process_group(const GroupRequest& request) {
  if (auto reason = backend_unavailable_reason(request.backend)) throw std::runtime_error(*reason);
  if (request.backend == "nccl") return make_nccl_group(request);
  return make_gloo_group(request);
}

void shutdown_group(c10::intrusive_ptr<CollectiveGroup>& group) noexcept {
  if (!group) return;
  try {
    group->shutdown();
  } catch (...) {
  }
  group.reset();
}

void wait_collective(const CollectiveGroup& group, c10d::Work& work, std::chrono::milliseconds timeout) {
  if (group.getBackendName() != "nccl") {
    work.wait(timeout);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!work.isCompleted()) {  // an event query per check; completes on error too
    if (std::chrono::steady_clock::now() >= deadline)
      throw std::runtime_error("the " + group.getBackendName() + " collective did not complete within " +
                               std::to_string(timeout.count()) + " ms");
    std::this_thread::yield();
  }
  work.wait();
}

std::optional<double> device_time_ms(const c10d::Work& work) {
  try {
    return static_cast<double>(work.getDuration());
  } catch (const std::exception&) {
    return std::nullopt;  // not timed by this backend, or not finished
  }
}

void run_within(std::function<void()> call, std::chrono::milliseconds timeout, const std::string& what) {
  // The promise is shared: a thread still blocked when we give up outlives this frame.
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> result = done->get_future();
  std::thread([call = std::move(call), done] {
    try {
      call();
      done->set_value();
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  }).detach();
  if (result.wait_for(timeout) != std::future_status::ready)
    throw std::runtime_error(what + " did not complete within " + std::to_string(timeout.count()) +
                             " ms (a peer rank probably died or never came)");
  result.get();
}

}  // namespace gpubench
